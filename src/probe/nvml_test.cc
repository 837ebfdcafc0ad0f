// ProbeNvml against the stand-in NVML libraries: the facts a collect records, the reasons kept for
// what the driver does not answer, and the pair matrices.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/json_io.h"
#include "probe/probe.h"
#include "tests/standin_paths.h"
#include "tests/temp_dir.h"

namespace dossier {
namespace {

using testing::StandinFixture;

Machine NvmlMachine(const std::string& lib, Machine m = {}) {
  testing::TempDir root;  // a captured tree: NVML runs only because a library is named
  RootFs fs(root.path());
  CollectOptions opts;
  opts.nvml_lib = lib;
  std::vector<std::string> log;
  ProbeContext ctx{fs, opts, &log};
  ProbeNvml(ctx, &m);
  return m;
}

TEST(ProbeNvml, SeedGuestEightGpusPhbAndNs) {
  StandinFixture f("seed-guest");
  Machine m = NvmlMachine(testing::NvmlStandin());
  const NvmlInfo& n = m.nvml;
  ASSERT_TRUE(n.loaded) << n.error;
  EXPECT_EQ(*n.driver_version, "580.95.05");
  EXPECT_EQ(*n.cuda_driver_version, "13.0");
  ASSERT_EQ(n.gpus.size(), 8u);
  const NvmlGpu& g = n.gpus[3];
  EXPECT_EQ(*g.pci_bus_id, "0000:04:00.0");
  EXPECT_EQ(g.pci_bus_id.source, "nvml:nvmlDeviceGetPciInfo_v3");
  EXPECT_EQ(*g.name, "NVIDIA RTX PRO 6000 Blackwell Server Edition");
  EXPECT_EQ(*g.compute_capability, "12.0");
  EXPECT_EQ(*g.bar1_total_bytes, 128ull << 30);
  EXPECT_EQ(*g.pcie.max.gen, 5);
  EXPECT_EQ(*g.pcie.current.width, 16);
  EXPECT_EQ(*g.numa_node, -1);  // the guest's driver knows no node
  EXPECT_DOUBLE_EQ(*g.power_limit_w, 600.0);
  EXPECT_EQ(*g.clock_sm_mhz, 2280);
  EXPECT_FALSE(g.serial.known());
  EXPECT_EQ(g.serial.unknown, "nvmlDeviceGetSerial: NOT_SUPPORTED");
  EXPECT_EQ(g.mig_enabled.unknown, "nvmlDeviceGetMigMode: NOT_SUPPORTED");
  EXPECT_TRUE(g.nvlinks.empty());
  EXPECT_EQ(g.gpu_index.unknown, "the PCI walk found no GPUs");

  const Topology& t = m.topology;
  ASSERT_EQ(t.nvml_levels.size(), 8u);
  EXPECT_EQ(t.nvml_levels[0][0], "X");
  EXPECT_EQ(t.nvml_levels[0][7], "PHB");
  EXPECT_EQ(t.p2p_status.read[2][5], "NS");
  EXPECT_EQ(t.p2p_status.pci[5][2], "NS");
  EXPECT_EQ(t.p2p_status.atomics[1][1], "X");
  EXPECT_TRUE(n.pair_errors.empty());
}

TEST(ProbeNvml, BarePairOkAndMatchedToThePciWalk) {
  StandinFixture f("bare-pair");
  Machine walk;
  Gpu a, b;
  a.index = 0;
  a.address = "0000:01:00.0";
  b.index = 1;
  b.address = "0000:11:00.0";
  walk.gpus = {a, b};
  Machine m = NvmlMachine(testing::NvmlStandin(), walk);
  ASSERT_EQ(m.nvml.gpus.size(), 2u);
  EXPECT_EQ(*m.nvml.gpus[1].gpu_index, 1);
  EXPECT_EQ(*m.nvml.gpus[1].serial, "1650125000002");
  EXPECT_EQ(*m.nvml.gpus[0].numa_node, 0);
  EXPECT_EQ(m.topology.nvml_levels[0][1], "NODE");
  EXPECT_EQ(m.topology.p2p_status.read[0][1], "OK");
  EXPECT_EQ(m.topology.p2p_status.write[1][0], "OK");
  EXPECT_EQ(m.topology.p2p_status.nvlink[0][1], "NS");
}

TEST(ProbeNvml, NvLinksCountedPerPeerUntilThePastTheLastLink) {
  StandinFixture f("faulty");
  Machine m = NvmlMachine(testing::NvmlStandin());
  ASSERT_EQ(m.nvml.gpus.size(), 3u);
  const auto& links = m.nvml.gpus[0].nvlinks;
  ASSERT_EQ(links.size(), 4u);  // the fifth index answered INVALID_ARGUMENT
  EXPECT_TRUE(*links[3].active);
  EXPECT_EQ(*links[0].remote_pci_bus_id, "0000:11:00.0");
  EXPECT_EQ(*links[1].remote_pci_bus_id, "0000:21:00.0");
  EXPECT_EQ(m.topology.nvml_levels[0][1], "NV2");
  EXPECT_EQ(m.topology.nvml_levels[2][0], "NV2");
  EXPECT_EQ(m.topology.p2p_status.nvlink[0][2], "OK");
}

TEST(ProbeNvml, OldLibraryWithoutVersionedSymbols) {
  StandinFixture f("bare-pair");
  Machine m = NvmlMachine(testing::NvmlStandinPlain());
  ASSERT_TRUE(m.nvml.loaded) << m.nvml.error;
  ASSERT_EQ(m.nvml.gpus.size(), 2u);
  // The v1 struct has only the legacy bus id; it still gives the address.
  EXPECT_EQ(*m.nvml.gpus[1].pci_bus_id, "0000:11:00.0");
  EXPECT_EQ(m.nvml.gpus[1].pci_bus_id.source, "nvml:nvmlDeviceGetPciInfo");
  EXPECT_FALSE(m.nvml.gpus[0].numa_node.known());
  EXPECT_EQ(m.nvml.gpus[0].numa_node.unknown.rfind("nvmlDeviceGetNumaNodeId: not in ", 0), 0u);
  EXPECT_EQ(*m.nvml.cuda_driver_version, "12.8");
  EXPECT_EQ(m.nvml.cuda_driver_version.source, "nvml:nvmlSystemGetCudaDriverVersion");
}

TEST(ProbeNvml, InitFailureIsRecordedNotFatal) {
  StandinFixture f("init-fails");
  Machine m = NvmlMachine(testing::NvmlStandin());
  EXPECT_FALSE(m.nvml.loaded);
  EXPECT_EQ(m.nvml.error, "nvmlInit_v2: DRIVER_NOT_LOADED");
  EXPECT_EQ(m.nvml.driver_version.unknown, "NVML not loaded: nvmlInit_v2: DRIVER_NOT_LOADED");
  EXPECT_TRUE(m.nvml.gpus.empty());
  EXPECT_TRUE(m.topology.nvml_levels.empty());
}

TEST(ProbeNvml, OffUnderACapturedRootWithoutALibrary) {
  Machine m = NvmlMachine("");
  EXPECT_FALSE(m.nvml.loaded);
  EXPECT_NE(m.nvml.error.find("--root is not /"), std::string::npos);
  EXPECT_FALSE(m.nvml.driver_version.known());
}

TEST(ProbeNvml, JsonRoundTrip) {
  StandinFixture f("seed-guest");
  Machine m = NvmlMachine(testing::NvmlStandin());
  m.name = "guest";
  nlohmann::json j = MachineToJson(m);
  EXPECT_EQ(j["nvml"]["gpus"][0]["pci_bus_id"], "0000:01:00.0");
  EXPECT_TRUE(j["nvml"]["gpus"][0]["serial"].is_null());
  EXPECT_EQ(j["provenance"]["/nvml/gpus/0/serial"]["unknown"],
            "nvmlDeviceGetSerial: NOT_SUPPORTED");
  EXPECT_EQ(j["topology"]["p2p_status"]["read"][0][1], "NS");
  EXPECT_EQ(j["topology"]["nvml_levels"][1][0], "PHB");
  std::vector<std::string> warnings;
  Machine back = MachineFromJson(j, &warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(back.nvml.gpus.size(), 8u);
  EXPECT_EQ(back.nvml.gpus[2].serial.unknown, "nvmlDeviceGetSerial: NOT_SUPPORTED");
  EXPECT_EQ(*back.nvml.gpus[2].pcie.max.gen, 5);
  EXPECT_EQ(back.topology.p2p_status.write, m.topology.p2p_status.write);
  EXPECT_TRUE(back.nvml.loaded);
}

}  // namespace
}  // namespace dossier
