#include "analyze/analysis.h"

#include "analyze/diff.h"
#include "analyze/plan.h"
#include "analyze/rule.h"

namespace dossier {

const MachineAnalysis& Analysis::Of(const std::string& machine) const {
  static const MachineAnalysis kNone;
  for (const auto& m : machines)
    if (m.machine == machine) return m;
  return kNone;
}

Analysis Analyze(const View& view) {
  Analysis a;
  a.verdicts = DecideVerdicts(view);
  for (const auto& mv : view.machines) {
    MachineAnalysis ma;
    ma.machine = mv.machine.name;
    // Changes since the previous boot: between the two records as collected.
    if (mv.previous) {
      const Machine& now = mv.as_collected ? *mv.as_collected : mv.machine;
      ma.changes = DiffRecords(mv.previous->machine, now, view);
      ma.changes.from = {mv.previous->record.file, mv.previous->record.time, mv.previous->boot_id};
      ma.changes.to = {mv.record.file, mv.record.time, now.boot_id.value_or("")};
    }
    ma.memory_plans = MachineMemoryPlans(mv.machine, view.notes);
    ma.findings = RunRules({mv, view, view.notes, ma.changes, &a.verdicts, &ma.memory_plans});
    ma.cross_checks = CrossChecks(mv.machine);
    a.machines.push_back(std::move(ma));
  }
  a.plan = BuildPlan(view, a);
  return a;
}

}  // namespace dossier
