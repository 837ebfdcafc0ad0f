// Staleness: which facts of the view may no longer hold. A machine's newest collect may be from a
// boot older than a later record of it shows (a p2p or serve run after a reboot): all its facts are
// then stale. A fact the newest collect could not read (needs root, a file absent that time) is
// taken from an older collect of the same machine and marked stale, with the reason.
#pragma once

#include <string>

#include "model/machine.h"

namespace dossier {

// Marks every fact of m stale with `why` (facts already stale keep their own reason).
void MarkAllStale(Machine* m, const std::string& why);

// Fills every unknown fact of latest that older knows, at the same path (model/fact_paths.h),
// marking it stale with `why`. Returns how many facts were filled.
int FillFromOlder(Machine* latest, const Machine& older, const std::string& why);

}  // namespace dossier
