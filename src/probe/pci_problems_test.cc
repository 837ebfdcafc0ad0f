#include "probe/pci_problems.h"

#include <gtest/gtest.h>

#include <random>

namespace dossier {
namespace {

TEST(PciProblemsTest, KmsgRecordMessage) {
  EXPECT_EQ(KmsgMessage("6,339,5140900,-;pci 0000:01:00.0: BAR 1: no space\n SUBSYSTEM=pci\n"),
            "pci 0000:01:00.0: BAR 1: no space");
  EXPECT_EQ(KmsgMessage("4,1,2,-;NVRM: BAR1 is 0M @ 0x0"), "NVRM: BAR1 is 0M @ 0x0");
  EXPECT_EQ(KmsgMessage("no separator"), "");
}

TEST(PciProblemsTest, KmsgRecordOfSeveralLines) {
  PciProblemScanner s;
  s.AddKmsgRecord(
      "4,812,6100000,-;NVRM: This PCI I/O region assigned to your NVIDIA device is "
      "invalid:\\x0aNVRM: BAR1 is 0M @ 0x0 (PCI:0000:01:00.0)\\x0a\n SUBSYSTEM=pci\n");
  ASSERT_EQ(s.problems().size(), 2u);
  EXPECT_EQ(s.problems()[0].address.value_or(""), "");
  EXPECT_EQ(s.problems()[1].message, "NVRM: BAR1 is 0M @ 0x0 (PCI:0000:01:00.0)");
  EXPECT_EQ(s.problems()[1].address.value_or(""), "0000:01:00.0");
}

TEST(PciProblemsTest, StripsTimestampsAndSyslogHeaders) {
  EXPECT_EQ(StripLogPrefix("[    0.512345] pci 0000:01:00.0: x"), "pci 0000:01:00.0: x");
  EXPECT_EQ(StripLogPrefix("[12345.678901] [    T1] pci 0000:01:00.0: x"), "pci 0000:01:00.0: x");
  EXPECT_EQ(StripLogPrefix("[Mon Dec  2 16:18:01 2024] NVRM: BAR1 is 0M @ 0x0"),
            "NVRM: BAR1 is 0M @ 0x0");
  EXPECT_EQ(StripLogPrefix("Dec  2 16:18:01 gpu-host kernel: [    1.5] pci 0000:01:00.0: x"),
            "pci 0000:01:00.0: x");
  EXPECT_EQ(StripLogPrefix("2024-12-02T16:18:01.123456+00:00 gpu-host kernel: pci x"), "pci x");
  EXPECT_EQ(StripLogPrefix("[    0.000000] kernel: pci x"), "pci x");  // journalctl -k style
  // Not timestamps: kept.
  EXPECT_EQ(StripLogPrefix("[drm] Initialized"), "[drm] Initialized");
  EXPECT_EQ(StripLogPrefix("Booting the kernel: no clock here"),
            "Booting the kernel: no clock here");
}

TEST(PciProblemsTest, AddressesInMessages) {
  EXPECT_EQ(PciAddressIn("pci 0000:01:00.0: BAR 1: no space for [mem size 0x800000000]"),
            "0000:01:00.0");
  EXPECT_EQ(PciAddressIn("NVRM: BAR1 is 0M @ 0x0 (PCI:0000:C1:00.0)"), "0000:c1:00.0");
  EXPECT_EQ(PciAddressIn("NVRM: BAR1 is 0M @ 0x0 (PCI:0000:41:00)"), "0000:41:00.0");
  EXPECT_EQ(PciAddressIn("pcieport 10000:e0:06.0: can't claim BAR 13"), "10000:e0:06.0");
  EXPECT_EQ(PciAddressIn("pci_bus 0000:01: no full address"), "");
  EXPECT_EQ(PciAddressIn("0000:01:00.00 too many digits"), "");
  EXPECT_EQ(PciAddressIn(""), "");
}

TEST(PciProblemsTest, FindsResourceAndNvrmProblemsOnceEach) {
  PciProblemScanner s;
  s.AddText(
      "[    0.512345] pci 0000:01:00.0: BAR 1: no space for [mem size 0x1000000000 64bit pref]\n"
      "[    0.512346] pci 0000:01:00.0: BAR 1: failed to assign [mem size 0x1000000000 64bit "
      "pref]\n"
      "[    0.600000] pci 0000:00:01.1: bridge window [mem size 0x1000000000]: can't assign; no "
      "space\n"
      "[    0.700000] pci 0000:00:02.0: can't claim BAR 0 [mem 0xfe000000-0xfeffffff]: no "
      "compatible bridge window\n"
      "[    0.800000] mlx5_core 0000:41:00.0: not enough MMIO resources for SR-IOV\n"
      "[    5.000000] NVRM: This PCI I/O region assigned to your NVIDIA device is invalid:\n"
      "[    5.000001] NVRM: BAR1 is 0M @ 0x0 (PCI:0000:01:00.0)\n"
      "[    9.000000] pci 0000:01:00.0: BAR 1: no space for [mem size 0x1000000000 64bit pref]\n"
      "[    9.100000] pci 0000:01:00.0: BAR 1: assigned [mem 0x3f000000000-0x3ffffffffff]\n"
      "[    9.200000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  570.86.10\n");
  const auto& p = s.problems();
  ASSERT_EQ(p.size(), 7u);
  EXPECT_EQ(p[0].address.value_or(""), "0000:01:00.0");
  EXPECT_EQ(p[0].message,
            "pci 0000:01:00.0: BAR 1: no space for [mem size 0x1000000000 64bit pref]");
  EXPECT_EQ(p[2].address.value_or(""), "0000:00:01.1");
  EXPECT_EQ(p[3].address.value_or(""), "0000:00:02.0");
  EXPECT_EQ(p[4].address.value_or(""), "0000:41:00.0");
  EXPECT_EQ(p[5].address.value_or(""), "");  // NVRM's first line names no device
  EXPECT_EQ(p[6].address.value_or(""), "0000:01:00.0");
  EXPECT_EQ(p[6].message, "NVRM: BAR1 is 0M @ 0x0 (PCI:0000:01:00.0)");
}

TEST(PciProblemsTest, BinaryAndHugeLinesStayBounded) {
  PciProblemScanner s;
  std::string huge = "pci 0000:01:00.0: BAR 1: no space for " + std::string(1 << 20, 'A');
  s.Add(huge);
  static const char kBinary[] = "pci 0000:02:00.0: BAR 0: failed to assign \0\x01\xff\x7f";
  s.Add(std::string_view(kBinary, sizeof kBinary - 1));
  ASSERT_EQ(s.problems().size(), 2u);
  EXPECT_LE(s.problems()[0].message.size(), PciProblemScanner::kMaxMessage + 8);
  EXPECT_EQ(s.problems()[1].message.find('\0'), std::string::npos);
  EXPECT_NE(s.problems()[1].message.find("\\x00\\x01\\xff\\x7f"), std::string::npos);
}

TEST(PciProblemsTest, CountIsCapped) {
  PciProblemScanner s;
  for (int i = 0; i < 1000; ++i) {
    s.Add("pci 0000:01:00.0: BAR " + std::to_string(i) + ": no space for [mem]");
  }
  EXPECT_EQ(s.problems().size(), PciProblemScanner::kMaxProblems);
}

// Fuzz-style: random bytes and mangled real lines from a fixed seed; never a crash, every
// message printable ASCII (or the ellipsis of a cut) and bounded.
TEST(PciProblemsTest, GarbageNeverCrashes) {
  std::mt19937 rng(7);
  const std::string real[] = {
      "[    0.5] pci 0000:01:00.0: BAR 1: no space for [mem size 0x1000000000 64bit pref]",
      "Dec  2 16:18:01 h kernel: NVRM: BAR1 is 0M @ 0x0 (PCI:0000:41:00)",
      "6,339,5140900,-;pci 0000:00:01.1: can't claim BAR 13\n SUBSYSTEM=pci"};
  PciProblemScanner s;
  for (int i = 0; i < 20000; ++i) {
    std::string line;
    if (i % 3 == 0) {
      line.resize(rng() % 300);
      for (char& c : line) c = static_cast<char>(rng());
    } else {
      line = real[rng() % 3];
      for (int k = 0; k < 4; ++k) line[rng() % line.size()] = static_cast<char>(rng());
      line.resize(rng() % (line.size() + 1));
    }
    if (i % 5 == 0) line = std::string(KmsgMessage(line));
    if (i % 7 == 0) s.AddKmsgRecord(line);
    s.Add(line);
    s.AddText(line + "\n" + line);
  }
  for (const auto& p : s.problems()) {
    EXPECT_LE(p.message.size(), PciProblemScanner::kMaxMessage * 4 + 8);
    for (unsigned char c : p.message) EXPECT_TRUE((c >= 0x20 && c < 0x7f) || c >= 0x80);
    EXPECT_TRUE(!p.address.known() || p.address->size() >= 12);
  }
  EXPECT_LE(s.problems().size(), PciProblemScanner::kMaxProblems);
}

}  // namespace
}  // namespace dossier

namespace dossier {
namespace {

// The seed guest's log after pci=realloc: a bridge window fails, then is assigned on the retry.
TEST(PciProblemsTest, AProblemTheSameLogResolvesLaterIsMarkedResolved) {
  PciProblemScanner s;
  s.AddText(
      "[    0.601220] pci 0000:00:1c.3: bridge window [mem size 0x2002000000 64bit pref]: can't "
      "assign; no space\n"
      "[    0.601224] pci 0000:00:1c.3: bridge window [mem size 0x2002000000 64bit pref]: failed "
      "to assign\n"
      "[    0.601300] pci 0000:05:00.0: BAR 1 [mem size 0x2000000000 64bit pref]: can't assign; "
      "no space\n"
      "[    0.601560] pci 0000:00:1c.3: bridge window [mem 0x39c000000000-0x39e001ffffff 64bit "
      "pref]: assigned\n");
  ASSERT_EQ(s.problems().size(), 3u);
  EXPECT_NE(s.problems()[0].resolved.find("assigned later in the same log"), std::string::npos);
  EXPECT_NE(s.problems()[1].resolved, "");
  // Another device's BAR is not resolved by the bridge's window.
  EXPECT_EQ(s.problems()[2].resolved, "");
}

}  // namespace
}  // namespace dossier
