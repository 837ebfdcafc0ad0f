// Comparing two collect records of one machine: devices added, removed or moved (the same
// vendor:device at another address or under another parent), IOMMU groups renumbered (same
// members, new number) or regrouped (which device moved from which group to which), links,
// drivers, kernel command line, software versions, P2P status and every other fact (walked
// generically through visit()), and which findings appeared or cleared. Pure: reads the model.
#pragma once

#include <vector>

#include "analyze/diff_types.h"
#include "analyze/finding.h"
#include "model/machine.h"
#include "view/view.h"

namespace dossier {

// The structural and fact changes from a to b (from/to sides are left for the caller to fill).
MachineDiff DiffMachines(const Machine& a, const Machine& b);

// Two states of a machine whatever they came from (collects, imports, one of each). A side
// `pasted` (an import record) holds only what was pasted: only what both sides know is compared
// (devices present on one side only, facts one side does not know, findings are left out and
// said in not_compared); two collects compare as DiffRecords does.
MachineDiff DiffStates(const Machine& a, bool a_pasted, const Machine& b, bool b_pasted,
                       const View& view);

// Adds finding-appeared / finding-cleared changes.
void DiffFindings(const std::vector<Finding>& a, const std::vector<Finding>& b, MachineDiff* d);

// Both: runs the rules on each machine (as the only record of it, without measurements; the other
// machines of `view` and its notes as context) and compares the findings too.
MachineDiff DiffRecords(const Machine& a, const Machine& b, const View& view);

}  // namespace dossier
