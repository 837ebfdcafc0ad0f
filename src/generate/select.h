// Choosing what a generator works on: the machine named by --machine (or the only one that fits)
// and, for a guest, its link to the host. The errors say what is missing and how to get it.
#pragma once

#include <string>

#include "generate/generator.h"

namespace dossier::generate {

// The machine --machine names; without --machine, the only machine for which `fits` holds.
// `kind` names what fits in messages ("guest", "Proxmox host").
Result<const MachineView*> PickMachine(const GenerateArgs& args, const View& view,
                                       bool (*fits)(const MachineView&), const char* kind);

bool IsGuest(const MachineView& mv);

// The guest's link to its host, or an error saying how to make one.
Result<const MachineLink*> LinkOf(const View& view, const MachineView& guest);

}  // namespace dossier::generate
