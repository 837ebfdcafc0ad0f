// The escaping helpers (md_util.h) and the HTML page's Markdown writer (html_markdown.h) hold
// for any text: hostile values come out of the HTML as the same text, in the same block, with no
// link, image or markup of their own.
#include <gtest/gtest.h>

#include <random>

#include "render/html_markdown.h"
#include "render/md_util.h"
#include "util/sha256.h"

namespace dossier {
namespace {

// The text of an HTML fragment: tags dropped, the five escapes undone, trailing blanks trimmed
// unless `trim` is false.
std::string HtmlText(const std::string& html, bool trim = true) {
  std::string out;
  bool tag = false;
  for (size_t i = 0; i < html.size(); ++i) {
    char c = html[i];
    if (c == '<') tag = true;
    if (!tag) out += c;
    if (c == '>') tag = false;
  }
  std::string r;
  for (size_t i = 0; i < out.size(); ++i) {
    bool hit = false;
    for (auto [e, ch] : {std::pair{"&amp;", '&'}, std::pair{"&lt;", '<'}, std::pair{"&gt;", '>'},
                         std::pair{"&quot;", '"'}, std::pair{"&#39;", '\''}}) {
      std::string_view ev(e);
      if (out.compare(i, ev.size(), ev) == 0) {
        r += ch;
        i += ev.size() - 1;
        hit = true;
        break;
      }
    }
    if (!hit) r += out[i];
  }
  while (trim && !r.empty() && (r.back() == '\n' || r.back() == ' ')) r.pop_back();
  return r;
}

// What a value is expected to read as: control characters are spaces, and the ends are trimmed
// (Markdown trims paragraph and cell edges).
std::string Shown(std::string_view s) {
  std::string r;
  for (char c : s) r += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
  size_t a = r.find_first_not_of(' ');
  if (a == std::string::npos) return "";
  size_t b = r.find_last_not_of(' ');
  return r.substr(a, b - a + 1);
}

const char* const kHostile[] = {
    "[c](javascript:alert(1))",
    "![t](http://127.0.0.1:9/t.png)",
    "<img src=http://127.0.0.1:9/x>",
    "<https://example.com/>",
    "http://example.com/ and www.example.com",
    "a`b``c",
    "`",
    "``x``",
    "# heading",
    "## two",
    "> quote",
    "- item",
    "+ item",
    "* item",
    "1. first",
    "2) second",
    "---",
    "===",
    "***",
    "___",
    "x #",
    "x ##",
    "a | b | c",
    "AT&T &amp; &#60; &lt;",
    "_under_ *star* **bold** ~strike~ ~~del~~",
    "total_tokens_per_s",
    "back\\slash\\",
    "[x] done",
    "[link][ref]\n\n[ref]: javascript:alert(1)",
    "line\nbreak\r\ncr\ttab",
    "gpu\x1b]0;PWN\x07\x1b[2J",
    "    indented code",
    "```\nfenced\n```",
    "<script>alert(1)</script>",
    "a -> b, 3 < 4 > 2",
    "|",
    "\\|",
    "[",
    "]",
    "a\\",
    "*",
    "_",
    "#",
    "-1",
    "&",
    "\xe2\x80\x94 dash \xc3\xa9",
};

TEST(MdEscape, HostileValuesReadAsThemselvesInAParagraph) {
  for (const char* s : kHostile) {
    std::string html = html::FromMarkdown("Value: " + md::Escape(s) + "\n");
    EXPECT_EQ(html.find("<a"), std::string::npos) << s << "\n" << html;
    EXPECT_EQ(html.find("<img"), std::string::npos) << s << "\n" << html;
    EXPECT_EQ(html.find("<em"), std::string::npos) << s << "\n" << html;
    EXPECT_EQ(html.find("<del"), std::string::npos) << s << "\n" << html;
    EXPECT_EQ(html.find("<code"), std::string::npos) << s << "\n" << html;
    EXPECT_EQ(HtmlText(html), Shown("Value: " + Shown(s))) << s << "\n" << html;
    EXPECT_EQ(html.rfind("<p>", 0), 0u) << s << "\n" << html;
  }
}

// Runs of line breaks as one: blocks differ in how many they leave between them.
std::string Squeezed(std::string s) {
  std::string out;
  for (char c : s)
    if (c != '\n' || out.empty() || out.back() != '\n') out += c;
  return out;
}

TEST(MdEscape, HostileValuesAtTheStartOfALineStayText) {
  for (const char* s : kHostile) {
    // After a blank line, under a list, heading, quote or ordered item marker, and as the second
    // line of a paragraph (where "===" or "---" would make the first a heading).
    for (std::string prefix : {"\n", "\n- ", "\n### ", "\n> ", "\n1. ", ""}) {
      std::string html = html::FromMarkdown("para\n" + prefix + md::Escape(s) + "\n");
      if (Shown(s).empty()) continue;
      EXPECT_EQ(html.find("<a"), std::string::npos) << s << "\n" << html;
      EXPECT_EQ(html.find("<img"), std::string::npos) << s << "\n" << html;
      EXPECT_EQ(html.find("<h1"), std::string::npos) << s << "\n" << html;
      EXPECT_EQ(html.find("<h2"), std::string::npos) << s << "\n" << html;
      EXPECT_EQ(html.find("<hr"), std::string::npos) << s << "\n" << html;
      EXPECT_EQ(html.find("<pre"), std::string::npos) << s << "\n" << html;
      // One nested list or quote at most: the one the prefix asked for.
      size_t lists = 0;
      for (size_t at = 0; (at = html.find("<li>", at)) != std::string::npos; ++at) ++lists;
      EXPECT_LE(lists, 1u) << prefix << s << "\n" << html;
      EXPECT_EQ(Squeezed(HtmlText(html)), "para\n" + Shown(s)) << prefix << s << "\n" << html;
    }
  }
}

TEST(MdEscape, HostileValuesStayInTheirTableCell) {
  for (const char* s : kHostile) {
    md::Table t({"value", "code", "after"});
    t.Row({md::Escape(s), md::Code(s), "end"});
    std::string html = html::FromMarkdown(t.Render());
    EXPECT_EQ(html.find("<a"), std::string::npos) << s << "\n" << html;
    EXPECT_EQ(html.find("<img"), std::string::npos) << s << "\n" << html;
    // Three cells in the row, the last one "end".
    size_t body = html.find("<tbody>");
    ASSERT_NE(body, std::string::npos) << s << "\n" << html;
    std::string row = html.substr(body);
    size_t cells = 0;
    for (size_t at = 0; (at = row.find("<td>", at)) != std::string::npos; ++at) ++cells;
    EXPECT_EQ(cells, 3u) << s << "\n" << html;
    EXPECT_NE(row.find("<td>end</td>"), std::string::npos) << s << "\n" << html;
    size_t c1 = row.find("<td>"), c2 = row.find("<td>", c1 + 1);
    EXPECT_EQ(HtmlText(row.substr(c1, c2 - c1)), Shown(s)) << s << "\n" << html;
  }
}

TEST(MdCode, SpanHoldsAnyTextWhole) {
  for (const char* s : kHostile) {
    if (Shown(s).empty()) continue;
    std::string html = html::FromMarkdown("in " + md::Code(s, false) + " out\n");
    size_t a = html.find("<code>"), b = html.find("</code>");
    ASSERT_NE(a, std::string::npos) << s << "\n" << html;
    ASSERT_EQ(html.find("<code>", a + 1), std::string::npos) << s << "\n" << html;
    std::string inside = HtmlText(html.substr(a, b - a), false);
    std::string want;
    for (char c : std::string_view(s)) want += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
    EXPECT_EQ(inside, want) << s << "\n" << html;
    EXPECT_NE(html.find(" out"), std::string::npos) << s << "\n" << html;
  }
  EXPECT_EQ(md::Code("a`b"), "``a`b``");
  EXPECT_EQ(md::Code("`x"), "`` `x ``");
  EXPECT_EQ(md::Code(" x "), "`  x  `");
  EXPECT_EQ(md::Code("a|b"), "`a\\|b`");
  EXPECT_EQ(md::Code("a|b", false), "`a|b`");
  EXPECT_EQ(md::Code(""), "");
}

TEST(MdEscape, ReadsRightAsPlainText) {
  // What a person reads in the Markdown file: identifiers and arrows are not littered.
  EXPECT_EQ(md::Escape("total_tokens_per_s"), "total_tokens_per_s");
  EXPECT_EQ(md::Escape("a -> b"), "a -> b");
  EXPECT_EQ(md::Escape("AT&T"), "AT&T");
  EXPECT_EQ(md::Escape("&amp; &#60; &x"), "\\&amp; \\&#60; &x");
  EXPECT_EQ(md::Escape("-1"), "-1");
  EXPECT_EQ(md::Escape("3.5 GB"), "3.5 GB");
  EXPECT_EQ(md::Escape("a|b"), "a\\|b");
  EXPECT_EQ(md::Escape("# x"), "\\# x");
  EXPECT_EQ(md::Escape("1. x"), "1\\. x");
  EXPECT_EQ(md::Escape("[c](javascript:alert(1))"), "\\[c\\](javascript:alert(1))");
  EXPECT_EQ(md::Escape("GB202GL [RTX PRO 6000] x"), "GB202GL [RTX PRO 6000] x");
  EXPECT_EQ(md::Escape("a [b](c) [d][e] [f]"), "a [b\\](c) [d\\][e] [f\\]");
  EXPECT_EQ(md::Escape("two\nlines"), "two lines");
  EXPECT_EQ(md::Escape("esc\x1b[2J"), "esc [2J");
}

TEST(MdProse, KeepsCodeSpansAndNothingElse) {
  std::string p = md::Prose("run `qm start 100` then [c](javascript:x) and *this*", false);
  std::string html = html::FromMarkdown(p + "\n");
  EXPECT_NE(html.find("<code>qm start 100</code>"), std::string::npos) << html;
  EXPECT_EQ(html.find("<a"), std::string::npos) << html;
  EXPECT_EQ(html.find("<em"), std::string::npos) << html;
  EXPECT_EQ(HtmlText(html), "run qm start 100 then [c](javascript:x) and *this*");
  // An unmatched backtick is text; a code span holding backticks keeps them.
  EXPECT_EQ(HtmlText(html::FromMarkdown(md::Prose("it`s") + "\n")), "it`s");
  EXPECT_EQ(HtmlText(html::FromMarkdown(md::Prose("``a`b`` x") + "\n")), "a`b x");
  // In a table a code span's pipe stays in its cell.
  md::Table t({"a", "b"});
  t.Row({md::Prose("see `x|y`"), "end"});
  EXPECT_NE(html::FromMarkdown(t.Render()).find("<td>end</td>"), std::string::npos);
}

TEST(MdEscape, RandomTextRoundTrips) {
  // Text drawn from the characters Markdown cares about: the paragraph reads as the text, with
  // no markup, for 10000 fixed-seed draws.
  const std::string alphabet = "ab1 #>-+=*_`[]()!<>|~&\\:/.;\n\tx";
  std::mt19937 rng(20261204);
  for (int n = 0; n < 10000; ++n) {
    std::string s;
    size_t len = rng() % 24;
    for (size_t i = 0; i < len; ++i) s += alphabet[rng() % alphabet.size()];
    std::string html = html::FromMarkdown("v " + md::Escape(s) + "\n");
    ASSERT_EQ(HtmlText(html), Shown("v " + Shown(s))) << "[" << s << "]\n" << html;
    ASSERT_EQ(html.find('<', 3), html.find("</p>")) << "[" << s << "]\n" << html;
    std::string p = md::Prose(s);
    html = html::FromMarkdown("v " + p + "\n");
    for (const char* tag : {"<a", "<img", "<em", "<strong", "<del", "<h", "<ul", "<ol", "<pre"})
      ASSERT_EQ(html.find(tag), std::string::npos) << "[" << s << "]\n" << html;
  }
}

TEST(HtmlMarkdown, NoImageAndOnlyFragmentOrHttpsLinks) {
  std::string html = html::FromMarkdown(
      "[a](#findings) [b](https://example.com/x) [c](javascript:alert(1)) [d](http://x/) "
      "[e](JAVASCRIPT:x) ![f](http://127.0.0.1:9/f.png) <https://ok.example/> "
      "<http://no.example/> [g](data:text/html,x)\n");
  EXPECT_NE(html.find("<a href=\"#findings\">a</a>"), std::string::npos) << html;
  EXPECT_NE(html.find("<a href=\"https://example.com/x\">b</a>"), std::string::npos) << html;
  EXPECT_NE(html.find("<a href=\"https://ok.example/\">"), std::string::npos) << html;
  EXPECT_EQ(html.find("javascript"), std::string::npos) << html;
  EXPECT_EQ(html.find("JAVASCRIPT"), std::string::npos) << html;
  EXPECT_EQ(html.find("href=\"http:"), std::string::npos) << html;
  EXPECT_EQ(html.find("data:"), std::string::npos) << html;
  EXPECT_EQ(html.find("<img"), std::string::npos) << html;
  EXPECT_NE(html.find(" f "), std::string::npos) << "the image's text stands in" << html;
  EXPECT_TRUE(html::LinkAllowed("HTTPS://x"));
  EXPECT_FALSE(html::LinkAllowed("//evil.example/"));
  EXPECT_FALSE(html::LinkAllowed(" https://x"));
}

// md4c hands a link's destination in parts: a NUL byte is its own part, written as U+FFFD; an
// entity is written as it is (the browser decodes it once, to the '&' CommonMark means); the
// text around them is escaped.
TEST(HtmlMarkdown, ALinksNulEntitiesAndTextEachComeOutOnce) {
  std::string md = "[a](<https://x.example/p";
  md.push_back('\0');
  md += "q&amp;r\"s>)\n";
  std::string html = html::FromMarkdown(md);
  EXPECT_NE(html.find("<a href=\"https://x.example/p\xEF\xBF\xBDq&amp;r&quot;s\">a</a>"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find('\0'), std::string::npos);
  // A backslash makes "&amp;" text, not an entity: it links to those five characters.
  EXPECT_NE(html::FromMarkdown("[c](<https://x.example/\\&amp;>)\n")
                .find("<a href=\"https://x.example/&amp;amp;\">c</a>"),
            std::string::npos)
      << html::FromMarkdown("[c](<https://x.example/\\&amp;>)\n");
  // An entity that spells a scheme is not the scheme: refused, as before.
  EXPECT_EQ(html::FromMarkdown("[b](&#106;avascript:x)\n").find("<a "), std::string::npos);
}

// Each block is closed by its own tag and nothing else.
TEST(HtmlMarkdown, EachBlockClosesItselfOnly) {
  EXPECT_EQ(html::FromMarkdown("para\n"), "<p>para</p>\n");
  EXPECT_EQ(html::FromMarkdown("#### T\n"), "<h4>T</h4>\n");
  EXPECT_EQ(html::FromMarkdown("```\nx\n```\n"), "<pre><code>x\n</code></pre>\n");
  EXPECT_EQ(html::FromMarkdown("> q\n"), "<blockquote>\n<p>q</p>\n</blockquote>\n");
}

TEST(HtmlMarkdown, WritesTheBlocksOfTheReport) {
  std::string html = html::FromMarkdown(
      "#### Title\n\n| a | b |\n|---|---|\n| `x` | **y** |\n\n- [x] done\n- [ ] open\n\n1. one\n"
      "2. two\n\n> **Stale:** old\n\n```\ncode <b>\n```\n");
  for (const char* want :
       {"<h4>Title</h4>", "<th>a</th>", "<td><code>x</code></td>", "<td><strong>y</strong></td>",
        "<input type=\"checkbox\" disabled checked>done", "<input type=\"checkbox\" disabled>open",
        "<ol>", "<li>one</li>", "<blockquote>", "<pre><code>code &lt;b&gt;\n</code></pre>"})
    EXPECT_NE(html.find(want), std::string::npos) << want << "\n" << html;
}

TEST(Sha256, KnownVectors) {
  auto hex = [](std::string_view s) {
    auto h = Sha256(s);
    std::string out;
    for (uint8_t b : h) out += "0123456789abcdef"[b >> 4], out += "0123456789abcdef"[b & 15];
    return out;
  };
  EXPECT_EQ(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(std::string(1000, 'a')),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
  const uint8_t b[] = {'a', 'b', 'c', 'd'};
  EXPECT_EQ(Base64(b, 1), "YQ==");
  EXPECT_EQ(Base64(b, 2), "YWI=");
  EXPECT_EQ(Base64(b, 3), "YWJj");
  EXPECT_EQ(Base64(b, 4), "YWJjZA==");
}

}  // namespace
}  // namespace dossier
