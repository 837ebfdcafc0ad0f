// The analysis over a built view, where the view is built (store/load_view.cc for a dossier,
// cli/collect.cc for a one-shot collect): the rule table on every machine, then the plan. Pure:
// reads and fills the view, never does I/O. Staleness and the changes since the previous boot
// need older records and are attached before (store/history.h).
#pragma once

#include "model/view.h"

namespace dossier {

void Analyze(View* view);

}  // namespace dossier
