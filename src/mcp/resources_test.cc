// The MCP resources on a dossier directory built by hand: what resources/list names (the three
// fixed ones, then one per record file the store would have written, in sequence order, nothing
// else), and what each URI reads: the report through a child, the notes and a record as files with
// their MIME type, a pasted secret in the notes redacted, and every URI that names nothing (a
// number with letters, a path, a record that is not there) refused as not found.
#include "mcp/resources.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/temp_dir.h"

namespace dossier::mcp {
namespace {

using nlohmann::json;

class McpResources : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path() + "/d";
    std::filesystem::create_directories(dir_ + "/records");
    opts_.dossier_dir = dir_;
  }
  void Write(const std::string& rel, const std::string& text) {
    std::ofstream(dir_ + "/" + rel) << text;
  }
  std::vector<std::string> Uris() {
    std::vector<std::string> out;
    for (const auto& r : ListResources(opts_)) out.push_back(r["uri"]);
    return out;
  }

  testing::TempDir tmp_;
  std::string dir_;
  ServerOptions opts_;
};

TEST_F(McpResources, ListNamesTheFixedOnesThenEachRecordInSequenceOrder) {
  using V = std::vector<std::string>;
  const V fixed = {"dossier://report.md", "dossier://report.json", "dossier://notes.toml"};
  EXPECT_EQ(Uris(), fixed);
  Write("records/000010-collect-guest.json", "{}");
  Write("records/000002-import-pve-host.json", "{}");
  Write("records/000003-p2p-guest.json", "{}");
  // Not records: no sequence number, letters in it, not JSON, a lock or a temporary file.
  Write("records/notes.json", "{}");
  Write("records/00a1-collect-x.json", "{}");
  Write("records/000004-collect-x.json.tmp", "{}");
  Write("records/-collect.json", "{}");
  Write("records/000005.json", "{}");
  V want = fixed;
  for (const char* s : {"000002", "000003", "000010"})
    want.push_back(std::string("dossier://records/") + s);
  EXPECT_EQ(Uris(), want);
  json list = ListResources(opts_);
  EXPECT_EQ(list[3]["name"], "000002-import-pve-host.json");
  EXPECT_EQ(list[3]["mimeType"], "application/json");
  EXPECT_EQ(list[0]["mimeType"], "text/markdown");
  EXPECT_EQ(list[1]["mimeType"], "application/json");
  EXPECT_EQ(list[2]["mimeType"], "application/toml");
  // No records directory at all: the fixed three.
  std::filesystem::remove_all(dir_ + "/records");
  EXPECT_EQ(Uris(), fixed);
}

TEST_F(McpResources, TheReportIsAChildsOutputInItsFormat) {
  for (auto [uri, mime, format] :
       {std::tuple<const char*, const char*, const char*>{"dossier://report.md", "text/markdown",
                                                          "--format=md"},
        {"dossier://report.json", "application/json", "--format=json"}}) {
    auto p = PlanResource(uri, opts_);
    ASSERT_TRUE(p.ok()) << uri;
    EXPECT_EQ(p->uri, uri);
    EXPECT_EQ(p->mime, mime);
    ASSERT_TRUE(p->run.has_value());
    EXPECT_EQ(p->run->argv, (std::vector<std::string>{"report", format, "--dossier=" + dir_}));
    EXPECT_TRUE(p->text.empty());
  }
}

TEST_F(McpResources, NotesAndRecordsAreReadAsFilesWithTheirType) {
  auto none = PlanResource("dossier://notes.toml", opts_);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().kind, Error::kNotFound);
  EXPECT_NE(none.error().message.find("no notes.toml yet"), std::string::npos);

  Write("notes.toml", "goal = \"serve\"\n[[tried]]\nwhat = \"curl https://u:s3cretpass@h/x\"\n");
  auto notes = PlanResource("dossier://notes.toml", opts_);
  ASSERT_TRUE(notes.ok()) << notes.error().message;
  EXPECT_EQ(notes->mime, "application/toml");
  EXPECT_FALSE(notes->run.has_value());
  EXPECT_TRUE(notes->text.starts_with("goal = \"serve\"\n")) << notes->text;
  EXPECT_EQ(notes->text.find("s3cretpass"), std::string::npos) << notes->text;

  Write("records/000001-collect-guest.json", "{\"first\": 1}");
  Write("records/000012-p2p-guest.json", "{\"twelfth\": 12}");
  for (auto [uri, text] :
       {std::pair<const char*, const char*>{"dossier://records/000001", "{\"first\": 1}"},
        {"dossier://records/1", "{\"first\": 1}"},
        {"dossier://records/12", "{\"twelfth\": 12}"},
        {"dossier://records/0000012", "{\"twelfth\": 12}"}}) {
    auto r = PlanResource(uri, opts_);
    ASSERT_TRUE(r.ok()) << uri << ": " << r.error().message;
    EXPECT_EQ(r->mime, "application/json") << uri;
    EXPECT_EQ(r->text, text) << uri;
    EXPECT_EQ(r->uri, uri);
  }
}

TEST_F(McpResources, AUriThatNamesNothingIsNotFound) {
  Write("records/000001-collect-guest.json", "{}");
  Write("notes.toml", "goal = \"x\"\n");
  for (const char* uri :
       {"dossier://records/2", "dossier://records/0", "dossier://records/", "dossier://records/1a",
        "dossier://records/../notes.toml", "dossier://records/-1", "dossier://records/1234567890",
        "dossier://report.html", "dossier://notes", "file:///etc/passwd", "", "dossier://"}) {
    auto r = PlanResource(uri, opts_);
    ASSERT_FALSE(r.ok()) << uri;
    EXPECT_EQ(r.error().kind, Error::kNotFound) << uri;
    EXPECT_NE(r.error().message.find(uri), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace dossier::mcp
