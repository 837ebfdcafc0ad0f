// dossier diff end to end on a dossier holding two captures of the seed story's host.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../tests/model_builders.h"
#include "../tests/run_cli.h"
#include "../tests/temp_dir.h"
#include "model/json_io.h"
#include "store/dossier_dir.h"

namespace dossier {
namespace {

using testing::RunCli;

void AddCollect(const DossierDir& d, Machine m, const std::string& boot, const std::string& time) {
  m.boot_id = Known(boot, "/proc/sys/kernel/random/boot_id");
  nlohmann::json doc = {{"kind", "collect"}, {"time", time}};
  doc["machine"] = MachineToJson(m);
  ASSERT_TRUE(d.Append(doc, m.name).ok());
}

TEST(DiffCommand, DefaultsToTheLastTwoCollectsOfTheMachine) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  AddCollect(d, testing::SeedHost(20), "boot-a", "2026-11-30T10:00:00Z");
  AddCollect(d, testing::SeedHost(40), "boot-b", "2026-12-01T10:00:00Z");
  auto r = RunCli("diff --dossier " + d.path());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("# Changes of `pve-host`"), std::string::npos);
  EXPECT_NE(r.out.find("the machine rebooted in between"), std::string::npos);
  EXPECT_NE(r.out.find("**IOMMU groups**"), std::string::npos);
  EXPECT_NE(r.out.find("| iommu-renumbered | `IOMMU group 27` | group 27 | group 47 |"),
            std::string::npos)
      << r.out;
  auto j = RunCli("diff 1 2 --format json --dossier " + d.path());
  ASSERT_EQ(j.code, 0) << j.out;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["rebooted"], true);
  EXPECT_EQ(doc["changes"].size(), 8u);
  EXPECT_EQ(doc["changes"][0]["kind"], "iommu-renumbered");
}

// A record is named by its sequence number, its file name, its path, or a prefix of six digits
// or more. Two records with one number (dossiers merged by copying) make the number ambiguous,
// and the message lists the files to choose from.
TEST(DiffCommand, ARecordIsNamedByNumberFileNamePathOrLongPrefix) {
  testing::TempDir t;
  DossierDir d(t.path() + "/deep/er/dossier");
  AddCollect(d, testing::SeedHost(20), "boot-a", "2026-11-30T10:00:00Z");
  AddCollect(d, testing::SeedHost(40), "boot-b", "2026-12-01T10:00:00Z");
  const std::string a = "000001-collect-pve-host.json", b = "000002-collect-pve-host.json";
  const std::string opts = " --format json --dossier " + d.path();
  auto changes = [&](const std::string& refs) {
    auto r = RunCli("diff " + refs + opts);
    if (r.code != 0) return "exit " + std::to_string(r.code) + ": " + r.out;
    return std::to_string(nlohmann::json::parse(r.out)["changes"].size()) + " changes";
  };
  EXPECT_EQ(changes("1 2"), "8 changes");
  EXPECT_EQ(changes(a + " " + b), "8 changes");
  EXPECT_EQ(changes(d.path() + "/records/" + a + " " + d.path() + "/records/" + b), "8 changes");
  EXPECT_EQ(changes("000001 000002-collect"), "8 changes");
  EXPECT_EQ(changes("2 1"), "8 changes");
  // Five digits are neither the number nor a long enough prefix.
  auto short_prefix = RunCli("diff 00001 2" + opts);
  EXPECT_EQ(short_prefix.code, 2);
  EXPECT_NE(short_prefix.out.find("'00001' is not a collect or import record in"),
            std::string::npos)
      << short_prefix.out;

  // A copy of record 2 under another name: "2" is ambiguous, a file name is not.
  std::filesystem::copy_file(d.path() + "/records/" + b,
                             d.path() + "/records/000002-collect-pve-host-copy.json");
  auto amb = RunCli("diff 1 2" + opts);
  EXPECT_EQ(amb.code, 2);
  EXPECT_NE(amb.out.find("'2' names several records: 000002-collect-pve-host-copy.json " + b +
                         "; give a file name"),
            std::string::npos)
      << amb.out;
  EXPECT_EQ(changes("1 000002-collect-pve-host-copy.json"), "8 changes");
}

TEST(DiffCommand, NeedsTwoRecords) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  AddCollect(d, testing::SeedHost(20), "boot-a", "2026-11-30T10:00:00Z");
  auto r = RunCli("diff --dossier " + d.path());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("no machine has two collect or import records"), std::string::npos) << r.out;
  EXPECT_EQ(RunCli("diff 1 --dossier " + d.path()).code, 2);
  EXPECT_EQ(RunCli("diff 1 9 --dossier " + d.path()).code, 2);
}

}  // namespace
}  // namespace dossier
