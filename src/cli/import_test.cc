// dossier import end to end: --pair names the GPUs of a pasted table that does not, and only an
// A-B of two ordinals is taken; the summary gives each note its own line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../tests/run_cli.h"
#include "../tests/temp_dir.h"

namespace dossier {
namespace {

const std::string kTable =
    std::string(DOSSIER_SOURCE_DIR) +
    "/tests/corpus/import-bandwidth-table/markdown-pipes-units-in-header.txt";

std::vector<std::string> RecordNames(const std::string& dossier) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dossier + "/records", ec))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ImportCommand, PairNamesTheGpusOfATableThatDoesNot) {
  testing::TempDir t;
  const std::string d = t.path() + "/dossier";
  auto r = testing::RunCli("import --pair 2-3 --machine g --dossier " + d + " " + kTable);
  ASSERT_EQ(r.code, 0) << r.out;
  ASSERT_EQ(RecordNames(d),
            (std::vector<std::string>{"000001-import-g.json", "000002-p2p-g.json"}));
  std::ifstream in(d + "/records/000002-p2p-g.json");
  auto doc = nlohmann::json::parse(in);
  ASSERT_EQ(doc["p2p"]["results"].size(), 3u);
  for (const auto& res : doc["p2p"]["results"]) {
    EXPECT_EQ(res["src"], 2);
    EXPECT_EQ(res["dst"], 3);
  }
  // The summary: the part, then each note on a line of its own, then what was written.
  EXPECT_NE(r.out.find(kTable + ":1-5: bandwidth-table: 3 bandwidth/latency results\n  " + kTable +
                       ":3: the table does not say whether peer access was on (staged, P2P): "
                       "kept as uni-unknown\nwrote "),
            std::string::npos)
      << r.out;

  // Without --pair the table is not read, and the notes say why, one per line.
  auto none = testing::RunCli("import --machine g --dossier " + t.path() + "/none " + kTable);
  EXPECT_EQ(none.code, 2) << none.out;
  EXPECT_NE(none.out.find("no --pair was given; not read\n  lines 1-5: read as bandwidth-table"),
            std::string::npos)
      << none.out;
  EXPECT_TRUE(RecordNames(t.path() + "/none").empty());
}

TEST(ImportCommand, APairThatIsNotTwoOrdinalsIsRefusedAndNothingStored) {
  testing::TempDir t;
  for (const char* bad : {"0-1-2", "0", "a-1", "0-b", "-", "0-", "-1", "0_1"}) {
    const std::string d = t.path() + "/d";
    auto r = testing::RunCli(std::string("import --pair=") + bad + " --machine g --dossier " + d +
                             " " + kTable);
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.out;
    EXPECT_NE(r.out.find(std::string("--pair ") + bad + ": expected A-B (GPU ordinals, '0-1')"),
              std::string::npos)
        << bad << "\n"
        << r.out;
    EXPECT_TRUE(RecordNames(d).empty()) << bad;
  }
}

}  // namespace
}  // namespace dossier
