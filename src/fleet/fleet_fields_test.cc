// `dossier fleet` field by field: six nodes alike in everything, then one node differing in one
// fact at a time. Each time the fleet must name that fact alone, with that node alone and the
// value it has against the five others' value. Zero is a value like any other (GPU 0, NUMA node
// 0, zero kernel log problems), beside unknown.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>

#include "fleet/fleet_compare.h"
#include "fleet/fleet_render.h"
#include "tests/model_builders.h"

namespace dossier::fleet {
namespace {

MachineView AlikeNode(const std::string& name) {
  MachineView mv;
  Machine& m = mv.machine;
  m = testing::SeedGuest(2);
  m.name = name;
  m.dmi.bios_version = Known(std::string("1.16.3"), "dmi");
  m.dmi.bios_date = Known(std::string("03/04/2025"), "dmi");
  m.cpu.model = Known(std::string("AMD EPYC 9575F"), "cpuinfo");
  m.cpu.threads = Known<int64_t>(128, "cpuinfo");
  m.memory.total_bytes = Known<uint64_t>(uint64_t{768} << 30, "meminfo");
  m.os.pretty_name = Known(std::string("Debian GNU/Linux 12 (bookworm)"), "os-release");
  m.kernel.release = Known(std::string("6.1.0-40-amd64"), "osrelease");
  m.kernel.cmdline = Known(std::string("ro quiet iommu=pt"), "cmdline");
  m.iommu.enabled = Known(true, "iommu");
  m.software.nvidia_driver = Known(std::string("580.95.05"), "version");
  m.software.cuda_default = Known(std::string("12.8"), "cuda");
  PythonEnv env;
  env.packages = {{"torch", "2.8.0"}, {"vllm", "0.11.0"}};
  m.software.python_envs.push_back(env);
  for (auto& g : m.gpus) g.numa_node = Known<int64_t>(0, "numa_node");
  m.topology.gpu_levels = {{"X", "PHB"}, {"PHB", "X"}};
  m.nvml.loaded = true;
  m.nvml.cuda_driver_version = Known(std::string("13.0"), "nvml");
  for (int64_t i = 0; i < 2; ++i) {
    NvmlGpu g;
    g.index = i;
    g.pcie.current.gen = Known<int64_t>(5, "nvml");
    g.pcie.current.width = Known<int64_t>(16, "nvml");
    g.pcie.max = g.pcie.current;
    g.ecc_enabled = Known(false, "nvml");
    g.persistence_mode = Known(true, "nvml");
    g.power_limit_w = Known(600.0, "nvml");
    g.mig_enabled = Known(false, "nvml");
    m.nvml.gpus.push_back(g);
  }
  m.topology.p2p_status.read = {{"X", "OK"}, {"OK", "X"}};
  m.topology.p2p_status.write = {{"X", "OK"}, {"OK", "X"}};
  mv.record.time = "2026-12-01T00:00:00Z";
  return mv;
}

struct FleetField {
  const char* fact;
  std::function<void(Machine*)> change;
  const char* common;  // the five alike nodes' value
  const char* odd;     // the changed node's value
};

FleetReport FleetWithOneChanged(const std::function<void(Machine*)>& change) {
  FleetComparer c;
  for (int i = 0; i < 6; ++i) {
    MachineView mv = AlikeNode("n" + std::to_string(i));
    if (i == 3) change(&mv.machine);
    c.Add(FromMachineView(mv, {}));
  }
  return c.Finish();
}

TEST(FleetFieldAlone, AlikeNodesAreUniform) {
  FleetReport r = FleetWithOneChanged([](Machine*) {});
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_TRUE(r.uniform());
  EXPECT_TRUE(r.groups[0].differences.empty());
}

TEST(FleetFieldAlone, EachFactThatDiffersAloneIsNamedAloneOnItsNode) {
  const FleetField fields[] = {
      {"BIOS version", [](Machine* m) { m->dmi.bios_version = Known(std::string("1.17.0"), "d"); },
       "1.16.3", "1.17.0"},
      {"BIOS date", [](Machine* m) { m->dmi.bios_date = Known(std::string("05/06/2025"), "d"); },
       "03/04/2025", "05/06/2025"},
      {"CPU", [](Machine* m) { m->cpu.model = Known(std::string("AMD EPYC 9555"), "c"); },
       "AMD EPYC 9575F", "AMD EPYC 9555"},
      {"CPU threads", [](Machine* m) { m->cpu.threads = Known<int64_t>(64, "c"); }, "128", "64"},
      {"memory",
       [](Machine* m) { m->memory.total_bytes = Known<uint64_t>(uint64_t{704} << 30, "m"); },
       "768 GiB", "704 GiB"},
      {"NUMA nodes", [](Machine* m) { m->numa.nodes.pop_back(); }, "2", "1"},
      {"virtualization", [](Machine* m) { m->virtualization.guest = Known(false, "v"); },
       "guest of kvm", "bare metal"},
      {"OS", [](Machine* m) { m->os.pretty_name = Known(std::string("Ubuntu 24.04.3 LTS"), "o"); },
       "Debian GNU/Linux 12 (bookworm)", "Ubuntu 24.04.3 LTS"},
      {"kernel", [](Machine* m) { m->kernel.release = Known(std::string("6.12.48"), "k"); },
       "6.1.0-40-amd64", "6.12.48"},
      {"kernel command line",
       [](Machine* m) { m->kernel.cmdline = Known(std::string("ro quiet"), "k"); },
       "ro quiet iommu=pt", "ro quiet"},
      {"IOMMU", [](Machine* m) { m->iommu.enabled = Known(false, "i"); }, "on", "off"},
      {"NVIDIA driver",
       [](Machine* m) { m->software.nvidia_driver = Known(std::string("575.57.08"), "d"); },
       "580.95.05", "575.57.08"},
      {"CUDA toolkit (default)",
       [](Machine* m) { m->software.cuda_default = Known(std::string("12.9"), "c"); }, "12.8",
       "12.9"},
      {"python package torch",
       [](Machine* m) { m->software.python_envs[0].packages["torch"] = "2.7.1"; }, "2.8.0",
       "2.7.1"},
      {"kernel log PCI problems", [](Machine* m) { m->kernel_log.pci_problems.emplace_back(); },
       "0", "1"},
      {"GPU 0 NUMA node", [](Machine* m) { m->gpus[0].numa_node = Known<int64_t>(1, "n"); }, "0",
       "1"},
      {"GPU 1 NUMA node",
       [](Machine* m) { m->gpus[1].numa_node.Unknown("no numa_node file", "n"); }, "0",
       "unknown: no numa_node file"},
      {"GPU 0 driver", [](Machine* m) { m->gpus[0].driver = Known(std::string("vfio-pci"), "d"); },
       "nvidia", "vfio-pci"},
      {"GPU 1 PCIe link",
       [](Machine* m) {
         for (auto& d : m->pci.devices)
           if (d.address == m->gpus[1].address) testing::SetLink(&d, 4, 16, 5, 16);
       },
       "Gen5 x16 (max Gen5 x16)", "Gen4 x16 (max Gen5 x16)"},
      {"PCI level 0-1",
       [](Machine* m) {
         m->topology.gpu_levels = {{"X", "SYS"}, {"SYS", "X"}};
       },
       "PHB", "SYS"},
      {"NVML", [](Machine* m) { m->nvml = NvmlInfo(); }, "loaded", "not loaded"},
      {"CUDA driver API (NVML)",
       [](Machine* m) { m->nvml.cuda_driver_version = Known(std::string("12.9"), "n"); }, "13.0",
       "12.9"},
      {"NVML GPU 0 PCIe link",
       [](Machine* m) { m->nvml.gpus[0].pcie.current.width = Known<int64_t>(8, "n"); },
       "Gen5 x16 (max Gen5 x16)", "Gen5 x8 (max Gen5 x16)"},
      {"NVML GPU 1 ECC", [](Machine* m) { m->nvml.gpus[1].ecc_enabled = Known(true, "n"); }, "no",
       "yes"},
      {"NVML GPU 0 persistence mode",
       [](Machine* m) { m->nvml.gpus[0].persistence_mode = Known(false, "n"); }, "yes", "no"},
      {"NVML GPU 1 power limit (W)",
       [](Machine* m) { m->nvml.gpus[1].power_limit_w = Known(450.0, "n"); }, "600", "450"},
      {"NVML GPU 0 MIG", [](Machine* m) { m->nvml.gpus[0].mig_enabled = Known(true, "n"); }, "no",
       "yes"},
      {"P2P read 0-1",
       [](Machine* m) {
         m->topology.p2p_status.read = {{"X", "CNS"}, {"CNS", "X"}};
       },
       "OK", "CNS"},
      {"P2P write 0-1",
       [](Machine* m) {
         m->topology.p2p_status.write = {{"X", "NS"}, {"NS", "X"}};
       },
       "OK", "NS"},
  };
  for (const auto& f : fields) {
    SCOPED_TRACE(f.fact);
    FleetReport r = FleetWithOneChanged(f.change);
    ASSERT_EQ(r.groups.size(), 1u);
    const auto& g = r.groups[0];
    // "NVML" off drops the NVML facts from that node too: those are "not captured" there.
    if (std::string(f.fact) != "NVML") {
      ASSERT_EQ(g.differences.size(), 1u) << g.differences[0].fact;
    }
    const Difference* d = nullptr;
    for (const auto& x : g.differences)
      if (x.fact == f.fact) d = &x;
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->common.value, f.common);
    EXPECT_EQ(d->common.count, 5u);
    ASSERT_EQ(d->others.size(), 1u);
    EXPECT_EQ(d->others[0].value, f.odd);
    EXPECT_EQ(d->others[0].nodes, std::vector<std::string>{"n3"});
    ASSERT_EQ(r.outliers.size(), 1u);
    ASSERT_EQ(r.outliers.count("n3"), 1u);
    const auto& why = r.outliers.at("n3");
    const std::string line = std::string(f.fact) + ": " + f.odd + " where 5 of 6 have " + f.common;
    EXPECT_NE(std::find(why.begin(), why.end(), line), why.end()) << why.front();
    if (std::string(f.fact) != "NVML") {
      EXPECT_EQ(why.size(), 1u);
    }
  }
}

TEST(FleetFieldAlone, TheGroupKeyFieldsSplitTheFleetInstead) {
  // Board, GPU model and GPU count are not differences within a group: they make another group,
  // and a node with a GPU fewer than its board mates is named for it.
  FleetReport fewer = FleetWithOneChanged([](Machine* m) { m->gpus.pop_back(); });
  ASSERT_EQ(fewer.groups.size(), 2u);
  EXPECT_EQ(fewer.groups[1].nodes, std::vector<std::string>{"n3"});
  EXPECT_EQ(fewer.groups[1].gpu_count, 1);
  EXPECT_EQ(fewer.outliers.count("n3"), 1u);
  EXPECT_EQ(fewer.outliers.size(), 1u);

  FleetReport model = FleetWithOneChanged([](Machine* m) {
    for (auto& g : m->gpus) g.name = Known(std::string("NVIDIA H200"), "pci.ids");
  });
  ASSERT_EQ(model.groups.size(), 2u);
  EXPECT_EQ(model.groups[1].gpu_model, "NVIDIA H200");
  EXPECT_EQ(model.groups[1].nodes, std::vector<std::string>{"n3"});

  FleetReport board = FleetWithOneChanged(
      [](Machine* m) { m->dmi.product_name = Known(std::string("Other PC"), "dmi"); });
  ASSERT_EQ(board.groups.size(), 2u);
  EXPECT_EQ(board.groups[1].board, "Other PC");
}

// The figure a node is compared by is a choice: the weakest pair's bandwidth and the slowest
// pair's latency, from ok copies only. The inputs put the weakest and slowest pair in the middle,
// with a better one first and last, and a worse one that did not complete.
TEST(FleetChoice, WeakestBandwidthAndSlowestLatencyOfTheOkPairs) {
  MachineView mv = AlikeNode("n0");
  P2pMeasurement pm;
  auto add = [&pm](int s, int d, const char* mode, double v, const char* verdict = "ok") {
    P2pResult r;
    r.src = s;
    r.dst = d;
    r.mode = mode;
    r.size_bytes = 16 << 20;
    r.verdict = verdict;
    if (std::string(mode).rfind("latency", 0) == 0)
      r.latency_us = Known(v, "m");
    else
      r.gbps_median = Known(v, "m");
    pm.results.push_back(r);
  };
  add(0, 1, "uni-p2p", 40);
  add(1, 0, "uni-p2p", 30);
  add(0, 2, "uni-p2p", 50);
  add(2, 0, "uni-p2p", 1, "corrupted");
  add(0, 1, "latency-p2p", 2.0);
  add(-1, 0, "latency-p2p", 5.0);
  add(0, 2, "latency-p2p", 3.0);
  add(2, 0, "latency-p2p", 90, "hung");
  mv.p2p.push_back(pm);
  NodeFacts n = FromMachineView(mv, {});
  std::map<std::string, NodeMetric> by;
  for (const auto& m : n.metrics) by[m.name] = m;
  ASSERT_EQ(by.size(), 2u);
  const NodeMetric& bw = by.at("p2p uni-p2p 16777216 B, weakest pair (GB/s)");
  EXPECT_EQ(bw.value, 30);
  EXPECT_EQ(bw.where, "GPU 1 -> GPU 0");
  const NodeMetric& lat = by.at("p2p latency-p2p 16777216 B, slowest pair (us)");
  EXPECT_EQ(lat.value, 5.0);
  EXPECT_EQ(lat.where, "host -> GPU 0");
  bool verdicts = false;
  for (const auto& [k, v] : n.attributes)
    if (k == "p2p last sweep") verdicts = v == "1 corrupted, 1 hung, 6 ok";
  EXPECT_TRUE(verdicts);
}

// The group's median with an even count is the mean of the two middle figures; an odd count's is
// the middle one (not the mean). A node is flagged against that median.
TEST(FleetChoice, MedianOfEvenAndOddGroups) {
  for (int nodes : {6, 7}) {
    SCOPED_TRACE(nodes);
    FleetComparer c;
    // 10, 11, 12, 13, 14, (15,) and one node at 100.
    for (int i = 0; i < nodes; ++i) {
      NodeFacts n;
      n.name = "n" + std::to_string(i);
      n.board = "b";
      n.gpu_model = "g";
      n.metrics.push_back({"m", i == nodes - 1 ? 100.0 : 10.0 + i, ""});
      c.Add(n);
    }
    FleetReport r = c.Finish();
    ASSERT_EQ(r.groups[0].metric_outliers.size(), 1u);
    const auto& o = r.groups[0].metric_outliers[0];
    EXPECT_EQ(o.node, "n" + std::to_string(nodes - 1));
    EXPECT_DOUBLE_EQ(o.median, nodes == 6 ? 12.5 : 13.0);
  }
}

}  // namespace
}  // namespace dossier::fleet
