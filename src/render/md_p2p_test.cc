#include <gtest/gtest.h>

#include "render/markdown.h"

namespace dossier {
namespace {

P2pResult PassedPair(int src, int dst, const char* mode, uint64_t size, double gbps, double us) {
  P2pResult r;
  r.src = src;
  r.dst = dst;
  r.mode = mode;
  r.size_bytes = size;
  r.gbps_median = Known(gbps, "events");
  r.gbps_min = Known(gbps * 0.98, "events");
  r.gbps_max = Known(gbps * 1.02, "events");
  r.latency_us = Known(us, "events");
  r.link_limit_gbps = Known(63.0, "NVML");
  r.percent_of_limit = Known(gbps / 63.0 * 100, "measured");
  r.verdict = "ok";
  return r;
}

TEST(MdP2p, SeedShapedTableMatrixAndVerdicts) {
  P2pMeasurement m;
  m.time = "2026-12-02T16:30:00Z";
  m.gpu_addresses = {"0000:01:00.0", "0000:02:00.0"};
  m.results = {PassedPair(0, 1, "uni-staged", 12288, 0.917, 13.4),
               PassedPair(0, 1, "uni-staged", 16 << 20, 41.41, 405.1),
               PassedPair(1, 0, "uni-staged", 16 << 20, 41.40, 405.2),
               PassedPair(-1, 0, "h2d-local", 16 << 20, 52.7, 318.6)};
  P2pResult bad = PassedPair(0, 1, "uni-p2p", 16 << 20, 50, 300);
  bad.verdict = "corrupted";
  bad.detail = "bytes differ from the source at offset 4096 of 16 MiB";
  m.results.push_back(bad);
  std::string out;
  MdP2pMeasurement(m, 16 << 20, &out);
  EXPECT_NE(out.find("| 12 KiB | 0.92 | 13.4 | 1.5 % |"), std::string::npos) << out;
  EXPECT_NE(out.find("| 16 MiB | 41.41 (41.40–41.41 over pairs) | 405.1 |"), std::string::npos)
      << out;
  EXPECT_NE(out.find("Verdicts: 1 corrupted, 4 ok."), std::string::npos) << out;
  EXPECT_NE(out.find("offset 4096 of 16 MiB"), std::string::npos);
  EXPECT_NE(out.find("| **GPU0** | X | 41.41 |"), std::string::npos) << out;
  EXPECT_NE(out.find("| **GPU0** | X | **CORRUPTED** |"), std::string::npos) << out;
  EXPECT_NE(out.find("| GPU0 | 52.70 | · | · | · |"), std::string::npos) << out;

  std::string other;
  MdP2pMeasurement(m, 64 << 20, &other);  // not in the sweep: the nearest size below
  EXPECT_NE(other.find("Matrices at 16 MiB: the sweep has no 64 MiB."), std::string::npos) << other;
  EXPECT_NE(other.find("| **GPU0** | X | 41.41 |"), std::string::npos);

  MachineView mv;
  std::string none;
  MdP2p(mv, &none);
  EXPECT_NE(none.find("No p2p measurement"), std::string::npos);
}

TEST(MdP2p, UnknownTimePerCopyIsUnknownNotZero) {
  // An imported bandwidth matrix (p2pBandwidthLatencyTest, nvbandwidth) has no time per copy; a
  // measured 0.0 µs would be a claim. GPU 0 is a GPU like the others.
  P2pMeasurement m;
  P2pResult a = PassedPair(0, 1, "uni-p2p", 16 << 20, 41.4, 0);
  a.latency_us = Fact<double>();
  P2pResult b = a;
  b.src = 1;
  b.dst = 0;
  m.results = {a, b};
  std::string out;
  MdP2pMeasurement(m, 16 << 20, &out);
  EXPECT_NE(out.find("| 16 MiB | 41.40 (41.40–41.40 over pairs) | unknown |"), std::string::npos)
      << out;
  EXPECT_EQ(out.find("| 0.0 |"), std::string::npos) << out;
  EXPECT_NE(out.find("**uni-p2p** at 16 MiB: 41.40 for all 2 ordered pairs."), std::string::npos)
      << out;

  // One pair with a time, one without: the median of what is known.
  m.results[0].latency_us = Known(400.0, "events");
  std::string half;
  MdP2pMeasurement(m, 16 << 20, &half);
  EXPECT_NE(half.find("over pairs) | 400.0 |"), std::string::npos) << half;
}

TEST(MdP2p, SpreadRunsFromTheLowestMinimumToTheHighestMaximum) {
  // Three pairs: the lowest minimum and the highest maximum are the middle pair's, so neither the
  // first nor the last pair's figures give the answer; the median is the middle of three.
  P2pMeasurement m;
  m.results = {PassedPair(0, 1, "uni-p2p", 16 << 20, 40.0, 400),
               PassedPair(1, 0, "uni-p2p", 16 << 20, 30.0, 500),
               PassedPair(0, 2, "uni-p2p", 16 << 20, 50.0, 300)};
  m.results[1].gbps_min = Known(10.0, "events");
  m.results[1].gbps_max = Known(60.0, "events");
  std::string out;
  MdP2pMeasurement(m, 16 << 20, &out);
  EXPECT_NE(
      out.find("| 16 MiB | 40.00 (30.00–50.00 over pairs) | 400.0 | 63.5 % | 10.00–60.00 | 3 |"),
      std::string::npos)
      << out;
}

TEST(MdP2p, GpusOnlyCopiedToAndUnknownAddressesStillShow) {
  // An interrupted sweep measured GPU0 -> GPU1 and GPU0 -> GPU2 only: GPU1 and GPU2 are columns
  // though no copy started from them; the ordinal with no address reads '?'.
  P2pMeasurement m;
  m.gpu_addresses = {"0000:01:00.0", "", "0000:03:00.0"};
  m.results = {PassedPair(0, 1, "uni-p2p", 16 << 20, 40.0, 400),
               PassedPair(0, 2, "uni-p2p", 16 << 20, 45.0, 380)};
  std::string out;
  MdP2pMeasurement(m, 16 << 20, &out);
  EXPECT_NE(out.find("GPUs by CUDA ordinal: GPU0 = `0000:01:00.0`, GPU1 = `?`, GPU2 = "
                     "`0000:03:00.0`."),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("| from \\ to | GPU0 | GPU1 | GPU2 |"), std::string::npos) << out;
  EXPECT_NE(out.find("| **GPU0** | X | 40.00 | 45.00 |"), std::string::npos) << out;
  EXPECT_NE(out.find("| **GPU1** | · | X | · |"), std::string::npos) << out;
}

TEST(MdP2p, TheReportShowsTheLatestSweep) {
  MachineView mv;
  P2pMeasurement old_run, new_run;
  old_run.time = "2026-12-01T10:00:00Z";
  old_run.results = {PassedPair(0, 1, "uni-p2p", 16 << 20, 20.0, 800)};
  new_run.time = "2026-12-02T10:00:00Z";
  new_run.results = {PassedPair(0, 1, "uni-p2p", 16 << 20, 40.0, 400)};
  mv.p2p = {old_run, new_run};
  std::string out;
  MdP2p(mv, &out);
  EXPECT_NE(out.find("Measured 2026-12-02T10:00:00Z"), std::string::npos) << out;
  EXPECT_EQ(out.find("2026-12-01"), std::string::npos) << out;
}

TEST(MdP2p, ImportedLatencyWithoutBandwidthShowsItsTimes) {
  // nvbandwidth's latency tests give µs and no GB/s: the matrix shows the times, not "ok".
  P2pMeasurement m;
  for (int s = 0; s < 2; ++s) {
    P2pResult r;
    r.src = s;
    r.dst = 1 - s;
    r.mode = "latency-p2p";
    r.size_bytes = 8;
    r.verdict = "ok";
    r.latency_us = Known(s == 0 ? 1.18 : 2.54, "nvbandwidth");
    m.results.push_back(r);
  }
  std::string out;
  MdP2pMeasurement(m, 16 << 20, &out);
  EXPECT_NE(out.find("| **GPU0** | X | 1.2 |"), std::string::npos) << out;
  EXPECT_NE(out.find("| **GPU1** | 2.5 | X |"), std::string::npos) << out;
  EXPECT_EQ(out.find("| ok |"), std::string::npos) << out;
}

}  // namespace
}  // namespace dossier
