// The analysis over a built view (view/build_view.h): the rule table on every machine, the changes
// since each machine's previous boot, then the plan. Pure: reads the view, never does I/O. The
// result sits beside the view (renderers and generators read both); the view itself holds no
// analysis types.
#pragma once

#include <string>
#include <vector>

#include "analyze/cross_checks.h"
#include "analyze/diff_types.h"
#include "analyze/finding.h"
#include "analyze/memory_plan.h"
#include "analyze/plan_types.h"
#include "analyze/verdicts.h"
#include "view/view.h"

namespace dossier {

struct MachineAnalysis {
  std::string machine;            // MachineView::machine.name
  std::vector<Finding> findings;  // rule table order
  MachineDiff changes;            // since the previous boot; changes.from.file empty when none
  std::vector<CrossCheck> cross_checks;  // files that describe the machine, checked against it
  // Per served model: the plan for its layout, then the alternatives (analyze/memory_plan.h).
  std::vector<MemoryPlan> memory_plans;
};

struct Analysis {
  std::vector<MachineAnalysis> machines;  // in the view's order
  Plan plan;                              // targets with measured values, next steps, accomplished
  VerdictTable verdicts;  // the questions decided once per machine, before the rules

  // The analysis of a machine of the view (an empty one for a name the view does not have).
  const MachineAnalysis& Of(const std::string& machine) const;
  const MachineAnalysis& Of(const MachineView& mv) const { return Of(mv.machine.name); }
};

Analysis Analyze(const View& view);

}  // namespace dossier
