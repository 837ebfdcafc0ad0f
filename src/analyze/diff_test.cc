#include "analyze/diff.h"

#include <gtest/gtest.h>

#include "../tests/model_builders.h"

namespace dossier {
namespace {

using testing::SeedHost;
using testing::SwitchBox;

std::vector<const Change*> OfKind(const MachineDiff& d, const std::string& kind) {
  std::vector<const Change*> out;
  for (const auto& c : d.changes)
    if (c.kind == kind) out.push_back(&c);
  return out;
}

Machine Rebooted(Machine m, const std::string& boot) {
  m.boot_id = Known(boot, "/proc/sys/kernel/random/boot_id");
  return m;
}

PciDevice* PciAt(Machine* m, const std::string& addr) {
  for (auto& d : m->pci.devices)
    if (d.address == addr) return &d;
  return nullptr;
}

// The seed story: ACS changed in the BIOS, the host rebooted, every IOMMU group got a new number
// and kept its members.
TEST(Diff, AcsChangeRenumberedTheHostsIommuGroups) {
  Machine a = SeedHost(20);
  Machine b = Rebooted(SeedHost(40), "22222222-host-boot-b");
  MachineDiff d = DiffMachines(a, b);
  EXPECT_TRUE(d.rebooted);
  auto ren = OfKind(d, "iommu-renumbered");
  ASSERT_EQ(ren.size(), 8u);
  EXPECT_EQ(ren[0]->subject, "IOMMU group 20");
  EXPECT_EQ(ren[0]->before, "group 20");
  EXPECT_EQ(ren[0]->after, "group 40");
  EXPECT_NE(ren[0]->detail.find("0000:01:00.0, 0000:01:00.1"), std::string::npos);
  EXPECT_TRUE(OfKind(d, "iommu-regrouped").empty());
  EXPECT_TRUE(OfKind(d, "device-added").empty());
  // Group numbers are covered by the group changes, not repeated as device facts.
  EXPECT_TRUE(OfKind(d, "fact").empty()) << OfKind(d, "fact")[0]->subject;
}

TEST(Diff, RegroupedSaysWhichDeviceMovedFromWhichGroupToWhich) {
  Machine a = SeedHost(20);
  Machine b = SeedHost(20);
  // GPU 1 and its audio function join GPU 0's group 20 (ACS off on a shared bridge).
  for (const char* addr : {"0000:11:00.0", "0000:11:00.1"})
    PciAt(&b, addr)->iommu_group = Known(int64_t{20}, "x");
  b.iommu.groups[0].devices = {"0000:01:00.0", "0000:01:00.1", "0000:11:00.0", "0000:11:00.1"};
  b.iommu.groups.erase(b.iommu.groups.begin() + 1);
  MachineDiff d = DiffMachines(a, b);
  auto re = OfKind(d, "iommu-regrouped");
  ASSERT_FALSE(re.empty());
  bool gpu1 = false;
  for (const Change* c : re) {
    if (c->subject != "0000:11:00.0") continue;
    gpu1 = true;
    EXPECT_EQ(c->before, "group 21 (with 0000:11:00.1)");
    EXPECT_EQ(c->after, "group 20 (with 0000:01:00.0, 0000:01:00.1, 0000:11:00.1)");
    EXPECT_EQ(c->detail, "0000:11:00.0 moved from IOMMU group 21 to 20");
  }
  EXPECT_TRUE(gpu1);
  bool gpu0 = false;
  for (const Change* c : re)
    if (c->subject == "0000:01:00.0") {
      gpu0 = true;
      EXPECT_EQ(c->detail, "0000:01:00.0 stays in IOMMU group 20, whose members changed");
    }
  EXPECT_TRUE(gpu0);
}

TEST(Diff, DevicesAddedRemovedAndMoved) {
  Machine a = SwitchBox();
  Machine b = SwitchBox();
  // The NIC moved to another slot (same vendor:device), a GPU was removed, a new card appeared.
  PciAt(&b, "0000:05:00.0")->address = "0000:06:00.0";
  b.pci.devices.erase(b.pci.devices.begin() + 6);  // 0000:04:00.0
  b.gpus.pop_back();
  b.pci.devices.push_back(testing::Dev("0000:07:00.0", "0x144d", "0xa80a", "0x010802",
                                       "0000:02:02.0", "pci0000:00", "endpoint"));
  MachineDiff d = DiffMachines(a, b);
  auto moved = OfKind(d, "device-moved");
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_EQ(moved[0]->subject, "0000:06:00.0");
  EXPECT_EQ(moved[0]->before, "0000:05:00.0 under 0000:02:02.0");
  auto removed = OfKind(d, "device-removed");
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0]->subject, "0000:04:00.0");
  auto added = OfKind(d, "device-added");
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0]->subject, "0000:07:00.0");
  // Facts of devices that came or went are not listed one by one.
  for (const auto& c : d.changes) EXPECT_EQ(c.subject.find("0000:04:00.0 "), std::string::npos);
}

// Two devices of one identity that both moved (two identical GPUs in other slots after a
// reseat): each removed address is paired with one added address, in address order, and none is
// left over as removed or added.
TEST(Diff, TwoIdenticalDevicesThatMovedArePairedOneToOne) {
  Machine a = SwitchBox();
  Machine b = SwitchBox();
  PciAt(&b, "0000:03:00.0")->address = "0000:0a:00.0";
  PciAt(&b, "0000:04:00.0")->address = "0000:0b:00.0";
  MachineDiff d = DiffMachines(a, b);
  auto moved = OfKind(d, "device-moved");
  ASSERT_EQ(moved.size(), 2u);
  EXPECT_EQ(moved[0]->subject, "0000:0a:00.0");
  EXPECT_EQ(moved[0]->before, "0000:03:00.0 under 0000:02:00.0");
  EXPECT_EQ(moved[1]->subject, "0000:0b:00.0");
  EXPECT_EQ(moved[1]->before, "0000:04:00.0 under 0000:02:01.0");
  EXPECT_TRUE(OfKind(d, "device-removed").empty());
  EXPECT_TRUE(OfKind(d, "device-added").empty());
}

TEST(Diff, LinksDriversCommandLineSoftwareAndTopology) {
  Machine a = SwitchBox();
  Machine b = SwitchBox();
  testing::SetLink(PciAt(&b, "0000:03:00.0"), 4, 8, 4, 16);
  PciAt(&b, "0000:04:00.0")->driver = Known(std::string("vfio-pci"), "x");
  b.kernel.cmdline = Known(std::string("BOOT_IMAGE=/vmlinuz quiet iommu=pt pci=realloc"), "x");
  PythonEnv env;
  env.path = "/opt/venv";
  env.packages = {{"torch", "2.9.0"}, {"sglang", "0.5.8"}};
  a.software.python_envs.push_back(env);
  env.packages["torch"] = "2.9.1";
  b.software.python_envs.push_back(env);
  a.topology.gpu_levels = {{"X", "PXB"}, {"PXB", "X"}};
  b.topology.gpu_levels = {{"X", "PHB"}, {"PHB", "X"}};
  // Memory the kernel reports a little differently at each boot is not a change.
  a.memory.total_bytes = Known(uint64_t{540000000000}, "/proc/meminfo:1");
  b.memory.total_bytes = Known(uint64_t{539990000000}, "/proc/meminfo:1");
  MachineDiff d = DiffMachines(a, b);
  auto link = OfKind(d, "link");
  ASSERT_EQ(link.size(), 1u);
  EXPECT_EQ(link[0]->subject, "0000:03:00.0 link/current/width");
  EXPECT_EQ(link[0]->before, "16");
  EXPECT_EQ(link[0]->after, "8");
  auto drv = OfKind(d, "driver");
  ASSERT_EQ(drv.size(), 1u);
  EXPECT_EQ(drv[0]->detail, "driver rebound: nvidia -> vfio-pci");
  auto cmd = OfKind(d, "kernel-cmdline");
  ASSERT_EQ(cmd.size(), 1u);
  EXPECT_EQ(cmd[0]->detail, "added: iommu=pt pci=realloc");
  auto sw = OfKind(d, "software");
  ASSERT_EQ(sw.size(), 1u);
  EXPECT_EQ(sw[0]->subject, "/software/python_envs[/opt/venv]/packages[torch]");
  EXPECT_EQ(sw[0]->after, "2.9.1");
  EXPECT_EQ(OfKind(d, "p2p").size(), 2u);
  EXPECT_TRUE(OfKind(d, "fact").empty());
  EXPECT_FALSE(d.rebooted);
}

TEST(Diff, FindingsThatAppearedOrCleared) {
  Machine a = SwitchBox();
  Machine b = SwitchBox();
  for (auto& g : b.iommu.groups) g.type = Known(std::string("identity"), "x");
  testing::SetLink(PciAt(&b, "0000:03:00.0"), 4, 4, 4, 16);
  View context;
  MachineDiff d = DiffRecords(a, b, context);
  auto cleared = OfKind(d, "finding-cleared");
  ASSERT_EQ(cleared.size(), 1u);
  EXPECT_EQ(cleared[0]->subject, "iommu.translated-p2p");
  auto appeared = OfKind(d, "finding-appeared");
  ASSERT_EQ(appeared.size(), 1u);
  EXPECT_EQ(appeared[0]->subject, "pcie.link-width-degraded");
  EXPECT_EQ(appeared[0]->after, "warning");
}

TEST(Diff, IdenticalRecordsHaveNoChanges) {
  EXPECT_TRUE(DiffMachines(SeedHost(), SeedHost()).changes.empty());
}

}  // namespace
}  // namespace dossier
