// Quoting read back by its consumers: a shell word through /bin/sh itself, an Exec argument
// through systemd's unquoting (tests/artifact_checks.h), a comment as the text it shows, an XML
// comment through pugixml. The values hold every character a value from a record can: quotes,
// '$', '\', '%', '`', spaces, newlines, tabs, other control bytes and non-ASCII.
#include "generate/quote.h"

#include <gtest/gtest.h>

#include <pugixml.hpp>
#include <string>
#include <vector>

#include "tests/artifact_checks.h"
#include "tests/run_process.h"

namespace dossier::generate {
namespace {

const std::vector<std::string>& Hostile() {
  static const std::vector<std::string> v = {
      "plain",
      "",
      "two words",
      "it's",
      "say \"hi\"",
      "$HOME and ${PATH} and $(id) and `id`",
      "back\\slash\\",
      "100% of %n %%",
      "new\nline",
      "tab\there",
      "bell\x07 and del\x7f",
      "; rm -rf / #",
      "a|b&c<d>e",
      "*?[a]~",
      "'''",
      "\\'\\\"",
      "-n",
      "caf\xc3\xa9 \xe2\x80\x94 gpu",
      "trailing\\",
      "dash--dash---",
  };
  return v;
}

// What /bin/sh hands printf for each word: exactly the value.
TEST(Quote, ShellWordAndShellQuoteArriveAsTheValueThroughSh) {
  for (auto quote : {&ShellWord, &ShellQuote}) {
    std::string line = "printf '%s\\0'";
    for (const auto& s : Hostile()) line += " " + quote(s);
    auto r = dossier::testing::RunProcess({"/bin/sh", "-c", line});
    ASSERT_EQ(r.exit_code, 0) << r.err << "\n" << line;
    std::vector<std::string> got;
    for (size_t at = 0, nul; (nul = r.out.find('\0', at)) != std::string::npos; at = nul + 1)
      got.push_back(r.out.substr(at, nul - at));
    EXPECT_EQ(got, Hostile()) << line;
  }
  // Plain words stay as they are; anything else is quoted.
  EXPECT_EQ(ShellWord("0000:01:00.0"), "0000:01:00.0");
  EXPECT_EQ(ShellWord("a_b.c,d/e:f=g+h-i@j%k"), "a_b.c,d/e:f=g+h-i@j%k");
  EXPECT_EQ(ShellWord("nccl topo.xml"), "'nccl topo.xml'");
  EXPECT_EQ(ShellWord(""), "''");
  EXPECT_EQ(ShellWord("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("plain"), "'plain'");
}

// systemd hands the program exactly the value: one argument, no specifier or variable left.
TEST(Quote, SystemdExecArgIsOneArgumentHoldingTheValue) {
  for (const auto& s : Hostile()) {
    SCOPED_TRACE(s);
    std::string arg = SystemdExecArg(s);
    EXPECT_EQ(arg.find('\n'), std::string::npos);
    std::string problem;
    auto words = dossier::testing::SystemdExecArgs(arg, &problem);
    EXPECT_EQ(problem, "") << arg;
    ASSERT_EQ(words.size(), 1u) << arg;
    EXPECT_EQ(words[0], s) << arg;
  }
  EXPECT_EQ(SystemdExecArg("echo 1 > /sys/x"), "'echo 1 > /sys/x'");
  EXPECT_EQ(SystemdExecArg("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(SystemdExecArg("5% $x"), "\"5%% $$x\"");
  EXPECT_EQ(SystemdExecArg("a\nb"), "\"a\\x0ab\"");
}

// A comment line stays one line and shows the value, control bytes and '\' as \xNN.
TEST(Quote, CommentTextIsOneLineShowingTheValue) {
  EXPECT_EQ(CommentText("name\n[Service]\\"), "name\\x0a[Service]\\x5c");
  EXPECT_EQ(CommentText("tab\tdel\x7f caf\xc3\xa9"), "tab\\x09del\\x7f caf\xc3\xa9");
  for (const auto& s : Hostile()) {
    std::string c = CommentText(s);
    for (char ch : c) {
      EXPECT_FALSE(static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) << c;
    }
    // Every backslash left is the start of an \xNN this function wrote.
    for (size_t at = 0; (at = c.find('\\', at)) != std::string::npos; ++at)
      EXPECT_EQ(c.compare(at, 2, "\\x"), 0) << c;
  }
}

// Inside <!-- -->: well-formed whatever the value, and the value read back with "- " between
// dashes and control bytes as \xNN.
TEST(Quote, XmlCommentTextKeepsTheDocumentWellFormed) {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"a--b", "a- -b"}, {"a---b", "a- - -b"}, {"end-", "end- "},   {"-", "- "},
      {"--", "- - "},    {"ok", "ok"},         {"a\nb", "a\\x0ab"}, {"-->", "- ->"},
  };
  for (const auto& [in, want] : rows) {
    SCOPED_TRACE(in);
    std::string c = XmlCommentText(in);
    EXPECT_EQ(c, want);
    std::string doc = "<r><!--" + c + "--></r>";
    EXPECT_EQ(XmlProblem(doc), "") << doc;
    pugi::xml_document d;
    ASSERT_TRUE(d.load_string(doc.c_str(), pugi::parse_default | pugi::parse_comments));
    EXPECT_EQ(std::string(d.child("r").first_child().value()), want);
  }
  // pugixml tolerates "--" inside a comment; XML (and stricter readers) do not: checked here.
  for (const auto& s : Hostile()) {
    std::string c = XmlCommentText(s);
    EXPECT_EQ(c.find("--"), std::string::npos) << c;
    EXPECT_TRUE(c.empty() || c.back() != '-') << c;
    EXPECT_EQ(XmlProblem("<r><!--" + c + "--></r>"), "") << s;
  }
  EXPECT_NE(XmlProblem("<r>"), "");
  EXPECT_EQ(XmlProblem("<!-- c --><system/><!-- v -->"), "");
}

TEST(Quote, ValidPciAddressEachFormAndRefusal) {
  for (const char* ok : {"0000:01:00.0", "10000:e1:1f.7", "0000abcd:01:00.0", "ABCD:0A:1F.3"})
    EXPECT_TRUE(ValidPciAddress(ok)) << ok;
  for (const char* bad :
       {"", "000:01:00.0", "000000000:01:00.0", "0000:01:00.8", "0000:01:00", "01:00.0",
        "0000:0g:00.0", "000g:01:00.0", "0000:01-00.0", "0000:01:00-0", "0000:01:00.0 ",
        " 0000:01:00.0", "0000:1:00.0", "0000:01:0.0", "0000:01:00.0;0000:02:00.0",
        "0000:01:00.0\n", "0000:01:0g.0", "0000:g1:00.0", "0000:01:g0.0"})
    EXPECT_FALSE(ValidPciAddress(bad)) << bad;
}

TEST(Quote, ValidQemuIdAndLibvirtAlias) {
  for (const char* ok : {"hostpci0", "hostpci0.0", "a", "ua-gpu_1", "hostdev3"})
    EXPECT_TRUE(ValidQemuId(ok)) << ok;
  for (const char* bad : {"", "0hostpci", "-x", "_x", "host pci", "a/b", "a\"b", "a\n"})
    EXPECT_FALSE(ValidQemuId(bad)) << bad;
  EXPECT_TRUE(ValidQemuId(std::string(128, 'a')));
  EXPECT_FALSE(ValidQemuId(std::string(129, 'a')));
  EXPECT_TRUE(ValidLibvirtAlias("ua-gpu_1"));
  EXPECT_TRUE(ValidLibvirtAlias("hostdev0"));
  EXPECT_FALSE(ValidLibvirtAlias("hostpci0.0"));  // a QEMU id, but '.' is no alias character
  EXPECT_FALSE(ValidLibvirtAlias(""));
}

}  // namespace
}  // namespace dossier::generate
