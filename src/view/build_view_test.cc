#include "view/build_view.h"

#include <gtest/gtest.h>

#include <string>

#include "model/json_io.h"
#include "store/dossier_dir.h"
#include "view/coverage.h"
#include "view/view.h"

namespace dossier {
namespace {

// A machine known only from imports is in the view under the name its records carry (also when
// the record's machine object has none), and reads as pasted (not collected); beside it a
// collected machine reads as collected. A family whose facts carry no source is cited by the
// pasted file the record names; what its machine object holds wrongly is a warning naming the
// record.
TEST(BuildView, AMachineKnownOnlyFromImportsIsNamedAndReadsAsPasted) {
  auto record = [](const std::string& kind, const std::string& machine, int seq) {
    Machine m;
    m.name = machine;
    m.kernel.cmdline.Set("ro quiet", kind == "import" ? "imported: s.txt:2 (cmdline)" : "/proc");
    if (kind == "import") m.topology.p2p_status.read = {{"X", "NS"}, {"NS", "X"}};
    Record r;
    r.kind = kind;
    r.time = "2026-12-03T09:00:0" + std::to_string(seq) + "Z";
    r.machine = machine;
    r.file = "records/00000" + std::to_string(seq) + "-" + kind + ".json";
    r.doc = {
        {"schema", "dossier/1"}, {"kind", kind}, {"time", r.time}, {"machine", MachineToJson(m)}};
    FillHeaderFromDoc(&r);
    return r;
  };
  Record imported = record("import", "guest", 2);
  imported.doc["machine"].erase("name");
  imported.doc["machine"]["kernel"]["release"] = 42;  // a string in the schema
  imported.doc["files"] = {{{"file", "host-paste.txt"}}};
  View v = BuildView({record("collect", "host", 1), imported}, Notes{}, {});
  ASSERT_EQ(v.machines.size(), 2u);
  const MachineView* guest = v.Find("guest");
  ASSERT_NE(guest, nullptr);
  EXPECT_FALSE(guest->coverage.collected);
  EXPECT_EQ(guest->coverage.From(Family::kKernelCmdline), "pasted: s.txt:2 (cmdline)");
  EXPECT_EQ(guest->coverage.From(Family::kP2pRead), "pasted: host-paste.txt");
  bool warned = false;
  for (const auto& w : v.warnings)
    warned = warned || (w.rfind(imported.file + ": wrong type at ", 0) == 0 &&
                        w.find("/kernel/release") != std::string::npos);
  EXPECT_TRUE(warned) << ::testing::PrintToString(v.warnings);
  EXPECT_FALSE(guest->coverage.Covers(Family::kNuma));
  const MachineView* host = v.Find("host");
  ASSERT_NE(host, nullptr);
  EXPECT_TRUE(host->coverage.collected);
}

// A machine known only from its measurements (a serve-bench client, a p2p run stored under a
// name no collect has): nothing of it was captured, so no family reads as collected.
TEST(BuildView, AMachineKnownOnlyFromMeasurementsCoversNoFamily) {
  Record r;
  r.kind = "p2p";
  r.time = "2026-12-03T09:00:00Z";
  r.machine = "client";
  r.file = "records/000001-p2p-client.json";
  r.doc = {{"schema", "dossier/1"}, {"kind", "p2p"}, {"time", r.time}, {"machine", "client"}};
  FillHeaderFromDoc(&r);
  View v = BuildView({r}, Notes{}, {});
  const MachineView* mv = v.Find("client");
  ASSERT_NE(mv, nullptr);
  EXPECT_TRUE(mv->measured_only);
  EXPECT_FALSE(mv->coverage.collected);
  for (const auto& info : FamilyTable()) EXPECT_FALSE(mv->coverage.Covers(info.family)) << info.key;
}

}  // namespace
}  // namespace dossier
