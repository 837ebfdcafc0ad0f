#include "gpu/device_ids.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

namespace dossier {
namespace {

struct Expect {
  uint16_t id;
  const char* name;
  const char* arch;
  const char* cc;
};

TEST(GpuDeviceIds, KnowsTheGpusOfEachArchitecture) {
  const Expect kCases[] = {
      // Ampere
      {0x20b2, "NVIDIA A100-SXM4-80GB", "Ampere", "8.0"},
      {0x20b5, "NVIDIA A100 80GB PCIe", "Ampere", "8.0"},
      {0x20b7, "NVIDIA A30", "Ampere", "8.0"},
      {0x2235, "NVIDIA A40", "Ampere", "8.6"},
      {0x2230, "NVIDIA RTX A6000", "Ampere", "8.6"},
      {0x2204, "NVIDIA GeForce RTX 3090", "Ampere", "8.6"},
      // Ada Lovelace
      {0x26b9, "NVIDIA L40S", "Ada Lovelace", "8.9"},
      {0x27b8, "NVIDIA L4", "Ada Lovelace", "8.9"},
      {0x26b1, "NVIDIA RTX 6000 Ada Generation", "Ada Lovelace", "8.9"},
      {0x2684, "NVIDIA GeForce RTX 4090", "Ada Lovelace", "8.9"},
      // Hopper
      {0x2330, "NVIDIA H100 80GB HBM3", "Hopper", "9.0"},
      {0x2331, "NVIDIA H100 PCIe", "Hopper", "9.0"},
      {0x2321, "NVIDIA H100 NVL", "Hopper", "9.0"},
      {0x2335, "NVIDIA H200", "Hopper", "9.0"},
      {0x233b, "NVIDIA H200 NVL", "Hopper", "9.0"},
      {0x2324, "NVIDIA H800", "Hopper", "9.0"},
      // Blackwell
      {0x2901, "NVIDIA B200", "Blackwell", "10.0"},
      {0x2941, "NVIDIA GB200", "Blackwell", "10.0"},
      {0x3182, "NVIDIA B300 SXM6 AC", "Blackwell", "10.3"},
      {0x2bb1, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "Blackwell", "12.0"},
      {0x2bb4, "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "Blackwell", "12.0"},
      {0x2bb5, "NVIDIA RTX PRO 6000 Blackwell Server Edition", "Blackwell", "12.0"},
      {0x2b85, "NVIDIA GeForce RTX 5090", "Blackwell", "12.0"},
      {0x2c02, "NVIDIA GeForce RTX 5080", "Blackwell", "12.0"},
  };
  for (const auto& c : kCases) {
    const GpuModel* g = FindGpuModel(c.id);
    ASSERT_NE(g, nullptr) << std::hex << c.id;
    EXPECT_STREQ(g->name, c.name);
    EXPECT_STREQ(g->architecture, c.arch) << c.name;
    EXPECT_STREQ(g->compute_capability, c.cc) << c.name;
  }
}

TEST(GpuDeviceIds, UnknownIdsAndOtherFunctionsReturnNothing) {
  EXPECT_EQ(FindGpuModel(0x0000), nullptr);
  EXPECT_EQ(FindGpuModel(0xffff), nullptr);
  EXPECT_EQ(FindGpuModel(0x1db6), nullptr);  // Tesla V100: pre-Ampere, not in the table
  EXPECT_EQ(FindGpuModel(0x22e8), nullptr);  // GB202 HDMI audio function
  EXPECT_EQ(FindGpuModel(0x22a3), nullptr);  // NVSwitch
  EXPECT_EQ(FindGpuModel(0x2bb2), nullptr);  // between known RTX PRO ids: no guessing
}

TEST(GpuDeviceIds, SubsystemRowWinsAndDeviceRowIsTheFallback) {
  EXPECT_STREQ(FindGpuModel(0x2342, 0x1809)->name, "NVIDIA GH200 480GB");
  EXPECT_STREQ(FindGpuModel(0x2342, 0x16eb)->name, "NVIDIA GH200 120GB");
  EXPECT_STREQ(FindGpuModel(0x2342, 0x4242)->name, "NVIDIA GH200");
  EXPECT_STREQ(FindGpuModel(0x2342)->name, "NVIDIA GH200");
  EXPECT_STREQ(FindGpuModel(0x2bb3, 0x227a)->name, "NVIDIA RTX PRO 5000 72GB Blackwell");
  EXPECT_STREQ(FindGpuModel(0x2bb3, 0x204d)->name, "NVIDIA RTX PRO 5000 Blackwell");
}

TEST(GpuDeviceIds, TableRowsAreUniqueAndEveryRowHasItsSources) {
  auto t = GpuModelTable();
  ASSERT_FALSE(t.empty());
  std::set<std::pair<uint16_t, uint16_t>> seen;
  for (const auto& row : t) {
    EXPECT_TRUE(seen.insert({row.device_id, row.subsystem_device_id}).second)
        << "duplicate row " << std::hex << row.device_id << " " << row.subsystem_device_id;
    EXPECT_NE(std::string(row.name), "");
    EXPECT_NE(std::string(row.id_source), "") << row.name;
    EXPECT_NE(std::string(row.cc_source), "") << row.name;
    std::string arch = row.architecture;
    EXPECT_TRUE(arch == "Ampere" || arch == "Ada Lovelace" || arch == "Hopper" ||
                arch == "Blackwell")
        << row.name;
    // Subsystem rows refine a device row; a subsystem id without one would be missed by a
    // lookup that lacks the subsystem id.
    if (row.subsystem_device_id != 0) {
      EXPECT_NE(FindGpuModel(row.device_id), nullptr) << row.name;
    }
  }
}

TEST(GpuDeviceIds, ParsesPciIdsStrictly) {
  EXPECT_EQ(ParsePciId("0x2bb5"), 0x2bb5);
  EXPECT_EQ(ParsePciId("2BB5"), 0x2bb5);
  EXPECT_EQ(ParsePciId("0X10de"), 0x10de);
  EXPECT_EQ(ParsePciId(""), std::nullopt);
  EXPECT_EQ(ParsePciId("0x"), std::nullopt);
  EXPECT_EQ(ParsePciId("0x12345"), std::nullopt);
  EXPECT_EQ(ParsePciId("-1"), std::nullopt);
  EXPECT_EQ(ParsePciId("2bb5\n"), std::nullopt);
  EXPECT_EQ(ParsePciId("zz"), std::nullopt);
}

}  // namespace
}  // namespace dossier
