#include "store/notes_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "../tests/temp_dir.h"
#include "render/json_visit.h"

namespace dossier {
namespace {

// The seed story's notes, as a person might write them.
const char* const kSeedNotes = R"(# Notes for the GLM-5 deployment
[goal]
text = "Serve GLM-5-NVFP4 with SGLang on 8x RTX PRO 6000 Blackwell"

[[target]]
metric = "total_tokens_per_s"
op = ">="
value = 1000
concurrency = 64

[[target]]
metric = "single_stream_tokens_per_s"
op = ">="
value = 100.0

[[machine]]
name = "glm-guest"
role = "guest"
reachable = true
guest_of = "pve-host"
instructions = "ssh root@guest; SGLang runs in tmux session 'sglang'"

[[machine]]
name = "pve-host"
role = "host"
reachable = false
instructions = "No direct SSH: commands on the host are run by a person and pasted back"

[[fact]]
name = "ACS"
value = "disabled"
status = "just-changed"
machine = "pve-host"

[[fact]]
name = "Above 4G decoding"
value = true
status = "confirmed"
machine = "pve-host"

[[tried]]
what = "switched the VM from i440FX to Q35"
result = "GPUs got PCIe capabilities; P2P still NS"
when = 2026-11-30

[[next]]
do = "update /etc/pve/mapping/pci.cfg with the new IOMMU groups"
verify = "qm start 100"
blocking = true

[[file]]
machine = "glm-guest"
path = "~/nccl_topo.xml"
why = "NCCL topology file"
)";

TEST(NotesFile, ReadsTheSeedStorysNotes) {
  auto n = ParseNotes(kSeedNotes, "dossier/notes.toml");
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_EQ(n->goal, "Serve GLM-5-NVFP4 with SGLang on 8x RTX PRO 6000 Blackwell");
  ASSERT_EQ(n->targets.size(), 2u);
  EXPECT_EQ(n->targets[0].metric, "total_tokens_per_s");
  EXPECT_EQ(n->targets[0].value, 1000);
  EXPECT_EQ(n->targets[0].concurrency, 64);
  EXPECT_EQ(n->targets[0].line, 5);
  EXPECT_EQ(n->targets[1].concurrency, 0);
  ASSERT_EQ(n->machines.size(), 2u);
  EXPECT_EQ(n->machines[1].reachable, "no");
  EXPECT_EQ(n->machines[0].guest_of, "pve-host");
  ASSERT_EQ(n->facts.size(), 2u);
  EXPECT_EQ(n->facts[0].status, "just-changed");
  EXPECT_EQ(n->facts[1].value, "true");
  ASSERT_EQ(n->tried.size(), 1u);
  EXPECT_EQ(n->tried[0].when, "2026-11-30");
  ASSERT_EQ(n->next.size(), 1u);
  EXPECT_TRUE(n->next[0].blocking);
  EXPECT_FALSE(n->next[0].done);
  EXPECT_EQ(n->files[0].path, "~/nccl_topo.xml");
}

// Every key of every section reaches its own field, each with a value no other key has, and
// each entry knows its line.
TEST(NotesFile, EveryKeyOfEverySectionIsReadIntoItsField) {
  const char* text =
      "[goal]\ntext = \"g\"\n"
      "[[target]]\nmetric = \"total_tokens_per_s\"\nop = \"<=\"\nvalue = 2.5\nconcurrency = 7\n"
      "note = \"tn\"\n"
      "[[machine]]\nname = \"mn\"\nrole = \"guest\"\nreachable = false\ninstructions = \"mi\"\n"
      "guest_of = \"mg\"\nvm = \"105\"\n"
      "[[fact]]\nname = \"fn\"\nvalue = 3\nstatus = \"just-changed\"\nmachine = \"fm\"\n"
      "note = \"fno\"\nwhen = \"fw\"\n"
      "[[tried]]\nwhat = \"tw\"\nresult = \"tr\"\nmachine = \"tm\"\nwhen = \"twh\"\n"
      "[[next]]\ndo = \"nd\"\nverify = \"nv\"\nmachine = \"nm\"\nblocking = true\ndone = true\n"
      "why = \"nw\"\nwhen = \"nwh\"\n"
      "[[file]]\npath = \"/etc/fp\"\nmachine = \"fim\"\nwhy = \"fiw\"\n";
  auto n = ParseNotes(text, "n.toml");
  ASSERT_TRUE(n.ok()) << n.error().message;
  // Every field, through the structs' own visit(): a field a key did not reach differs here.
  const nlohmann::json want = {
      {"path", "n.toml"},
      {"goal", "g"},
      {"targets",
       {{{"metric", "total_tokens_per_s"},
         {"op", "<="},
         {"value", 2.5},
         {"concurrency", 7},
         {"note", "tn"},
         {"line", 3}}}},
      {"machines",
       {{{"name", "mn"},
         {"role", "guest"},
         {"reachable", "no"},
         {"instructions", "mi"},
         {"guest_of", "mg"},
         {"vm", "105"},
         {"line", 9}}}},
      {"facts",
       {{{"name", "fn"},
         {"value", "3"},
         {"status", "just-changed"},
         {"machine", "fm"},
         {"note", "fno"},
         {"when", "fw"},
         {"line", 16}}}},
      {"tried",
       {{{"what", "tw"}, {"result", "tr"}, {"machine", "tm"}, {"when", "twh"}, {"line", 23}}}},
      {"next",
       {{{"do", "nd"},
         {"verify", "nv"},
         {"machine", "nm"},
         {"blocking", true},
         {"done", true},
         {"why", "nw"},
         {"when", "nwh"},
         {"line", 28}}}},
      {"files", {{{"path", "/etc/fp"}, {"machine", "fim"}, {"why", "fiw"}, {"line", 36}}}}};
  EXPECT_EQ(PlainToJson(*n), want) << PlainToJson(*n).dump(1);
  // A fact without status is "unknown"; a machine that does not say reachable is "".
  auto d = ParseNotes("[[fact]]\nname = \"a\"\n[[machine]]\nname = \"b\"\n", "n.toml");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->facts[0].status, "unknown");
  EXPECT_EQ(d->machines[0].reachable, "");
}

TEST(NotesFile, SyntaxErrorNamesFileLineAndColumn) {
  auto n = ParseNotes("[goal]\ntext = \"ok\"\n\n[[next]]\ndo = \"unterminated\n", "n.toml");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().message.rfind("n.toml:5:", 0), 0u) << n.error().message;
  EXPECT_NE(n.error().message.find("left as it is"), std::string::npos);
}

TEST(NotesFile, WrongTypesUnknownKeysAndMetricsAreErrorsWithTheirLine) {
  struct Case {
    const char* text;
    const char* where;
    const char* says;
  } cases[] = {
      {"[[next]]\ndo = \"x\"\nblocking = \"yes\"\n", "n.toml:3:", "true or false"},
      {"[[nxt]]\ndo = \"x\"\n", "n.toml:1:", "unknown key 'nxt'"},
      {"[[target]]\nmetric = \"tokens\"\nop = \">=\"\nvalue = 1\n",
       "n.toml:2:", "unknown metric 'tokens'"},
      {"[[target]]\nmetric = \"total_tokens_per_s\"\nop = \"=>\"\nvalue = 1\n",
       "n.toml:3:", "expected one of"},
      {"[[fact]]\nname = \"ACS\"\nstatus = \"changed\"\n", "n.toml:3:", "just-changed"},
      {"[[tried]]\nresult = \"x\"\n", "n.toml:1:", "missing 'what'"},
      {"goal = \"x\"\n", "n.toml:1:", "[goal] section"},
      {"[[target]]\nmetric = \"ttft_ms.p99\"\nop = \"<=\"\nvalue = inf\n",
       "n.toml:4:", "'value' must be a finite number"},
      {"[[target]]\nmetric = \"ttft_ms.p99\"\nop = \"<=\"\nvalue = -inf\n", "n.toml:4:", "finite"},
      {"[[target]]\nmetric = \"ttft_ms.p99\"\nop = \"<=\"\nvalue = nan\n", "n.toml:4:", "finite"},
  };
  for (const auto& c : cases) {
    auto n = ParseNotes(c.text, "n.toml");
    ASSERT_FALSE(n.ok()) << c.text;
    EXPECT_EQ(n.error().message.rfind(c.where, 0), 0u) << n.error().message;
    EXPECT_NE(n.error().message.find(c.says), std::string::npos) << n.error().message;
  }
}

// A key a section does not have is refused in every section, at its line, naming the section and
// the keys it has (a typo such as `stauts` would otherwise be dropped unseen).
TEST(NotesFile, AnUnknownKeyIsRefusedInEverySection) {
  const std::vector<std::pair<std::string, std::string>> sections = {
      {"[goal]", "text = \"g\"\n"},
      {"[[target]]", "metric = \"total_tokens_per_s\"\nop = \">=\"\nvalue = 1\n"},
      {"[[machine]]", "name = \"m\"\n"},
      {"[[fact]]", "name = \"f\"\n"},
      {"[[tried]]", "what = \"w\"\n"},
      {"[[next]]", "do = \"d\"\n"},
      {"[[file]]", "path = \"/etc/x\"\n"}};
  for (const auto& [header, body] : sections) {
    SCOPED_TRACE(header);
    ASSERT_TRUE(ParseNotes(header + "\n" + body, "n.toml").ok());
    const std::string text = header + "\n" + body + "colour = \"blue\"\n";
    const int line = 2 + static_cast<int>(std::count(body.begin(), body.end(), '\n'));
    auto n = ParseNotes(text, "n.toml");
    ASSERT_FALSE(n.ok()) << text;
    EXPECT_EQ(n.error().message.rfind("n.toml:" + std::to_string(line) + ":", 0), 0u)
        << n.error().message;
    EXPECT_NE(n.error().message.find("unknown key 'colour' in " + header + " (expected "),
              std::string::npos)
        << n.error().message;
  }
}

TEST(NotesFile, BinaryAndHugeInputAreErrorsNotCrashes) {
  std::string bin("\x00\xff\xfe[[next]]\x01", 12);
  EXPECT_FALSE(ParseNotes(bin, "n.toml").ok());
  std::string huge(kMaxNotesBytes + 1, '#');
  auto n = ParseNotes(huge, "n.toml");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.error().kind, Error::kTooLarge);
}

TEST(NotesFile, AbsentFileIsEmptyNotes) {
  testing::TempDir t;
  auto n = ReadNotes(t.path() + "/notes.toml");
  ASSERT_TRUE(n.ok());
  EXPECT_TRUE(n->path.empty());
  EXPECT_TRUE(n->targets.empty());
  t.Write("notes.toml", kSeedNotes);
  n = ReadNotes(t.path() + "/notes.toml");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->machines.size(), 2u);
}

}  // namespace
}  // namespace dossier
