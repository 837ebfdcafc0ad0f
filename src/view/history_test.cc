// The view of a dossier with several records of a machine: changes since the previous boot (which
// the analysis computes from the previous boot the view keeps), facts taken from older records
// (stale), and a collect that predates the latest boot.
#include "view/history.h"

#include <gtest/gtest.h>

#include "../tests/model_builders.h"
#include "../tests/temp_dir.h"
#include "analyze/analysis.h"
#include "model/json_io.h"
#include "render/render.h"
#include "view/build_view.h"

namespace dossier {
namespace {

void AddCollect(const DossierDir& d, const Machine& m, const std::string& time) {
  nlohmann::json doc = {{"kind", "collect"}, {"time", time}};
  doc["machine"] = MachineToJson(m);
  ASSERT_TRUE(d.Append(doc, m.name).ok());
}

Machine Boot(Machine m, const std::string& boot) {
  m.boot_id = Known(boot, "/proc/sys/kernel/random/boot_id");
  return m;
}

const Finding* Find(const View& v, const MachineView& mv, const std::string& id) {
  static Analysis a;  // kept alive for the pointer returned
  a = Analyze(v);
  for (const auto& f : a.Of(mv).findings)
    if (f.id == id) return &f;
  return nullptr;
}

std::string HistoryMd(const View& v) {
  return RenderMarkdown(v, Analyze(v));
}

TEST(History, ReportSaysWhatChangedSinceThePreviousBoot) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  AddCollect(d, Boot(testing::SeedHost(20), "boot-a"), "2026-11-30T10:00:00Z");
  AddCollect(d, Boot(testing::SeedHost(40), "boot-b"), "2026-12-01T10:00:00Z");
  auto v = LoadView(d);
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_EQ(v->machines.size(), 1u);
  const MachineView& mv = v->machines[0];
  ASSERT_TRUE(mv.previous);
  EXPECT_EQ(mv.previous->boot_id, "boot-a");
  Analysis a = Analyze(*v);
  const MachineDiff& changes = a.Of(mv).changes;
  EXPECT_TRUE(changes.rebooted);
  EXPECT_NE(changes.from.file.find("000001-collect-pve-host.json"), std::string::npos);
  size_t renumbered = 0;
  for (const auto& c : changes.changes) renumbered += c.kind == "iommu-renumbered";
  EXPECT_EQ(renumbered, 8u);
  // The rule turns it into the seed story's blocking step.
  const Finding* f = Find(*v, mv, "iommu.groups-changed");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->actions[0].step.find("0000:01:00.0 iommugroup=40"), std::string::npos);
  std::string md = HistoryMd(*v);
  EXPECT_NE(md.find("#### Changes since the previous boot"), std::string::npos);
  EXPECT_NE(md.find("| iommu-renumbered | `IOMMU group 20` | group 20 | group 40 |"),
            std::string::npos);
  // Nothing is stale: the newest collect is of the newest boot.
  EXPECT_TRUE(mv.stale.empty());
}

TEST(History, FactsTheNewestCollectCouldNotReadComeFromAnOlderOneMarkedStale) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  Machine root = testing::SwitchBox();
  Machine user = testing::SwitchBox();  // the same boot, collected without root
  for (auto& dev : user.pci.devices)
    if (dev.acs.control.known()) dev.acs.control.Unknown("needs root", "/sys/x/config");
  AddCollect(d, root, "2026-12-01T10:00:00Z");
  AddCollect(d, user, "2026-12-01T11:00:00Z");
  auto v = LoadView(d);
  ASSERT_TRUE(v.ok());
  const PciDevice* port = v->machines[0].machine.FindPci("0000:02:00.0");
  ASSERT_NE(port, nullptr);
  ASSERT_TRUE(port->acs.control.known());
  EXPECT_NE(port->acs.control.stale.find("from the older record 000001-collect-switchbox.json"),
            std::string::npos)
      << port->acs.control.stale;
  EXPECT_NE(port->acs.control.stale.find("(needs root)"), std::string::npos);
  // The finding built on it says so.
  const Finding* f = Find(*v, v->machines[0], "pcie.acs-redirect");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->stale.empty());
  // Said once above the machine, numbered; the cell points at it.
  std::string md = HistoryMd(*v);
  EXPECT_NE(md.find(": from the older record"), std::string::npos);
  EXPECT_NE(md.find("(stale: note "), std::string::npos);
  // No reboot in between: no "changes since the previous boot".
  EXPECT_FALSE(v->machines[0].previous);
  EXPECT_TRUE(Analyze(*v).Of(v->machines[0]).changes.from.file.empty());
}

TEST(History, FactsFromAnEarlierBootSaySo) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  Machine user = Boot(testing::SwitchBox(), "boot-new");
  for (auto& dev : user.pci.devices)
    if (dev.acs.control.known()) dev.acs.control.Unknown("needs root");
  AddCollect(d, Boot(testing::SwitchBox(), "boot-old"), "2026-12-01T10:00:00Z");
  AddCollect(d, user, "2026-12-02T10:00:00Z");
  auto v = LoadView(d);
  ASSERT_TRUE(v.ok());
  const PciDevice* port = v->machines[0].machine.FindPci("0000:02:01.0");
  ASSERT_NE(port, nullptr);
  EXPECT_EQ(port->acs.control.stale.rfind("seen in boot boot-old", 0), 0u)
      << port->acs.control.stale;
}

TEST(History, ACollectOlderThanTheLatestBootIsStaleThroughout) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  AddCollect(d, Boot(testing::SwitchBox(), "boot-a"), "2026-12-01T10:00:00Z");
  // A later record of the same machine from another boot (an import, a measurement).
  ASSERT_TRUE(d.Append({{"kind", "import"},
                        {"time", "2026-12-02T09:00:00Z"},
                        {"machine", "switchbox"},
                        {"boot_id", "boot-b"}},
                       "switchbox")
                  .ok());
  auto v = LoadView(d);
  ASSERT_TRUE(v.ok());
  const MachineView& mv = v->machines[0];
  EXPECT_NE(mv.stale.find("rebooted since"), std::string::npos) << mv.stale;
  EXPECT_NE(mv.machine.cpu.model.stale.find("before the latest reboot"), std::string::npos);
  std::string md = HistoryMd(*v);
  EXPECT_NE(md.find("> **Stale:** collected in boot boot-a"), std::string::npos);
  std::string json = RenderJson(*v, Analyze(*v));
  EXPECT_NE(json.find("\"stale\": \"collected in boot boot-a, before the latest reboot\""),
            std::string::npos);
}

TEST(History, ASettingStatedAsJustChangedAfterTheCollectMakesItStale) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  AddCollect(d, testing::SeedHost(), "2026-12-01T10:00:00Z");
  t.Write("dossier/notes.toml",
          "[[fact]]\nname = \"ACS\"\nvalue = \"disabled\"\nstatus = \"just-changed\"\n"
          "machine = \"pve-host\"\nwhen = \"2026-12-01T12:00:00Z\"\n");
  auto v = LoadView(d);
  ASSERT_TRUE(v.ok());
  EXPECT_NE(v->machines[0].stale.find("the notes say ACS just changed"), std::string::npos)
      << v->machines[0].stale;
  // Stated before the collect: the collect already shows the new state.
  t.Write("dossier/notes.toml",
          "[[fact]]\nname = \"ACS\"\nvalue = \"disabled\"\nstatus = \"just-changed\"\n"
          "machine = \"pve-host\"\nwhen = \"2026-12-01T09:00:00Z\"\n");
  v = LoadView(d);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->machines[0].stale.empty());
}

TEST(History, ABrokenNotesFileIsAWarningWithItsLine) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  AddCollect(d, testing::SwitchBox(), "2026-12-01T10:00:00Z");
  t.Write("dossier/notes.toml", "[goal]\ntext = \"x\"\n\n[[next]]\nblocking = true\n");
  auto v = LoadView(d);
  ASSERT_TRUE(v.ok());
  ASSERT_FALSE(v->warnings.empty());
  EXPECT_NE(v->warnings.back().find("notes.toml:4:"), std::string::npos) << v->warnings.back();
  EXPECT_NE(v->warnings.back().find("missing 'do'"), std::string::npos);
}

// Only a later record of this machine says it rebooted: one of another machine, one whose host
// name is another's, or one without a host name beside a collect of a captured tree (another
// machine's files) says nothing of this machine's boot. Each row changes one thing.
TEST(History, OnlyALaterRecordOfThisMachineInAnotherBootMakesItStale) {
  struct Row {
    const char* what;
    const char* record_machine;
    const char* record_host;  // nullptr: the record has no host name
    const char* record_boot;
    const char* record_time;
    const char* collect_root;  // nullptr: a collect of the live machine without "root"
    bool stale;
  };
  const std::vector<Row> rows = {
      {"same machine, later, other boot", "switchbox", nullptr, "boot-b", "2026-12-02", nullptr,
       true},
      {"another machine's record", "other", nullptr, "boot-b", "2026-12-02", nullptr, false},
      {"same boot", "switchbox", nullptr, "boot-a", "2026-12-02", nullptr, false},
      {"earlier than the collect", "switchbox", nullptr, "boot-b", "2026-11-30", nullptr, false},
      {"the same host name", "switchbox", "sb1", "boot-b", "2026-12-02", nullptr, true},
      {"another host name", "switchbox", "elsewhere", "boot-b", "2026-12-02", nullptr, false},
      {"no host name, captured tree", "switchbox", nullptr, "boot-b", "2026-12-02", "/tmp/tree",
       false},
      {"no host name, root /", "switchbox", nullptr, "boot-b", "2026-12-02", "/", true},
      {"host name, captured tree", "switchbox", "sb1", "boot-b", "2026-12-02", "/tmp/tree", true},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.what);
    testing::TempDir t;
    DossierDir d(t.path() + "/dossier");
    Machine m = Boot(testing::SwitchBox(), "boot-a");
    m.hostname = Known(std::string("sb1"), "/etc/hostname");
    nlohmann::json doc = {{"kind", "collect"}, {"time", "2026-12-01T10:00:00Z"}};
    if (r.collect_root) doc["root"] = r.collect_root;
    doc["machine"] = MachineToJson(m);
    ASSERT_TRUE(d.Append(doc, m.name).ok());
    if (std::string(r.record_machine) != "switchbox") {
      Machine other = testing::SwitchBox();
      other.name = r.record_machine;
      AddCollect(d, Boot(other, "boot-x"), "2026-12-01T09:00:00Z");
    }
    nlohmann::json rec = {{"kind", "import"},
                          {"time", std::string(r.record_time) + "T09:00:00Z"},
                          {"machine", r.record_machine},
                          {"boot_id", r.record_boot}};
    if (r.record_host) rec["hostname"] = r.record_host;
    ASSERT_TRUE(d.Append(rec, r.record_machine).ok());
    auto v = LoadView(d);
    ASSERT_TRUE(v.ok()) << v.error().message;
    const MachineView* mv = v->Find("switchbox");
    ASSERT_NE(mv, nullptr);
    if (r.stale) {
      EXPECT_EQ(mv->stale,
                "collected in boot boot-a (2026-12-01T10:00:00Z); a import record at " +
                    std::string(r.record_time) +
                    "T09:00:00Z ran in boot boot-b: the machine has rebooted since. Run 'dossier "
                    "collect' again.");
      EXPECT_EQ(mv->machine.cpu.model.stale, "collected in boot boot-a, before the latest reboot");
    } else {
      EXPECT_EQ(mv->stale, "");
      EXPECT_EQ(mv->machine.cpu.model.stale, "");
    }
  }
}

}  // namespace
}  // namespace dossier
