#include "analyze/topology.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "../tests/gpu_machines.h"
#include "model/json_io.h"

namespace dossier {
namespace {

using testing::AddBridge;
using testing::AddGpu;
using testing::SetGpus;
using testing::SetNumaNodes;

// Root port 00:01.0 -> switch (upstream 01:00.0, downstream 02:00.0 and 02:01.0) -> GPUs.
Machine OneSwitch() {
  Machine m;
  SetNumaNodes(&m, 1);
  AddBridge(&m, "0000:00:01.0", "pci0000:00", "", "root_port", 0);
  AddBridge(&m, "0000:01:00.0", "pci0000:00", "0000:00:01.0", "upstream", 0);
  AddBridge(&m, "0000:02:00.0", "pci0000:00", "0000:01:00.0", "downstream", 0);
  AddBridge(&m, "0000:02:01.0", "pci0000:00", "0000:01:00.0", "downstream", 0);
  AddGpu(&m, "0000:03:00.0", "pci0000:00", "0000:02:00.0", 0);
  AddGpu(&m, "0000:04:00.0", "pci0000:00", "0000:02:01.0", 0);
  SetGpus(&m, {"0000:03:00.0", "0000:04:00.0"});
  return m;
}

TEST(Topology, TwoGpusBelowOneSwitchArePix) {
  Machine m = OneSwitch();
  EXPECT_EQ(TopologyLevel(m, "0000:03:00.0", "0000:04:00.0"), "PIX");
  DeriveTopology(&m);
  std::vector<std::vector<std::string>> want = {{"X", "PIX"}, {"PIX", "X"}};
  EXPECT_EQ(m.topology.gpu_levels, want);
}

TEST(Topology, PathNamesTheSwitchAndTheDownstreamPortOnEachSide) {
  Machine m = OneSwitch();
  PciPath p = PathBetween(m, "0000:03:00.0", "0000:04:00.0");
  EXPECT_TRUE(p.complete()) << p.problem;
  EXPECT_EQ(p.common_ancestor, "0000:01:00.0");
  EXPECT_EQ(p.bridges_a, std::vector<std::string>{"0000:02:00.0"});
  EXPECT_EQ(p.bridges_b, std::vector<std::string>{"0000:02:01.0"});
  EXPECT_TRUE(p.same_root_complex());
}

// Root port -> top switch (01/02) -> two lower switches (03/04 and 06/07) -> GPUs.
Machine TwoLevelSwitch() {
  Machine m;
  SetNumaNodes(&m, 1);
  const std::string rc = "pci0000:00";
  AddBridge(&m, "0000:00:01.0", rc, "", "root_port", 0);
  AddBridge(&m, "0000:01:00.0", rc, "0000:00:01.0", "upstream", 0);
  AddBridge(&m, "0000:02:00.0", rc, "0000:01:00.0", "downstream", 0);
  AddBridge(&m, "0000:02:01.0", rc, "0000:01:00.0", "downstream", 0);
  AddBridge(&m, "0000:03:00.0", rc, "0000:02:00.0", "upstream", 0);
  AddBridge(&m, "0000:04:00.0", rc, "0000:03:00.0", "downstream", 0);
  AddBridge(&m, "0000:04:01.0", rc, "0000:03:00.0", "downstream", 0);
  AddBridge(&m, "0000:06:00.0", rc, "0000:02:01.0", "upstream", 0);
  AddBridge(&m, "0000:07:00.0", rc, "0000:06:00.0", "downstream", 0);
  AddGpu(&m, "0000:05:00.0", rc, "0000:04:00.0", 0);
  AddGpu(&m, "0000:09:00.0", rc, "0000:04:01.0", 0);
  AddGpu(&m, "0000:08:00.0", rc, "0000:07:00.0", 0);
  SetGpus(&m, {"0000:05:00.0", "0000:08:00.0", "0000:09:00.0"});
  return m;
}

TEST(Topology, GpusBelowDifferentSwitchesOfATwoLevelSwitchArePxb) {
  Machine m = TwoLevelSwitch();
  EXPECT_EQ(TopologyLevel(m, "0000:05:00.0", "0000:08:00.0"), "PXB");
  EXPECT_EQ(TopologyLevel(m, "0000:05:00.0", "0000:09:00.0"), "PIX");  // same lower switch
  PciPath p = PathBetween(m, "0000:05:00.0", "0000:08:00.0");
  EXPECT_EQ(p.common_ancestor, "0000:01:00.0");
  EXPECT_EQ(p.bridges_a,
            (std::vector<std::string>{"0000:04:00.0", "0000:03:00.0", "0000:02:00.0"}));
  EXPECT_EQ(p.bridges_b,
            (std::vector<std::string>{"0000:07:00.0", "0000:06:00.0", "0000:02:01.0"}));
}

// Two switches on the path, not three: one GPU behind the lower switch, the other on a port of
// the top switch itself. Still more than one switch, so PXB (nvidia-smi: "multiple PCIe
// bridges"), never PIX.
TEST(Topology, AGpuOnTheTopSwitchAndOneBelowALowerSwitchArePxb) {
  Machine m = TwoLevelSwitch();
  AddBridge(&m, "0000:02:02.0", "pci0000:00", "0000:01:00.0", "downstream", 0);
  AddGpu(&m, "0000:0a:00.0", "pci0000:00", "0000:02:02.0", 0);
  EXPECT_EQ(TopologyLevel(m, "0000:05:00.0", "0000:0a:00.0"), "PXB");
  EXPECT_EQ(TopologyLevel(m, "0000:0a:00.0", "0000:08:00.0"), "PXB");
}

TEST(Topology, WithoutPortTypesEveryBridgeCountsSoOneSwitchLooksPxbNeverPhb) {
  Machine m = OneSwitch();
  for (auto& d : m.pci.devices) d.port_type.Unknown("no PCIe capability");
  EXPECT_EQ(TopologyLevel(m, "0000:03:00.0", "0000:04:00.0"), "PXB");
}

// The Puget WRX90 sample (lspci_tree/stelline-puget-…, topo_m/stelline-puget-…): two RTX 6000 Ada
// on root ports c0:01.1 and c0:03.1 of root complex c0; nvidia-smi says PHB.
TEST(Topology, TwoRootPortsOfOneRootComplexArePhb) {
  Machine m;
  SetNumaNodes(&m, 1);
  AddBridge(&m, "0000:c0:01.1", "pci0000:c0", "", "root_port", 0);
  AddBridge(&m, "0000:c0:03.1", "pci0000:c0", "", "root_port", 0);
  AddGpu(&m, "0000:c1:00.0", "pci0000:c0", "0000:c0:01.1", 0, "0x26b1", "0x030000");
  AddGpu(&m, "0000:c2:00.0", "pci0000:c0", "0000:c0:03.1", 0, "0x26b1", "0x030000");
  SetGpus(&m, {"0000:c1:00.0", "0000:c2:00.0"});
  EXPECT_EQ(TopologyLevel(m, "0000:c1:00.0", "0000:c2:00.0"), "PHB");
  PciPath p = PathBetween(m, "0000:c1:00.0", "0000:c2:00.0");
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.common_ancestor, "");
  EXPECT_EQ(p.bridges_a, std::vector<std::string>{"0000:c0:01.1"});
  EXPECT_EQ(p.bridges_b, std::vector<std::string>{"0000:c0:03.1"});
  EXPECT_TRUE(p.same_root_complex());
}

TEST(Topology, GpusOnTheRootBusWithoutRootPortsArePhb) {
  Machine m;  // an i440FX guest: devices straight on bus 0
  AddGpu(&m, "0000:00:10.0", "pci0000:00", "", -1);
  AddGpu(&m, "0000:00:11.0", "pci0000:00", "", -1);
  EXPECT_EQ(TopologyLevel(m, "0000:00:10.0", "0000:00:11.0"), "PHB");
}

TEST(Topology, DifferentRootComplexesAreNodeInOneNumaNodeAndSysAcross) {
  Machine m;
  SetNumaNodes(&m, 2);
  AddBridge(&m, "0000:00:01.1", "pci0000:00", "", "root_port", 0);
  AddBridge(&m, "0000:40:01.1", "pci0000:40", "", "root_port", 0);
  AddBridge(&m, "0000:c0:01.1", "pci0000:c0", "", "root_port", 1);
  AddGpu(&m, "0000:01:00.0", "pci0000:00", "0000:00:01.1", 0);
  AddGpu(&m, "0000:41:00.0", "pci0000:40", "0000:40:01.1", 0);
  AddGpu(&m, "0000:c1:00.0", "pci0000:c0", "0000:c0:01.1", 1);
  EXPECT_EQ(TopologyLevel(m, "0000:01:00.0", "0000:41:00.0"), "NODE");
  EXPECT_EQ(TopologyLevel(m, "0000:01:00.0", "0000:c1:00.0"), "SYS");
  PciPath p = PathBetween(m, "0000:01:00.0", "0000:c1:00.0");
  EXPECT_FALSE(p.same_root_complex());
  EXPECT_EQ(p.root_complex_a, "pci0000:00");
  EXPECT_EQ(p.root_complex_b, "pci0000:c0");
}

// The ASUS ESC8000A-E12 sample: 4 RTX 6000 Ada, each on its own root complex (00, 40 in node 0;
// c0, e0 in node 1). topo_m/stelline-asus-…: (0,1)=NODE, (2,3)=NODE, (0,2)=SYS, (1,3)=SYS.
TEST(Topology, MatchesNvidiaSmiOnTheEsc8000aSample) {
  Machine m;
  SetNumaNodes(&m, 2);
  const char* rcs[] = {"00", "40", "c0", "e0"};
  const int64_t nodes[] = {0, 0, 1, 1};
  std::vector<std::string> gpus;
  for (int i = 0; i < 4; ++i) {
    std::string bus = rcs[i];
    std::string gpu_bus = fmt::format("{:02x}", std::stoi(bus, nullptr, 16) + 1);
    AddBridge(&m, "0000:" + bus + ":01.1", "pci0000:" + bus, "", "root_port", nodes[i]);
    AddGpu(&m, "0000:" + gpu_bus + ":00.0", "pci0000:" + bus, "0000:" + bus + ":01.1", nodes[i],
           "0x26b1", "0x030000");
    gpus.push_back("0000:" + gpu_bus + ":00.0");
  }
  SetGpus(&m, gpus);
  DeriveTopology(&m);
  std::vector<std::vector<std::string>> want = {{"X", "NODE", "SYS", "SYS"},
                                                {"NODE", "X", "SYS", "SYS"},
                                                {"SYS", "SYS", "X", "NODE"},
                                                {"SYS", "SYS", "NODE", "X"}};
  EXPECT_EQ(m.topology.gpu_levels, want);
}

// A Proxmox Q35 guest with 8 passthrough GPUs, each behind its own pcie-root-port on the one
// root complex, NUMA unknown (-1) as the guest kernel reports it: every pair is PHB.
TEST(Topology, Q35GuestWithEightRootPortsIsAllPhb) {
  Machine m;
  SetNumaNodes(&m, 2);  // even a guest given two NUMA nodes: one root complex means PHB
  std::vector<std::string> gpus;
  for (int i = 0; i < 8; ++i) {
    std::string port = fmt::format("0000:00:1c.{}", i);
    std::string gpu = fmt::format("0000:{:02x}:00.0", i + 1);
    AddBridge(&m, port, "pci0000:00", "", "root_port", -1);
    AddGpu(&m, gpu, "pci0000:00", port, -1);
    gpus.push_back(gpu);
  }
  SetGpus(&m, gpus);
  DeriveTopology(&m);
  ASSERT_EQ(m.topology.gpu_levels.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    ASSERT_EQ(m.topology.gpu_levels[i].size(), 8u);
    for (size_t j = 0; j < 8; ++j) EXPECT_EQ(m.topology.gpu_levels[i][j], i == j ? "X" : "PHB");
  }
}

// The seed story's host: 8 GPUs, each on its own root complex; 01, 11, 61, 71 in NUMA node 0 and
// 81, 91, e1, f1 in node 1: NODE within a node, SYS across.
TEST(Topology, SeedHostWithEightRootComplexesIsNodeWithinAndSysAcross) {
  Machine m;
  SetNumaNodes(&m, 2);
  const int buses[] = {0x00, 0x10, 0x60, 0x70, 0x80, 0x90, 0xe0, 0xf0};
  std::vector<std::string> gpus;
  for (int i = 0; i < 8; ++i) {
    int64_t node = i < 4 ? 0 : 1;
    std::string rc = fmt::format("pci0000:{:02x}", buses[i]);
    std::string port = fmt::format("0000:{:02x}:01.1", buses[i]);
    std::string gpu = fmt::format("0000:{:02x}:00.0", buses[i] + 1);
    AddBridge(&m, port, rc, "", "root_port", node);
    AddGpu(&m, gpu, rc, port, node);
    gpus.push_back(gpu);
  }
  SetGpus(&m, gpus);
  DeriveTopology(&m);
  for (size_t i = 0; i < 8; ++i) {
    for (size_t j = 0; j < 8; ++j) {
      std::string want = i == j ? "X" : (i < 4) == (j < 4) ? "NODE" : "SYS";
      EXPECT_EQ(m.topology.gpu_levels[i][j], want) << i << "," << j;
    }
  }
  // No bridge is shared by any pair: what an ACS rule needs to say ACS cannot matter.
  PciPath p = PathBetween(m, gpus[0], gpus[1]);
  EXPECT_EQ(p.common_ancestor, "");
  EXPECT_EQ(p.bridges_a, std::vector<std::string>{"0000:00:01.1"});
}

TEST(Topology, UnknownNumaAcrossRootComplexesIsNodeOnOneNodeElseAMarker) {
  Machine m;
  AddBridge(&m, "0000:00:01.1", "pci0000:00", "", "root_port", -1);
  AddBridge(&m, "0000:40:01.1", "pci0000:40", "", "root_port", -1);
  AddGpu(&m, "0000:01:00.0", "pci0000:00", "0000:00:01.1", -1);
  AddGpu(&m, "0000:41:00.0", "pci0000:40", "0000:40:01.1", std::nullopt);
  SetNumaNodes(&m, 1);
  EXPECT_EQ(TopologyLevel(m, "0000:01:00.0", "0000:41:00.0"), "NODE");
  SetNumaNodes(&m, 0);  // NUMA off in the kernel: one node
  EXPECT_EQ(TopologyLevel(m, "0000:01:00.0", "0000:41:00.0"), "NODE");
  SetNumaNodes(&m, 2);
  EXPECT_EQ(TopologyLevel(m, "0000:01:00.0", "0000:41:00.0"), "NODE/SYS");
}

TEST(Topology, NumaOfTheRootPortStandsInForAGpuThatDoesNotKnow) {
  Machine m;
  SetNumaNodes(&m, 2);
  AddBridge(&m, "0000:00:01.1", "pci0000:00", "", "root_port", 0);
  AddBridge(&m, "0000:80:01.1", "pci0000:80", "", "root_port", 1);
  AddGpu(&m, "0000:01:00.0", "pci0000:00", "0000:00:01.1", -1);
  AddGpu(&m, "0000:81:00.0", "pci0000:80", "0000:80:01.1", -1);
  EXPECT_EQ(TopologyLevel(m, "0000:01:00.0", "0000:81:00.0"), "SYS");
}

TEST(Topology, MissingDevicesAndLoopsGiveUnknownNotACrash) {
  Machine m = OneSwitch();
  EXPECT_EQ(TopologyLevel(m, "0000:03:00.0", "0000:99:00.0"), "unknown");
  PciPath p = PathBetween(m, "0000:03:00.0", "0000:99:00.0");
  EXPECT_FALSE(p.complete());
  EXPECT_NE(p.problem.find("0000:99:00.0"), std::string::npos) << p.problem;

  // A parent that is not recorded, below any shared bridge: PIX or PHB cannot be told.
  AddGpu(&m, "0000:05:00.0", "pci0000:00", "0000:0a:00.0", 0);
  EXPECT_EQ(TopologyLevel(m, "0000:03:00.0", "0000:05:00.0"), "unknown");

  // A corrupted record whose parents loop.
  Machine loop;
  AddBridge(&loop, "0000:01:00.0", "pci0000:00", "0000:02:00.0", "upstream");
  AddBridge(&loop, "0000:02:00.0", "pci0000:00", "0000:01:00.0", "downstream");
  AddGpu(&loop, "0000:03:00.0", "pci0000:00", "0000:02:00.0", 0);
  AddGpu(&loop, "0000:04:00.0", "pci0000:00", "", 0);
  EXPECT_EQ(TopologyLevel(loop, "0000:03:00.0", "0000:04:00.0"), "unknown");
  EXPECT_NE(PathBetween(loop, "0000:03:00.0", "0000:04:00.0").problem.find("loop"),
            std::string::npos);
}

TEST(Topology, ABreakAboveTheSharedSwitchDoesNotMatter) {
  Machine m = OneSwitch();
  // The root port is not recorded (e.g. an import that only listed the switch and the GPUs).
  std::erase_if(m.pci.devices, [](const PciDevice& d) { return d.address == "0000:00:01.0"; });
  EXPECT_EQ(TopologyLevel(m, "0000:03:00.0", "0000:04:00.0"), "PIX");
}

TEST(Topology, DerivedMatrixIsEmptyWithoutGpusAndSquareWithThem) {
  Machine m;
  DeriveTopology(&m);
  EXPECT_TRUE(m.topology.gpu_levels.empty());
  m = OneSwitch();
  SetGpus(&m, {"0000:03:00.0"});
  DeriveTopology(&m);
  EXPECT_EQ(m.topology.gpu_levels, (std::vector<std::vector<std::string>>{{"X"}}));
}

TEST(Topology, LevelsAndGpusSurviveTheJsonRecord) {
  Machine m = TwoLevelSwitch();
  DeriveTopology(&m);
  std::vector<std::string> warnings;
  Machine back = MachineFromJson(MachineToJson(m), &warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(back.topology.gpu_levels, m.topology.gpu_levels);
  ASSERT_EQ(back.gpus.size(), 3u);
  EXPECT_EQ(back.gpus[1].address, "0000:08:00.0");
  // The walk over the record read back gives the same answer as over the probed machine.
  EXPECT_EQ(TopologyLevel(back, "0000:05:00.0", "0000:08:00.0"), "PXB");
}

}  // namespace
}  // namespace dossier
