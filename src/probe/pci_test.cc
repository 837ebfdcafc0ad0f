#include <gtest/gtest.h>

#include "../tests/temp_dir.h"
#include "probe/pci_names.h"
#include "probe/probe.h"

namespace dossier {
namespace {

using testing::TempDir;

std::string Le16(uint16_t v) {
  return {static_cast<char>(v & 0xff), static_cast<char>(v >> 8)};
}

// A root port's 4096-byte config: PCI Express (root port, Gen5 x16 both) and ACS.
std::string RootPortConfig() {
  std::string c(4096, '\0');
  c.replace(0, 2, Le16(0x1022));
  c.replace(0x06, 2, Le16(0x0010));
  c[0x0e] = 1;
  c[0x34] = 0x40;
  c[0x40] = 0x10;
  c.replace(0x42, 2, Le16(4 << 4 | 2));
  c.replace(0x4c, 2, Le16(5 | 16 << 4));
  c.replace(0x52, 2, Le16(5 | 16 << 4));
  c.replace(0x100, 2, Le16(0x000d));  // ACS, last in the list
  c.replace(0x102, 2, Le16(0x0001));
  c.replace(0x104, 2, Le16(0x001f));
  c.replace(0x106, 2, Le16(0x0000));
  return c;
}

struct Dev {
  std::string rel;  // under sys/devices
  std::string vendor, device, klass;
};

// A machine tree: a root port with a GPU behind it on pci0000:00, a NIC directly on pci0000:40,
// and a VMD domain nested under a device.
class PciTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AddDevice("pci0000:00/0000:00:01.1", "0x1022", "0x1483", "0x060400");
    t_.Write("sys/devices/pci0000:00/0000:00:01.1/config", RootPortConfig());
    t_.Write("sys/devices/pci0000:00/0000:00:01.1/numa_node", "-1\n");

    std::string gpu = "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0";
    AddDevice("pci0000:00/0000:00:01.1/0000:01:00.0", "0x10de", "0x2230", "0x030000");
    t_.Write(gpu + "/numa_node", "abc\n");
    t_.Write(gpu + "/local_cpulist", "0-31\n");
    t_.Write(gpu + "/current_link_speed", "2.5 GT/s PCIe\n");
    t_.Write(gpu + "/current_link_width", "16\n");
    t_.Write(gpu + "/max_link_speed", "16.0 GT/s PCIe\n");
    t_.Write(gpu + "/max_link_width", "16\n");
    t_.Write(gpu + "/config", std::string(64, '\0'));  // unprivileged read
    t_.Write(gpu + "/resource",
             "0x00000000f8000000 0x00000000f8ffffff 0x0000000000040200\n"
             "0x0000003f00000000 0x0000003fffffffff 0x000000000014220c\n"
             "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
             "0x0000004000000000 0x0000004001ffffff 0x000000000014220c\n"
             "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
             "0x0000000000002000 0x000000000000207f 0x0000000000040101\n"
             "0x00000000f9000000 0x00000000f907ffff 0x0000000000046200\n");
    t_.Link("../../../../bus/pci/drivers/nvidia", gpu + "/driver");
    t_.Link("../../../../kernel/iommu_groups/12", gpu + "/iommu_group");
    t_.Write("sys/bus/pci/drivers/nvidia/.keep", "");
    t_.Write("sys/kernel/iommu_groups/12/type", "DMA\n");

    std::string nic = "sys/devices/pci0000:40/0000:40:00.0";
    AddDevice("pci0000:40/0000:40:00.0", "0x15b3", "0x1021", "0x020000");
    t_.Write(nic + "/numa_node", "1\n");
    t_.Write(nic + "/current_link_speed", "Unknown\n");
    t_.Write(nic + "/current_link_width", "0\n");
    t_.Write(nic + "/config", std::string(256, '\0'));

    AddDevice("pci0000:00/0000:00:0e.0/pci10000:e0/10000:e0:06.0", "0x8086", "0xa77f", "0x060400");
    t_.Write("sys/bus/pci/devices/not-a-device", "");

    t_.Write("usr/share/misc/pci.ids",
             "# test database\n"
             "10de  NVIDIA Corporation\n"
             "\t2230  GA102GL [RTX A6000]\n"
             "1022  Advanced Micro Devices, Inc. [AMD]\n"
             "\t1483  Starship/Matisse GPP Bridge\n");
  }

  void AddDevice(const std::string& rel, const std::string& vendor, const std::string& device,
                 const std::string& klass) {
    std::string dir = "sys/devices/" + rel;
    t_.Write(dir + "/vendor", vendor + "\n");
    t_.Write(dir + "/device", device + "\n");
    t_.Write(dir + "/subsystem_vendor", vendor + "\n");
    t_.Write(dir + "/subsystem_device", "0x0000\n");
    t_.Write(dir + "/class", klass + "\n");
    std::string address(rel.substr(rel.rfind('/') + 1));
    t_.Link("../../../devices/" + rel, "sys/bus/pci/devices/" + address);
  }

  Machine Collect() {
    RootFs fs(t_.path());
    CollectOptions opts;
    ProbeContext ctx{fs, opts, &log_};
    Machine m;
    ProbePci(ctx, &m);
    return m;
  }

  TempDir t_;
  std::vector<std::string> log_;
};

TEST_F(PciTreeTest, ListsDevicesSortedWithPlaceInTree) {
  Machine m = Collect();
  ASSERT_EQ(m.pci.devices.size(), 4u);
  EXPECT_EQ(m.pci.devices[0].address, "0000:00:01.1");
  EXPECT_EQ(m.pci.devices[1].address, "0000:01:00.0");
  EXPECT_EQ(m.pci.devices[2].address, "0000:40:00.0");
  EXPECT_EQ(m.pci.devices[3].address, "10000:e0:06.0");
  ASSERT_EQ(log_.size(), 2u);  // the entry that is not an address, the short config said once
  EXPECT_NE(log_[0].find("not-a-device"), std::string::npos);
  EXPECT_NE(log_[1].find("64 bytes"), std::string::npos) << log_[1];

  const PciDevice& port = m.pci.devices[0];
  EXPECT_FALSE(port.parent.known());
  EXPECT_EQ(port.parent.unknown, "at the root complex");
  EXPECT_EQ(port.root_complex.value_or(""), "pci0000:00");

  const PciDevice& gpu = m.pci.devices[1];
  EXPECT_EQ(gpu.parent.value_or(""), "0000:00:01.1");
  EXPECT_EQ(gpu.root_complex.value_or(""), "pci0000:00");

  const PciDevice& vmd = m.pci.devices[3];
  EXPECT_EQ(vmd.root_complex.value_or(""), "pci10000:e0");  // the nearest host bridge
  EXPECT_EQ(vmd.parent.unknown, "at the root complex");
}

TEST_F(PciTreeTest, IdsNamesDriverNumaAndGroup) {
  Machine m = Collect();
  const PciDevice& gpu = *m.FindPci("0000:01:00.0");
  EXPECT_EQ(gpu.vendor_id.value_or(""), "0x10de");
  EXPECT_EQ(gpu.device_id.value_or(""), "0x2230");
  EXPECT_EQ(gpu.subsystem_vendor_id.value_or(""), "0x10de");
  EXPECT_EQ(gpu.subsystem_device_id.value_or(""), "0x0000");
  EXPECT_EQ(gpu.class_id.value_or(""), "0x030000");
  EXPECT_EQ(gpu.name.value_or(""), "NVIDIA Corporation GA102GL [RTX A6000]");
  EXPECT_EQ(gpu.driver.value_or(""), "nvidia");
  EXPECT_FALSE(gpu.numa_node.known());
  EXPECT_EQ(gpu.numa_node.unknown, "not an integer: 'abc'");
  EXPECT_EQ(gpu.local_cpus.value_or(""), "0-31");
  EXPECT_EQ(gpu.iommu_group.value_or(-1), 12);

  const PciDevice& port = *m.FindPci("0000:00:01.1");
  EXPECT_FALSE(port.driver.known());
  EXPECT_EQ(port.driver.unknown, "no driver bound");
  EXPECT_EQ(port.numa_node.value_or(0), -1);  // -1 is a value: the kernel does not know
  EXPECT_EQ(port.iommu_group.unknown, "no IOMMU group");
  EXPECT_EQ(port.name.value_or(""),
            "Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge");

  const PciDevice& nic = *m.FindPci("0000:40:00.0");
  EXPECT_FALSE(nic.name.known());
  EXPECT_EQ(nic.name.unknown, "vendor 15b3 not in pci.ids");
  EXPECT_EQ(nic.local_cpus.unknown, "file absent");
}

TEST_F(PciTreeTest, LinksFromSysfsOrFromTheExpressCapability) {
  Machine m = Collect();
  const PciDevice& gpu = *m.FindPci("0000:01:00.0");
  EXPECT_EQ(gpu.link.current.gen.value_or(0), 1);
  EXPECT_EQ(gpu.link.current.width.value_or(0), 16);
  EXPECT_EQ(gpu.link.max.gen.value_or(0), 4);
  EXPECT_EQ(gpu.link.max.width.value_or(0), 16);
  EXPECT_NE(gpu.link.current.gen.source.find("current_link_speed"), std::string::npos);

  const PciDevice& port = *m.FindPci("0000:00:01.1");  // no link files: the capability
  EXPECT_EQ(port.link.current.gen.value_or(0), 5);
  EXPECT_EQ(port.link.max.width.value_or(0), 16);
  EXPECT_NE(port.link.current.gen.source.find("Link Status"), std::string::npos);

  const PciDevice& nic = *m.FindPci("0000:40:00.0");
  EXPECT_FALSE(nic.link.current.gen.known());
  EXPECT_EQ(nic.link.current.gen.unknown, "kernel reports 'Unknown' (no link)");
  EXPECT_EQ(nic.link.current.width.unknown, "width 0 (link down)");
}

TEST_F(PciTreeTest, ConfigSpaceFacts) {
  Machine m = Collect();
  const PciDevice& port = *m.FindPci("0000:00:01.1");
  EXPECT_EQ(port.port_type.value_or(""), "root_port");
  EXPECT_TRUE(port.acs.present.value_or(false));
  EXPECT_EQ(port.acs.capability.value_or({}),
            (std::vector<std::string>{"SV", "TB", "RR", "CR", "UF"}));
  EXPECT_TRUE(port.acs.control.known());
  EXPECT_TRUE(port.acs.control->empty());

  const PciDevice& gpu = *m.FindPci("0000:01:00.0");
  // A tree under --root is a capture: 64 bytes of config there is what the capture kept.
  const char* kShort = "the capture holds only the first 64 bytes of config space";
  EXPECT_EQ(gpu.port_type.unknown, kShort);
  EXPECT_EQ(gpu.acs.present.unknown, kShort);
  EXPECT_EQ(gpu.rebar.present.unknown, kShort);

  const PciDevice& vmd = *m.FindPci("10000:e0:06.0");  // no config file at all
  EXPECT_EQ(vmd.port_type.unknown, "file absent");
}

TEST_F(PciTreeTest, BarsFromResource) {
  Machine m = Collect();
  const PciDevice& gpu = *m.FindPci("0000:01:00.0");
  ASSERT_EQ(gpu.bars.size(), 4u);  // 0, 1, 3, 5; the ROM (line 7) is not a BAR
  EXPECT_EQ(gpu.bars[0].index, 0);
  EXPECT_EQ(gpu.bars[0].size_bytes, 16ull << 20);
  EXPECT_FALSE(gpu.bars[0].prefetchable);
  EXPECT_FALSE(gpu.bars[0].is64);
  EXPECT_EQ(gpu.bars[1].index, 1);
  EXPECT_EQ(gpu.bars[1].size_bytes, 4ull << 30);
  EXPECT_TRUE(gpu.bars[1].prefetchable);
  EXPECT_TRUE(gpu.bars[1].is64);
  EXPECT_EQ(gpu.bars[2].index, 3);
  EXPECT_EQ(gpu.bars[3].index, 5);
  EXPECT_EQ(gpu.bars[3].size_bytes, 128u);
}

TEST_F(PciTreeTest, GarbageAttributesAreUnknownNotFatal) {
  std::string gpu = "sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0";
  t_.Write(gpu + "/vendor", "\x01\x02zz\n");
  t_.Write(gpu + "/class", "0x1234567\n");
  t_.Write(gpu + "/current_link_speed", "fast\n");
  static const char kResource[] = "garbage\n\0\xff\n0x1 0x0 0x0\n";
  t_.Write(gpu + "/resource", std::string(kResource, sizeof kResource - 1));
  t_.Write(gpu + "/config", std::string(5000, '\xab'));
  Machine m = Collect();
  const PciDevice& d = *m.FindPci("0000:01:00.0");
  EXPECT_EQ(d.vendor_id.unknown, "not a hex id: '\\x01\\x02zz'");
  EXPECT_FALSE(d.class_id.known());
  EXPECT_EQ(d.name.unknown, "vendor or device id unknown");
  EXPECT_EQ(d.link.current.gen.unknown, "not a link speed: 'fast'");
  EXPECT_TRUE(d.bars.empty());
  EXPECT_FALSE(d.port_type.unknown.empty());
}

TEST(PciNamesTest, NoDatabaseUnderTheRootFallsBackToThisMachinesAndSaysSo) {
  TempDir t;
  RootFs fs(t.path());
  PciNames names(fs);
  Fact<std::string> n = names.Name(0x10de, 0x2230);
  if (!RootFs("/").Exists("/usr/share/misc/pci.ids")) GTEST_SKIP() << "no pci.ids here";
  ASSERT_TRUE(n.known()) << n.unknown;
  EXPECT_NE(n->find("RTX A6000"), std::string::npos) << *n;
  EXPECT_NE(n.source.find("of the machine running dossier"), std::string::npos) << n.source;
}

TEST(PciNamesTest, CorruptDatabaseDoesNotExit) {
  TempDir t;
  t.Write("usr/share/hwdata/pci.ids", "10de  NVIDIA\n\t\t\t\tnonsense\n");
  RootFs fs(t.path());
  PciNames names(fs);
  Fact<std::string> n = names.Name(0x10de, 0x2230);
  EXPECT_FALSE(n.known());
  EXPECT_NE(n.unknown.find("pci.ids unusable: Parse error"), std::string::npos) << n.unknown;
  EXPECT_EQ(n.source, "/usr/share/hwdata/pci.ids");
  EXPECT_FALSE(names.Name(0x10de, 0x2231).known());  // stays unusable, no second load
}

TEST(PciNamesTest, VendorOnlyIsNamedLikeLspci) {
  TempDir t;
  t.Write("usr/share/misc/pci.ids", "10de  NVIDIA Corporation\n\t2230  GA102GL [RTX A6000]\n");
  RootFs fs(t.path());
  PciNames names(fs);
  EXPECT_EQ(names.Name(0x10de, 0x2bb5).value_or(""), "NVIDIA Corporation Device 2bb5");
  EXPECT_EQ(names.Name(0x10de, 0x2230).source, "libpci:pci_lookup_name /usr/share/misc/pci.ids");
}

TEST(PciNamesTest, TheDatabaseVersionIsItsHeadersVersionLineNearTheTop) {
  TempDir t;
  t.Write("usr/share/misc/pci.ids", "#\n#\tVersion: 2025.06.01\n#\n10de  NVIDIA Corporation\n");
  EXPECT_EQ(PciNames::Find(RootFs(t.path())).version, "2025.06.01");
  // No Version line: no version (not the text of some other line).
  t.Write("usr/share/misc/pci.ids", "10de  NVIDIA Corporation\n\t2230  GA102GL\n");
  EXPECT_EQ(PciNames::Find(RootFs(t.path())).version, "");
  // A "Version:" past the header (beyond 2 KiB) belongs to the data, not the file.
  t.Write("usr/share/misc/pci.ids", "# a long comment\n" + std::string(2100, '#') +
                                        "\n#\tVersion: 2025.06.01\n10de  NVIDIA Corporation\n");
  EXPECT_EQ(PciNames::Find(RootFs(t.path())).version, "");
}

}  // namespace
}  // namespace dossier
