// What older records add to a view built from the newest collect of each machine: whether that
// collect predates the machine's latest boot (a later measurement ran in another boot: every fact
// stale), facts the newest collect could not read taken from older collects (marked stale), and
// the newest collect of the previous boot, which the analysis compares against (analyze/diff.h).
// Reads records already loaded; no I/O.
#pragma once

#include <vector>

#include "store/dossier_dir.h"
#include "view/view.h"

namespace dossier {

// Older collects read per machine, newest first, at most this many.
inline constexpr size_t kHistoryDepth = 8;

void AttachHistory(const std::vector<Record>& records, View* view);

// The collect records of `machine`, oldest first.
std::vector<const Record*> CollectsOf(const std::vector<Record>& records,
                                      const std::string& machine);

}  // namespace dossier
