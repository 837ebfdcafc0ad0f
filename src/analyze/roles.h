// What a machine is, for the rules: a guest, bare metal, or a hypervisor host passing GPUs to
// guests; and which machine of the dossier is a guest's host (named in the notes, or the one
// machine whose GPUs are bound to vfio-pci).
#pragma once

#include <string>
#include <vector>

#include "analyze/rule.h"

namespace dossier {

bool IsGuest(const Machine& m);     // virtualization.guest known and true
bool IsNotGuest(const Machine& m);  // virtualization.guest known and false
bool BoundToVfio(const PciDevice& d);

// The host of ctx's machine when the dossier holds it; nullptr otherwise.
const MachineView* HostOf(const RuleContext& ctx);

// The GPUs of m, each alone under its own root complex: true when every GPU's root complex is
// known and no two share one (and there are at least two GPUs).
bool GpusOnSeparateRootComplexes(const Machine& m);

// "a, b and c"
std::string JoinList(const std::vector<std::string>& items, size_t max_items = 8);

}  // namespace dossier
