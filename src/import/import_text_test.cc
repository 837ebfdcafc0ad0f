// The helpers every importer reads pasted text with: each row of their tables (PCI address forms,
// link speeds, HTML tags and entities, elision marks, lspci classes) and each way they refuse.
#include "import/import_text.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dossier::import {
namespace {

TEST(ImportText, PciAddressesInEveryPastedFormAndEachRefusal) {
  struct Case {
    const char* in;
    const char* want;  // nullptr: refused
  } cases[] = {
      {"01:00.0", "0000:01:00.0"},
      {"0000:01:00.0", "0000:01:00.0"},
      {"00000000:C1:00.7", "0000:c1:00.7"},  // nvidia-smi's 8-digit domain, upper case
      {"1:01:00.0", "0001:01:00.0"},         // a short domain is padded
      {"0001:e1:1f.3", "0001:e1:1f.3"},
      {"00010000:01:00.0", nullptr},   // a domain past 16 bits does not exist on Linux
      {"000000000:01:00.0", nullptr},  // nine digits
      {"01:00.8", nullptr},            // function 0-7
      {"01:00", nullptr},
      {"1:00.0", nullptr},
      {"01-00.0", nullptr},
      {"0g:00.0", nullptr},
      {"01:00:0", nullptr},
      {"zz:01:00.0", nullptr},
      {":01:00.0", nullptr},
      {"01:00.0 ", nullptr},
      {"", nullptr},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.in);
    auto got = NormalizePciAddress(c.in);
    if (c.want) {
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(*got, c.want);
    } else {
      EXPECT_FALSE(got.has_value()) << *got;
    }
  }
}

TEST(ImportText, EachLinkSpeedIsItsGeneration) {
  const std::pair<const char*, int64_t> speeds[] = {{"2.5GT/s", 1}, {"5GT/s", 2},  {"8GT/s", 3},
                                                    {"16GT/s", 4},  {"32GT/s", 5}, {"64GT/s", 6}};
  for (const auto& [s, g] : speeds) {
    EXPECT_EQ(GenFromSpeed(s).value_or(0), g) << s;
    EXPECT_EQ(GenFromSpeed(std::string(" ") + s + ",").value_or(0), g) << s << " in a list";
  }
  for (const char* s : {"", "2.5 GT/s", "128GT/s", "16GT/s (ok)", "unknown", "16"})
    EXPECT_FALSE(GenFromSpeed(s).has_value()) << s;
}

TEST(ImportText, TokensSplitAtRunsOfBlanksAndTabs) {
  EXPECT_EQ(Tokens("  GPU0\t\tX  NV18 \t"), (std::vector<std::string_view>{"GPU0", "X", "NV18"}));
  EXPECT_TRUE(Tokens(" \t ").empty());
}

TEST(ImportText, BlockTagsSeparateWordsInlineTagsDoNot) {
  for (const char* tag :
       {"br", "td", "th", "p", "div", "li", "tr", "TD", "br/", "td class=\"x\""}) {
    SCOPED_TRACE(tag);
    EXPECT_EQ(StripMarkup(std::string("a<") + tag + ">b"), "a b");
  }
  for (const char* tag : {"b", "span", "code", "a href=\"x\"", "/td", "/tr", "!-- c --", "em"}) {
    SCOPED_TRACE(tag);
    EXPECT_EQ(StripMarkup(std::string("a<") + tag + ">b"), "ab");
  }
  // Not tags: a '<' before a blank or a digit, one never closed, one longer than any tag.
  EXPECT_EQ(StripMarkup("a < b > c"), "a < b > c");
  EXPECT_EQ(StripMarkup("x<1>y"), "x<1>y");
  EXPECT_EQ(StripMarkup("<td"), "<td");
  const std::string long_tag = "a<b" + std::string(198, 'x') + ">c";
  EXPECT_EQ(StripMarkup(long_tag), long_tag);
  const std::string just_short = "a<b" + std::string(197, 'x') + ">c";
  EXPECT_EQ(StripMarkup(just_short), "ac");
  EXPECT_EQ(StripMarkup("  <td>32 GB</td>  "), "32 GB");
}

TEST(ImportText, EachEntityIsDecodedAndAnUnknownOneIsKept) {
  const std::pair<const char*, const char*> entities[] = {
      {"&nbsp;", " "},  {"&amp;", "&"}, {"&lt;", "<"},   {"&gt;", ">"},
      {"&quot;", "\""}, {"&#39;", "'"}, {"&#x27;", "'"}, {"&#34;", "\""}};
  for (const auto& [e, ch] : entities) {
    SCOPED_TRACE(e);
    EXPECT_EQ(StripMarkup(std::string("x") + e + "y"), std::string("x") + ch + "y");
    std::string out;
    EXPECT_EQ(DecodeEntity(std::string(e) + "rest", &out), std::string(e).size());
    EXPECT_EQ(out, ch);
  }
  std::string out = "k";
  EXPECT_EQ(DecodeEntity("&copy;", &out), 0u);
  EXPECT_EQ(out, "k");
  EXPECT_EQ(StripMarkup("a &copy; b &amp"), "a &copy; b &amp");
}

TEST(ImportText, KeyValueSplitsAtTheFirstColonWithMarkupAndBlanksGone) {
  std::string k, v;
  ASSERT_TRUE(KeyValue("  <td>Model name:</td><td>AMD EPYC 9335: 32-Core</td> ", &k, &v));
  EXPECT_EQ(k, "Model name");
  EXPECT_EQ(v, "AMD EPYC 9335: 32-Core");
  ASSERT_TRUE(KeyValue("Size: ", &k, &v));
  EXPECT_EQ(k, "Size");
  EXPECT_EQ(v, "");
  EXPECT_FALSE(KeyValue("no colon here", &k, &v));
  EXPECT_FALSE(KeyValue("  : value", &k, &v));
}

TEST(ImportText, EachElisionMarkAndNothingElse) {
  for (const char* e :
       {"...", "[...]", "\xE2\x80\xA6", "(...)", "<snip>", "[snip]", "...snip...", "  ...  "})
    EXPECT_TRUE(IsElision(e)) << e;
  for (const char* e : {"....", "..", "[..]", "snip", "... more", "", "# ..."})
    EXPECT_FALSE(IsElision(e)) << e;
}

TEST(ImportText, LspciDescriptionWithIdsTakesTheLastBracketedPair) {
  PciDevice d;
  ReadLspciDescription(
      "VGA compatible controller [0300]: Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 [Radeon "
      "RX 7900 XT] [1002:744c] (rev c8)",
      &d, "here");
  EXPECT_EQ(d.class_id.value_or(""), "0x030000");
  EXPECT_EQ(d.vendor_id.value_or(""), "0x1002");
  EXPECT_EQ(d.device_id.value_or(""), "0x744c");
  EXPECT_EQ(d.name.value_or(""),
            "Advanced Micro Devices, Inc. [AMD/ATI] Navi 31 [Radeon RX 7900 XT]");
  EXPECT_EQ(d.name.source, "here");
  PciDevice nv;
  ReadLspciDescription(
      "3D controller [0302]: NVIDIA Corporation GB202GL [RTX PRO 6000] [10DE:2BB1]", &nv, "here");
  EXPECT_EQ(nv.class_id.value_or(""), "0x030200");
  EXPECT_EQ(nv.device_id.value_or(""), "0x2bb1");
  EXPECT_EQ(nv.name.value_or(""), "NVIDIA Corporation GB202GL [RTX PRO 6000]");
}

TEST(ImportText, LspciDescriptionWithoutIdsReadsClassAndVendorFromTheWords) {
  const std::pair<const char*, const char*> classes[] = {
      {"VGA compatible controller", "0x030000"},
      {"3D controller", "0x030200"},
      {"Display controller", "0x038000"},
      {"PCI bridge", "0x060400"},
      {"Host bridge", "0x060000"},
      {"Ethernet controller", "0x020000"},
      {"Infiniband controller", "0x020700"},
      {"Non-Volatile memory controller", "0x010802"},
      {"Audio device", "0x040300"}};
  for (const auto& [cls, id] : classes) {
    SCOPED_TRACE(cls);
    PciDevice d;
    ReadLspciDescription(std::string(cls) + ": Some Vendor Thing (prog-if 02 [NVM Express])", &d,
                         "here");
    EXPECT_EQ(d.class_id.value_or(""), id);
    EXPECT_EQ(d.name.value_or(""), "Some Vendor Thing");
    EXPECT_FALSE(d.vendor_id.known());
  }
  PciDevice u;
  ReadLspciDescription("Signal processing controller: Intel Corporation Thing", &u, "here");
  EXPECT_FALSE(u.class_id.known());
  PciDevice nv, mlx;
  ReadLspciDescription("3D controller: NVIDIA Corporation GB202GL (rev a1)", &nv, "here");
  EXPECT_EQ(nv.vendor_id.value_or(""), "0x10de");
  EXPECT_EQ(nv.name.value_or(""), "NVIDIA Corporation GB202GL");
  ReadLspciDescription("Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]",
                       &mlx, "here");
  EXPECT_EQ(mlx.vendor_id.value_or(""), "0x15b3");
  PciDevice none;
  ReadLspciDescription("no colon and blank here", &none, "here");
  EXPECT_FALSE(none.name.known());
}

TEST(ImportText, ASourceNamesFileLineAndFormat) {
  ImportSource src;
  src.file = "host.txt";
  src.format = "lspci";
  EXPECT_EQ(src.At(40), "imported: host.txt:40 (lspci)");
}

}  // namespace
}  // namespace dossier::import
