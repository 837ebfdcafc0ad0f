// lspci -vvv (and its greps), lspci -t, IOMMU group listings and /proc/cmdline, on the shared
// samples.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "analyze/topology.h"
#include "import/import_test_util.h"

namespace dossier::import {
namespace {

using testing::Formats;
using testing::ImportSample;
using testing::ImportString;
using testing::SampleBody;

const PciDevice* Dev(const Machine& m, const std::string& a) {
  return m.FindPci(a);
}

TEST(ImportLspci, RootPortWithSourceValidationOnly) {
  auto r = ImportSample("lspci/linuxhw-as4124gs-tnr-internal-gpp-00-07-1-acs-srcvalid.txt");
  ASSERT_EQ(Formats(r), std::vector<std::string>{"lspci"});
  const PciDevice* d = Dev(r.imported.machine, "0000:00:07.1");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->port_type.value_or(""), "root_port");
  EXPECT_EQ(d->vendor_id.value_or(""), "0x1022");
  EXPECT_EQ(d->device_id.value_or(""), "0x1484");
  EXPECT_EQ(d->numa_node.value_or(-9), 0);
  EXPECT_EQ(d->link.max.gen.value_or(0), 4);
  EXPECT_EQ(d->link.max.width.value_or(0), 16);
  EXPECT_EQ(d->link.current.gen.value_or(0), 4);
  EXPECT_EQ(d->link.current.width.value_or(0), 16);
  EXPECT_EQ(d->acs.capability.value_or({}), (std::vector<std::string>{"SV", "TB"}));
  EXPECT_EQ(d->acs.control.value_or({}), (std::vector<std::string>{"SV"}));
  EXPECT_NE(d->acs.control.source.find("(lspci)"), std::string::npos);
}

TEST(ImportLspci, DowngradedRootPortGpuAndNic) {
  auto rp = ImportSample("lspci/linuxhw-as4124gs-tnr-rootport-00-01-1-downgraded-8gt.txt");
  const PciDevice* p = Dev(rp.imported.machine, "0000:00:01.1");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->link.max.gen.value_or(0), 4);
  EXPECT_EQ(p->link.current.gen.value_or(0), 3);
  EXPECT_EQ(p->link.current.width.value_or(0), 16);
  EXPECT_FALSE(p->acs.present.known());  // no ACS capability listed: not captured, not false

  auto gpu = ImportSample("lspci/stelline-esc8000a-rtx6000ada-01-00-0-idle-2.5gt.txt");
  const PciDevice* g = Dev(gpu.imported.machine, "0000:01:00.0");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->vendor_id.value_or(""), "0x10de");
  EXPECT_EQ(g->link.max.gen.value_or(0), 4);
  EXPECT_EQ(g->link.current.gen.value_or(0), 1);
  EXPECT_EQ(g->driver.value_or(""), "nvidia");
  EXPECT_EQ(g->numa_node.value_or(-9), 0);
  bool bar64g = false;
  for (const auto& b : g->bars) bar64g = bar64g || b.size_bytes == (64ull << 30);
  EXPECT_TRUE(bar64g);

  auto nic = ImportSample("lspci/stelline-esc8000a-connectx7-21-00-0-acs-off.txt");
  const PciDevice* n = Dev(nic.imported.machine, "0000:21:00.0");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->link.max.gen.value_or(0), 5);
  EXPECT_EQ(n->link.current.gen.value_or(0), 5);
  EXPECT_EQ(n->driver.value_or(""), "mlx5_core");
  EXPECT_TRUE(n->acs.control.known());
  EXPECT_TRUE(n->acs.control->empty());
}

TEST(ImportLspci, AcsctlGrepBecomesLinesWithoutDevices) {
  auto r = ImportSample("lspci/stelline-esc8000a-acsctl-grep-all-disabled.txt");
  ASSERT_EQ(Formats(r), std::vector<std::string>{"lspci"});
  ASSERT_EQ(r.files[0].parts[0].command, "sudo lspci -vvv | grep ACSCtl");
  const auto& lines = r.imported.machine.pci.acs_lines;
  // The header says 47 lines; the output holds 46 ACSCtl lines (its 47th line is the prompt).
  EXPECT_EQ(lines.size(), 46u);
  for (const auto& l : lines) EXPECT_TRUE(l.control.known() && l.control->empty());
  EXPECT_TRUE(r.imported.machine.pci.devices.empty());
}

TEST(ImportLspciTree, RootComplexesAndParents) {
  auto r = ImportSample("lspci_tree/stelline-asus-esc8000a-e12-epyc-4x-rtx6000ada.txt");
  ASSERT_EQ(Formats(r), std::vector<std::string>{"lspci-tree"});
  const Machine& m = r.imported.machine;
  std::set<std::string> roots;
  for (const auto& d : m.pci.devices)
    if (d.root_complex.known()) roots.insert(*d.root_complex);
  EXPECT_EQ(roots.size(), 8u);
  for (auto [gpu, bridge, root] : {std::tuple{"0000:01:00.0", "0000:00:01.1", "pci0000:00"},
                                   std::tuple{"0000:41:00.0", "0000:40:01.1", "pci0000:40"},
                                   std::tuple{"0000:c1:00.0", "0000:c0:01.1", "pci0000:c0"},
                                   std::tuple{"0000:e1:00.0", "0000:e0:01.1", "pci0000:e0"}}) {
    const PciDevice* g = Dev(m, gpu);
    ASSERT_NE(g, nullptr) << gpu;
    EXPECT_EQ(g->parent.value_or(""), bridge) << gpu;
    EXPECT_EQ(g->root_complex.value_or(""), root) << gpu;
    EXPECT_EQ(g->vendor_id.value_or(""), "0x10de") << gpu;
  }
  EXPECT_NE(Dev(m, "0000:21:00.1"), nullptr);
  EXPECT_NE(Dev(m, "0000:81:00.0"), nullptr);

  auto p = ImportSample("lspci_tree/stelline-puget-wrx90-threadripper-2x-rtx6000ada.txt");
  const Machine& pm = p.imported.machine;
  std::set<std::string> proots;
  for (const auto& d : pm.pci.devices)
    if (d.root_complex.known()) proots.insert(*d.root_complex);
  EXPECT_EQ(proots,
            (std::set<std::string>{"pci0000:00", "pci0000:20", "pci0000:c0", "pci0000:e0"}));
  const PciDevice* a = Dev(pm, "0000:c1:00.0");
  const PciDevice* b = Dev(pm, "0000:c2:00.0");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->root_complex.value_or(""), "pci0000:c0");
  EXPECT_EQ(b->root_complex.value_or(""), "pci0000:c0");
  EXPECT_NE(a->parent.value_or(""), b->parent.value_or(""));
}

// lspci -t draws no port types; PIX and PXB need them. Below a root port, bridges alternate switch
// upstream and downstream ports, so two GPUs under one switch are PIX and across two nested
// switches PXB, as `dossier collect` finds on the machine itself; the type says it was inferred.
TEST(ImportLspciTree, PortTypesFromTheTreeShapeGivePixAndPxb) {
  std::string tree = dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) +
                                             "/tests/corpus/import-lspci-tree/nested-switches.txt");
  ImportRun r = ImportString(tree);
  Machine m = r.imported.machine;
  const PciDevice* up = m.FindPci("0000:03:00.0");
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->port_type.value_or(""), "upstream");
  EXPECT_NE(up->port_type.source.find("inferred"), std::string::npos) << up->port_type.source;
  EXPECT_EQ(m.FindPci("0000:00:01.1")->port_type.value_or(""), "root_port");
  EXPECT_EQ(m.FindPci("0000:04:01.0")->port_type.value_or(""), "downstream");
  EXPECT_EQ(m.FindPci("0000:02:01.0")->port_type.value_or(""), "downstream");
  EXPECT_FALSE(m.FindPci("0000:05:00.0")->port_type.known());  // an endpoint: nothing said
  EXPECT_EQ(TopologyLevel(m, "0000:05:00.0", "0000:06:00.0"), "PIX");
  EXPECT_EQ(TopologyLevel(m, "0000:05:00.0", "0000:08:00.0"), "PXB");
}

TEST(ImportIommu, OneLinePerDeviceAfterTheCmdline) {
  auto r = ImportSample("iommu_groups/asokolsky-duo-z370-gt1030-proxmox-host.txt");
  ASSERT_EQ(Formats(r), (std::vector<std::string>{"cmdline", "iommu-groups"}));
  const Machine& m = r.imported.machine;
  EXPECT_EQ(m.kernel.cmdline.value_or("").substr(0, 11), "BOOT_IMAGE=");
  EXPECT_EQ(m.iommu.groups.size(), 15u);
  const PciDevice* g = Dev(m, "0000:01:00.0");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->iommu_group.value_or(-1), 2);
  EXPECT_EQ(g->vendor_id.value_or(""), "0x10de");
  EXPECT_EQ(g->device_id.value_or(""), "0x1d01");
  EXPECT_EQ(Dev(m, "0000:01:00.1")->iommu_group.value_or(-1), 2);
  EXPECT_EQ(Dev(m, "0000:00:01.0")->iommu_group.value_or(-1), 2);
  for (const auto& grp : m.iommu.groups)
    if (grp.id == 2) {
      EXPECT_EQ(grp.devices.size(), 3u);
    }
  // The groups are sorted by number, not as `ls` listed them.
  EXPECT_EQ(m.iommu.groups.front().id, 0);
  EXPECT_EQ(m.iommu.groups.back().id, 14);
}

TEST(ImportIommu, HeaderWithIndentedLinesAndFindPaths) {
  auto r = ImportString(
      "IOMMU Group 31:\n"
      "\t41:00.0 3D controller [0302]: NVIDIA Corporation GB202GL [10de:2bb5] (rev a1)\n"
      "IOMMU Group 32:\n"
      "\t42:00.0 PCI bridge [0604]: Broadcom / LSI PEX890xx [1000:c030] (rev b0)\n");
  const Machine& m = r.imported.machine;
  ASSERT_EQ(m.iommu.groups.size(), 2u);
  EXPECT_EQ(Dev(m, "0000:41:00.0")->iommu_group.value_or(-1), 31);
  EXPECT_EQ(Dev(m, "0000:41:00.0")->class_id.value_or(""), "0x030200");
  auto f = ImportString(
      "/sys/kernel/iommu_groups/7/devices/0000:c1:00.0\n"
      "/sys/kernel/iommu_groups/8/devices/0000:c2:00.0\n");
  EXPECT_EQ(Dev(f.imported.machine, "0000:c2:00.0")->iommu_group.value_or(-1), 8);
}

}  // namespace
}  // namespace dossier::import
