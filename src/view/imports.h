// Folding `dossier import` records into the machines of the view. An import holds only what the
// pasted text said; it fills what the machine's collect (or an earlier import) does not know, and
// where both know a fact and disagree, the newer record's value stands and the disagreement is
// kept so the report shows both. Imported facts older than a collect of the machine that does not
// have them are marked stale (they were not seen again).
#pragma once

#include <string>

#include "model/machine.h"
#include "view/view.h"

namespace dossier {

struct OverlaySide {
  std::string label;   // "collect 2026-12-02T16:30:00Z", "import 2026-12-03T09:00:00Z"
  bool newer = false;  // the import is newer than what the machine holds so far
};

// Overlays `imported` on `base` (the machine so far). `why_stale` marks the facts it adds when it
// is older. Disagreements are appended to `out`.
// After a machine's imports are overlaid: the Proxmox PCI mappings among them are checked
// against the devices and IOMMU groups the machine now has, as Proxmox checks them at VM start.
void CheckImportedMappings(Machine* m);

void OverlayImport(Machine* base, const Machine& imported, const std::string& base_label,
                   const OverlaySide& side, const std::string& why_stale,
                   std::vector<FactDisagreement>* out);

}  // namespace dossier
