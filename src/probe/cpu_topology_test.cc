// The machine facts on the trees of kinds nobody here built (tests/fixtures/trees): AMD
// multi-die packages, POWER with package id -1, ARM64 without core ids, s390 books and drawers,
// captures that hold only masks, no /proc/cpuinfo or no /sys/kernel; and what a captured tree
// leaves out is unknown, not "no".
#include <gtest/gtest.h>

#include "../tests/fixture_trees.h"
#include "../tests/model_builders.h"
#include "../tests/run_cli.h"
#include "../tests/temp_dir.h"
#include "analyze/rule.h"
#include "probe/cpu_topology.h"
#include "probe/dmi_processor.h"
#include "probe/probe.h"

namespace dossier {
namespace {

Machine Collect(const std::string& tree, std::vector<std::string>* log = nullptr) {
  RootFs fs(testing::FixtureTree(tree));
  CollectOptions o;
  std::vector<std::string> own;
  return CollectMachine(fs, o, log ? log : &own);
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(CpuTopology, TwoDieAmdPackagesCountCoresFromSiblingListsNotRepeatedCoreIds) {
  Machine m = Collect("amd-two-die");
  EXPECT_EQ(*m.cpu.sockets, 4);
  EXPECT_EQ(*m.cpu.cores, 48);  // (physical id, core id) pairs would say 24: invented SMT
  EXPECT_EQ(*m.cpu.threads, 48);
  EXPECT_TRUE(Contains(m.cpu.cores.source, "thread_siblings_list"));
  EXPECT_FALSE(m.cpu.dies.known());  // a 4.x kernel has no die_id: not "1 die"
  EXPECT_EQ(*m.cpu.model, "AMD Opteron(tm) Processor 6174");
  EXPECT_FALSE(*m.cpu.hypervisor_flag);
}

TEST(CpuTopology, PowerWithPackageIdMinusOneFallsBackToCoreSiblingsAndSaysSo) {
  Machine m = Collect("power-package-unknown");
  EXPECT_EQ(*m.cpu.sockets, 2);
  EXPECT_TRUE(Contains(m.cpu.sockets.source, "core_siblings_list"));
  EXPECT_TRUE(Contains(m.cpu.sockets.source, "physical_package_id is -1"));
  EXPECT_EQ(*m.cpu.cores, 8);
  EXPECT_EQ(*m.cpu.threads, 32);
  EXPECT_EQ(*m.cpu.model, "POWER9 (architected)");
  EXPECT_EQ(*m.cpu.vendor, "IBM");
  EXPECT_FALSE(m.cpu.hypervisor_flag.known());  // POWER has no x86 flags line: not "false"
}

TEST(CpuTopology, Arm64WithoutCoreIdNamesTheNeoversePart) {
  Machine m = Collect("arm64-no-core-id");
  EXPECT_EQ(*m.cpu.cores, 8);
  EXPECT_EQ(*m.cpu.sockets, 1);
  EXPECT_EQ(*m.cpu.threads, 8);
  EXPECT_EQ(*m.cpu.model, "Neoverse-V2");
  EXPECT_EQ(*m.cpu.vendor, "ARM");
  EXPECT_FALSE(m.cpu.hypervisor_flag.known());
  EXPECT_FALSE(m.virtualization.guest.known());  // no evidence either way on ARM
}

TEST(CpuTopology, MaskOnlyTreeReadsMasksForCpusNodesAndPciLocality) {
  Machine m = Collect("mask-only");
  EXPECT_EQ(*m.cpu.sockets, 2);
  EXPECT_EQ(*m.cpu.cores, 8);
  EXPECT_EQ(*m.cpu.threads, 16);
  EXPECT_TRUE(Contains(m.cpu.cores.source, "thread_siblings"));
  ASSERT_EQ(m.numa.nodes.size(), 2u);
  EXPECT_EQ(*m.numa.nodes[1].cpus, "4-7,12-15");
  EXPECT_TRUE(Contains(m.numa.nodes[1].cpus.source, "cpumap"));
  ASSERT_EQ(m.pci.devices.size(), 1u);
  EXPECT_EQ(*m.pci.devices[0].local_cpus, "4-7,12-15");
  EXPECT_TRUE(Contains(m.pci.devices[0].local_cpus.source, "local_cpus"));
}

TEST(CpuTopology, AnUnreadableCpuSetQuotesItsFirstFortyCharacters) {
  testing::TempDir t;
  t.Write("d/cpumap", std::string(60, 'z') + "\n");
  RootFs fs(t.path());
  auto mask = ReadCpuSet(fs, "/d", "cpulist", "cpumap");
  EXPECT_FALSE(mask.known());
  EXPECT_EQ(mask.unknown, "not a CPU mask: '" + std::string(40, 'z') + "…'");
  t.Write("d/cpulist", std::string(60, 'q') + "\n");
  auto list = ReadCpuSet(fs, "/d", "cpulist", "cpumap");
  EXPECT_EQ(list.unknown, "not a cpulist: '" + std::string(40, 'q') + "…'");
  // Forty exactly is whole.
  t.Write("d/cpulist", std::string(40, 'q') + "\n");
  EXPECT_EQ(ReadCpuSet(fs, "/d", "cpulist", "cpumap").unknown,
            "not a cpulist: '" + std::string(40, 'q') + "'");
}

TEST(CpuTopology, NoCpuinfoCountsFromSysfsAndReportsOfflineCpus) {
  Machine m = Collect("no-cpuinfo");
  EXPECT_EQ(*m.cpu.threads, 14);
  EXPECT_EQ(*m.cpu.cores, 8);
  EXPECT_EQ(*m.cpu.sockets, 1);
  EXPECT_EQ(*m.cpu.offline, "14-15");
  EXPECT_EQ(*m.cpu.present, "0-15");
  EXPECT_FALSE(m.cpu.model.known());
  EXPECT_TRUE(Contains(m.cpu.model.unknown, "file absent"));
}

TEST(CpuTopology, S390BooksAndDrawers) {
  Machine m = Collect("s390-books-drawers");
  EXPECT_EQ(*m.cpu.drawers, 2);
  EXPECT_EQ(*m.cpu.books, 4);
  EXPECT_EQ(*m.cpu.sockets, 8);
  EXPECT_EQ(*m.cpu.cores, 8);
  EXPECT_EQ(*m.cpu.threads, 16);
  EXPECT_EQ(*m.cpu.model, "IBM z15 (machine 8561)");
  EXPECT_EQ(*m.cpu.vendor, "IBM/S390");
}

TEST(CpuTopology, SysfsPackageIdsFromAnIa64StyleCollisionStillGiveDistinctCores) {
  // Two packages whose cpuinfo "physical id"/"core id" pairs collide: sysfs sibling sets decide.
  testing::TempDir t;
  t.Write("proc/cpuinfo",
          "processor\t: 0\nvendor\t: GenuineIntel\nfamily\t: Itanium 2\nphysical id: 0\n"
          "core id\t: 0\n\nprocessor\t: 1\nvendor\t: GenuineIntel\nfamily\t: Itanium 2\n"
          "physical id: 0\ncore id\t: 0\n\n");
  t.Write("sys/devices/system/cpu/online", "0-1\n");
  for (int c = 0; c < 2; ++c) {
    std::string d = "sys/devices/system/cpu/cpu" + std::to_string(c) + "/topology/";
    t.Write(d + "physical_package_id", std::to_string(c) + "\n");
    t.Write(d + "core_id", "0\n");
    t.Write(d + "thread_siblings_list", std::to_string(c) + "\n");
  }
  RootFs fs(t.path());
  CollectOptions o;
  std::vector<std::string> log;
  Machine m;
  ProbeCpu({fs, o, &log}, &m);
  EXPECT_EQ(*m.cpu.sockets, 2);
  EXPECT_EQ(*m.cpu.cores, 2);
  EXPECT_EQ(*m.cpu.model, "Itanium 2");
  EXPECT_EQ(*m.cpu.vendor, "GenuineIntel");
}

TEST(NumaKinds, OverlappingNodesWarnAndMemoryOnlyNodesAreLabelled) {
  Machine m = Collect("numa-overlap");
  ASSERT_EQ(m.numa.nodes.size(), 3u);
  EXPECT_EQ(*m.numa.nodes[0].kind, "cpu+memory");
  EXPECT_EQ(*m.numa.nodes[2].kind, "memory-only");
  EXPECT_FALSE(m.numa.nodes[2].gpu.known());
  View v = testing::ViewOf({m});
  auto fs = RunRules({v.machines[0], v, v.notes, {}});
  const Finding* f = nullptr;
  for (const auto& x : fs)
    if (x.id == "numa.overlapping-nodes") f = &x;
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(Contains(f->title, "4-7"));
  EXPECT_EQ(f->severity, kWarning);
  // Without the overlap the rule is silent.
  m.numa.nodes[1].cpus.Set("8-11", "test");
  View ok = testing::ViewOf({m});
  for (const auto& x : RunRules({ok.machines[0], ok, ok.notes, {}}))
    EXPECT_NE(x.id, "numa.overlapping-nodes");
}

TEST(NumaKinds, MemoryOnlyNodeNamesTheGpuWhoseNumaNodeItIsAndCpuOnlyIsLabelled) {
  testing::TempDir t;
  t.Write("sys/devices/system/node/node0/cpulist", "0-3\n");
  t.Write("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 0 kB\n");
  t.Write("sys/devices/system/node/node0/distance", "10 40\n");
  t.Write("sys/devices/system/node/node1/cpulist", "\n");
  t.Write("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal: 16777216 kB\n");
  t.Write("sys/devices/system/node/node1/distance", "40 10\n");
  RootFs fs(t.path());
  CollectOptions o;
  std::vector<std::string> log;
  Machine m;
  PciDevice gpu;
  gpu.address = "0035:03:00.0";
  gpu.class_id.Set("0x030200", "test");
  gpu.name.Set("NVIDIA GV100GL [Tesla V100 SXM2 16GB]", "test");
  gpu.numa_node.Set(1, "test");
  m.pci.devices.push_back(gpu);
  ProbeNuma({fs, o, &log}, &m);
  ASSERT_EQ(m.numa.nodes.size(), 2u);
  EXPECT_EQ(*m.numa.nodes[0].kind, "cpu-only");
  EXPECT_EQ(*m.numa.nodes[1].kind, "memory-only");
  EXPECT_TRUE(Contains(*m.numa.nodes[1].gpu, "0035:03:00.0"));
  EXPECT_TRUE(Contains(*m.numa.nodes[1].gpu, "V100"));
}

TEST(NotCaptured, NoSysKernelIsIommuUnknownNotOff) {
  Machine m = Collect("no-sys-kernel");
  EXPECT_FALSE(m.iommu.enabled.known());
  EXPECT_TRUE(Contains(m.iommu.enabled.unknown, "not in the capture"));
  // A tree that has the (empty) directories says off.
  Machine g = Collect("i440fx-guest");
  ASSERT_TRUE(g.iommu.enabled.known());
  EXPECT_FALSE(*g.iommu.enabled);
}

TEST(NotCaptured, NoPciDirectoryIsUnknownAndNoResourceFileIsBarsUnknown) {
  Machine m = Collect("no-cpuinfo");  // no [[device]]: no /sys/bus/pci
  EXPECT_FALSE(m.pci.count.known());
  EXPECT_EQ(m.pci.count.unknown, "not in the capture");
  testing::TempDir t;
  t.Write("sys/devices/pci0000:00/0000:00:01.0/vendor", "0x8086\n");
  t.Link("../../../devices/pci0000:00/0000:00:01.0", "sys/bus/pci/devices/0000:00:01.0");
  RootFs fs(t.path());
  CollectOptions o;
  std::vector<std::string> log;
  Machine d;
  ProbePci({fs, o, &log}, &d);
  ASSERT_EQ(d.pci.devices.size(), 1u);
  EXPECT_EQ(*d.pci.count, 1);
  EXPECT_FALSE(d.pci.devices[0].bar_count.known());
  EXPECT_EQ(d.pci.devices[0].bar_count.unknown, "not in the capture");
}

TEST(NotCaptured, SixtyFourByteConfigInACaptureIsSaidOnceWithoutNeedsRoot) {
  std::vector<std::string> log;
  Machine m = Collect("seed-guest-unprivileged", &log);
  int mentions = 0;
  for (const auto& l : log) mentions += Contains(l, "64 bytes");
  EXPECT_EQ(mentions, 1);
  for (const auto& d : m.pci.devices) {
    if (d.acs.present.known()) continue;
    EXPECT_NE(d.acs.present.unknown, "needs root") << d.address;
  }
}

TEST(NotCaptured, RootMustBeANonEmptyMachineTree) {
  auto empty = testing::RunCli("collect --root '' --format json");
  EXPECT_EQ(empty.code, 2) << empty.out;
  EXPECT_TRUE(Contains(empty.out, "empty path")) << empty.out;
  testing::TempDir t;
  t.Write("etc/hostname", "x\n");
  auto bare = testing::RunCli("collect --root '" + t.path() + "' --format json");
  EXPECT_EQ(bare.code, 2) << bare.out;
  EXPECT_TRUE(Contains(bare.out, "sys/ and proc/")) << bare.out;
}

TEST(DmiProcessor, DecodesVersionAndRejectsOtherStructures) {
  std::string raw(0x1a, '\0');
  raw[0] = 4;
  raw[1] = 0x1a;
  raw[7] = 1;
  raw[0x10] = 2;
  raw += std::string("NVIDIA\0Grace A02\0\0", 19);
  DmiProcessor p = DecodeDmiProcessor(raw, "raw");
  EXPECT_EQ(*p.manufacturer, "NVIDIA");
  EXPECT_EQ(*p.version, "Grace A02");
  raw[0] = 17;
  EXPECT_FALSE(DecodeDmiProcessor(raw, "raw").version.known());
  EXPECT_FALSE(DecodeDmiProcessor(raw.substr(0, 30), "raw").version.known());
}

}  // namespace
}  // namespace dossier
