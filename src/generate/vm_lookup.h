// The host-side facts a generator needs for a linked guest: the host machine and the VM.
#pragma once

#include <string>

#include "view/view.h"

namespace dossier::generate {

struct HostSide {
  const MachineView* host = nullptr;
  const Vm* vm = nullptr;  // nullptr when the host's facts do not list the VM
};

HostSide HostOf(const View& view, const MachineLink& link);

// The guest node whose memory is bound to `host_node` (numaN: hostnodes=H, a single node); -1 when
// no guest node is bound to exactly that host node.
int64_t GuestNodeBoundTo(const Vm& vm, int64_t host_node);

}  // namespace dossier::generate
