#include "view/links.h"

#include <gtest/gtest.h>

#include <string>

namespace dossier {
namespace {

// A guest is linked by a note only by the notes entry that names it: another guest's note (here
// g2's, on the same host) says nothing about g1, which stays unlinked.
TEST(LinkMachines, ANoteLinksOnlyTheGuestItNames) {
  View v;
  for (const char* name : {"g1", "g2"}) {
    MachineView g;
    g.machine.name = name;
    g.machine.virtualization.guest.Set(true, "cpuid");
    g.machine.dmi.product_uuid.Unknown("needs root", "/sys/class/dmi/id/product_uuid");
    v.machines.push_back(g);
  }
  MachineView host;
  host.machine.name = "pve";
  host.machine.hypervisor.kind.Set("proxmox", "/etc/pve");
  Vm vm;
  vm.id = "101";
  host.machine.hypervisor.vms = {vm};
  v.machines.push_back(host);
  NoteMachine n;
  n.name = "g2";
  n.guest_of = "pve";
  n.vm = "101";
  n.line = 7;
  v.notes.machines = {n};
  LinkMachines(&v);
  ASSERT_EQ(v.links.size(), 1u);
  EXPECT_EQ(v.links[0].guest, "g2");
  EXPECT_EQ(v.links[0].host, "pve");
  EXPECT_EQ(v.links[0].vm_id, "101");
  EXPECT_EQ(v.links[0].how, "note");
  EXPECT_EQ(v.HostLinkOf("g1"), nullptr);
}

}  // namespace
}  // namespace dossier
