#include "analyze/analyze.h"

#include "analyze/plan.h"
#include "analyze/rule.h"

namespace dossier {

void Analyze(View* view) {
  for (auto& mv : view->machines) mv.findings = RunRules({mv, *view, view->notes});
  view->plan = BuildPlan(*view);
}

}  // namespace dossier
