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

}  // namespace
}  // namespace dossier
