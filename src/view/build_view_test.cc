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

}  // namespace
}  // namespace dossier
