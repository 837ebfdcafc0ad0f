#include <gtest/gtest.h>

#include "../tests/temp_dir.h"
#include "probe/probe.h"

namespace dossier {
namespace {

KernelLogInfo KernelLogAt(const std::string& root) {
  RootFs fs(root);
  CollectOptions opts;
  std::vector<std::string> log;
  ProbeContext ctx{fs, opts, &log};
  Machine m;
  ProbeKernelLog(ctx, &m);
  return m.kernel_log;
}

TEST(KernelLogTest, DmesgFileFirst) {
  testing::TempDir t;
  t.Write("var/log/dmesg",
          "[    0.000000] Linux version 6.8.0\n"
          "[    0.512345] pci 0000:01:00.0: BAR 1: no space for [mem size 0x1000000000 64bit "
          "pref]\n"
          "[    0.512345] pci 0000:01:00.0: BAR 1: no space for [mem size 0x1000000000 64bit "
          "pref]\n"
          "[    6.100000] NVRM: BAR1 is 0M @ 0x0 (PCI:0000:01:00.0)\n");
  t.Write("var/log/kern.log", "Dec  2 16:18:01 h kernel: pci 0000:09:00.0: failed to assign\n");
  KernelLogInfo k = KernelLogAt(t.path());
  EXPECT_EQ(k.source.value_or(""), "/var/log/dmesg");
  ASSERT_EQ(k.pci_problems.size(), 2u);  // the repeated line once
  EXPECT_EQ(k.pci_problems[0].address.value_or(""), "0000:01:00.0");
  EXPECT_EQ(k.pci_problems[1].message, "NVRM: BAR1 is 0M @ 0x0 (PCI:0000:01:00.0)");
}

TEST(KernelLogTest, KernLogWhenNoDmesg) {
  testing::TempDir t;
  t.Write("var/log/kern.log",
          "Dec  2 16:18:01 h kernel: [    0.6] pci 0000:09:00.0: BAR 0: failed to assign [mem]\n"
          "Dec  2 16:18:02 h kernel: [    0.7] usb 1-1: new device\n");
  KernelLogInfo k = KernelLogAt(t.path());
  EXPECT_EQ(k.source.value_or(""), "/var/log/kern.log");
  ASSERT_EQ(k.pci_problems.size(), 1u);
  EXPECT_EQ(k.pci_problems[0].message, "pci 0000:09:00.0: BAR 0: failed to assign [mem]");
}

TEST(KernelLogTest, OnlyTheEndOfAHugeKernLog) {
  testing::TempDir t;
  std::string old = "Dec  1 00:00:00 h kernel: pci 0000:07:00.0: BAR 1: no space for [old]\n";
  std::string filler(10u << 20, 'x');
  filler += "\n";
  std::string recent = "Dec  2 00:00:00 h kernel: pci 0000:08:00.0: BAR 1: no space for [new]\n";
  t.Write("var/log/kern.log", old + filler + recent);
  KernelLogInfo k = KernelLogAt(t.path());
  ASSERT_EQ(k.pci_problems.size(), 1u);  // the old line lies before the last 8 MiB
  EXPECT_EQ(k.pci_problems[0].address.value_or(""), "0000:08:00.0");
}

TEST(KernelLogTest, NoLogIsUnknownWithEveryReason) {
  testing::TempDir t;
  KernelLogInfo k = KernelLogAt(t.path());
  EXPECT_FALSE(k.source.known());
  EXPECT_EQ(k.source.unknown,
            "no kernel log readable (/var/log/dmesg: file absent; /var/log/kern.log: file absent)");
  EXPECT_TRUE(k.pci_problems.empty());
}

TEST(KernelLogTest, EmptyLogIsReadWithNoProblems) {
  testing::TempDir t;
  t.Write("var/log/dmesg", "");
  KernelLogInfo k = KernelLogAt(t.path());
  EXPECT_EQ(k.source.value_or(""), "/var/log/dmesg");
  EXPECT_TRUE(k.pci_problems.empty());
}

TEST(KernelLogTest, BinaryLogDoesNotCrash) {
  testing::TempDir t;
  std::string junk;
  for (int i = 0; i < 100000; ++i) junk += static_cast<char>((i * 7919) & 0xff);
  t.Write("var/log/dmesg", junk + "\n[ 1.0] pci 0000:01:00.0: can't claim BAR 0\n" + junk);
  KernelLogInfo k = KernelLogAt(t.path());
  EXPECT_EQ(k.source.value_or(""), "/var/log/dmesg");
  ASSERT_GE(k.pci_problems.size(), 1u);
}

}  // namespace
}  // namespace dossier
