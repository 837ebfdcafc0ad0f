// qemu-args on a built view: a clique only where the host's facts say P2P can work, each pair
// said, and a refusal naming what to run on the host when nothing is known.
#include <gtest/gtest.h>

#include "generate/generator.h"

namespace dossier {
namespace {

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
  GenerateArgs a;
  auto r = GenerateQemuArgs(a, v, Analysis{});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("nvidia-smi topo -p2p rw"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("6 pair(s), hostpci0 (0000:01:00.0) - hostpci1 (0000:11:00.0)"),
            std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace dossier
