#include "store/dossier_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../tests/temp_dir.h"
#include "view/build_view.h"

namespace dossier {
namespace {

using dossier::testing::Slurp;

nlohmann::json Collect(const std::string& name, const std::string& host) {
  return {
      {"kind", "collect"},
      {"machine", {{"name", name}, {"hostname", host}, {"provenance", nlohmann::json::object()}}}};
}

TEST(DossierDir, AppendsNeverOverwrites) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  auto a = d.Append(Collect("guest", "a"), "guest");
  auto b = d.Append(Collect("guest", "b"), "guest");
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_NE(*a, *b);
  std::vector<std::string> w;
  auto recs = d.Load(&w);
  ASSERT_TRUE(recs);
  ASSERT_EQ(recs->size(), 2u);
  EXPECT_TRUE((*recs)[0].doc.is_null());  // listed by header; the body is read where used
  EXPECT_LT((*recs)[0].sequence, (*recs)[1].sequence);
  // The latest record of a machine wins in the view.
  View v = BuildView(*recs, {}, {});
  ASSERT_EQ(v.machines.size(), 1u);
  EXPECT_EQ(*v.machines[0].machine.hostname, "b");
}

TEST(DossierDir, DamagedRecordsAreNamedSkippedAndLeftAlone) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  ASSERT_TRUE(d.Append(Collect("guest", "a"), "guest"));
  std::string bad = d.records_dir() + "/000002-collect-guest.json";
  std::string truncated = "{\"schema\": \"dossier/1\",\n \"kind\": \"collect\",\n \"machine\": {";
  std::ofstream(bad, std::ios::binary) << truncated;
  std::string binary = d.records_dir() + "/000003-collect-guest.json";
  std::ofstream(binary, std::ios::binary) << std::string(
      "\x7f"
      "ELF\0\0\x01",
      7);
  std::string future = d.records_dir() + "/000004-collect-guest.json";
  std::ofstream(future) << R"({"schema": "dossier/9", "kind": "collect"})";
  std::vector<std::string> w;
  auto recs = d.Load(&w);
  ASSERT_TRUE(recs);
  EXPECT_EQ(recs->size(), 1u);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_NE(w[0].find("000002-collect-guest.json:3"), std::string::npos) << w[0];
  EXPECT_NE(w[2].find("dossier/9"), std::string::npos) << w[2];
  EXPECT_EQ(Slurp(bad), truncated);  // nothing is modified
  // A new record still gets a fresh name after the damaged ones.
  auto next = d.Append(Collect("guest", "c"), "guest");
  ASSERT_TRUE(next);
  EXPECT_NE(next->find("000005-"), std::string::npos) << *next;
}

// Load keeps each record's header only (store/record_header.h); RecordDoc parses a body when
// asked, and says so when the file no longer reads.
TEST(DossierDir, ListsHeadersAndParsesBodiesOnDemand) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  ASSERT_TRUE(d.Append(Collect("guest", "a"), "guest"));
  nlohmann::json m = {{"kind", "p2p"},     {"machine", "guest"},
                      {"boot_id", "b-1"},  {"hostname", "gpu-vm"},
                      {"p2p", {{"x", 1}}}, {"time", "2026-12-03T10:00:00Z"}};
  ASSERT_TRUE(d.Append(m, "guest"));
  std::vector<std::string> w;
  auto recs = d.Load(&w);
  ASSERT_TRUE(recs);
  ASSERT_EQ(recs->size(), 2u);
  const Record& c = (*recs)[0];
  EXPECT_EQ(c.kind, "collect");
  EXPECT_EQ(c.machine, "guest");  // machine.name of a collect
  EXPECT_TRUE(c.machine_object);
  EXPECT_EQ(c.tool, std::string("dossier ") + DOSSIER_VERSION);
  const Record& p = (*recs)[1];
  EXPECT_EQ(p.kind, "p2p");
  EXPECT_EQ(p.machine, "guest");  // a measurement names its machine as a string
  EXPECT_FALSE(p.machine_object);
  EXPECT_EQ(p.boot_id, "b-1");
  EXPECT_EQ(p.hostname, "gpu-vm");
  EXPECT_EQ(p.time, "2026-12-03T10:00:00Z");
  EXPECT_TRUE(p.doc.is_null());
  nlohmann::json scratch;
  const nlohmann::json* doc = RecordDoc(p, &scratch, &w);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ((*doc)["p2p"]["x"], 1);
  EXPECT_EQ((*doc)["schema"], "dossier/1");
  std::filesystem::remove(p.file);
  EXPECT_EQ(RecordDoc(p, &scratch, &w), nullptr);
  ASSERT_FALSE(w.empty());
  EXPECT_NE(w.back().find("no longer reads"), std::string::npos) << w.back();
  EXPECT_TRUE(scratch.is_null());
}

TEST(DossierDir, MissingDossierIsAClearError) {
  DossierDir d("/nonexistent/dossier");
  std::vector<std::string> w;
  auto r = d.Load(&w);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("dossier collect"), std::string::npos);
}

}  // namespace
}  // namespace dossier
