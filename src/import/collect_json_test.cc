// A dossier JSON file from another machine, imported: its facts with their sources there, and
// each way such a file can be wrong refused with what is wrong.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "import/import_test_util.h"
#include "model/json_io.h"
#include "util/text.h"

namespace dossier::import {
namespace {

using testing::Formats;

nlohmann::json MachineThere(const std::string& release) {
  Machine m;
  m.name = "there";
  m.kernel.release.Set(release, "uname -r");
  m.memory.total_bytes.Set(uint64_t{64} << 30, "/proc/meminfo");
  return MachineToJson(m);
}

// Imports `doc` as the CLI would, and returns the run and the status.
Status Import(const nlohmann::json& doc, ImportRun* run) {
  run->imported.machine.name = "here";
  return ImportText(doc.dump(2) + "\n", "host.json", FindImporter("dossier-json"), run);
}

TEST(CollectJsonImport, FactsKeepTheirSourceThereAndTheMachineKeepsItsNameHere) {
  nlohmann::json doc = {{"schema", "dossier/1"},
                        {"machines", {{{"machine", MachineThere("6.8.12")}}}}};
  ImportRun run;
  ASSERT_TRUE(Import(doc, &run).ok());
  ASSERT_EQ(Formats(run), std::vector<std::string>{"dossier-json"});
  const Machine& m = run.imported.machine;
  EXPECT_EQ(m.name, "here");
  EXPECT_EQ(m.kernel.release.value_or(""), "6.8.12");
  EXPECT_EQ(m.kernel.release.source, "imported: host.json:1 (dossier-json), there: uname -r");
  EXPECT_EQ(m.memory.total_bytes.value_or(0), uint64_t{64} << 30);
  EXPECT_EQ(run.imported.facts, 2u);
  EXPECT_TRUE(run.files.at(0).notes.empty());
}

TEST(CollectJsonImport, AMachineObjectWithoutTheWrapperIsReadToo) {
  nlohmann::json doc = {{"schema", "dossier/1"}, {"machines", {MachineThere("6.1")}}};
  ImportRun run;
  ASSERT_TRUE(Import(doc, &run).ok());
  EXPECT_EQ(run.imported.machine.kernel.release.value_or(""), "6.1");
}

TEST(CollectJsonImport, OfSeveralMachinesTheFirstIsImportedAndThatIsSaid) {
  nlohmann::json doc = {
      {"schema", "dossier/1"},
      {"machines", {{{"machine", MachineThere("first")}}, {{"machine", MachineThere("second")}}}}};
  ImportRun run;
  ASSERT_TRUE(Import(doc, &run).ok());
  EXPECT_EQ(run.imported.machine.kernel.release.value_or(""), "first");
  const auto& notes = run.files.at(0).notes;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "host.json: holds 2 machines; the first is imported");
}

// Each wrong file is refused with its reason, and nothing of it is imported.
TEST(CollectJsonImport, EachWrongFileIsRefusedWithWhatIsWrong) {
  const std::string no_machines = "a dossier JSON file without machines";
  const std::string no_schema = "JSON without \"schema\": \"dossier/1\"";
  struct Case {
    nlohmann::json doc;
    std::string why;
  } cases[] = {
      {{{"schema", "dossier/1"}}, no_machines},
      {{{"schema", "dossier/1"}, {"machines", nlohmann::json::array()}}, no_machines},
      {{{"schema", "dossier/1"}, {"machines", {{"a", MachineThere("x")}}}}, no_machines},
      {{{"schema", "dossier/1"}, {"machines", "none"}}, no_machines},
      // Without the schema line the file is not taken for a dossier JSON at all; with it only
      // inside (a machine's note quoting it), it is, and the schema's absence is the reason.
      {{{"machines", {MachineThere("x")}}}, "not dossier-json output"},
      {{{"schema", 1}, {"machines", {MachineThere("x")}}}, "not dossier-json output"},
      {{{"schema", "other/1"}, {"machines", {MachineThere("x")}}}, "not dossier-json output"},
      {{{"inner", {{"schema", "dossier/1"}}}, {"machines", {MachineThere("x")}}}, no_schema},
      {{{"schema", {{"schema", "dossier/1"}}}, {"machines", {MachineThere("x")}}}, no_schema},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.doc.dump());
    ImportRun run;
    ASSERT_TRUE(Import(c.doc, &run).ok());
    ASSERT_EQ(run.files.size(), 1u);
    ASSERT_EQ(run.files[0].parts.size(), 1u);
    EXPECT_EQ(run.files[0].parts[0].error, c.why);
    EXPECT_FALSE(run.imported.machine.kernel.release.known());
  }
}

// Read after other parts of the same import, the whole machine of a dossier JSON file would drop
// what they said: it is refused, and what they said is kept. Read first, the parts add to it.
TEST(CollectJsonImport, AfterOtherFactsItIsRefusedAndBeforeThemItIsTheBase) {
  const std::string cmdline = "BOOT_IMAGE=/vmlinuz root=/dev/sda1 amd_iommu=on\n";
  nlohmann::json doc = {{"schema", "dossier/1"}, {"machines", {MachineThere("6.8.12")}}};
  const std::string json = doc.dump(2) + "\n";

  ImportRun after;
  after.imported.machine.name = "here";
  ASSERT_TRUE(ImportText(cmdline + json, "both.txt", nullptr, &after).ok());
  ASSERT_EQ(Formats(after), (std::vector<std::string>{"cmdline", ""}));
  EXPECT_NE(after.files[0].parts[1].error.find("already holds facts"), std::string::npos);
  EXPECT_EQ(after.imported.machine.kernel.cmdline.value_or(""), Trim(cmdline));
  EXPECT_FALSE(after.imported.machine.kernel.release.known());

  ImportRun two_files;
  two_files.imported.machine.name = "here";
  ASSERT_TRUE(ImportText(cmdline, "cmdline.txt", nullptr, &two_files).ok());
  ASSERT_TRUE(ImportText(json, "host.json", nullptr, &two_files).ok());
  EXPECT_TRUE(two_files.imported.machine.kernel.cmdline.known());
  EXPECT_FALSE(two_files.files[1].parts[0].error.empty());

  ImportRun before;
  before.imported.machine.name = "here";
  ASSERT_TRUE(ImportText(json + cmdline, "both.txt", nullptr, &before).ok());
  ASSERT_EQ(Formats(before), (std::vector<std::string>{"dossier-json", "cmdline"}));
  EXPECT_EQ(before.imported.machine.kernel.release.value_or(""), "6.8.12");
  EXPECT_TRUE(before.imported.machine.kernel.cmdline.known());
}

}  // namespace
}  // namespace dossier::import
