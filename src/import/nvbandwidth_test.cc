// The nvbandwidth importer on outputs written by hand in nvbandwidth's format (read off its
// sources; no real output was at hand): text and -j JSON, CRLF, a glued prompt, a cut-off paste.
#include <gtest/gtest.h>

#include "import/import_test_util.h"

namespace dossier::import {
namespace {

using testing::Formats;
using testing::ImportString;

std::string NvbCorpus(const std::string& f) {
  return dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) +
                                 "/tests/corpus/import-nvbandwidth/" + f);
}

const P2pResult* NvbFind(const P2pMeasurement& m, const std::string& mode, int64_t src,
                         int64_t dst) {
  for (const auto& r : m.results)
    if (r.mode == mode && r.src == src && r.dst == dst) return &r;
  return nullptr;
}

bool NvbNoted(const ImportRun& run, const std::string& what) {
  for (const auto& f : run.files)
    for (const auto& n : f.notes)
      if (n.find(what) != std::string::npos) return true;
  return false;
}

TEST(NvbandwidthImport, TextBecomesP2pResultsByDirection) {
  ImportRun run = ImportString(NvbCorpus("two-gpu-v0.8.txt"));
  EXPECT_EQ(Formats(run), std::vector<std::string>{"nvbandwidth"});
  ASSERT_EQ(run.imported.p2p.size(), 1u);
  const P2pMeasurement& m = run.imported.p2p[0];
  EXPECT_EQ(m.tool, "nvbandwidth");
  EXPECT_EQ(m.gpu_addresses, (std::vector<std::string>{"0000:c1:00.0", "0000:c2:00.0"}));
  // Write: row -> column; read: column -> row.
  const P2pResult* w01 = NvbFind(m, "uni-p2p", 0, 1);
  ASSERT_NE(w01, nullptr);
  EXPECT_DOUBLE_EQ(w01->gbps_median.value_or(0), 26.32);
  EXPECT_EQ(w01->verdict, "ok");
  EXPECT_EQ(w01->size_bytes, 512u * 1024 * 1024);
  EXPECT_EQ(w01->gbps_median.source, "imported: paste.txt:37 (nvbandwidth)");
  const P2pResult* r10 = NvbFind(m, "uni-p2p-read", 1, 0);
  ASSERT_NE(r10, nullptr);
  EXPECT_DOUBLE_EQ(r10->gbps_median.value_or(0), 25.61);  // row 0 reads from column 1
  // Host copies: the CPU row is the host (-1).
  ASSERT_NE(NvbFind(m, "h2d", -1, 1), nullptr);
  EXPECT_DOUBLE_EQ(NvbFind(m, "h2d", -1, 1)->gbps_median.value_or(0), 26.18);
  ASSERT_NE(NvbFind(m, "d2h", 0, -1), nullptr);
  // Bidirectional: only the Total matrix.
  ASSERT_NE(NvbFind(m, "bi-p2p", 1, 0), nullptr);
  EXPECT_DOUBLE_EQ(NvbFind(m, "bi-p2p", 1, 0)->gbps_median.value_or(0), 52.10);
  // Latency in ns becomes µs.
  ASSERT_NE(NvbFind(m, "latency-p2p", 0, 1), nullptr);
  EXPECT_DOUBLE_EQ(NvbFind(m, "latency-p2p", 0, 1)->latency_us.value_or(0), 1.1805);
  // The diagonal is not a pair; all_to_host is not kept, and said so.
  EXPECT_EQ(NvbFind(m, "uni-p2p", 0, 0), nullptr);
  EXPECT_TRUE(NvbNoted(run, "all_to_host_memcpy_ce is all GPUs copying at once"));
  EXPECT_TRUE(NvbNoted(run, "taken as nvbandwidth's default"));
  // The waived test case is a result with verdict waived.
  int waived = 0;
  for (const auto& r : m.results) waived += r.verdict == "waived" && r.src == -1 && r.dst == -1;
  EXPECT_EQ(waived, 1);
  EXPECT_FALSE(m.interrupted);
}

TEST(NvbandwidthImport, CrlfAnsiAndAGluedPromptReadTheSame) {
  ImportRun plain = ImportString(NvbCorpus("two-gpu-v0.8.txt"));
  for (const char* f : {"two-gpu-v0.8-crlf.txt", "two-gpu-v0.8-ansi.txt"}) {
    ImportRun run = ImportString(NvbCorpus(f));
    ASSERT_EQ(run.imported.p2p.size(), 1u) << f;
    EXPECT_EQ(run.imported.p2p[0].results.size(), plain.imported.p2p[0].results.size()) << f;
  }
  // The prompt shows -b 256: the buffer size is the command's, not the default.
  ImportRun glued = ImportString(NvbCorpus("two-gpu-v0.8-prompt-glued.txt"));
  EXPECT_EQ(Formats(glued), std::vector<std::string>{"nvbandwidth"});
  ASSERT_EQ(glued.imported.p2p.size(), 1u);
  const P2pResult* w = NvbFind(glued.imported.p2p[0], "uni-p2p", 1, 0);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->size_bytes, 256u * 1024 * 1024);
  EXPECT_FALSE(NvbNoted(glued, "taken as nvbandwidth's default"));
}

TEST(NvbandwidthImport, CutOffKeepsCompleteRowsAndSaysWhere) {
  ImportRun run = ImportString(NvbCorpus("two-gpu-v0.8-cut.txt"));
  ASSERT_EQ(run.imported.p2p.size(), 1u);
  const P2pMeasurement& m = run.imported.p2p[0];
  EXPECT_TRUE(m.interrupted);
  EXPECT_NE(NvbFind(m, "uni-p2p", 0, 1), nullptr);  // row 0 complete
  EXPECT_EQ(NvbFind(m, "uni-p2p", 1, 0), nullptr);  // row 1 cut
  EXPECT_TRUE(NvbNoted(run, "paste.txt:38: the output stops here (cut off)"));
}

// A person shortened an 8-GPU matrix: rows left out ("...", "[...]" lines) and columns left out
// ("..." or "…" in the header and under it). The values keep their columns; nothing is invented
// for what was left out, and the leaving out is not taken for a cut.
TEST(NvbandwidthImport, RowsAndColumnsLeftOutKeepTheirColumns) {
  ImportRun run = ImportString(NvbCorpus("eight-gpu-v0.8-elided.txt"));
  EXPECT_EQ(Formats(run), std::vector<std::string>{"nvbandwidth"});
  ASSERT_EQ(run.imported.p2p.size(), 1u);
  const P2pMeasurement& m = run.imported.p2p[0];
  EXPECT_FALSE(m.interrupted);
  // Write: row -> column. Rows 0 1 6 7, columns 0 1 2 6 7: 4 x 5 - 4 diagonal cells.
  size_t write = 0, read = 0;
  for (const auto& r : m.results) {
    write += r.mode == "uni-p2p";
    read += r.mode == "uni-p2p-read";
  }
  EXPECT_EQ(write, 16u);
  EXPECT_EQ(read, 8u);  // rows 0 and 7 only
  ASSERT_NE(NvbFind(m, "uni-p2p", 0, 6), nullptr);
  EXPECT_DOUBLE_EQ(NvbFind(m, "uni-p2p", 0, 6)->gbps_median.value_or(0), 40.6);
  ASSERT_NE(NvbFind(m, "uni-p2p", 6, 7), nullptr);
  EXPECT_DOUBLE_EQ(NvbFind(m, "uni-p2p", 6, 7)->gbps_median.value_or(0), 46.7);
  ASSERT_NE(NvbFind(m, "uni-p2p", 7, 6), nullptr);
  EXPECT_DOUBLE_EQ(NvbFind(m, "uni-p2p", 7, 6)->gbps_median.value_or(0), 47.6);
  EXPECT_EQ(NvbFind(m, "uni-p2p", 0, 3), nullptr);  // under the "...": not measured here
  EXPECT_EQ(NvbFind(m, "uni-p2p", 3, 0), nullptr);
  EXPECT_EQ(NvbFind(m, "uni-p2p", 6, 6), nullptr);  // the N/A diagonal is not a pair
  // Read: column -> row, under the "…" header too.
  ASSERT_NE(NvbFind(m, "uni-p2p-read", 6, 7), nullptr);
  EXPECT_DOUBLE_EQ(NvbFind(m, "uni-p2p-read", 6, 7)->gbps_median.value_or(0), 27.6);
  for (const auto& f : run.files)
    for (const auto& n : f.notes) EXPECT_EQ(n.find("cut off"), std::string::npos) << n;
}

// Where a paste stops without the SUM line: a GPU-to-GPU matrix needs a row per GPU, a host one
// row; only the first stop is a cut.
TEST(NvbandwidthImport, AMatrixMissingRowsIsCutAHostRowIsWhole) {
  const std::string head =
      "nvbandwidth Version: v0.8\n\n"
      "Device 0: NVIDIA RTX 6000 Ada Generation (00000000:c1:00)\n"
      "Device 1: NVIDIA RTX 6000 Ada Generation (00000000:c2:00)\n\n";
  ImportRun pair = ImportString(head +
                                "Running device_to_device_memcpy_write_ce.\n"
                                "memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)\n"
                                "           0         1\n"
                                " 0       N/A     26.32\n");
  ASSERT_EQ(pair.imported.p2p.size(), 1u);
  EXPECT_TRUE(pair.imported.p2p[0].interrupted);
  EXPECT_TRUE(NvbNoted(pair, "cut off"));
  ImportRun host = ImportString(head +
                                "Running host_to_device_memcpy_ce.\n"
                                "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)\n"
                                "           0         1\n"
                                " 0     26.21     26.18\n");
  ASSERT_EQ(host.imported.p2p.size(), 1u);
  EXPECT_FALSE(host.imported.p2p[0].interrupted);
  EXPECT_FALSE(NvbNoted(host, "cut off"));
}

TEST(NvbandwidthImport, OldVersionWaivingLineNamesTheTestCase) {
  ImportRun run = ImportString(NvbCorpus("two-l4-v0.4-waiving.txt"));
  ASSERT_EQ(run.imported.p2p.size(), 1u);
  const P2pMeasurement& m = run.imported.p2p[0];
  bool waived = false;
  for (const auto& r : m.results)
    waived = waived || (r.verdict == "waived" && r.mode == "uni-p2p-read" &&
                        r.detail.find("device_to_device_memcpy_read_ce") != std::string::npos);
  EXPECT_TRUE(waived);
  EXPECT_TRUE(m.gpu_addresses.empty());  // this version printed no bus ids
  EXPECT_NE(NvbFind(m, "h2d", -1, 0), nullptr);
}

TEST(NvbandwidthImport, JsonWithWaivedErrorAndBidirectionalTotal) {
  ImportRun run = ImportString(NvbCorpus("two-gpu-v0.8.json"));
  EXPECT_EQ(Formats(run), std::vector<std::string>{"nvbandwidth"});
  ASSERT_EQ(run.imported.p2p.size(), 1u);
  const P2pMeasurement& m = run.imported.p2p[0];
  EXPECT_EQ(m.gpu_addresses, (std::vector<std::string>{"0000:c1:00.0", "0000:c2:00.0"}));
  ASSERT_NE(NvbFind(m, "uni-p2p", 1, 0), nullptr);
  EXPECT_DOUBLE_EQ(NvbFind(m, "uni-p2p", 1, 0)->gbps_median.value_or(0), 26.3105);
  // The bandwidth_matrix of a bidirectional test holds Read1/Write1, 2 and Total: Total is kept.
  ASSERT_NE(NvbFind(m, "bi-p2p", 0, 1), nullptr);
  EXPECT_DOUBLE_EQ(NvbFind(m, "bi-p2p", 0, 1)->gbps_median.value_or(0), 52.08);
  bool waived = false, error = false;
  for (const auto& r : m.results) {
    waived = waived || (r.verdict == "waived" && r.mode == "uni-p2p-read");
    error = error || (r.verdict == "error" && r.mode == "latency-p2p" &&
                      r.detail.find("peer access is not supported") != std::string::npos);
  }
  EXPECT_TRUE(waived);
  EXPECT_TRUE(error);
}

TEST(NvbandwidthImport, CutJsonKeepsTheCompleteTestCases) {
  ImportRun run = ImportString(NvbCorpus("two-gpu-v0.8-cut.json"));
  ASSERT_EQ(run.imported.p2p.size(), 1u);
  const P2pMeasurement& m = run.imported.p2p[0];
  EXPECT_TRUE(m.interrupted);
  EXPECT_NE(NvbFind(m, "h2d", -1, 0), nullptr);
  EXPECT_EQ(NvbFind(m, "bi-p2p", 0, 1), nullptr);
  EXPECT_TRUE(NvbNoted(run, "the output stops here (cut off)"));
}

TEST(NvbandwidthImport, DetectedFromContentNotName) {
  // The same text under a name that says something else is still nvbandwidth.
  ImportRun run = ImportString(NvbCorpus("two-gpu-v0.8.txt"), "", "lspci.txt");
  EXPECT_EQ(Formats(run), std::vector<std::string>{"nvbandwidth"});
}

}  // namespace
}  // namespace dossier::import
