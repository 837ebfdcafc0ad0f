#include <gtest/gtest.h>

#include "render/markdown.h"

namespace dossier {
namespace {

PciDevice Device(const std::string& address, const std::string& name, const std::string& klass,
                 const std::string& root) {
  PciDevice d;
  d.address = address;
  d.name = Known(name, "test");
  d.class_id = Known(klass, "test");
  d.root_complex = Known(root, "test");
  d.parent.Unknown("at the root complex");
  d.driver.Unknown("no driver bound");
  d.numa_node = Known<int64_t>(0, "test");
  for (PciLinkState* s : {&d.link.current, &d.link.max}) {
    s->gen = Known<int64_t>(5, "test");
    s->width = Known<int64_t>(16, "test");
  }
  d.acs.present = Known(false, "test");
  d.acs.capability = Known(std::vector<std::string>{}, "test");
  d.acs.control = Known(std::vector<std::string>{}, "test");
  d.rebar.present = Known(false, "test");
  return d;
}

MachineView Sample() {
  MachineView mv;
  auto& devs = mv.machine.pci.devices;
  PciDevice port = Device("0000:00:01.1", "AMD GPP Bridge", "0x060400", "pci0000:00");
  port.port_type = Known<std::string>("root_port", "test");
  port.driver = Known<std::string>("pcieport", "test");
  port.acs.present = Known(true, "test");
  port.acs.capability = Known(std::vector<std::string>{"SV", "RR", "CR"}, "test");
  port.acs.control = Known(std::vector<std::string>{"SV", "RR"}, "test");
  devs.push_back(port);

  PciDevice sw = Device("0000:02:00.0", "PLX switch port", "0x060400", "pci0000:00");
  sw.parent = Known<std::string>("0000:00:01.1", "test");
  sw.port_type = Known<std::string>("downstream", "test");
  sw.acs.present.Unknown("needs root");
  sw.acs.capability.Unknown("needs root");
  sw.acs.control.Unknown("needs root");
  devs.push_back(sw);

  PciDevice gpu = Device("0000:03:00.0", "NVIDIA GB202GL", "0x030200", "pci0000:00");
  gpu.parent = Known<std::string>("0000:02:00.0", "test");
  gpu.driver = Known<std::string>("nvidia", "test");
  gpu.numa_node.Unknown("not an integer: 'abc'");
  gpu.link.current.gen = Known<int64_t>(1, "test");
  gpu.bars.push_back({1, 64ull << 30, true, true});
  gpu.rebar.present = Known(true, "test");
  gpu.rebar.bars.push_back({1, 256ull << 20, {256ull << 20, 1ull << 30, 64ull << 30}});
  devs.push_back(gpu);

  PciDevice bridge = Device("0000:40:01.0", "Plain bridge", "0x060400", "pci0000:40");
  bridge.port_type = Known<std::string>("root_port", "test");
  devs.push_back(bridge);

  mv.machine.iommu.enabled = Known(true, "/sys/kernel/iommu_groups");
  mv.machine.iommu.hardware = Known(std::vector<std::string>{"ivhd0"}, "/sys/class/iommu");
  IommuGroup g;
  g.id = 7;
  g.type = Known<std::string>("DMA-FQ", "test");
  g.devices = {"0000:03:00.0"};
  mv.machine.iommu.groups.push_back(g);
  return mv;
}

TEST(MdPciTest, TreeIndentsByParentAndMarksSlowLinks) {
  std::string out;
  MdPciTree(Sample(), &out);
  EXPECT_NE(out.find("- `pci0000:00`\n  - `0000:00:01.1` AMD GPP Bridge [root_port] — driver: "
                     "pcieport, NUMA node: 0, link: Gen5 x16 (max Gen5 x16)\n"
                     "    - `0000:02:00.0` PLX switch port [downstream]"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("      - `0000:03:00.0` NVIDIA GB202GL — driver: nvidia, NUMA node: unknown "
                     "(not an integer: 'abc'), link: Gen1 x16 (max Gen5 x16) **below max speed**"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("- `pci0000:40`\n  - `0000:40:01.0`"), std::string::npos) << out;
  EXPECT_NE(out.find("driver: unknown (no driver bound)"), std::string::npos);
  EXPECT_NE(out.find("normal for an idle GPU"), std::string::npos);
  EXPECT_NE(out.find("| `0000:03:00.0` | NVIDIA GB202GL | BAR1 64 GiB 64-bit prefetchable | BAR1 "
                     "256 MiB (supported 256 MiB to 64 GiB) **smaller than the largest "
                     "supported** |"),
            std::string::npos)
      << out;
}

TEST(MdPciTest, ParentCycleStillListsEveryDevice) {
  MachineView mv = Sample();
  mv.machine.pci.devices[0].parent = Known<std::string>("0000:03:00.0", "corrupt");
  std::string out;
  MdPciTree(mv, &out);
  for (const auto& d : mv.machine.pci.devices) {
    EXPECT_NE(out.find("`" + d.address + "`"), std::string::npos) << d.address;
  }
}

TEST(MdPciTest, IommuGroupsAndAcs) {
  std::string out;
  MdIommuAcs(Sample(), &out);
  EXPECT_NE(out.find("| IOMMU enabled | yes |"), std::string::npos) << out;
  EXPECT_NE(out.find("| 7 | DMA-FQ | `0000:03:00.0` |"), std::string::npos) << out;
  EXPECT_NE(out.find("| `0000:00:01.1` | AMD GPP Bridge | root_port | SV, RR, CR | SV, RR |"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("| `0000:02:00.0` | PLX switch port | downstream | unknown (needs root) | "
                     "unknown (needs root) |"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("without an ACS capability: `0000:40:01.0`."), std::string::npos) << out;
  EXPECT_EQ(out.find("`0000:03:00.0` | NVIDIA"), std::string::npos);  // an endpoint, no ACS
}

TEST(MdPciTest, EmptyMachine) {
  MachineView mv;
  std::string out;
  MdPciTree(mv, &out);
  EXPECT_NE(out.find("No PCI devices recorded"), std::string::npos);
  out.clear();
  MdIommuAcs(mv, &out);
  EXPECT_NE(out.find("| IOMMU enabled | unknown (not recorded) |"), std::string::npos) << out;
}

}  // namespace
}  // namespace dossier
