#include "measure/p2p/record.h"

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace dossier::p2p {
namespace {

P2pMeasurement Sample() {
  P2pMeasurement m;
  m.time = "2026-12-02T16:30:00Z";
  m.boot_id = "b00t";
  m.gpu_addresses = {"0000:01:00.0", "0000:02:00.0"};
  P2pResult r;
  r.src = 0;
  r.dst = 1;
  r.mode = "uni-staged";
  r.size_bytes = 12288;
  r.gbps_median = Known(0.917, "events");
  r.gbps_min = Known(0.9, "events");
  r.gbps_max = Known(0.94, "events");
  r.latency_us = Known(13.4, "events");
  r.link_limit_gbps = Known(63.015, "0000:01:00.0 Gen5 x16 (NVML)");
  r.percent_of_limit = Known(1.46, "measured / 0000:01:00.0 Gen5 x16 (NVML)");
  r.verdict = "ok";
  m.results.push_back(r);
  P2pResult w = r;
  w.mode = "uni-p2p";
  w.verdict = "waived";
  w.detail = "cuDeviceCanAccessPeer(0, 1) = 0";
  w.gbps_median.Unknown("waived: cuDeviceCanAccessPeer(0, 1) = 0", "dossier p2p");
  m.results.push_back(w);
  m.interrupted = true;
  return m;
}

TEST(P2pRecord, RoundTripsThroughTheDossier) {
  testing::TempDir dir;
  DossierDir d(dir.path() + "/dossier");
  ASSERT_TRUE(d.Append(P2pRecord(Sample(), "guest"), "guest"));
  ASSERT_TRUE(d.Append(P2pRecord(Sample(), "host"), "host"));
  std::vector<std::string> warnings;
  auto records = d.Load(&warnings);
  ASSERT_TRUE(records);
  auto ms = P2pFromRecords(*records, "guest", &warnings);
  EXPECT_TRUE(warnings.empty());
  ASSERT_EQ(ms.size(), 1u);
  const P2pMeasurement& m = ms[0];
  EXPECT_EQ(m.time, "2026-12-02T16:30:00Z");
  EXPECT_EQ(m.gpu_addresses[1], "0000:02:00.0");
  EXPECT_TRUE(m.interrupted);
  ASSERT_EQ(m.results.size(), 2u);
  EXPECT_DOUBLE_EQ(*m.results[0].gbps_median, 0.917);
  EXPECT_EQ(m.results[0].link_limit_gbps.source, "0000:01:00.0 Gen5 x16 (NVML)");
  EXPECT_EQ(m.results[1].gbps_median.unknown, "waived: cuDeviceCanAccessPeer(0, 1) = 0");
  EXPECT_EQ(m.results[1].verdict, "waived");
  EXPECT_EQ(P2pFromRecords(*records, "", &warnings).size(), 2u);
}

TEST(P2pRecord, ARecordWithoutItsObjectIsNamedAndSkipped) {
  Record r;
  r.file = "records/000001-p2p-x.json";
  r.kind = "p2p";
  r.machine = "x";
  r.doc = {{"kind", "p2p"}, {"p2p", 42}};
  std::vector<std::string> warnings;
  EXPECT_TRUE(P2pFromRecords({r}, "x", &warnings).empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("records/000001-p2p-x.json"), std::string::npos);
}

}  // namespace
}  // namespace dossier::p2p
