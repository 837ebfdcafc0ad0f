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
  // The pair the refusal names, as ordinals and bus ids (the rules look its verdict up).
  EXPECT_EQ(n.p2p_refused[0].devices, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(n.p2p_refused[0].bus_ids, (std::vector<std::string>{"0000:01:00.0", "0000:81:00.0"}));
}

// Serving-benchmark result blocks as each version of vLLM and SGLang prints them (the corpus under
// tests/corpus/import-serve-bench/, sources in its SOURCES.md): every label alias asserted from a
// real block, the load from the block, the lines before it or the pasted command, several blocks
// in one paste, rulers lost, and key figures that cannot be read.

using testing::Formats;
using testing::ImportString;

std::string ServeCorpus(const std::string& name) {
  return dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) +
                                 "/tests/corpus/import-serve-bench/" + name);
}

const ServeRun& SbRun(const ImportRun& r, size_t i = 0) {
  return r.imported.serve.at(0).runs.at(i);
}

TEST(ImportServeBenchVersions, VllmLowercaseTotalPeaksAndSpecDecode) {
  auto r = ImportString(ServeCorpus("vllm-spec-decode-lowercase-total.txt"));
  ASSERT_EQ(Formats(r), std::vector<std::string>{"serve-bench"});
  EXPECT_EQ(r.imported.serve[0].tool, "vllm bench serve");
  const ServeRun& run = SbRun(r);
  EXPECT_DOUBLE_EQ(run.total_tokens_per_s, 331.02);      // "Total token throughput"
  EXPECT_DOUBLE_EQ(run.peak_output_tokens_per_s, 25.0);  // "Peak output token throughput"
  EXPECT_EQ(run.peak_concurrent_requests, 2);            // "Peak concurrent requests: 2.00"
  EXPECT_EQ(run.concurrency.value_or(0), 1);             // "Maximum request concurrency: 1"
  EXPECT_EQ(run.max_concurrency.value_or(0), 1);
  EXPECT_EQ(run.failed, 0);
  EXPECT_DOUBLE_EQ(run.itl_ms.p99.value_or(0), 41.16);
  EXPECT_EQ(r.files[0].parts[0].took, "1 benchmark run");
}

TEST(ImportServeBenchVersions, VllmRequestRateConfiguredAndPercentiles) {
  auto r = ImportString(ServeCorpus("vllm-rps-configured-p50-p95.txt"));
  const ServeRun& run = SbRun(r);
  EXPECT_DOUBLE_EQ(run.request_rate.value_or(0), 0.2);  // "Request rate configured (RPS)"
  EXPECT_FALSE(run.concurrency.known());
  EXPECT_DOUBLE_EQ(run.ttft_ms.p90.value_or(0), 2624.52);
  EXPECT_DOUBLE_EQ(run.ttft_ms.p95.value_or(0), 2874.47);
  EXPECT_DOUBLE_EQ(run.ttft_ms.median.value_or(0), 1797.45);
  EXPECT_DOUBLE_EQ(run.e2e_ms.mean.value_or(0), 1504049.94);  // "Mean E2EL (ms)"
  EXPECT_DOUBLE_EQ(run.e2e_ms.p95.value_or(0), 2433987.04);
  EXPECT_DOUBLE_EQ(run.tpot_ms.p99.value_or(0), 387.58);
}

TEST(ImportServeBenchVersions, LoadPrintedBeforeTheBlockAndCommentPrefix) {
  auto r = ImportString(ServeCorpus("vllm-fork-hash-prefixed-preamble.txt"));
  ASSERT_EQ(r.imported.serve.size(), 1u);
  const ServeRun& run = SbRun(r);
  EXPECT_EQ(run.concurrency.value_or(0), 32);        // "# Maximum request concurrency: 32" above it
  EXPECT_DOUBLE_EQ(run.total_tokens_per_s, 868.80);  // "Total Token throughput"
  EXPECT_EQ(run.completed, 32);
  EXPECT_DOUBLE_EQ(run.itl_ms.median.value_or(0), 68.15);
}

TEST(ImportServeBenchVersions, SglangThreeBlocksLabelledByHeadings) {
  auto r = ImportString(ServeCorpus("sglang-0.5-three-loads-markdown.txt"));
  ASSERT_EQ(r.imported.serve.size(), 1u);  // one measurement, one run per load
  const ServeMeasurement& m = r.imported.serve[0];
  EXPECT_EQ(m.tool, "sglang bench_serving");
  ASSERT_EQ(m.runs.size(), 3u);
  EXPECT_EQ(m.runs[0].concurrency.value_or(0), 1);
  EXPECT_EQ(m.runs[1].concurrency.value_or(0), 16);
  EXPECT_EQ(m.runs[2].concurrency.value_or(0), 100);
  EXPECT_EQ(m.runs[1].label, "4.1.2 Medium Concurrency (Balanced)");
  EXPECT_DOUBLE_EQ(m.runs[1].total_tokens_per_s, 1007.86);
  EXPECT_DOUBLE_EQ(m.runs[1].input_tokens_per_s, 496.81);
  EXPECT_DOUBLE_EQ(m.runs[1].mean_concurrency.value_or(0), 13.71);  // "Concurrency:"
  EXPECT_EQ(m.runs[1].output_tokens_retokenized.value_or(0), 40801);
  EXPECT_EQ(m.runs[2].peak_concurrent_requests, 107);
  EXPECT_DOUBLE_EQ(m.runs[2].itl_ms.p95.value_or(0), 140.77);
  EXPECT_DOUBLE_EQ(m.runs[2].itl_ms.max.value_or(0), 956.82);
  EXPECT_DOUBLE_EQ(m.runs[0].e2e_ms.median.value_or(0), 10379.28);  // "Median E2E Latency"
}

TEST(ImportServeBenchVersions, RulersLostBlankLinesLeadingSpace) {
  auto r = ImportString(ServeCorpus("sglang-rulers-lost-blank-lines.txt"));
  ASSERT_EQ(r.imported.serve.size(), 1u) << ::testing::PrintToString(r.files[0].notes);
  const ServeRun& run = SbRun(r);
  EXPECT_EQ(run.label, "c1 run");
  EXPECT_EQ(run.concurrency.value_or(0), 1);
  EXPECT_DOUBLE_EQ(run.total_tokens_per_s, 74.53);
  EXPECT_DOUBLE_EQ(run.ttft_ms.p99.value_or(0), 37978.20);
}

// The label alias table is case-insensitive: a block typed by hand in other case reads the same.
TEST(ImportServeBenchVersions, CaseAndUnreadableThroughput) {
  auto r = ImportString(
      "== Serving Benchmark Result ==\n"
      "SUCCESSFUL REQUESTS: 10\n"
      "benchmark duration (s): 5.0\n"
      "max request concurrency: 4\n"
      "TOTAL TOKEN THROUGHPUT (TOK/S): 1,234.5\n"
      "==========\n");
  // "1,234.5" is not a number as printed: no run with a 0 total; both lines named.
  EXPECT_TRUE(r.imported.serve.empty());
  std::string notes;
  for (const auto& n : r.files[0].notes) notes += n + "\n";
  EXPECT_NE(notes.find("paste.txt:5: "), std::string::npos) << notes;
}

// An older vLLM block printed token counts but no throughput lines: both throughputs are the
// counts over the duration (by vLLM's definition), the total said as computed; a duration of 0
// computes nothing (no division, the run not imported for want of a total).
TEST(ImportServeBenchVersions, ThroughputsComputedFromCountsAndDuration) {
  auto r = ImportString(
      "============ Serving Benchmark Result ============\n"
      "Successful requests:                     10\n"
      "Benchmark duration (s):                  4.00\n"
      "Total input tokens:                      1000\n"
      "Total generated tokens:                  600\n"
      "==================================================\n");
  ASSERT_EQ(r.imported.serve.size(), 1u) << ::testing::PrintToString(r.files[0].notes);
  const ServeRun& run = SbRun(r);
  EXPECT_DOUBLE_EQ(run.total_tokens_per_s, 400.0);   // (1000 + 600) / 4
  EXPECT_DOUBLE_EQ(run.output_tokens_per_s, 150.0);  // 600 / 4
  std::string notes;
  for (const auto& n : r.files[0].notes) notes += n + "\n";
  EXPECT_NE(notes.find("computed from its token counts and duration"), std::string::npos) << notes;

  auto zero = ImportString(
      "============ Serving Benchmark Result ============\n"
      "Successful requests:                     10\n"
      "Benchmark duration (s):                  0\n"
      "Total input tokens:                      1000\n"
      "Total generated tokens:                  600\n"
      "==================================================\n");
  EXPECT_TRUE(zero.imported.serve.empty());
}

// The seed story's guest: two SGLang runs pasted with their commands (concurrency 1 and 64).
TEST(ImportServeBenchVersions, SeedGuestSession) {
  auto r = ImportString(dossier::testing::Slurp(
      std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/import-seed/guest-bench-session.txt"));
  ASSERT_EQ(r.imported.serve.size(), 1u);
  const auto& runs = r.imported.serve[0].runs;
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].concurrency.value_or(0), 1);
  EXPECT_DOUBLE_EQ(runs[0].output_tokens_per_s, 11.02);
  EXPECT_EQ(runs[1].concurrency.value_or(0), 64);
  EXPECT_DOUBLE_EQ(runs[1].total_tokens_per_s, 485.0);
  EXPECT_NE(runs[1].label.find("--max-concurrency 64"), std::string::npos);
}

// Hand-made bandwidth tables (tests/corpus/import-bandwidth-table/).
std::string BtCorpus(const std::string& name) {
  return dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) +
                                 "/tests/corpus/import-bandwidth-table/" + name);
}

TEST(ImportBandwidthTable, SeedTableStagedWithUnits) {
  auto r = ImportString(BtCorpus("seed-gpu0-gpu1-staged.txt"));
  ASSERT_EQ(r.imported.p2p.size(), 1u);
  const P2pMeasurement& m = r.imported.p2p[0];
  EXPECT_EQ(m.tool, "table");
  ASSERT_EQ(m.results.size(), 6u);
  const P2pResult& first = m.results.front();
  EXPECT_EQ(first.src, 0);
  EXPECT_EQ(first.dst, 1);
  EXPECT_EQ(first.mode, "uni-staged");
  EXPECT_EQ(first.size_bytes, 12u * 1024);
  EXPECT_DOUBLE_EQ(first.gbps_median.value_or(0), 0.92);
  EXPECT_DOUBLE_EQ(first.latency_us.value_or(0), 13.4);
  const P2pResult& last = m.results.back();
  EXPECT_EQ(last.size_bytes, 16u << 20);
  EXPECT_DOUBLE_EQ(last.gbps_median.value_or(0), 41.41);
  EXPECT_DOUBLE_EQ(last.latency_us.value_or(0), 405.1);
  EXPECT_EQ(r.files[0].parts[0].took, "6 bandwidth/latency results");
}

TEST(ImportBandwidthTable, MarkdownHeaderUnitsCommandFlagsAndPairOption) {
  ImportRun md;
  md.pair = "0-1";
  ASSERT_TRUE(ImportText(BtCorpus("markdown-pipes-units-in-header.txt"), "t.md", nullptr, &md));
  ASSERT_EQ(md.imported.p2p.size(), 1u);
  ASSERT_EQ(md.imported.p2p[0].results.size(), 3u);
  EXPECT_EQ(md.imported.p2p[0].results[2].size_bytes, 16777216u);
  EXPECT_DOUBLE_EQ(md.imported.p2p[0].results[2].gbps_median.value_or(0), 41.40);
  EXPECT_EQ(md.imported.p2p[0].results[2].mode, "uni-unknown");  // not said: not guessed

  auto f = ImportString(BtCorpus("src-dst-flags-mib-ms.txt"));
  ASSERT_EQ(f.imported.p2p.size(), 1u);
  const P2pResult& r = f.imported.p2p[0].results.at(0);
  EXPECT_EQ(r.src, 2);
  EXPECT_EQ(r.dst, 3);
  EXPECT_EQ(r.size_bytes, 16u << 20);
  EXPECT_DOUBLE_EQ(r.latency_us.value_or(0), 668);

  // No pair anywhere: said, nothing stored.
  auto n = ImportString(BtCorpus("no-pair-cut.txt"), "bandwidth-table");
  EXPECT_TRUE(n.imported.p2p.empty());
  EXPECT_EQ(n.recognised_parts, 0u);
}

// numactl -H, lscpu (list, grep'ed, -e, -p), dmidecode and VM start errors: real outputs from the
// corpus (tests/corpus/import-*/, sources in each SOURCES.md) and damaged variants, read into the
// same model fields collect fills.

using testing::Formats;
using testing::ImportString;

std::string MfCorpus(const std::string& rel) {
  return dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) + "/tests/corpus/" + rel);
}

const NumaNode* MfNode(const Machine& m, int64_t id) {
  for (const auto& n : m.numa.nodes)
    if (n.id == id) return &n;
  return nullptr;
}

TEST(ImportNumactl, FourNodesWithFreeAndDistances) {
  auto r = ImportString(MfCorpus("import-numactl/four-nodes-xeon-28c.txt"));
  ASSERT_EQ(Formats(r), std::vector<std::string>{"numactl"});
  const Machine& m = r.imported.machine;
  ASSERT_EQ(m.numa.nodes.size(), 4u);
  EXPECT_EQ(MfNode(m, 0)->cpus.value_or(""), "0-6,28-34");
  EXPECT_EQ(MfNode(m, 3)->memory_bytes.value_or(0), 16124ull << 20);
  EXPECT_EQ(MfNode(m, 3)->memory_free_bytes.value_or(0), 15714ull << 20);
  EXPECT_EQ(MfNode(m, 2)->distances.value_or({}), (std::vector<int64_t>{31, 31, 10, 21}));
  EXPECT_EQ(MfNode(m, 1)->kind.value_or(""), "cpu+memory");
  EXPECT_EQ(MfNode(m, 0)->cpus.source, "imported: paste.txt:2 (numactl)");
  EXPECT_EQ(r.files[0].parts[0].took, "4 NUMA nodes");
}

// numactl -H after an lscpu that named the same nodes (one paste, two commands): each field
// numactl says is laid on the node lscpu made, none dropped, lscpu's CPU list replaced by its own.
TEST(ImportNumactl, AfterLscpuEveryFieldReachesTheNodesItMade) {
  auto r = ImportString(
      "$ lscpu | grep -i numa\nNUMA node(s): 2\nNUMA node0 CPU(s): 0-3\nNUMA node1 CPU(s): 4-7\n"
      "$ numactl -H\navailable: 2 nodes (0-1)\nnode 0 cpus: 0 1 2 3 8\nnode 0 size: 1024 MB\n"
      "node 0 free: 512 MB\nnode 1 cpus: 4 5 6 7\nnode 1 size: 2048 MB\nnode 1 free: 0 MB\n"
      "node distances:\nnode   0   1\n  0:  10  32\n  1:  32  10\n");
  ASSERT_EQ(Formats(r), (std::vector<std::string>{"lscpu", "numactl"}));
  const Machine& m = r.imported.machine;
  ASSERT_EQ(m.numa.nodes.size(), 2u);
  const NumaNode* n0 = MfNode(m, 0);
  const NumaNode* n1 = MfNode(m, 1);
  EXPECT_EQ(n0->cpus.value_or(""), "0-3,8");
  EXPECT_EQ(n0->memory_bytes.value_or(0), 1024ull << 20);
  EXPECT_EQ(n0->memory_free_bytes.value_or(9), 512ull << 20);
  EXPECT_EQ(n1->memory_free_bytes.value_or(9), 0u);  // 0 MB free is a fact, not unknown
  EXPECT_EQ(n0->distances.value_or({}), (std::vector<int64_t>{10, 32}));
  EXPECT_EQ(n1->distances.value_or({}), (std::vector<int64_t>{32, 10}));
  EXPECT_EQ(n1->kind.value_or(""), "cpu+memory");
  EXPECT_EQ(n0->cpus.source, "imported: paste.txt:7 (numactl)");
}

// A CPU number past any kernel's (the fuzz soak's seed 2 pasted INT64_MAX next to INT64_MAX - 1,
// and formatting the range overflowed) is damage: the list is not read, the line is named.
TEST(ImportNumactl, CpuNumbersPastAnyKernelAreNotRead) {
  auto r = ImportString(
      "available: 1 nodes (0)\n"
      "node 0 cpus: 9223372036854775806 9223372036854775807\n"
      "node 0 size: 1024 MB\n",
      "numactl");
  const Machine& m = r.imported.machine;
  ASSERT_EQ(m.numa.nodes.size(), 1u);
  EXPECT_FALSE(m.numa.nodes[0].cpus.known());
  std::string notes;
  for (const auto& n : r.files[0].notes) notes += n + "\n";
  EXPECT_NE(notes.find(":2: the CPU list is not CPU numbers"), std::string::npos) << notes;
}

TEST(ImportNumactl, PromptChatMarkupAndQuoting) {
  auto a = ImportString(MfCorpus("import-numactl/one-node-fedora-prompt.txt"));
  ASSERT_EQ(a.imported.machine.numa.nodes.size(), 1u);
  EXPECT_EQ(a.imported.machine.numa.nodes[0].cpus.value_or(""), "0-3");
  EXPECT_EQ(a.files[0].parts[0].command, "numactl -H");

  // The seed host through a chat: <p> tags and a blank line after every line.
  auto b = ImportString(MfCorpus("import-numactl/seed-epyc-9335-two-nodes-chat.txt"));
  const Machine& m = b.imported.machine;
  ASSERT_EQ(m.numa.nodes.size(), 2u);
  EXPECT_EQ(MfNode(m, 0)->cpus.value_or(""), "0-31,64-95");
  EXPECT_EQ(MfNode(m, 1)->cpus.value_or(""), "32-63,96-127");
  EXPECT_EQ(MfNode(m, 1)->memory_bytes.value_or(0), 258009ull << 20);
  EXPECT_EQ(MfNode(m, 0)->distances.value_or({}), (std::vector<int64_t>{10, 32}));

  // Memory-only nodes, "n MB" sizes (not numbers: notes, never 0), every line quoted "> ".
  auto c = ImportString(MfCorpus("import-numactl/five-nodes-memory-only-quoted.txt"));
  const Machine& q = c.imported.machine;
  ASSERT_EQ(q.numa.nodes.size(), 5u);
  EXPECT_EQ(MfNode(q, 2)->cpus.value_or("x"), "");
  EXPECT_FALSE(MfNode(q, 2)->memory_bytes.known());
  EXPECT_EQ(MfNode(q, 4)->distances.value_or({}), (std::vector<int64_t>{80, 80, 80, 80, 10}));
  size_t size_notes = 0;
  for (const auto& n : c.files[0].notes) size_notes += n.find("is not a size") != std::string::npos;
  EXPECT_EQ(size_notes, 10u);
}

TEST(ImportLscpu, RealListsAcrossVersionsAndHypervisors) {
  auto a = ImportString(MfCorpus("import-lscpu/kvm-guest-16c-common-kvm-processor.txt"));
  ASSERT_EQ(Formats(a), std::vector<std::string>{"lscpu"});
  const Machine& m = a.imported.machine;
  EXPECT_EQ(m.cpu.model.value_or(""), "Common KVM processor");
  EXPECT_EQ(m.cpu.vendor.value_or(""), "GenuineIntel");
  EXPECT_EQ(m.cpu.sockets.value_or(0), 1);
  EXPECT_EQ(m.cpu.cores.value_or(0), 16);
  EXPECT_EQ(m.cpu.threads.value_or(0), 16);
  EXPECT_EQ(m.cpu.online.value_or(""), "0-15");
  EXPECT_EQ(m.virtualization.hypervisor.value_or(""), "kvm");
  EXPECT_TRUE(m.virtualization.guest.value_or(false));

  auto b = ImportString(MfCorpus("import-lscpu/hyperv-azure-2c-indented.txt"));
  EXPECT_EQ(b.imported.machine.virtualization.hypervisor.value_or(""), "hyper-v");
  EXPECT_EQ(b.imported.machine.cpu.model.value_or(""),
            "Intel(R) Xeon(R) Platinum 8171M CPU @ 2.60GHz");
  ASSERT_EQ(b.imported.machine.numa.nodes.size(), 1u);
  EXPECT_EQ(b.imported.machine.numa.nodes[0].cpus.value_or(""), "0-1");

  auto c = ImportString(MfCorpus("import-lscpu/kvm-80-sockets-prompt.txt"));
  EXPECT_EQ(c.files[0].parts[0].format, "lscpu");
  EXPECT_EQ(c.imported.machine.cpu.sockets.value_or(0), 80);
  EXPECT_EQ(c.imported.machine.cpu.cores.value_or(0), 80);

  auto d = ImportString(MfCorpus("import-lscpu/power8-ppc64le-kvm.txt"));
  EXPECT_EQ(d.imported.machine.cpu.model.value_or(""), "POWER8E (raw), altivec supported");
  EXPECT_FALSE(d.imported.machine.cpu.vendor.known());  // no Vendor ID line: not said
}

// Names under lscpu's "Hypervisor vendor:" as the hypervisor dossier names elsewhere (QEMU's own
// names count as KVM only at their start); a name it does not know is kept, lower case.
TEST(ImportLscpu, EachHypervisorVendorLscpuPrints) {
  const std::pair<const char*, const char*> vendors[] = {
      {"KVM", "kvm"},       {"QEMU", "kvm"},
      {"qemu-tcg", "kvm"},  {"Microsoft", "hyper-v"},
      {"VMware", "vmware"}, {"Xen", "xen"},
      {"XenPV", "xen"},     {"Parallels", "parallels"},
      {"ACRN", "acrn"},     {"tcg-qemu", "tcg-qemu"}};
  for (const auto& [v, want] : vendors) {
    SCOPED_TRACE(v);
    auto r = ImportString(std::string("Model name: AMD EPYC 9335\nSocket(s): 1\nCPU(s): 4\n") +
                              "Hypervisor vendor: " + v + "\n",
                          "lscpu");
    EXPECT_EQ(r.imported.machine.virtualization.hypervisor.value_or(""), want);
    EXPECT_TRUE(r.imported.machine.virtualization.guest.value_or(false));
  }
}

TEST(ImportLscpu, GrepTableParsableAndChat) {
  auto g = ImportString(MfCorpus("import-lscpu/seed-host-grep-model-socket-numa.txt"));
  const Machine& m = g.imported.machine;
  EXPECT_EQ(m.cpu.model.value_or(""), "AMD EPYC 9335 32-Core Processor");
  EXPECT_EQ(m.cpu.sockets.value_or(0), 2);
  EXPECT_FALSE(m.cpu.cores.known());  // no cores-per-socket line in the grep
  ASSERT_EQ(m.numa.nodes.size(), 2u);
  EXPECT_EQ(m.numa.nodes[1].cpus.value_or(""), "32-63,96-127");
  EXPECT_FALSE(m.virtualization.guest.known());  // a host's lscpu says nothing of a hypervisor

  auto e = ImportString(MfCorpus("import-lscpu/seed-host-e-table.txt"));
  const Machine& t = e.imported.machine;
  EXPECT_EQ(t.cpu.sockets.value_or(0), 2);
  ASSERT_EQ(t.numa.nodes.size(), 2u);
  EXPECT_EQ(t.numa.nodes[0].cpus.value_or(""), "0-1,64");

  auto p = ImportString(MfCorpus("import-lscpu/parsable-p.txt"));
  const Machine& pm = p.imported.machine;
  EXPECT_EQ(pm.cpu.threads.value_or(0), 8);
  EXPECT_EQ(pm.cpu.cores.value_or(0), 4);
  EXPECT_EQ(pm.cpu.sockets.value_or(0), 2);
  ASSERT_EQ(pm.numa.nodes.size(), 2u);
  EXPECT_EQ(pm.numa.nodes[1].cpus.value_or(""), "2-3,6-7");

  auto c = ImportString(MfCorpus("import-lscpu/guest-chat-html-blank-lines.txt"));
  const Machine& cm = c.imported.machine;
  EXPECT_EQ(cm.cpu.cores.value_or(0), 32);
  EXPECT_EQ(cm.cpu.threads.value_or(0), 64);
  EXPECT_EQ(cm.virtualization.hypervisor.value_or(""), "kvm");
  EXPECT_EQ(cm.numa.nodes.size(), 2u);
}

TEST(ImportDmidecode, FullSectionsAndDimms) {
  auto r = ImportString(MfCorpus("import-dmidecode/seed-host-full.txt"));
  ASSERT_EQ(Formats(r), std::vector<std::string>{"dmidecode"});
  const DmiInfo& d = r.imported.machine.dmi;
  EXPECT_EQ(d.sys_vendor.value_or(""), "ASUSTeK COMPUTER INC.");
  EXPECT_EQ(d.product_name.value_or(""), "ESC8000A-E13");
  EXPECT_EQ(d.board_name.value_or(""), "K14PG-D24 Series");
  EXPECT_EQ(d.bios_vendor.value_or(""), "American Megatrends International, LLC.");
  EXPECT_EQ(d.bios_version.value_or(""), "1003");
  EXPECT_EQ(d.bios_date.value_or(""), "08/20/2024");
  EXPECT_EQ(d.processor_version.value_or(""), "AMD EPYC 9335 32-Core Processor");
  EXPECT_EQ(d.product_uuid.value_or(""), "8a3f2c10-4b7e-11ef-9c1a-3c7c3f0a1b2c");
  ASSERT_EQ(d.memory_devices.size(), 2u);  // the empty slot is not a DIMM
  EXPECT_EQ(d.memory_devices[0].locator.value_or(""), "P0 CHANNEL A DIMM_A1");
  EXPECT_EQ(d.memory_devices[0].size_bytes.value_or(0), 32ull << 30);
  EXPECT_EQ(d.memory_devices[0].type.value_or(""), "DDR5");
  EXPECT_EQ(d.memory_devices[0].speed_mts.value_or(0), 6400);
  EXPECT_EQ(d.memory_devices[0].configured_speed_mts.value_or(0), 6000);
  EXPECT_EQ(d.memory_devices[1].part_number.value_or(""), "M321R4GA3EB2-CCPWC");
  // "Chassis Information" has a Manufacturer too: not the system's.
  EXPECT_EQ(r.files[0].parts[0].took, "2 DIMMs, DMI (vendor, board, BIOS)");
}

TEST(ImportDmidecode, GrepByCommandTypeSectionListsAndChat) {
  auto b = ImportString(MfCorpus("import-dmidecode/seed-host-bios-grep-after-command.txt"));
  EXPECT_EQ(b.imported.machine.dmi.bios_version.value_or(""), "1003");
  EXPECT_EQ(b.imported.machine.dmi.bios_date.value_or(""), "08/20/2024");
  EXPECT_FALSE(b.imported.machine.dmi.sys_vendor.known());

  auto p = ImportString(MfCorpus("import-dmidecode/asus-p5ql-baseboard-section.txt"));
  EXPECT_EQ(p.imported.machine.dmi.board_vendor.value_or(""), "ASUSTeK Computer INC.");
  EXPECT_EQ(p.imported.machine.dmi.board_name.value_or(""), "P5QL PRO");

  auto c = ImportString(MfCorpus("import-dmidecode/seed-host-system-chat-glued.txt"));
  EXPECT_EQ(c.imported.machine.dmi.sys_vendor.value_or(""), "ASUSTeK COMPUTER INC.");
  EXPECT_EQ(c.imported.machine.dmi.product_name.value_or(""), "ESC8000A-E13");
}

TEST(ImportVmStartError, ProxmoxAndQemuMessages) {
  auto a = ImportString(MfCorpus("import-vm-start-error/seed-qm-start-mapping-mismatch.txt"));
  ASSERT_EQ(Formats(a), std::vector<std::string>{"vm-start-error"});
  const auto& es = a.imported.machine.hypervisor.start_errors;
  ASSERT_EQ(es.size(), 1u);
  EXPECT_EQ(es[0].vmid.value_or(""), "100");
  EXPECT_EQ(es[0].mapping.value_or(""), "gpu0");
  EXPECT_EQ(es[0].configured_group.value_or(0), 44);
  EXPECT_EQ(es[0].iommu_group.value_or(0), 3);

  auto b = ImportString(MfCorpus("import-vm-start-error/seed-qm-start-vfio-container.txt"));
  const auto& eb = b.imported.machine.hypervisor.start_errors;
  ASSERT_EQ(eb.size(), 1u);
  EXPECT_EQ(eb[0].device.value_or(""), "0000:f1:00.0");
  EXPECT_EQ(eb[0].iommu_group.value_or(0), 44);

  // Wrapped by a mail: each message is joined and read whole (the VFIO_MAP_DMA failure names
  // the device only; the container failure its group).
  auto c = ImportString(MfCorpus("import-vm-start-error/qemu-aarch64-wrapped-mail.txt"));
  const auto& ec = c.imported.machine.hypervisor.start_errors;
  ASSERT_EQ(ec.size(), 2u);
  EXPECT_EQ(ec[0].device.value_or(""), "0000:01:00.0");
  EXPECT_FALSE(ec[0].iommu_group.known());
  EXPECT_EQ(ec[1].device.value_or(""), "0000:01:00.0");
  EXPECT_EQ(ec[1].iommu_group.value_or(0), 11);

  auto d = ImportString(MfCorpus("import-vm-start-error/qemu-x86-quoted-group-258.txt"));
  ASSERT_EQ(d.imported.machine.hypervisor.start_errors.size(), 1u);
  EXPECT_EQ(d.imported.machine.hypervisor.start_errors[0].iommu_group.value_or(0), 258);
  EXPECT_EQ(d.imported.machine.hypervisor.start_errors[0].device.value_or(""), "0000:41:10.1");
}

// nvidia-smi topo -m whose tabs were lost (two names glued) and whose header is glued to the
// command that printed it.
TEST(ImportTopoMDamage, GluedTokensAndHeaderAfterCommand) {
  auto a = ImportString(MfCorpus("import-topo-m/epyc-tabs-lost-glued.txt"));
  ASSERT_EQ(Formats(a), std::vector<std::string>{"topo-m"});
  const auto& lv = a.imported.machine.topology.nvml_levels;
  ASSERT_EQ(lv.size(), 4u);
  EXPECT_EQ(lv[0][1], "NODE");
  EXPECT_EQ(lv[1][2], "SYS");
  EXPECT_EQ(lv[1][3], "SYS");
  EXPECT_EQ(lv[3][2], "NODE");
  EXPECT_EQ(a.imported.machine.topology.gpu_nic_levels[3][3], "NODE");
  EXPECT_EQ(a.imported.machine.topology.nics.size(), 4u);

  auto b = ImportString(MfCorpus("import-topo-m/h100-header-glued-to-command.txt"));
  const auto& h = b.imported.machine.topology.nvml_levels;
  ASSERT_EQ(h.size(), 8u);
  EXPECT_EQ(h[0][4], "NV18");
  EXPECT_EQ(h[7][7], "X");
  ASSERT_GE(b.imported.machine.gpus.size(), 8u);
  EXPECT_EQ(b.imported.machine.gpus[7].cpu_affinity.value_or(""), "52-103,156-207");
}

// NCCL 2.4-2.20 lines: short bus ids in brackets, "Ring" lines, transports with spaces, the
// version line without its host:pid prefix, "P2P is disabled between connected GPUs".
TEST(ImportNcclVersions, OldRingLinesShortBusIdsAndBareVersion) {
  auto r = ImportString(MfCorpus("import-nccl-log/nccl-2.7-short-busids-archlinux.txt"));
  const NcclInfo& n = r.imported.machine.nccl;
  EXPECT_EQ(n.version.value_or(""), "2.20.5");
  ASSERT_EQ(n.connections.size(), 5u);
  EXPECT_EQ(n.connections[0].transport, "P2P/direct pointer");
  EXPECT_EQ(n.connections[3].from_rank, 2);
  EXPECT_EQ(n.connections[3].to_rank, 3);
  EXPECT_EQ(n.connections[3].transport, "P2P/IPC/read");
  EXPECT_EQ(n.connections[4].transport, "direct shared memory");
  ASSERT_EQ(n.p2p_refused.size(), 1u);
  EXPECT_NE(n.p2p_refused[0].message.find("GPUs 3 and 0"), std::string::npos);
  EXPECT_EQ(n.p2p_refused[0].devices, (std::vector<int64_t>{3, 0}));  // ordinals only
  EXPECT_TRUE(n.p2p_refused[0].bus_ids.empty());
}

// A part recognised as a format but holding no fact of it is said so and stores nothing; --as
// on text of another format says what it looks like instead of reading it.
TEST(ImportHonest, NoFactAndWrongAs) {
  // A result block whose key figures cannot be read: a warning naming the line, no run of zeros.
  auto r = ImportString(
      "============ Serving Benchmark Result ============\n"
      "Successful requests:                     n/a\n"
      "Benchmark duration (s):                  12.5\n"
      "==================================================\n");
  EXPECT_EQ(r.recognised_parts, 0u);
  EXPECT_TRUE(r.imported.serve.empty());
  std::string notes;
  for (const auto& n : r.files[0].notes) notes += n + "\n";
  EXPECT_NE(notes.find("paste.txt:2: a serving benchmark result block without a readable "
                       "'Successful requests'"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("lines 1-4: read as serve-bench but"), std::string::npos) << notes;

  std::string smi = testing::SampleBody("nvidia_smi_q/thamada-2x-h100nvl.txt");
  auto w = ImportString(smi, "pci-cfg");
  EXPECT_EQ(w.recognised_parts, 0u);
  EXPECT_TRUE(w.imported.machine.hypervisor.pci_mappings.empty());
  ASSERT_FALSE(w.files[0].parts.empty());
  EXPECT_NE(w.files[0].parts[0].error.find("not pci-cfg output (it looks like nvidia-smi-q)"),
            std::string::npos)
      << w.files[0].parts[0].error;
}

}  // namespace
}  // namespace dossier::import
