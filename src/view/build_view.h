// Builds the View from records: the latest collect record of each machine, in the order machines
// first appeared, with its measurements (p2p, serve-bench records) and what older records add
// (view/history.h). A dossier on disk and a one-shot collect go through the same path: records in,
// machines out. No analysis here (analyze/analysis.h runs over the built view).
#pragma once

#include <string>
#include <vector>

#include "model/machine.h"
#include "model/notes.h"
#include "store/dossier_dir.h"
#include "view/view.h"

namespace dossier {

// Records that do not parse are skipped and named in view.warnings.
View BuildView(const std::vector<Record>& records, Notes notes, std::vector<std::string> warnings);

// The dossier at `dir`: its records and its notes (a broken notes file is a warning, not fatal).
Result<View> LoadView(const DossierDir& dir);

// The dossier at `dir` from its records already loaded (its notes read here).
View DossierView(const DossierDir& dir, const std::vector<Record>& records,
                 std::vector<std::string> warnings);

// A one-shot collect: the machine as the collect record it would have been, through BuildView.
View OneShotView(const Machine& m);

}  // namespace dossier
