// The host side of a linked guest: its host machine and VM by the link's names, and the guest node
// bound to a host node, which numa-affinity and nccl-topo write into their artifacts.
#include "generate/vm_lookup.h"

#include <gtest/gtest.h>

namespace dossier::generate {
namespace {

VmNumaNode Node(int64_t id, const char* hostnodes) {
  VmNumaNode n;
  n.id = id;
  if (hostnodes) n.hostnodes.Set(hostnodes, "/etc/pve/qemu-server/100.conf");
  return n;
}

// Only a guest node bound to exactly that one host node counts; -1 (as documented) otherwise.
// The nodes are listed out of order and the first bound node is not node 0, so the id returned
// is the node's own id, never its position.
TEST(GuestNodeBoundTo, TheNodeBoundToExactlyThatHostNodeElseMinusOne) {
  Vm vm;
  vm.numa_nodes = {Node(3, "1"), Node(2, nullptr), Node(0, "0-1"),
                   Node(1, "x"), Node(5, "2"),     Node(6, "2")};
  EXPECT_EQ(GuestNodeBoundTo(vm, 1), 3);
  EXPECT_EQ(GuestNodeBoundTo(vm, 2), 5);   // the first of two bound to the same node
  EXPECT_EQ(GuestNodeBoundTo(vm, 0), -1);  // "0-1" is a range, not node 0
  EXPECT_EQ(GuestNodeBoundTo(vm, 4), -1);
  EXPECT_EQ(GuestNodeBoundTo(Vm{}, 0), -1);
}

TEST(HostOf, TheLinkedHostAndItsVmByIdElseNull) {
  View v;
  MachineView other, host;
  other.machine.name = "other";
  host.machine.name = "pve";
  Vm a, b;
  a.id = "101";
  b.id = "100";
  other.machine.hypervisor.vms = {b};
  host.machine.hypervisor.vms = {a, b};
  v.machines = {other, host};
  MachineLink l;
  l.host = "pve";
  l.vm_id = "100";
  HostSide h = HostOf(v, l);
  ASSERT_EQ(h.host, &v.machines[1]);
  EXPECT_EQ(h.vm, &v.machines[1].machine.hypervisor.vms[1]);
  l.vm_id = "102";
  h = HostOf(v, l);
  EXPECT_EQ(h.host, &v.machines[1]);
  EXPECT_EQ(h.vm, nullptr);
  l.host = "gone";
  l.vm_id = "100";
  h = HostOf(v, l);
  EXPECT_EQ(h.host, nullptr);
  EXPECT_EQ(h.vm, nullptr);
}

}  // namespace
}  // namespace dossier::generate
