// What one imported part added, in a person's words: "9 PCI devices (8 GPUs), 12 IOMMU groups,
// kernel command line". Compares the machine before and after the part (every fact an importer
// sets carries provenance, so new provenance entries are exactly what the part said), so a new
// importer is summarised without code here.
#pragma once

#include <string>

#include "import/importer.h"

namespace dossier::import {

// Empty when the part added nothing at all.
std::string PartSummary(const Imported& before, const Imported& after);

}  // namespace dossier::import
