#include "generate/vm_lookup.h"

#include "util/text.h"

namespace dossier::generate {

HostSide HostOf(const View& view, const MachineLink& link) {
  HostSide h;
  h.host = view.Find(link.host);
  if (!h.host) return h;
  for (const auto& vm : h.host->machine.hypervisor.vms)
    if (vm.id == link.vm_id) h.vm = &vm;
  return h;
}

int64_t GuestNodeBoundTo(const Vm& vm, int64_t host_node) {
  for (const auto& n : vm.numa_nodes) {
    if (!n.hostnodes.known()) continue;
    auto v = ParseInt(*n.hostnodes);
    if (v && *v == host_node) return n.id;
  }
  return -1;
}

}  // namespace dossier::generate
