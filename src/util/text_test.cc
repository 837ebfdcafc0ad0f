#include "util/text.h"
#include "util/xml_escape.h"

#include <gtest/gtest.h>

namespace dossier {
namespace {

using Cpus = std::vector<int64_t>;

TEST(CpuList, KernelFormsParse) {
  EXPECT_EQ(ParseCpuList("0-3,8,10-11\n"), (Cpus{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(ParseCpuList(""), Cpus{});  // a node without CPUs
  EXPECT_EQ(ParseCpuList("5"), (Cpus{5}));
  EXPECT_EQ(ParseCpuList("8-9,0-1,1"), (Cpus{0, 1, 8, 9}));  // sorted, once each
  EXPECT_EQ(FormatCpuList(*ParseCpuList("0-3,8,10-11")), "0-3,8,10-11");
}

TEST(CpuList, DamageIsRefusedNotLooped) {
  EXPECT_FALSE(ParseCpuList("3-1"));
  EXPECT_FALSE(ParseCpuList("-1"));
  EXPECT_FALSE(ParseCpuList("0-x"));
  EXPECT_FALSE(ParseCpuList("0-1000000"));  // a range wider than any machine
  // CPU numbers past any kernel's NR_CPUS: INT64_MAX made the range loop overflow and never end
  // (found by tests/fuzz/fuzz_soak.cc). ASSERT first: without the bound, the test stops here
  // instead of looping on the line after.
  EXPECT_EQ(ParseCpuList("1048575"), (Cpus{1048575}));
  ASSERT_FALSE(ParseCpuList("1048576"));
  EXPECT_FALSE(ParseCpuList("9223372036854775807"));
  EXPECT_FALSE(ParseCpuList("9223372036854775800-9223372036854775807"));
}

// Formatting is safe for any numbers an importer hands it: no addition past INT64_MAX.
TEST(CpuList, FormatsRunsWithoutOverflow) {
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(FormatCpuList({9223372036854775806, 9223372036854775807}),
            "9223372036854775806-9223372036854775807");
  // The pasted list of the soak's seed 2: INT64_MAX followed by another number (UBSan reported
  // INT64_MAX + 1 here).
  EXPECT_EQ(FormatCpuList({9223372036854775807, 9223372036854775807}),
            "9223372036854775807,9223372036854775807");
  EXPECT_EQ(FormatCpuList({-9223372036854775807 - 1, 9223372036854775807}),
            "-9223372036854775808,9223372036854775807");
}

TEST(CpuMask, WordsMostSignificantFirst) {
  EXPECT_EQ(ParseCpuMask("00000000,0000000f\n"), (Cpus{0, 1, 2, 3}));
  EXPECT_EQ(ParseCpuMask("00000001,00000000"), (Cpus{32}));
  EXPECT_FALSE(ParseCpuMask("123456789"));  // a word of more than 32 bits
  EXPECT_FALSE(ParseCpuMask("0000000g"));
  EXPECT_FALSE(ParseCpuMask(""));
}

// One escaping for the XML family (util/xml_escape.h): the generators' XML turns whitespace into
// references (an attribute would fold a newline into a space), the HTML page keeps it.
TEST(XmlEscapeFamily, MarkupAndControlsForXmlAndHtml) {
  EXPECT_EQ(XmlEscape("a&b<c>\"d'"), "a&amp;b&lt;c&gt;&quot;d&apos;");
  EXPECT_EQ(XmlEscape("x\ny\tz"), "x&#10;y&#9;z");
  EXPECT_EQ(XmlEscape("x\ny", /*literal_whitespace=*/true), "x\ny");
  EXPECT_EQ(XmlEscape(std::string("e\x1b]0;\x07", 6)), "e\\x1b]0;\\x07");
  EXPECT_EQ(XmlEscape(std::string("e\x1b", 2), true), "e\\x1b");
}

}  // namespace
}  // namespace dossier
