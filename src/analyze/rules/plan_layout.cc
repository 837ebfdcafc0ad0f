// plan.target-short: the served layout's memory plan holds fewer requests of the context length
// at once than the notes' target asks for. The plan's alternative layouts (analyze/memory_plan.h)
// are computed on the same GPUs with the same inputs, so the finding can say which of them would
// hold the target and which would not, before anyone restarts a server to find out.
#include <fmt/format.h>

#include <algorithm>

#include "analyze/evidence.h"
#include "analyze/memory_plan.h"
#include "analyze/rule.h"

namespace dossier {
namespace {

// The engine's flags for a layout, as a person would type them (vLLM's and SGLang's names).
std::string FlagsFor(const PlanLayout& l, const std::string& engine) {
  const bool sglang = engine == "sglang";
  std::string f = (sglang ? "--tp " : "--tensor-parallel-size ") + std::to_string(l.tp);
  if (l.pp > 1) f += (sglang ? " --pp-size " : " --pipeline-parallel-size ") + std::to_string(l.pp);
  if (l.ep > 1) f += sglang ? fmt::format(" --ep-size {}", l.ep) : " --enable-expert-parallel";
  if (l.dp_attention > 1) f += fmt::format(" --enable-dp-attention --dp {}", l.dp_attention);
  if (l.dcp > 1) f += fmt::format(" --decode-context-parallel-size {}", l.dcp);
  return f;
}

}  // namespace

std::optional<Finding> RulePlanTargetShort(const RuleContext& ctx) {
  std::vector<MemoryPlan> own;
  if (!ctx.memory_plans) own = MachineMemoryPlans(ctx.m(), ctx.notes);
  const std::vector<MemoryPlan>& plans = ctx.memory_plans ? *ctx.memory_plans : own;
  for (size_t i = 0; i < plans.size(); ++i) {
    const MemoryPlan& served = plans[i];
    // Only a verdict on the target itself: a plan whose weights do not fit is another question,
    // and one without a target or a known concurrency says nothing here.
    if (!served.label.starts_with("served") || !served.target_concurrency ||
        !served.max_concurrency.known() || !served.fits.known() || *served.fits)
      continue;
    const double target = static_cast<double>(*served.target_concurrency);
    std::vector<const MemoryPlan*> reach, short_of;
    for (size_t j = i + 1; j < plans.size() && !plans[j].label.starts_with("served"); ++j) {
      const MemoryPlan& a = plans[j];
      if (!a.max_concurrency.known()) continue;
      (*a.max_concurrency >= target ? reach : short_of).push_back(&a);
    }
    auto most = [](const MemoryPlan* x, const MemoryPlan* y) {
      return *x->max_concurrency > *y->max_concurrency;
    };
    std::sort(reach.begin(), reach.end(), most);
    std::sort(short_of.begin(), short_of.end(), most);

    Finding f;
    const int64_t context = served.context.value_or(0);
    f.title = fmt::format("{} holds {:.1f} requests of {} tokens at once; the target asks for {}",
                          served.layout.Text(), *served.max_concurrency, context,
                          *served.target_concurrency);
    f.evidence.push_back(Ev("served: maximum concurrency", served.max_concurrency));
    f.evidence.push_back(
        Ev("target", fmt::format("{} requests at once", target), served.target_from));
    for (const auto* a : reach)
      f.evidence.push_back(
          Ev("alternative " + a->layout.Text() + ": maximum concurrency", a->max_concurrency));
    for (const auto* a : short_of)
      f.evidence.push_back(
          Ev("alternative " + a->layout.Text() + ": maximum concurrency", a->max_concurrency));
    f.explanation = fmt::format(
        "The KV cache left per GPU after the weights holds {} tokens under {}; requests of {} "
        "tokens each fill it at {:.1f} at once, so the server queues the rest and the target's "
        "concurrency is not reached whatever the interconnect does. The plan computed the other "
        "layouts on the same GPUs with the same memory fraction, reserve and context.",
        served.kv_tokens_per_gpu.known() ? fmt::format("{}", *served.kv_tokens_per_gpu) : "?",
        served.layout.Text(), context, *served.max_concurrency);
    for (const auto* a : short_of)
      f.not_helping.push_back(fmt::format("{}: {:.1f} requests at once, still short of {}",
                                          a->layout.Text(), *a->max_concurrency,
                                          *served.target_concurrency));
    for (const auto* a : reach)
      f.actions.push_back(
          {fmt::format("Restart the server as {} ({}): {:.1f} requests of {} tokens at once by "
                       "the plan",
                       a->layout.Text(), FlagsFor(a->layout, served.engine), *a->max_concurrency,
                       context),
           "dossier import SERVER-START-UP.log --machine NAME; dossier plan (the log beside the "
           "plan)",
           ""});
    if (reach.empty())
      f.actions.push_back(
          {"No layout the plan computed reaches the target on these GPUs: "
           "shorten the context asked (--context-length / --max-model-len), an "
           "FP8 KV cache, or more GPUs; plan each before restarting",
           "dossier plan --kv-dtype fp8 --context N (the concurrency column)", ""});
    return f;
  }
  return std::nullopt;
}

}  // namespace dossier
