#include "store/notes_edit.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../tests/temp_dir.h"

namespace dossier {
namespace {

using dossier::testing::Slurp;

// A file a person wrote, with comments everywhere and their own layout.
const char* const kBefore = R"(# Our notes — keep this comment
[goal]
# the goal, in one line
text = "first goal"   # trailing comment stays

[[machine]]
name = "pve-host"     # the Proxmox box
role = "host"
# how we work there:
instructions = "commands on the host are run by a person and pasted back"

[[next]]
do = "fix the mapping"
verify = "qm start 100"
blocking = true   # VM does not start
)";

// The same file after: goal replaced, machine 'pve-host' marked unreachable, step 1 done, a
// tried entry appended. Every comment and blank line of kBefore is still there.
const char* const kAfter = R"(# Our notes — keep this comment
[goal]
# the goal, in one line
text = "1000+ tok/s at concurrency 64, 100+ single stream"   # trailing comment stays

[[machine]]
name = "pve-host"     # the Proxmox box
role = "host"
# how we work there:
instructions = "commands on the host are run by a person and pasted back"
reachable = false

[[next]]
do = "fix the mapping"
verify = "qm start 100"
blocking = true   # VM does not start
done = true

[[tried]]
what = "disabled ACS in the BIOS"
result = "IOMMU groups renumbered; P2P still NS"
)";

TEST(NotesEdit, KeepsCommentsAndLayout_Golden) {
  auto ed = NotesEditor::FromText(kBefore, "notes.toml", true);
  ASSERT_TRUE(ed.ok()) << ed.error().message;
  ASSERT_TRUE(ed->SetGoal("1000+ tok/s at concurrency 64, 100+ single stream").ok());
  ASSERT_TRUE(ed->Update("machine", 0, {{"reachable", false}}).ok());
  ASSERT_TRUE(ed->Update("next", 0, {{"done", true}}).ok());
  ASSERT_TRUE(
      ed->Append("tried", {{"what", std::string("disabled ACS in the BIOS")},
                           {"result", std::string("IOMMU groups renumbered; P2P still NS")}})
          .ok());
  EXPECT_EQ(ed->text(), kAfter);
  EXPECT_EQ(ed->notes().next[0].done, true);
  EXPECT_EQ(ed->notes().machines[0].reachable, "no");
}

TEST(NotesEdit, ReplacesMultiLineValuesAndHandlesUnicodeColumns) {
  std::string before =
      "[[fact]]\nname = \"ACS — Zugriff\"  # ümlaut\nvalue = '''two\nlines'''\nstatus = "
      "\"unknown\"\n";
  auto ed = NotesEditor::FromText(before, "n.toml", true);
  ASSERT_TRUE(ed.ok()) << ed.error().message;
  ASSERT_TRUE(ed->Update("fact", 0,
                         {{"value", std::string("disabled")},
                          {"name", std::string("ACS")},
                          {"status", std::string("just-changed")}})
                  .ok());
  EXPECT_EQ(
      ed->text(),
      "[[fact]]\nname = \"ACS\"  # ümlaut\nvalue = \"disabled\"\nstatus = \"just-changed\"\n");
}

TEST(NotesEdit, ANewGoalGoesBeforeTheFirstSectionAndItsComment) {
  auto ed =
      NotesEditor::FromText("# header\n\n# machines\n[[machine]]\nname = \"a\"\n", "n.toml", true);
  ASSERT_TRUE(ed.ok());
  ASSERT_TRUE(ed->SetGoal("g").ok());
  EXPECT_EQ(ed->text(),
            "# header\n\n[goal]\ntext = \"g\"\n\n# machines\n[[machine]]\nname = \"a\"\n");
}

TEST(NotesEdit, KeepsCrlfLineEndings) {
  auto ed = NotesEditor::FromText("[[next]]\r\ndo = \"a\"\r\n", "n.toml", true);
  ASSERT_TRUE(ed.ok());
  ASSERT_TRUE(ed->Update("next", 0, {{"blocking", true}}).ok());
  ASSERT_TRUE(ed->Append("file", {{"path", std::string("/etc/x")}}).ok());
  EXPECT_EQ(ed->text(),
            "[[next]]\r\ndo = \"a\"\r\nblocking = true\r\n\r\n[[file]]\r\npath = \"/etc/x\"\r\n");
}

TEST(NotesEdit, ValuesThatNeedEscapingStayValid) {
  auto ed = NotesEditor::FromText("", "n.toml", false);
  ASSERT_TRUE(ed.ok());
  std::string tricky = "say \"hi\" and it's a \\ back\nslash\x01 \xc3\xa9";
  ASSERT_TRUE(ed->Append("tried", {{"what", tricky}}).ok());
  EXPECT_EQ(ed->notes().tried[0].what, tricky);
  // Every control character TOML wants escaped (tab too, which it allows but a terminal hides),
  // each round-trips through the file alone and among others.
  std::string controls;
  for (int c = 1; c < 0x20; ++c) controls += static_cast<char>(c);
  controls += '\x7f';
  for (char c : controls) {
    std::string v = std::string("a") + c + "b";
    ASSERT_TRUE(ed->Append("tried", {{"what", v}}).ok()) << static_cast<int>(c);
    EXPECT_EQ(ed->notes().tried.back().what, v) << static_cast<int>(c);
  }
  ASSERT_TRUE(ed->Append("tried", {{"what", controls}}).ok());
  EXPECT_EQ(ed->notes().tried.back().what, controls);
}

// A note is stored text: what was typed passes the paste rules before it reaches the file (found
// by dossier mcp's test: `note tried "launched with --api-key sk-…"` kept the key).
TEST(NotesEdit, SecretsTypedIntoANoteAreStoredRedacted) {
  auto ed = NotesEditor::FromText("", "n.toml", false);
  ASSERT_TRUE(ed.ok());
  ASSERT_TRUE(
      ed->Append("tried", {{"what", std::string("launched with --api-key sk-Abc123Secret")},
                           {"result", std::string("export HF_TOKEN=hf_XyzSecret99 then ok")}})
          .ok());
  ASSERT_TRUE(ed->SetGoal("serve at http://admin:pa55word@10.0.0.2:30000").ok());
  for (const char* secret : {"sk-Abc123Secret", "hf_XyzSecret99", "pa55word"})
    EXPECT_EQ(ed->text().find(secret), std::string::npos) << secret << " in\n" << ed->text();
  EXPECT_NE(ed->notes().tried[0].what.find("--api-key <redacted>"), std::string::npos)
      << ed->notes().tried[0].what;
  EXPECT_NE(ed->text().find("10.0.0.2:30000"), std::string::npos);  // the rest is kept
}

TEST(NotesEdit, ABrokenFileIsRefusedWithItsLineAndLeftUntouched) {
  testing::TempDir t;
  const std::string broken = "[goal]\ntext = \"ok\"\n[[next]]\nblocking = maybe\n";
  t.Write("notes.toml", broken);
  auto ed = NotesEditor::Open(t.path() + "/notes.toml");
  ASSERT_FALSE(ed.ok());
  EXPECT_NE(ed.error().message.find("notes.toml:4:"), std::string::npos) << ed.error().message;
  EXPECT_EQ(Slurp(t.path() + "/notes.toml"), broken);
}

TEST(NotesEdit, AnEditThatWouldNotParseIsRefused) {
  auto ed = NotesEditor::FromText("[[next]]\ndo = \"a\"\n", "n.toml", true);
  ASSERT_TRUE(ed.ok());
  std::string before = ed->text();
  EXPECT_FALSE(ed->Update("next", 0, {{"blocking", std::string("yes")}}).ok());
  EXPECT_EQ(ed->text(), before);
  EXPECT_FALSE(ed->Update("next", 3, {{"done", true}}).ok());
}

TEST(NotesEdit, SaveKeepsABackupAndCreatesTheDirectory) {
  testing::TempDir t;
  std::string path = t.path() + "/new-dossier/notes.toml";
  auto ed = NotesEditor::Open(path);
  ASSERT_TRUE(ed.ok());
  ASSERT_TRUE(ed->SetGoal("first").ok());
  ASSERT_TRUE(ed->Save().ok());
  EXPECT_NE(Slurp(path).find("text = \"first\""), std::string::npos);
  EXPECT_NE(Slurp(path).find("# Notes for this dossier"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path + ".bak"));
  auto ed2 = NotesEditor::Open(path);
  ASSERT_TRUE(ed2.ok());
  ASSERT_TRUE(ed2->SetGoal("second").ok());
  ASSERT_TRUE(ed2->Save().ok());
  EXPECT_NE(Slurp(path).find("text = \"second\""), std::string::npos);
  EXPECT_NE(Slurp(path + ".bak").find("text = \"first\""), std::string::npos);
}

}  // namespace
}  // namespace dossier
