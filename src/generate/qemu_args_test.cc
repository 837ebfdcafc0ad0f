// qemu-args on a built view: a clique only where the host's facts say P2P can work, each pair
// said, and a refusal naming what to run on the host when nothing is known.
#include <gtest/gtest.h>

#include "generate/generator.h"
#include "view/host_p2p.h"

namespace dossier {
namespace {

// The link's pair verdicts, as view/links.cc computes them, after the host's facts were set.
void ComputePairs(View* v) {
  MachineLink& l = v->links[0];
  l.pairs.clear();
  for (size_t i = 0; i < l.gpus.size(); ++i)
    for (size_t j = i + 1; j < l.gpus.size(); ++j) {
      HostP2p h =
          HostP2pBetween(v->machines[0].machine, l.gpus[i].host_address, l.gpus[j].host_address);
      l.pairs.push_back({i, j, h.level, h.can, h.decided, h.why});
    }
}

// A Proxmox host with four GPUs: 0-1 reported OK by the host driver, 2-3 under one switch (PXB),
// 0/1 to 2/3 across root complexes with no status; its VM 100 passes all four, 2 and 3 as whole
// devices (bare addresses).
View QemuArgsView(bool with_status) {
  View v;
  MachineView host, guest;
  host.machine.name = "pve";
  host.machine.hypervisor.kind.Set("proxmox", "/etc/pve");
  const char* addrs[] = {"0000:01:00.0", "0000:11:00.0", "0000:81:00.0", "0000:82:00.0"};
  for (int i = 0; i < 4; ++i) {
    Gpu g;
    g.index = i;
    g.address = addrs[i];
    host.machine.gpus.push_back(g);
  }
  host.machine.topology.gpu_levels = {{"X", "SYS", "SYS", "SYS"},
                                      {"SYS", "X", "SYS", "SYS"},
                                      {"SYS", "SYS", "X", "PXB"},
                                      {"SYS", "SYS", "PXB", "X"}};
  if (with_status) {
    std::vector<std::vector<std::string>> st = {
        {"X", "OK", "", ""}, {"OK", "X", "", ""}, {"", "", "X", ""}, {"", "", "", "X"}};
    host.machine.topology.p2p_status.read = st;
    host.machine.topology.p2p_status.write = st;
  }
  Vm vm;
  vm.id = "100";
  const char* conf[] = {"0000:01:00.0", "0000:11:00.0", "0000:81:00", "0000:82:00"};
  for (int i = 0; i < 4; ++i) {
    VmHostPci h;
    h.slot = "hostpci" + std::to_string(i);
    h.host.Set(conf[i], "/etc/pve/qemu-server/100.conf");
    vm.hostpci.push_back(h);
  }
  host.machine.hypervisor.vms.push_back(vm);
  guest.machine.name = "vm";
  guest.machine.virtualization.guest.Set(true, "test");
  MachineLink l;
  l.guest = "vm";
  l.host = "pve";
  l.vm_id = "100";
  l.how = "smbios-uuid";
  for (int i = 0; i < 4; ++i) {
    PassthroughGpu p;
    p.guest_address = "0000:0" + std::to_string(i + 1) + ":00.0";
    p.slot = "hostpci" + std::to_string(i);
    p.host_address = addrs[i];
    p.source = "qemu-cmdline";
    l.gpus.push_back(p);
  }
  v.machines = {host, guest};
  v.links = {l};
  ComputePairs(&v);
  return v;
}

TEST(QemuArgs, CliquesOnlyWhereTheHostCanRouteP2p) {
  GenerateArgs a;
  a.machine = "vm";
  auto r = GenerateQemuArgs(a, QemuArgsView(true), Analysis{});
  ASSERT_TRUE(r) << r.error().message;
  // 0-1 by the host driver's OK; 2-3 by the shared switch, as whole devices (hostpciN.0).
  EXPECT_EQ(
      r->text,
      "args: -set device.hostpci0.x-nv-gpudirect-clique=0 -set "
      "device.hostpci1.x-nv-gpudirect-clique=0 -set device.hostpci2.0.x-nv-gpudirect-clique=1 "
      "-set device.hostpci3.0.x-nv-gpudirect-clique=1\n");
  EXPECT_NE(r->notes.find("reports P2P read and write OK"), std::string::npos) << r->notes;
  EXPECT_NE(r->notes.find("share a PCIe switch on the host (PXB)"), std::string::npos);
  EXPECT_NE(r->notes.find("no clique: host level SYS"), std::string::npos);
  EXPECT_NE(r->verify.find("qm showcmd 100"), std::string::npos);
}

TEST(QemuArgs, HostDriverSayingNoKeepsThePairOut) {
  View v = QemuArgsView(true);
  v.machines[0].machine.topology.p2p_status.read[0][1] = "NS";
  v.machines[0].machine.topology.p2p_status.read[1][0] = "NS";
  ComputePairs(&v);
  GenerateArgs a;
  auto r = GenerateQemuArgs(a, v, Analysis{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->text.find("hostpci0."), std::string::npos) << r->text;
  EXPECT_NE(r->notes.find("reports P2P read NS"), std::string::npos) << r->notes;
}

TEST(QemuArgs, NothingKnownIsARefusalSayingWhatToRunOnTheHost) {
  View v = QemuArgsView(false);
  v.machines[0].machine.topology.gpu_levels[2][3] = "SYS";
  v.machines[0].machine.topology.gpu_levels[3][2] = "SYS";
  ComputePairs(&v);
  GenerateArgs a;
  auto r = GenerateQemuArgs(a, v, Analysis{});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("nvidia-smi topo -p2p rw"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("6 pair(s), hostpci0 (0000:01:00.0) - hostpci1 (0000:11:00.0)"),
            std::string::npos)
      << r.error().message;
}

// libvirt: the device aliases, in a <qemu:override> when the running QEMU got -device as JSON
// (where -set does not reach), in the <qemu:commandline> -set form when it got key=value.
TEST(QemuArgs, LibvirtFormFollowsHowTheRunningQemuGotItsDevices) {
  View v = QemuArgsView(true);
  Machine& host = v.machines[0].machine;
  host.hypervisor.kind.Set("libvirt", "/etc/libvirt/qemu");
  for (size_t i = 0; i < 4; ++i) v.links[0].gpus[i].slot = "hostdev" + std::to_string(i + 1);
  host.hypervisor.vms[0].qemu_json_devices.Set(true, "/proc/41877/cmdline");
  GenerateArgs a;
  auto r = GenerateQemuArgs(a, v, Analysis{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(r->text.find("<qemu:override>\n  <qemu:device alias='hostdev1'>\n    <qemu:frontend>\n"
                         "      <qemu:property name='x-nv-gpudirect-clique' type='unsigned' "
                         "value='0'/>"),
            std::string::npos)
      << r->text;
  EXPECT_NE(r->text.find("<qemu:device alias='hostdev4'>"), std::string::npos) << r->text;
  EXPECT_EQ(r->text.find("-set"), std::string::npos) << r->text;
  EXPECT_NE(r->notes.find("-device as JSON"), std::string::npos) << r->notes;
  EXPECT_NE(r->verify.find("virsh dumpxml 100"), std::string::npos);

  host.hypervisor.vms[0].qemu_json_devices.Set(false, "/proc/41877/cmdline");
  r = GenerateQemuArgs(a, v, Analysis{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(r->text.find("<qemu:commandline>\n  <qemu:arg value='-set'/>\n  <qemu:arg "
                         "value='device.hostdev1.x-nv-gpudirect-clique=0'/>"),
            std::string::npos)
      << r->text;
  EXPECT_EQ(r->text.find("qemu:override"), std::string::npos) << r->text;
}

}  // namespace
}  // namespace dossier
