// ProbeNvml against the stand-in NVML libraries: the facts a collect records, the reasons kept for
// what the driver does not answer, and the pair matrices.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "model/json_io.h"
#include "probe/nvml_health.h"
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

TEST(ProbeNvml, NamesTheGpuWherePciIdsLacksItsDeviceId) {
  StandinFixture f("bare-pair");
  Machine walk;
  PciDevice vendor_only, unnamed, other;
  vendor_only.address = "0000:01:00.0";
  vendor_only.vendor_id = Known<std::string>("0x10de", "x");
  vendor_only.device_id = Known<std::string>("0x2bb5", "x");
  vendor_only.name = Known<std::string>("NVIDIA Corporation Device 2bb5", "libpci:pci_lookup_name");
  unnamed = vendor_only;
  unnamed.address = "0000:11:00.0";
  unnamed.name.Unknown("no pci.ids (looked in /usr/share/misc, /usr/share/hwdata)");
  other = vendor_only;
  other.address = "0000:21:00.0";  // no GPU there in NVML: left as it is
  walk.pci.devices = {vendor_only, unnamed, other};
  Gpu a;
  a.address = "0000:11:00.0";
  a.name.Unknown("device id 0x2bb5 not in dossier's table");
  walk.gpus = {a};
  Machine m = NvmlMachine(testing::NvmlStandin(), walk);
  EXPECT_EQ(*m.pci.devices[0].name, "NVIDIA RTX PRO 6000 Blackwell Server Edition");
  EXPECT_EQ(m.pci.devices[0].name.source,
            "nvml:nvmlDeviceGetName (pci.ids lists only the vendor of 0x10de:0x2bb5)");
  EXPECT_EQ(*m.pci.devices[1].name, "NVIDIA RTX PRO 6000 Blackwell Server Edition");
  EXPECT_NE(m.pci.devices[1].name.source.find("pci.ids has no name"), std::string::npos);
  EXPECT_EQ(*m.pci.devices[2].name, "NVIDIA Corporation Device 2bb5");
  EXPECT_EQ(*m.gpus[0].name, "NVIDIA RTX PRO 6000 Blackwell Server Edition");

  // A name pci.ids has is kept.
  Machine named;
  PciDevice d = vendor_only;
  d.name = Known<std::string>("NVIDIA Corporation GB202GL [RTX PRO 6000]", "libpci");
  named.pci.devices = {d};
  Machine n = NvmlMachine(testing::NvmlStandin(), named);
  EXPECT_EQ(*n.pci.devices[0].name, "NVIDIA Corporation GB202GL [RTX PRO 6000]");
}

TEST(ProbeNvml, HealthFactsAsTheDriverAnswers) {
  StandinFixture f("sick-pair");
  Machine m = NvmlMachine(testing::NvmlStandin());
  ASSERT_EQ(m.nvml.gpus.size(), 2u);
  const NvmlHealth& a = m.nvml.gpus[0].health;
  EXPECT_EQ(*a.vbios_version, "96.00.AF.00.01");
  EXPECT_EQ(a.vbios_version.source, "nvml:nvmlDeviceGetVbiosVersion");
  EXPECT_EQ(*a.clock_sm_max_mhz, 1980);
  EXPECT_EQ(*a.clock_mem_max_mhz, 3201);
  EXPECT_EQ(*a.clocks_event_mask, 0x9);
  EXPECT_EQ(*a.clocks_event_reasons, "gpu_idle, hw_slowdown");
  EXPECT_DOUBLE_EQ(*a.power_draw_w, 71.0);
  EXPECT_DOUBLE_EQ(*a.power_limit_enforced_w, 600.0);
  EXPECT_EQ(*a.temperature_c, 34);
  EXPECT_EQ(*a.pcie_device_max_gen, 5);
  EXPECT_EQ(*a.recovery_action, "none");
  // Row remapping boards have no page retirement: NOT_SUPPORTED, said so.
  EXPECT_EQ(a.retired_pages_pending.unknown,
            "nvmlDeviceGetRetiredPagesPendingStatus: NOT_SUPPORTED");
  const NvmlHealth& b = m.nvml.gpus[1].health;
  EXPECT_EQ(*b.ecc_corrected_volatile, 12);
  EXPECT_EQ(*b.ecc_uncorrected_volatile, 2);
  EXPECT_EQ(*b.ecc_corrected_aggregate, 340);
  EXPECT_EQ(*b.ecc_uncorrected_aggregate, 2);
  EXPECT_EQ(*b.remapped_rows_uncorrected, 1);
  EXPECT_TRUE(*b.remap_pending);
  EXPECT_FALSE(*b.remap_failed);
  EXPECT_EQ(*b.pcie_replay_count, 57);
  EXPECT_EQ(*b.recovery_action, "gpu_reset");
  EXPECT_EQ(ClocksEventReasonNames(0), "none");
  EXPECT_EQ(ClocksEventReasonNames(0x401), "gpu_idle, 0x400");
  EXPECT_EQ(ClocksEventReasonNames(0x1e4),
            "sw_power_cap, sw_thermal_slowdown, hw_thermal_slowdown, hw_power_brake_slowdown, "
            "display_clock_setting");
}

// Counts the facts of a struct that are neither known nor unknown with a reason.
struct UnsetCount {
  int unset = 0;
  template <class T>
  void operator()(const char*, Fact<T>& f) {
    unset += !f.known() && f.unknown.empty();
  }
};

TEST(ProbeNvml, EveryHealthFactUnknownWithItsCallWhereNotSupported) {
  StandinFixture f("no-health");
  Machine m = NvmlMachine(testing::NvmlStandin());
  ASSERT_EQ(m.nvml.gpus.size(), 1u);
  const NvmlHealth& h = m.nvml.gpus[0].health;
  EXPECT_EQ(h.vbios_version.unknown, "nvmlDeviceGetVbiosVersion: NOT_SUPPORTED");
  EXPECT_EQ(h.clock_sm_max_mhz.unknown, "nvmlDeviceGetMaxClockInfo: NOT_SUPPORTED");
  EXPECT_EQ(h.clocks_event_reasons.unknown,
            "nvmlDeviceGetCurrentClocksEventReasons: NOT_SUPPORTED");
  EXPECT_EQ(h.power_draw_w.unknown, "nvmlDeviceGetPowerUsage: NOT_SUPPORTED");
  EXPECT_EQ(h.power_limit_enforced_w.unknown, "nvmlDeviceGetEnforcedPowerLimit: NOT_SUPPORTED");
  EXPECT_EQ(h.temperature_c.unknown, "nvmlDeviceGetTemperature: NOT_SUPPORTED");
  EXPECT_EQ(h.ecc_uncorrected_aggregate.unknown, "nvmlDeviceGetTotalEccErrors: NOT_SUPPORTED");
  EXPECT_EQ(h.remap_pending.unknown, "nvmlDeviceGetRemappedRows: NOT_SUPPORTED");
  EXPECT_EQ(h.pcie_replay_count.unknown, "nvmlDeviceGetPcieReplayCounter: NOT_SUPPORTED");
  EXPECT_EQ(h.pcie_device_max_gen.unknown, "nvmlDeviceGetGpuMaxPcieLinkGeneration: NOT_SUPPORTED");
  EXPECT_EQ(h.recovery_action.unknown, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION: NOT_SUPPORTED");
  // Every fact of the struct is either known or unknown with a reason: none left unset.
  NvmlHealth copy = h;
  UnsetCount c;
  copy.visit(c);
  EXPECT_EQ(c.unset, 0);
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

TEST(ProbeNvml, ARefusedCommonAncestorIsAQuestionMarkForThatPairWithItsReason) {
  StandinFixture f("blind-third");
  Machine m = NvmlMachine(testing::NvmlStandin());
  ASSERT_EQ(m.topology.nvml_levels.size(), 3u);
  const auto& l = m.topology.nvml_levels;
  EXPECT_EQ(l[0][1], "NODE");
  EXPECT_EQ(l[1][0], "NODE");
  EXPECT_EQ(l[0][2], "?");
  EXPECT_EQ(l[2][0], "?");
  EXPECT_EQ(l[1][2], "?");
  EXPECT_EQ(l[2][1], "?");
  EXPECT_EQ(l[2][2], "X");
  std::vector<std::string> want = {"0-2 nvmlDeviceGetTopologyCommonAncestor: NOT_SUPPORTED",
                                   "1-2 nvmlDeviceGetTopologyCommonAncestor: NOT_SUPPORTED",
                                   "2-0 nvmlDeviceGetTopologyCommonAncestor: NOT_SUPPORTED",
                                   "2-1 nvmlDeviceGetTopologyCommonAncestor: NOT_SUPPORTED"};
  EXPECT_EQ(m.nvml.pair_errors, want);
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
