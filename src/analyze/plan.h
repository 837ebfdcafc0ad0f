// The plan: each target of the notes with the newest measured value beside it, what has been
// accomplished (the notes' log and finished steps), and the next steps — the notes' steps and
// the findings' actions side by side, blocking first. Reads the view only.
#pragma once

#include "analyze/plan_types.h"
#include "view/view.h"

namespace dossier {

struct Analysis;

// The findings come from `analysis` (its machines; its plan is what this returns).
Plan BuildPlan(const View& view, const Analysis& analysis);

}  // namespace dossier
