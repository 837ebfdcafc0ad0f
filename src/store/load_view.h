// Builds the View the renderers read from a dossier on disk: the latest collect record of each
// machine, in the order machines first appeared.
#pragma once

#include "model/view.h"
#include "store/dossier_dir.h"

namespace dossier {

// Records that do not parse are skipped and named in view.warnings.
Result<View> LoadView(const DossierDir& dir);
// The same from records already loaded.
View ViewFromRecords(const std::vector<Record>& records, std::vector<std::string> warnings);

}  // namespace dossier
