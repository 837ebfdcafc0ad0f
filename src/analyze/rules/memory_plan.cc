// plan.server-disagrees: the memory plan (analyze/memory_plan.h) beside what the serving engine
// itself logged at start-up. A difference past 10 % means an input of the plan is not what the
// server runs with (a quantization left some modules out, the layout flags, a memory fraction),
// or the engine holds memory the plan does not model; either way the plan's alternatives are not
// to be trusted until it is found.
#include <fmt/format.h>

#include <cmath>

#include "analyze/evidence.h"
#include "analyze/memory_plan.h"
#include "analyze/rule.h"

namespace dossier {

std::optional<Finding> RulePlanServerDisagrees(const RuleContext& ctx) {
  std::vector<MemoryPlan> own;
  if (!ctx.memory_plans) own = MachineMemoryPlans(ctx.m(), ctx.notes);
  for (const MemoryPlan& p : ctx.memory_plans ? *ctx.memory_plans : own) {
    std::vector<const PlanCheck*> off;
    for (const auto& c : p.checks)
      if (std::fabs(c.Difference()) > kPlanDisagreement) off.push_back(&c);
    if (off.empty()) continue;
    Finding f;
    f.title = fmt::format("The memory plan and the server's log disagree on {} ({:+.0f} %)",
                          off.front()->what, 100 * off.front()->Difference());
    for (const auto* c : off) {
      f.evidence.push_back(Ev("plan: " + c->what, fmt::format("{:.2f} {}", c->plan, c->unit),
                              "dossier plan (" + p.label + ", " + p.layout.Text() + ")"));
      f.evidence.push_back(
          Ev("server: " + c->what, fmt::format("{:.2f} {}", c->server, c->unit), c->server_source));
    }
    for (const auto& in : p.inputs) f.evidence.push_back(Ev("plan input", in, "dossier plan"));
    f.explanation =
        "The plan computes weights and KV cache from config.json, the quantization config and "
        "the server's flags; the server measured its own. A difference past 10 % means one of "
        "the plan's inputs is not what the server runs with, or the engine holds memory the plan "
        "does not model (activations, CUDA graphs, an indexer cache). Until it is found, the "
        "plan's figures for other layouts are not to be relied on.";
    f.actions.push_back({"Check " + off.front()->check_inputs +
                             " against the server's start-up log and command line",
                         "dossier plan --format json", ""});
    return f;
  }
  return std::nullopt;
}

}  // namespace dossier
