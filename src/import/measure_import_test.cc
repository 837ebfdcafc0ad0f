// nvidia-smi -q, p2pBandwidthLatencyTest and serving-benchmark result blocks, on the shared
// samples; the formats not imported yet are listed as unrecognised, never dropped.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "import/import_test_util.h"

namespace dossier::import {
namespace {

using testing::Formats;
using testing::ImportSample;
using testing::ImportString;
using testing::SampleBody;

TEST(ImportNvidiaSmiQ, Samples) {
  auto h = ImportSample("nvidia_smi_q/thamada-2x-h100nvl.txt");
  ASSERT_EQ(Formats(h), std::vector<std::string>{"nvidia-smi-q"});
  const NvmlInfo& nv = h.imported.machine.nvml;
  EXPECT_EQ(nv.driver_version.value_or(""), "550.54.14");
  EXPECT_EQ(nv.cuda_driver_version.value_or(""), "12.4");
  EXPECT_EQ(nv.gpu_count.value_or(0), 2);
  ASSERT_EQ(nv.gpus.size(), 2u);
  EXPECT_EQ(nv.gpus[0].pci_bus_id.value_or(""), "0000:ad:00.0");
  EXPECT_EQ(nv.gpus[1].pci_bus_id.value_or(""), "0000:ae:00.0");
  EXPECT_EQ(nv.gpus[0].name.value_or(""), "NVIDIA H100 NVL");
  EXPECT_EQ(nv.gpus[0].pcie.current.gen.value_or(0), 5);
  EXPECT_EQ(nv.gpus[0].pcie.max.gen.value_or(0), 5);
  EXPECT_EQ(nv.gpus[0].pcie.current.width.value_or(0), 16);
  EXPECT_EQ(nv.gpus[0].bar1_total_bytes.value_or(0), 131072ull << 20);
  EXPECT_EQ(nv.gpus[0].ecc_enabled.value_or(false), true);
  EXPECT_EQ(nv.gpus[0].persistence_mode.value_or(false), true);
  EXPECT_EQ(nv.gpus[0].serial.value_or(""), "1650724004565");
  EXPECT_FALSE(h.imported.machine.virtualization.guest.known());  // "None": not said either way

  for (const char* f :
       {"nvidia_smi_q/thamada-8x-rtx4090.txt", "nvidia_smi_q/thamada-8x-rtx6000ada.txt"}) {
    SCOPED_TRACE(f);
    auto r = ImportSample(f);
    const NvmlInfo& n = r.imported.machine.nvml;
    EXPECT_EQ(n.driver_version.value_or(""), "550.127.05");
    ASSERT_EQ(n.gpus.size(), 8u);
    EXPECT_EQ(n.gpus[0].pci_bus_id.value_or(""), "0000:01:00.0");
    EXPECT_EQ(n.gpus[0].pcie.current.gen.value_or(0), 1);
    EXPECT_EQ(n.gpus[0].pcie.max.width.value_or(0), 16);
    EXPECT_EQ(n.gpus[7].pci_bus_id.value_or(""), "0000:e1:00.0");
  }
}

const P2pResult* Find(const P2pMeasurement& m, int64_t s, int64_t d, const std::string& mode) {
  for (const auto& r : m.results)
    if (r.src == s && r.dst == d && r.mode == mode) return &r;
  return nullptr;
}

TEST(ImportP2pBandwidth, FourGpusP2pOk) {
  auto r =
      ImportSample("p2p_bandwidth_latency/stelline-asus-esc8000a-e12-4x-rtx6000ada-p2p-ok.txt");
  ASSERT_EQ(Formats(r), std::vector<std::string>{"p2p-bandwidth-latency"});
  ASSERT_EQ(r.imported.p2p.size(), 1u);
  const P2pMeasurement& m = r.imported.p2p[0];
  EXPECT_EQ(m.tool, "p2pBandwidthLatencyTest");
  EXPECT_EQ(m.gpu_addresses, (std::vector<std::string>{"0000:01:00.0", "0000:41:00.0",
                                                       "0000:c1:00.0", "0000:e1:00.0"}));
  EXPECT_DOUBLE_EQ(Find(m, 0, 1, "uni-p2p")->gbps_median.value_or(0), 26.33);
  EXPECT_DOUBLE_EQ(Find(m, 0, 1, "uni-staged")->gbps_median.value_or(0), 22.23);
  EXPECT_DOUBLE_EQ(Find(m, 2, 3, "bi-p2p")->gbps_median.value_or(0), 52.12);
  EXPECT_DOUBLE_EQ(Find(m, 1, 0, "latency-p2p")->latency_us.value_or(0), 1.21);
  EXPECT_DOUBLE_EQ(Find(m, 0, 2, "latency-staged")->latency_us.value_or(0), 13.76);
  EXPECT_EQ(Find(m, 0, 0, "uni-staged"), nullptr);  // the diagonal is no pair
  EXPECT_EQ(Find(m, 0, 1, "uni-p2p")->size_bytes, 40000000u);
  // 4x3 ordered pairs x 6 modes.
  EXPECT_EQ(m.results.size(), 72u);
}

TEST(ImportP2pBandwidth, NoPeerAccessKeepsOnlyStaged) {
  auto r = ImportSample("p2p_bandwidth_latency/autodl-container-2x-2080ti-cannot-access.txt");
  const P2pMeasurement& m = r.imported.p2p.at(0);
  EXPECT_DOUBLE_EQ(Find(m, 0, 1, "uni-staged")->gbps_median.value_or(0), 5.71);
  EXPECT_DOUBLE_EQ(Find(m, 0, 1, "latency-staged")->latency_us.value_or(0), 14.76);
  EXPECT_EQ(Find(m, 0, 1, "uni-p2p"), nullptr);
  auto w = ImportSample("p2p_bandwidth_latency/stelline-puget-wrx90-2x-rtx6000ada-p2p-ok.txt");
  EXPECT_DOUBLE_EQ(Find(w.imported.p2p.at(0), 0, 1, "uni-p2p")->gbps_median.value_or(0), 26.32);
}

const ServeRun& FirstRun(const ImportRun& r) {
  return r.imported.serve.at(0).runs.at(0);
}

TEST(ImportServeBench, VllmBlocks) {
  auto a = ImportSample("serving_bench/dennislee22-vllm-gptoss120b-4pods-1req.txt");
  ASSERT_EQ(Formats(a), std::vector<std::string>{"serve-bench"});
  EXPECT_EQ(a.imported.serve[0].tool, "vllm bench serve");
  EXPECT_EQ(FirstRun(a).completed, 1);
  EXPECT_DOUBLE_EQ(FirstRun(a).duration_s, 5.68);
  EXPECT_EQ(FirstRun(a).input_tokens, 857);
  EXPECT_EQ(FirstRun(a).output_tokens, 64);
  EXPECT_DOUBLE_EQ(FirstRun(a).output_tokens_per_s, 11.26);
  EXPECT_DOUBLE_EQ(FirstRun(a).total_tokens_per_s, 162.02);
  EXPECT_DOUBLE_EQ(FirstRun(a).ttft_ms.mean.value_or(0), 229.47);
  EXPECT_DOUBLE_EQ(FirstRun(a).tpot_ms.mean.value_or(0), 86.57);
  EXPECT_DOUBLE_EQ(FirstRun(a).itl_ms.p99.value_or(0), 116.79);

  auto b = ImportSample("serving_bench/dennislee22-vllm-qwen2-7b-2pods-samenode-1req.txt");
  EXPECT_DOUBLE_EQ(FirstRun(b).ttft_ms.mean.value_or(0), 34.69);
  EXPECT_DOUBLE_EQ(FirstRun(b).itl_ms.median.value_or(0), 8.76);
  EXPECT_DOUBLE_EQ(FirstRun(b).total_tokens_per_s, 226.14);

  auto c = ImportSample("serving_bench/dennislee22-vllm-qwen2-7b-tp2-ray-2nodes-random1k.txt");
  EXPECT_EQ(FirstRun(c).completed, 10);
  EXPECT_EQ(FirstRun(c).input_tokens, 10239);
  EXPECT_DOUBLE_EQ(FirstRun(c).total_tokens_per_s, 436.07);  // "Total Token throughput"
  EXPECT_DOUBLE_EQ(FirstRun(c).ttft_ms.median.value_or(0), 2244.91);
  EXPECT_DOUBLE_EQ(FirstRun(c).ttft_ms.p99.value_or(0), 3346.14);
  EXPECT_DOUBLE_EQ(FirstRun(c).itl_ms.p99.value_or(0), 51.04);
}

TEST(ImportServeBench, SglangBlockWithBrokenItl) {
  auto r = ImportSample("serving_bench/sglang-dlora-lora-bench-rate2-anomalous-itl.txt");
  EXPECT_EQ(r.imported.serve.at(0).tool, "sglang bench_serving");
  const ServeRun& run = FirstRun(r);
  EXPECT_DOUBLE_EQ(run.request_rate.value_or(0), 2.0);
  EXPECT_EQ(run.completed, 996);
  EXPECT_EQ(run.output_tokens, 218257);
  EXPECT_DOUBLE_EQ(run.total_tokens_per_s, 2137.04);
  EXPECT_DOUBLE_EQ(run.e2e_ms.mean.value_or(0), 1979.33);
  EXPECT_DOUBLE_EQ(run.ttft_ms.p99.value_or(0), 13317.90);
  EXPECT_FALSE(std::signbit(run.tpot_ms.median.value_or(1)));  // -0.00 is 0
  EXPECT_FALSE(run.itl_ms.mean.known());  // all 0.00: timing broken, not a measurement
  EXPECT_NE(run.itl_ms.mean.unknown.find("timing broken"), std::string::npos);
}

// Formats no importer reads yet (torch/vLLM collect_env, Proxmox): every
// line range is listed as not recognised, nothing is silently taken or dropped.
TEST(ImportSamples, EverySampleIsReadOrListedAsUnrecognised) {
  namespace fs = std::filesystem;
  size_t n = 0;
  for (const auto& dir : fs::directory_iterator(testing::SamplePath(""))) {
    if (!dir.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(dir.path())) {
      std::string rel = dir.path().filename().string() + "/" + f.path().filename().string();
      SCOPED_TRACE(rel);
      ++n;
      auto r = ImportSample(rel);
      ASSERT_EQ(r.files.size(), 1u);
      ASSERT_FALSE(r.files[0].parts.empty());
      std::string d = dir.path().filename().string();
      bool unsupported = d == "collect_env" || d == "proxmox";
      for (const auto& p : r.files[0].parts) {
        EXPECT_LE(p.first_line, p.last_line);
        if (unsupported && p.format.empty()) {
          bool listed = false;
          for (const auto& note : r.files[0].notes)
            listed = listed || note.find("lines " + std::to_string(p.first_line) + "-") == 0;
          EXPECT_TRUE(listed);
        }
      }
      if (!unsupported) {
        EXPECT_GT(r.recognised_parts, 0u);
      }
    }
  }
  EXPECT_EQ(n, 36u);
}

TEST(ImportNccl, VllmLogWithP2pRefused) {
  auto r = ImportSample("nccl/dennislee22-vllm-0.10.1-tp2-a100-custom-allreduce-no-p2p.txt");
  auto f = Formats(r);
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f.front(), "");  // the server's startup before its first NCCL line: listed
  EXPECT_NE(std::find(f.begin(), f.end(), "nccl-log"), f.end());
  const NcclInfo& n = r.imported.machine.nccl;
  EXPECT_EQ(n.version.value_or(""), "2.26.2");
  ASSERT_EQ(n.p2p_refused.size(), 1u);  // TP0 and TP1 say the same: once
  EXPECT_NE(n.p2p_refused[0].message.find("lacks GPU P2P"), std::string::npos);
}

TEST(ImportNccl, DebugInfoLines) {
  auto r = ImportString(
      "node1:1234:1234 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
      "node1:1234:1234 [0] NCCL INFO cudaDriverVersion 12040\n"
      "node1:1234:1250 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 "
      "commId 0x1 - Init START\n"
      "node1:1235:1251 [1] NCCL INFO comm 0x55d1 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 81000 "
      "commId 0x1 - Init START\n"
      "node1:1234:1250 [0] NCCL INFO Could not enable P2P between dev 0(=1000) and dev 1(=81000)\n"
      "node1:1234:1250 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n"
      "node1:1235:1251 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via SHM/direct/direct\n");
  const NcclInfo& n = r.imported.machine.nccl;
  EXPECT_EQ(n.version.value_or(""), "2.21.5");
  EXPECT_EQ(n.cuda_driver.value_or(""), "12040");
  ASSERT_EQ(n.ranks.size(), 2u);
  EXPECT_EQ(n.ranks[1].bus_id.value_or(""), "0000:81:00.0");
  EXPECT_EQ(n.ranks[0].bus_id.value_or(""), "0000:01:00.0");
  ASSERT_EQ(n.connections.size(), 2u);
  EXPECT_EQ(n.connections[0].transport, "SHM/direct/direct");
  EXPECT_EQ(n.connections[1].from_rank, 1);
  ASSERT_EQ(n.p2p_refused.size(), 1u);
}

}  // namespace
}  // namespace dossier::import
