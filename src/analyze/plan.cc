#include "analyze/plan.h"

#include <algorithm>

#include "analyze/analysis.h"
#include "analyze/serve_metrics.h"

namespace dossier {
namespace {

std::string At(const Notes& n, int64_t line) {
  return (n.path.empty() ? std::string("notes.toml") : n.path) + ":" + std::to_string(line);
}

std::vector<TargetStatus> Targets(const View& view) {
  std::vector<TargetStatus> out;
  for (const auto& t : view.notes.targets) {
    TargetStatus s;
    s.target = t;
    s.text = TargetText(t);
    s.verdict = "not measured";
    for (const auto& mv : view.machines) {
      auto v = LatestForTarget(mv.serve, t);
      if (!v || (s.measured && v->measurement->time <= s.time)) continue;
      s.measured = true;
      s.value = v->value;
      s.machine = mv.machine.name;
      s.time = v->measurement->time;
      s.verdict = TargetMet(t, v->value) ? "met" : "not met";
      const std::string& boot = v->measurement->boot_id;
      s.stale = !boot.empty() && mv.machine.boot_id.known() && boot != *mv.machine.boot_id
                    ? "measured in an earlier boot of " + mv.machine.name
                    : "";
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

Plan BuildPlan(const View& view, const Analysis& analysis) {
  Plan p;
  const Notes& n = view.notes;
  p.targets = Targets(view);
  for (const auto& t : n.tried)
    p.accomplished.push_back({t.what, t.result, t.machine, t.when, At(n, t.line)});
  for (const auto& s : n.next)
    if (s.done) p.accomplished.push_back({s.step, "done", s.machine, "", At(n, s.line)});

  // Order: the notes' blocking steps, critical findings' actions, the notes' other steps, then
  // warnings' and infos' actions (an info finding contributes its first action only).
  std::vector<NextStep> blocking_notes, other_notes, crit, warn, info;
  for (const auto& s : n.next) {
    if (s.done) continue;
    NextStep x{s.step, s.verify, s.machine, s.blocking, At(n, s.line), ""};
    (s.blocking ? blocking_notes : other_notes).push_back(std::move(x));
  }
  for (const auto& mv : view.machines) {
    for (const auto& f : analysis.Of(mv).findings) {
      int rank = SeverityRank(f.severity);
      std::string from = "finding " + f.id + (f.stale.empty() ? "" : " (stale)");
      for (size_t i = 0; i < f.actions.size(); ++i) {
        if (rank == 2 && i > 0) break;
        NextStep x{f.actions[i].step, f.actions[i].verify, mv.machine.name, rank == 0, from,
                   f.severity};
        (rank == 0 ? crit : rank == 1 ? warn : info).push_back(std::move(x));
      }
    }
  }
  for (auto* v : {&blocking_notes, &crit, &other_notes, &warn, &info})
    p.next_steps.insert(p.next_steps.end(), v->begin(), v->end());
  return p;
}

}  // namespace dossier
