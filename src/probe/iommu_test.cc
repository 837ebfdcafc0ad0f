#include <gtest/gtest.h>

#include "../tests/temp_dir.h"
#include "probe/probe.h"

namespace dossier {
namespace {

IommuInfo IommuAt(const std::string& root) {
  RootFs fs(root);
  CollectOptions opts;
  std::vector<std::string> log;
  ProbeContext ctx{fs, opts, &log};
  Machine m;
  ProbeIommu(ctx, &m);
  return m.iommu;
}

TEST(IommuTest, GroupsSortedNumericallyWithTypeAndMembers) {
  testing::TempDir t;
  for (const char* g : {"0", "2", "10"}) {
    t.Write(std::string("sys/kernel/iommu_groups/") + g + "/type", "DMA-FQ\n");
  }
  t.Write("sys/kernel/iommu_groups/2/type", "identity\n");
  t.Write("sys/devices/pci0000:00/0000:01:00.0/vendor", "0x10de\n");
  t.Write("sys/devices/pci0000:00/0000:01:00.1/vendor", "0x10de\n");
  t.Link("../../../../devices/pci0000:00/0000:01:00.1",
         "sys/kernel/iommu_groups/10/devices/0000:01:00.1");
  t.Link("../../../../devices/pci0000:00/0000:01:00.0",
         "sys/kernel/iommu_groups/10/devices/0000:01:00.0");
  t.Write("sys/kernel/iommu_groups/0/devices/.keep", "");
  std::filesystem::remove(t.path() + "/sys/kernel/iommu_groups/0/devices/.keep");
  t.Write("sys/kernel/iommu_groups/junk/type", "DMA\n");
  t.Write("sys/class/iommu/dmar0/.keep", "");
  t.Write("sys/class/iommu/dmar1/.keep", "");

  IommuInfo io = IommuAt(t.path());
  EXPECT_TRUE(io.enabled.value_or(false));
  EXPECT_EQ(io.enabled.source, "/sys/kernel/iommu_groups");
  EXPECT_EQ(io.hardware.value_or({}), (std::vector<std::string>{"dmar0", "dmar1"}));
  ASSERT_EQ(io.groups.size(), 3u);  // "junk" is not a group
  EXPECT_EQ(io.groups[0].id, 0);
  EXPECT_EQ(io.groups[1].id, 2);
  EXPECT_EQ(io.groups[2].id, 10);
  EXPECT_EQ(io.groups[0].type.value_or(""), "DMA-FQ");
  EXPECT_EQ(io.groups[1].type.value_or(""), "identity");
  EXPECT_TRUE(io.groups[0].devices.empty());
  EXPECT_EQ(io.groups[2].devices, (std::vector<std::string>{"0000:01:00.0", "0000:01:00.1"}));
}

TEST(IommuTest, GroupWithoutTypeFileIsUnknown) {
  testing::TempDir t;
  t.Write("sys/kernel/iommu_groups/3/devices/.keep", "");
  IommuInfo io = IommuAt(t.path());
  ASSERT_EQ(io.groups.size(), 1u);
  EXPECT_FALSE(io.groups[0].type.known());
  EXPECT_EQ(io.groups[0].type.unknown, "file absent");  // kernels before 5.11 have no type
  EXPECT_TRUE(io.enabled.value_or(false));
}

TEST(IommuTest, OffWhenBothPlacesAreEmpty) {
  testing::TempDir t;
  t.Write("sys/kernel/iommu_groups/.keep", "");
  std::filesystem::remove(t.path() + "/sys/kernel/iommu_groups/.keep");
  t.Write("sys/bus/pci/devices/.keep", "");
  IommuInfo io = IommuAt(t.path());
  ASSERT_TRUE(io.enabled.known());
  EXPECT_FALSE(*io.enabled);
  EXPECT_EQ(io.enabled.source, "/sys/kernel/iommu_groups empty");
  // The capture has no /sys/class/iommu: the units are not captured, not "none".
  EXPECT_FALSE(io.hardware.known());

  t.Write("sys/class/iommu/.keep", "");
  std::filesystem::remove(t.path() + "/sys/class/iommu/.keep");
  io = IommuAt(t.path());
  EXPECT_FALSE(io.enabled.value_or(true));
  EXPECT_NE(io.enabled.source.find("/sys/class/iommu empty"), std::string::npos);
  EXPECT_TRUE(io.hardware.known());
  EXPECT_TRUE(io.hardware->empty());
}

TEST(IommuTest, HardwareWithoutGroupsIsOn) {
  testing::TempDir t;
  t.Write("sys/class/iommu/ivhd0/.keep", "");
  IommuInfo io = IommuAt(t.path());
  EXPECT_TRUE(io.enabled.value_or(false));
  EXPECT_EQ(io.enabled.source, "/sys/class/iommu");
}

TEST(IommuTest, NoSysIsUnknown) {
  testing::TempDir t;
  IommuInfo io = IommuAt(t.path());
  EXPECT_FALSE(io.enabled.known());
  EXPECT_EQ(io.enabled.unknown,
            "not in the capture (neither /sys/kernel/iommu_groups nor /sys/class/iommu)");
  EXPECT_FALSE(io.hardware.known());
}

}  // namespace
}  // namespace dossier
