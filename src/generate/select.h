// Choosing what a generator works on: the machine named by --machine (or the only one that fits)
// and, for a guest, its link to the host. The errors say what is missing and how to get it.
#pragma once

#include <string>

#include "generate/generator.h"
#include "generate/vm_lookup.h"

namespace dossier::generate {

// The machine --machine names; without --machine, the only machine for which `fits` holds.
// `kind` names what fits in messages ("guest", "Proxmox host").
Result<const MachineView*> PickMachine(const GenerateArgs& args, const View& view,
                                       bool (*fits)(const MachineView&), const char* kind);

bool IsGuest(const MachineView& mv);

// The guest's link to its host, or an error saying how to make one.
Result<const MachineLink*> LinkOf(const View& view, const MachineView& guest);

// What every guest-side generator starts from: the guest (--machine, or the only guest), its link,
// and its host in the dossier (with the VM when the host's facts list it). An error says which of
// them is missing and how to get it.
struct LinkedGuest {
  const Machine* guest = nullptr;
  const MachineLink* link = nullptr;
  HostSide host_side;  // host_side.host is never null
};
Result<LinkedGuest> PickLinkedGuest(const GenerateArgs& args, const View& view);

}  // namespace dossier::generate
