// dossier diff end to end on a dossier holding two captures of the seed story's host.
#include <gtest/gtest.h>

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
