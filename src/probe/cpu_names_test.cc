// The names /proc/cpuinfo's codes are given: every row of each table, written here from the
// vendors' published lists (ARM's MIDR part numbers as Linux's arch/arm64 cputype.h and
// util-linux's lscpu-arm.c have them, IBM's machine types), so a row lost or changed is seen.
#include "probe/cpu_names.h"

#include <gtest/gtest.h>

#include "../tests/temp_dir.h"
#include "probe/probe.h"

namespace dossier {
namespace {

TEST(CpuNames, EveryArmImplementer) {
  const std::pair<uint64_t, const char*> want[] = {
      {0x41, "ARM"},       {0x42, "Broadcom"}, {0x43, "Cavium"}, {0x46, "Fujitsu"},
      {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},   {0x50, "APM"},    {0x51, "Qualcomm"},
      {0x53, "Samsung"},   {0x56, "Marvell"},  {0x61, "Apple"},  {0x6d, "Microsoft"},
      {0xc0, "Ampere"}};
  for (auto [id, name] : want) EXPECT_EQ(ArmImplementerName(id).value_or("(none)"), name) << id;
  EXPECT_FALSE(ArmImplementerName(0x00));
  EXPECT_FALSE(ArmImplementerName(0x44));  // DEC: not one an inference host has
}

TEST(CpuNames, EveryArmPartByItsImplementer) {
  struct Row {
    uint64_t implementer, part;
    const char* name;
  };
  const Row want[] = {
      // Neoverse: Grace and Graviton4 (V2), Graviton3 (V1), Altra and Graviton2 (N1).
      {0x41, 0xd0c, "Neoverse-N1"},
      {0x41, 0xd40, "Neoverse-V1"},
      {0x41, 0xd49, "Neoverse-N2"},
      {0x41, 0xd4f, "Neoverse-V2"},
      {0x41, 0xd84, "Neoverse-V3"},
      {0x41, 0xd8e, "Neoverse-N3"},
      {0x41, 0xd4a, "Neoverse-E1"},
      // Cortex-A and -X.
      {0x41, 0xd03, "Cortex-A53"},
      {0x41, 0xd04, "Cortex-A35"},
      {0x41, 0xd05, "Cortex-A55"},
      {0x41, 0xd07, "Cortex-A57"},
      {0x41, 0xd08, "Cortex-A72"},
      {0x41, 0xd09, "Cortex-A73"},
      {0x41, 0xd0a, "Cortex-A75"},
      {0x41, 0xd0b, "Cortex-A76"},
      {0x41, 0xd0d, "Cortex-A77"},
      {0x41, 0xd41, "Cortex-A78"},
      {0x41, 0xd42, "Cortex-A78AE"},
      {0x41, 0xd44, "Cortex-X1"},
      {0x41, 0xd46, "Cortex-A510"},
      {0x41, 0xd47, "Cortex-A710"},
      {0x41, 0xd48, "Cortex-X2"},
      {0x41, 0xd4d, "Cortex-A715"},
      {0x41, 0xd4e, "Cortex-X3"},
      {0x41, 0xd80, "Cortex-A520"},
      {0x41, 0xd81, "Cortex-A720"},
      {0x41, 0xd82, "Cortex-X4"},
      {0x41, 0xd85, "Cortex-X925"},  // DGX Spark's GB10, with the A725
      {0x41, 0xd87, "Cortex-A725"},
      // Other implementers: the part number means nothing without its implementer.
      {0x4e, 0x000, "Denver"},
      {0x4e, 0x003, "Denver 2"},
      {0x4e, 0x004, "Carmel"},
      {0x43, 0x0a1, "ThunderX 88XX"},
      {0x43, 0x0af, "ThunderX2 99xx"},
      {0x48, 0xd01, "Kunpeng-920"},
      {0x46, 0x001, "A64FX"},
      {0x50, 0x000, "X-Gene"},
      {0xc0, 0xac3, "Ampere-1"},
      {0xc0, 0xac4, "Ampere-1a"},
  };
  for (const Row& r : want)
    EXPECT_EQ(ArmPartName(r.implementer, r.part).value_or("(none)"), r.name)
        << std::hex << r.implementer << " " << r.part;
  EXPECT_FALSE(ArmPartName(0x41, 0xd99));  // not in the table: stays a code, never a guess
  EXPECT_FALSE(ArmPartName(0x4e, 0xd4f));  // Neoverse-V2's number under NVIDIA's implementer
  EXPECT_FALSE(ArmPartName(0x41, 0x004));  // Carmel's number under ARM's
  EXPECT_FALSE(ArmPartName(0xc0, 0x000));  // X-Gene's and Denver's number under Ampere's
}

TEST(CpuNames, EveryS390MachineType) {
  const std::pair<const char*, const char*> want[] = {
      {"2827", "IBM zEC12"}, {"2828", "IBM zBC12"},   {"2964", "IBM z13"}, {"2965", "IBM z13s"},
      {"3906", "IBM z14"},   {"3907", "IBM z14 ZR1"}, {"8561", "IBM z15"}, {"8562", "IBM z15 T02"},
      {"3931", "IBM z16"},   {"3932", "IBM z16 A02"}, {"9175", "IBM z17"}};
  for (auto [type, name] : want) EXPECT_EQ(S390MachineName(type).value_or("(none)"), name) << type;
  EXPECT_FALSE(S390MachineName("2817"));  // z196: older than the table
  EXPECT_FALSE(S390MachineName(""));
  EXPECT_FALSE(S390MachineName("39311"));
}

// DGX Spark (GB10): ten Cortex-X925 and ten Cortex-A725 cores, named in the order cpuinfo first
// gives them; a part the table lacks keeps its code.
TEST(CpuNames, ABigLittleMixIsNamedPartByPartAndAnUnknownPartKeepsItsCode) {
  testing::TempDir t;
  std::string info;
  for (int cpu = 0; cpu < 20; ++cpu)
    info += "processor\t: " + std::to_string(cpu) +
            "\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
            "CPU variant\t: 0x0\nCPU part\t: " +
            (cpu < 10 ? "0xd85" : "0xd87") + "\nCPU revision\t: 1\n\n";
  t.Write("proc/cpuinfo", info);
  RootFs fs(t.path());
  std::vector<std::string> log;
  CollectOptions o;
  ProbeContext ctx{fs, o, &log};
  Machine m;
  ProbeCpu(ctx, &m);
  EXPECT_EQ(m.cpu.model.value_or("(unknown)"), "Cortex-X925 + Cortex-A725");
  EXPECT_EQ(m.cpu.vendor.value_or("(unknown)"), "ARM");

  testing::TempDir u;
  u.Write("proc/cpuinfo",
          "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd99\n\n"
          "processor\t: 1\nCPU implementer\t: 0x99\nCPU part\t: 0x001\n\n");
  RootFs ufs(u.path());
  ProbeContext uctx{ufs, o, &log};
  Machine n;
  ProbeCpu(uctx, &n);
  EXPECT_EQ(n.cpu.model.value_or("(unknown)"), "ARM part 0xd99 + ARM implementer 153 part 0x001");
}

}  // namespace
}  // namespace dossier
