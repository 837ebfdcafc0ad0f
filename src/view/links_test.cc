#include "view/links.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// Each way a guest is linked or not, with what the report says: by the SMBIOS UUID (Proxmox's
// smbios1 and libvirt's <uuid> named as such), by a note (with why the UUID did not link), and
// each note that cannot link with its warning. Each case changes one thing of the first.
TEST(LinkMachines, EachWayALinkIsMadeOrRefusedSaysSo) {
  struct Case {
    const char* what;
    const char* guest_uuid;  // nullptr: unknown
    const char* uuid_reason;
    const char* vm_uuid;    // the host VM's smbios uuid, nullptr: none
    const char* kind;       // the host's hypervisor
    const char* note_host;  // nullptr: no note
    const char* note_vm;
    bool guest = true;
    // What comes out: the link's how and evidence, or the warning.
    const char* how;
    const char* evidence;
    const char* warning;
  };
  const std::vector<Case> cases = {
      {"uuid, proxmox", "u-1", "", "u-1", "proxmox", nullptr, "", true, "smbios-uuid",
       "the guest's SMBIOS UUID u-1 (/sys/class/dmi/id/product_uuid) is the smbios1 uuid of VM "
       "101 on 'pve' (/etc/pve/qemu-server/101.conf)",
       nullptr},
      {"uuid, libvirt", "u-1", "", "u-1", "libvirt", nullptr, "", true, "smbios-uuid",
       "the guest's SMBIOS UUID u-1 (/sys/class/dmi/id/product_uuid) is the <uuid> of VM 101 on "
       "'pve' (/etc/pve/qemu-server/101.conf)",
       nullptr},
      {"uuid matches nothing, no note", "u-1", "", "u-2", "proxmox", nullptr, "", true, nullptr,
       nullptr, nullptr},
      {"not a guest", "u-1", "", "u-1", "proxmox", nullptr, "", false, nullptr, nullptr, nullptr},
      {"uuid matches nothing, a note", "u-1", "", "u-2", "proxmox", "pve", "101", true, "note",
       "the notes say so (notes.toml:7); the guest's SMBIOS UUID u-1 matched no VM", nullptr},
      {"uuid unknown with a reason, a note", nullptr, "needs root", nullptr, "proxmox", "pve",
       "101", true, "note",
       "the notes say so (notes.toml:7); the guest's SMBIOS UUID is unknown (needs root)", nullptr},
      {"uuid unknown without a reason, a note", nullptr, "", nullptr, "proxmox", "pve", "101", true,
       "note",
       "the notes say so (notes.toml:7); the guest's SMBIOS UUID is unknown (not collected)",
       nullptr},
      {"a note naming a host not in the dossier", nullptr, "", nullptr, "proxmox", "elsewhere",
       "101", true, nullptr, nullptr,
       "notes.toml:7: guest 'g' is noted as on host 'elsewhere', which is not in the dossier: not "
       "linked"},
      {"a note without a VM id", nullptr, "", nullptr, "proxmox", "pve", "", true, nullptr, nullptr,
       "notes.toml:7: guest 'g' on host 'pve': no VM id (dossier note machine g --vm ID): not "
       "linked"},
      {"a note naming a VM the host lacks", nullptr, "", nullptr, "proxmox", "pve", "102", true,
       nullptr, nullptr,
       "notes.toml:7: guest 'g' on host 'pve': the host's facts list no VM 102: not linked"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    View v;
    MachineView g, host;
    g.machine.name = "g";
    g.machine.virtualization.guest.Set(c.guest, "cpuid");
    if (c.guest_uuid)
      g.machine.dmi.product_uuid.Set(c.guest_uuid, "/sys/class/dmi/id/product_uuid");
    else
      g.machine.dmi.product_uuid.Unknown(c.uuid_reason, "/sys/class/dmi/id/product_uuid");
    host.machine.name = "pve";
    host.machine.hypervisor.kind.Set(c.kind, "/etc/pve");
    Vm other, vm;
    other.id = "100";  // listed first, without a UUID: never the one linked
    vm.id = "101";
    if (c.vm_uuid) vm.smbios_uuid.Set(c.vm_uuid, "/etc/pve/qemu-server/101.conf");
    host.machine.hypervisor.vms = {other, vm};
    v.machines = {g, host};
    if (c.note_host) {
      NoteMachine n;
      n.name = "g";
      n.guest_of = c.note_host;
      n.vm = c.note_vm;
      n.line = 7;
      v.notes.machines = {n};
    }
    LinkMachines(&v);
    if (c.how) {
      ASSERT_EQ(v.links.size(), 1u);
      EXPECT_EQ(v.links[0].guest, "g");
      EXPECT_EQ(v.links[0].host, "pve");
      EXPECT_EQ(v.links[0].vm_id, "101");
      EXPECT_EQ(v.links[0].how, c.how);
      EXPECT_EQ(v.links[0].evidence, c.evidence);
    } else {
      EXPECT_TRUE(v.links.empty());
    }
    if (c.warning) {
      ASSERT_EQ(v.warnings.size(), 1u);
      EXPECT_EQ(v.warnings[0], c.warning);
    } else {
      EXPECT_TRUE(v.warnings.empty()) << v.warnings[0];
    }
  }
}

// A host VM with the guest's own UUID on the guest itself (a nested hypervisor listing its own
// VMs) is not its host: only another machine's VM links.
TEST(LinkMachines, AGuestIsNeverItsOwnHost) {
  View v;
  MachineView g;
  g.machine.name = "g";
  g.machine.virtualization.guest.Set(true, "cpuid");
  g.machine.dmi.product_uuid.Set("u-1", "/sys/class/dmi/id/product_uuid");
  Vm self;
  self.id = "9";
  self.smbios_uuid.Set("u-1", "x");
  g.machine.hypervisor.vms = {self};
  v.machines = {g};
  LinkMachines(&v);
  EXPECT_TRUE(v.links.empty());
}

}  // namespace
}  // namespace dossier
