#include "util/utf8.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dossier {
namespace {

TEST(Utf8, ValidTextPassesUnchanged) {
  for (std::string s : {"", "plain", "Grüße", "日本語", "emoji \xF0\x9F\x98\x80", "nul\0x"}) {
    EXPECT_TRUE(IsValidUtf8(s)) << s;
    EXPECT_EQ(MakeValidUtf8(s), s);
  }
}

// Each sequence length at each edge of its table row (U+00A0 for the 2-byte low edge: U+0080..9F
// are C1 controls, escaped on purpose), alone and as the string's last bytes (the
// bytes left are exactly the sequence's length), and each cut by its last byte.
TEST(Utf8, EverySequenceLengthAtTheEndOfTheString) {
  for (std::string seq :
       {"\xC2\xA0", "\xC3\xA9", "\xDF\xBF", "\xE0\xA0\x80", "\xE2\x82\xAC", "\xED\x9F\xBF",
        "\xEF\xBF\xBD", "\xF0\x90\x80\x80", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF"}) {
    for (std::string s : {seq, "a" + seq, seq + seq}) {
      EXPECT_TRUE(IsValidUtf8(s)) << ::testing::PrintToString(s);
      EXPECT_EQ(MakeValidUtf8(s), s);
    }
    std::string cut = seq.substr(0, seq.size() - 1);
    EXPECT_FALSE(IsValidUtf8(cut)) << ::testing::PrintToString(cut);
    EXPECT_FALSE(IsValidUtf8("a" + cut));
  }
}

TEST(Utf8, InvalidBytesBecomeVisibleEscapes) {
  EXPECT_EQ(MakeValidUtf8("a\xff"
                          "b"),
            "a\\xffb");
  EXPECT_EQ(MakeValidUtf8("\xc3"), "\\xc3");                             // a lead byte cut short
  EXPECT_EQ(MakeValidUtf8("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(MakeValidUtf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a UTF-16 surrogate
  EXPECT_EQ(MakeValidUtf8("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(MakeValidUtf8("\x80x"), "\\x80x");                           // a lone continuation byte
  for (std::string s : {"a\xff"
                        "b",
                        "\xc3", "\xe2\x82", "\xed\xa0\x80"}) {
    std::string v = MakeValidUtf8(s);
    EXPECT_TRUE(IsValidUtf8(v));
    nlohmann::json j = v;
    EXPECT_NO_THROW((void)j.dump());  // what aborted collect: type_error 316
  }
}

TEST(Utf8, TerminalControlsBecomeVisibleEscapes) {
  // A hostname that would retitle the terminal and clear the screen, printed raw.
  EXPECT_EQ(MakeValidUtf8("gpu\x1b]0;PWN\x07\x1b[2J"), "gpu\\x1b]0;PWN\\x07\\x1b[2J");
  EXPECT_EQ(MakeValidUtf8("a\bb\x7f\rc"), "a\\x08b\\x7f\\x0dc");
  EXPECT_EQ(MakeValidUtf8("csi\xc2\x9b"
                          "2J"),
            "csi\\xc2\\x9b2J");  // U+009B, C1 CSI
  // Text layout is kept: tab, line feed, CRLF, NUL (cmdline's separator), U+00A0 and up.
  std::string keep(
      "a\tb\nc\r\nd\0e\xc2\xa0"
      "f",
      13);
  EXPECT_EQ(MakeValidUtf8(keep), keep);
  std::string s = "x\x1by";
  MakeValidUtf8InPlace(&s);
  EXPECT_EQ(s, "x\\x1by");
}

TEST(Utf8, CutsFallOnCharacterBoundaries) {
  std::string s =
      "ab\xc3\xa9"
      "cd";  // "abécd"
  EXPECT_EQ(CutUtf8(s, 3), "ab");
  EXPECT_EQ(CutUtf8(s, 4), "ab\xc3\xa9");
  EXPECT_EQ(CutUtf8(s, 100), s);
  std::string euro(3000, 'x');
  for (int i = 0; i < 3000; ++i) euro += "\xe2\x82\xac";
  for (size_t n = 0; n < 40; ++n) EXPECT_TRUE(IsValidUtf8(CutUtf8(euro, 3000 + n))) << n;
}

}  // namespace
}  // namespace dossier
