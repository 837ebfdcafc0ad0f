#include "store/toml_depth.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "store/notes_file.h"

namespace dossier {
namespace {

TEST(TomlDepth, OrdinaryNotesPass) {
  EXPECT_FALSE(CheckTomlNesting("[goal]\ntext = \"a.b.c\"\n[[tried]]\nwhat = 'x'\nv = 1.5\n"));
  EXPECT_FALSE(CheckTomlNesting("a.b.c = { d.e = [1, [2, [3]]] }\n# a.a.a.a.a [[[[\n"));
  // Dots and brackets inside strings of every kind do not count.
  std::string many(500, '.');
  EXPECT_FALSE(CheckTomlNesting("x = \"" + many + "\"\ny = '" + many + "'\nz = \"\"\"" + many +
                                "\n" + many + "\"\"\"\nw = '''[[[[" + many + "'''\n"));
}

// Each kind of string and the comment hides what would be too deep outside it, including the
// other kinds' delimiters, an escaped quote and a backslash-newline; after each the lexer is back
// in code (a bracket run after it is caught on its own line).
TEST(TomlDepth, EveryStringKindHidesNestingAndEndsWhereTomlSays) {
  const std::string deep(1000, '[');
  std::string dots = "a";
  for (int i = 0; i < 100; ++i) dots += ".a";
  const std::vector<std::pair<const char*, std::string>> hidden = {
      {"basic", "x = \"' ''' # \\\" " + deep + dots + "\"\n"},
      {"literal", "x = '\" \"\"\" # \\ " + deep + dots + "'\n"},
      {"multi-line basic",
       "x = \"\"\"\n' ''' \" # \\\"\"\" \\\n" + deep + "\n" + dots + "\"\"\"\n"},
      {"multi-line literal", "x = '''\n\" \"\"\" ' # \\\n" + deep + "\n" + dots + "'''\n"},
      {"comment", "# \" ' \"\"\" ''' " + deep + dots + "\n"}};
  for (const auto& [kind, text] : hidden) {
    SCOPED_TRACE(kind);
    EXPECT_FALSE(CheckTomlNesting("[goal]\n" + text)) << text.substr(0, 60);
    // What follows is code again: its nesting counts, on its own line.
    const size_t lines = 1 + static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
    auto p = CheckTomlNesting("[goal]\n" + text + "y = " + deep + "\n");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->line, lines + 1);
  }
}

TEST(TomlDepth, DeepKeysAndNestingNameTheirLine) {
  std::string key = "a";
  for (int i = 0; i < 40000; ++i) key += ".a";
  auto p = CheckTomlNesting("# c\n\n" + key + " = 1\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->line, 3u);
  EXPECT_NE(p->what.find("dotted parts"), std::string::npos);
  auto q = CheckTomlNesting("x = 1\ny = " + std::string(1000, '[') + "\n");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->line, 2u);
  auto r = CheckTomlNesting("x = \"\"\"\n\n\"\"\"\n[" + key + "]\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->line, 4u);
}

TEST(TomlDepth, ParseNotesRefusesBeforeTomlppRecurses) {
  std::string key = "a";
  for (int i = 0; i < 40000; ++i) key += ".a";
  auto n = ParseNotes("[goal]\ntext = \"x\"\n" + key + " = 1\n", "notes.toml");
  ASSERT_FALSE(n);
  EXPECT_NE(n.error().message.find("notes.toml:3:"), std::string::npos) << n.error().message;
}

}  // namespace
}  // namespace dossier
