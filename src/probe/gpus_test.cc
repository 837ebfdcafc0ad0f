#include <gtest/gtest.h>

#include "../tests/gpu_machines.h"
#include "../tests/temp_dir.h"
#include "probe/probe.h"

namespace dossier {
namespace {

using testing::AddGpu;
using testing::MakePci;
using testing::PciSpec;

void RunProbe(const testing::TempDir& dir, Machine* m) {
  RootFs fs(dir.path());
  CollectOptions opts;
  std::vector<std::string> log;
  ProbeContext ctx{fs, opts, &log};
  ProbeGpus(ctx, m);
}

void AddDevice(Machine* m, const std::string& address, const std::string& vendor,
               const std::string& class_id, const std::string& device,
               const std::string& name = {}) {
  PciSpec s = testing::Spec(address, "pci0000:00", "", "endpoint", 0);
  s.vendor = vendor;
  s.class_id = class_id;
  s.device = device;
  s.name = name;
  m->pci.devices.push_back(MakePci(s));
}

TEST(ProbeGpus, PicksNvidiaVgaAnd3dControllersOnlyInAddressOrder) {
  Machine m;
  AddDevice(&m, "0000:e2:00.0", "0x1a03", "0x030000", "0x2000");  // ASPEED BMC display
  AddDevice(&m, "0000:02:00.0", "0x102b", "0x030000", "0x0536");  // Matrox BMC display
  AddGpu(&m, "0000:c1:00.0", "pci0000:c0", "0000:c0:01.1", 1, "0x2b85", "0x030000");  // RTX 5090
  AddDevice(&m, "0000:c1:00.1", "0x10de", "0x040300", "0x22e8");  // its HDMI audio
  AddGpu(&m, "0000:01:00.0", "pci0000:00", "0000:00:01.1", 0, "0x2bb5", "0x030200");
  AddDevice(&m, "0000:05:00.0", "0x10de", "0x068000", "0x22a3");  // NVSwitch bridge
  testing::TempDir dir;
  RunProbe(dir, &m);

  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpus[0].index, 0);
  EXPECT_EQ(m.gpus[0].address, "0000:01:00.0");
  EXPECT_EQ(*m.gpus[0].name, "NVIDIA RTX PRO 6000 Blackwell Server Edition");
  EXPECT_EQ(*m.gpus[0].architecture, "Blackwell");
  EXPECT_EQ(*m.gpus[0].compute_capability, "12.0");
  EXPECT_NE(m.gpus[0].name.source.find("10de:2bb5"), std::string::npos) << m.gpus[0].name.source;
  EXPECT_EQ(m.gpus[1].index, 1);
  EXPECT_EQ(m.gpus[1].address, "0000:c1:00.0");
  EXPECT_EQ(*m.gpus[1].name, "NVIDIA GeForce RTX 5090");
  // NUMA node and driver are the PCI facts, with their sources.
  EXPECT_EQ(*m.gpus[1].numa_node, 1);
  EXPECT_EQ(m.gpus[1].numa_node.source, "/sys/bus/pci/devices/0000:c1:00.0/numa_node");
  EXPECT_EQ(*m.gpus[1].driver, "nvidia");
  EXPECT_EQ(m.gpus[1].driver.source, "/sys/bus/pci/devices/0000:c1:00.0/driver");
}

TEST(ProbeGpus, UnknownDeviceIdKeepsThePciNameAndSaysWhy) {
  Machine m;
  AddDevice(&m, "0000:01:00.0", "0x10de", "0x030200", "0x1db6", "GV100GL [Tesla V100 PCIe 32GB]");
  AddDevice(&m, "0000:02:00.0", "0x10de", "0x030200", "0xfffe");
  testing::TempDir dir;
  RunProbe(dir, &m);
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(*m.gpus[0].name, "GV100GL [Tesla V100 PCIe 32GB]");
  EXPECT_EQ(m.gpus[0].name.source, "pci.ids");
  EXPECT_FALSE(m.gpus[0].architecture.known());
  EXPECT_EQ(m.gpus[0].architecture.unknown, "device id 0x1db6 not in dossier's table");
  EXPECT_EQ(m.gpus[0].compute_capability.unknown, "device id 0x1db6 not in dossier's table");
  EXPECT_FALSE(m.gpus[1].name.known());
  EXPECT_EQ(m.gpus[1].name.unknown, "device id 0xfffe not in dossier's table");
}

TEST(ProbeGpus, UnreadableOrMalformedDeviceIdIsUnknownWithTheReason) {
  Machine m;
  AddDevice(&m, "0000:01:00.0", "0x10de", "0x030200", "0x2335");
  m.pci.devices[0].device_id.Unknown("needs root", "/sys/bus/pci/devices/0000:01:00.0/device");
  AddDevice(&m, "0000:02:00.0", "0x10de", "0x030200", "0xzz\x01");
  testing::TempDir dir;
  RunProbe(dir, &m);
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpus[0].name.unknown, "PCI device id unknown (needs root)");
  EXPECT_EQ(m.gpus[1].architecture.unknown, "PCI device id '0xzz\\x01' is not a hex id");
}

TEST(ProbeGpus, SubsystemIdTellsA2FromA16) {
  Machine m;
  AddDevice(&m, "0000:01:00.0", "0x10de", "0x030200", "0x25b6");
  m.pci.devices[0].subsystem_device_id.Set("0x157e", "sub");
  AddDevice(&m, "0000:02:00.0", "0x10de", "0x030200", "0x25b6");
  m.pci.devices[1].subsystem_device_id.Set("0x14a9", "sub");
  AddDevice(&m, "0000:03:00.0", "0x10de", "0x030200", "0x25B6");  // subsystem unknown
  testing::TempDir dir;
  RunProbe(dir, &m);
  ASSERT_EQ(m.gpus.size(), 3u);
  EXPECT_EQ(*m.gpus[0].name, "NVIDIA A2");
  EXPECT_EQ(*m.gpus[1].name, "NVIDIA A16");
  EXPECT_EQ(*m.gpus[2].name, "NVIDIA A2 / A16");
}

TEST(ProbeGpus, ReadsIdsWithOrWithoutTheHexPrefixAndRejectsTruncatedClasses) {
  Machine m;
  AddDevice(&m, "0000:01:00.0", "10DE", "030200", "2335");        // as an import might write them
  AddDevice(&m, "0000:02:00.0", "0x10de", "0x0302", "0x2335");    // truncated class
  AddDevice(&m, "0000:03:00.0", "0x10de", "0x030001", "0x2335");  // VGA, programming interface 1
  testing::TempDir dir;
  RunProbe(dir, &m);
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpus[0].address, "0000:01:00.0");
  EXPECT_EQ(*m.gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(m.gpus[0].name.source.find("dossier device-id table, 10de:2335"), 0u);
  EXPECT_EQ(m.gpus[1].address, "0000:03:00.0");
}

TEST(ProbeGpus, NoPciDevicesMeansNoGpus) {
  Machine m;
  testing::TempDir dir;
  RunProbe(dir, &m);
  EXPECT_TRUE(m.gpus.empty());
}

Fact<std::string> DriverFrom(const std::string* version_file, bool proc_driver = false) {
  testing::TempDir dir;
  if (version_file) dir.Write("proc/driver/nvidia/version", *version_file);
  if (proc_driver) dir.Write("proc/driver/rtc", "");
  Machine m;
  RunProbe(dir, &m);
  return m.software.nvidia_driver;
}

TEST(ProbeGpus, DriverVersionFromTheOpenAndTheProprietaryModule) {
  std::string open =
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.82.07  Release Build  "
      "(dvs-builder@U16-I3-B03-4-3)  Thu Aug 21 23:08:11 UTC 2025\n"
      "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n";
  auto f = DriverFrom(&open);
  ASSERT_TRUE(f.known()) << f.unknown;
  EXPECT_EQ(*f, "580.82.07");
  EXPECT_EQ(f.source, "/proc/driver/nvidia/version:1");

  std::string prop =
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n";
  EXPECT_EQ(*DriverFrom(&prop), "550.54.14");
  std::string arm =
      "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.133.20  "
      "Release Build  (dvs-builder@U16-T12-2)  Fri Mar 28 2025\n";
  EXPECT_EQ(*DriverFrom(&arm), "570.133.20");
}

TEST(ProbeGpus, DriverVersionUnknownWithTheReason) {
  // A capture that kept /proc/driver but no nvidia/ in it: the driver was not loaded there.
  auto absent = DriverFrom(nullptr, true);
  EXPECT_FALSE(absent.known());
  EXPECT_EQ(absent.unknown, "file absent (NVIDIA driver not loaded)");
  // A capture without /proc/driver says nothing about the driver.
  EXPECT_EQ(DriverFrom(nullptr).unknown, "not in the capture");
  EXPECT_EQ(absent.source, "/proc/driver/nvidia/version");

  std::string binary(
      "\x7f"
      "ELF\0\0\x01garbage",
      14);
  EXPECT_EQ(DriverFrom(&binary).unknown, "no 'NVRM version:' line");
  // Each word fails one test alone: a leading dot, a trailing dot, two dots together, no dot.
  std::string no_number =
      "NVRM version: NVIDIA UNIX Kernel Module  .  ..1.  .570.1  570.1.  570..1  570  x86_64\n";
  auto f = DriverFrom(&no_number);
  EXPECT_FALSE(f.known());
  EXPECT_NE(f.unknown.find("no version number"), std::string::npos) << f.unknown;
  std::string huge(200 << 10, 'x');
  EXPECT_FALSE(DriverFrom(&huge).known());
}

TEST(CollectMachine, RunsTheGpuProbeAndDerivesTheTopology) {
  testing::TempDir dir;
  dir.Write("proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.82.07  Release Build\n");
  RootFs fs(dir.path());
  CollectOptions opts;
  std::vector<std::string> log;
  Machine m = CollectMachine(fs, opts, &log);
  EXPECT_EQ(*m.software.nvidia_driver, "580.82.07");
  EXPECT_TRUE(m.topology.gpu_levels.size() == m.gpus.size());
}

}  // namespace
}  // namespace dossier
