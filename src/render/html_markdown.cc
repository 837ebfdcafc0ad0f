#include "render/html_markdown.h"

#include <md4c.h>

#include <vector>

#include "render/html_svg.h"

namespace dossier::html {
namespace {

struct MdHtmlOut {
  std::string html;
  int image_depth = 0;     // inside an image: its text only, no markup at all
  std::vector<bool> open;  // per link span: whether an <a> was written for it
};

MdHtmlOut& MdOut(void* u) {
  return *static_cast<MdHtmlOut*>(u);
}

// An entity md4c recognised: written as it is when it is only "&name;", "&#123;" or "&#x1F;".
bool PlainEntity(std::string_view e) {
  if (e.size() < 3 || e.front() != '&' || e.back() != ';') return false;
  for (char c : e.substr(1, e.size() - 2))
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '#'))
      return false;
  return true;
}

// An attribute as md4c hands it, as HTML: text escaped, an entity written as it is (the browser
// decodes it to the character CommonMark means, as in text; escaping it again linked to
// "&amp;amp;"), a NUL as U+FFFD.
std::string AttributeHtml(const MD_ATTRIBUTE& a) {
  std::string s;
  if (!a.text) return s;
  for (int i = 0; a.substr_offsets[i] < a.size; ++i) {
    std::string_view part(a.text + a.substr_offsets[i],
                          a.substr_offsets[i + 1] - a.substr_offsets[i]);
    if (a.substr_types[i] == MD_TEXT_NULLCHAR)
      s += "\xEF\xBF\xBD";
    else if (a.substr_types[i] == MD_TEXT_ENTITY && PlainEntity(part))
      s += part;
    else
      s += Escape(part);
  }
  return s;
}

const char* AlignAttr(MD_ALIGN a) {
  switch (a) {
    case MD_ALIGN_LEFT:
      return " align=\"left\"";
    case MD_ALIGN_CENTER:
      return " align=\"center\"";
    case MD_ALIGN_RIGHT:
      return " align=\"right\"";
    default:
      return "";
  }
}

int EnterBlock(MD_BLOCKTYPE type, void* detail, void* u) {
  std::string& o = MdOut(u).html;
  switch (type) {
    case MD_BLOCK_QUOTE:
      o += "<blockquote>\n";
      break;
    case MD_BLOCK_UL:
      o += "<ul>\n";
      break;
    case MD_BLOCK_OL: {
      unsigned start = static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start;
      o += start == 1 ? std::string("<ol>\n") : "<ol start=\"" + std::to_string(start) + "\">\n";
      break;
    }
    case MD_BLOCK_LI: {
      auto* li = static_cast<MD_BLOCK_LI_DETAIL*>(detail);
      if (li->is_task)
        o += std::string("<li class=\"task-list-item\"><input type=\"checkbox\" disabled") +
             (li->task_mark == ' ' ? "" : " checked") + ">";
      else
        o += "<li>";
      break;
    }
    case MD_BLOCK_HR:
      o += "<hr>\n";
      break;
    case MD_BLOCK_H:
      o += "<h" + std::to_string(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level) + ">";
      break;
    case MD_BLOCK_CODE:
      o += "<pre><code>";
      break;
    case MD_BLOCK_P:
      o += "<p>";
      break;
    case MD_BLOCK_TABLE:
      o += "<table>\n";
      break;
    case MD_BLOCK_THEAD:
      o += "<thead>\n";
      break;
    case MD_BLOCK_TBODY:
      o += "<tbody>\n";
      break;
    case MD_BLOCK_TR:
      o += "<tr>\n";
      break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      o += std::string(type == MD_BLOCK_TH ? "<th" : "<td") +
           AlignAttr(static_cast<MD_BLOCK_TD_DETAIL*>(detail)->align) + ">";
      break;
    default:  // the document; raw HTML blocks are off (MD_FLAG_NOHTML)
      break;
  }
  return 0;
}

int LeaveBlock(MD_BLOCKTYPE type, void* detail, void* u) {
  std::string& o = MdOut(u).html;
  switch (type) {
    case MD_BLOCK_QUOTE:
      o += "</blockquote>\n";
      break;
    case MD_BLOCK_UL:
      o += "</ul>\n";
      break;
    case MD_BLOCK_OL:
      o += "</ol>\n";
      break;
    case MD_BLOCK_LI:
      o += "</li>\n";
      break;
    case MD_BLOCK_H:
      o += "</h" + std::to_string(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level) + ">\n";
      break;
    case MD_BLOCK_CODE:
      o += "</code></pre>\n";
      break;
    case MD_BLOCK_P:
      o += "</p>\n";
      break;
    case MD_BLOCK_TABLE:
      o += "</table>\n";
      break;
    case MD_BLOCK_THEAD:
      o += "</thead>\n";
      break;
    case MD_BLOCK_TBODY:
      o += "</tbody>\n";
      break;
    case MD_BLOCK_TR:
      o += "</tr>\n";
      break;
    case MD_BLOCK_TH:
      o += "</th>\n";
      break;
    case MD_BLOCK_TD:
      o += "</td>\n";
      break;
    default:
      break;
  }
  return 0;
}

const char* SpanTag(MD_SPANTYPE type) {
  switch (type) {
    case MD_SPAN_EM:
      return "em";
    case MD_SPAN_STRONG:
      return "strong";
    case MD_SPAN_CODE:
      return "code";
    case MD_SPAN_DEL:
      return "del";
    case MD_SPAN_U:
      return "u";
    default:  // links and images are handled apart; math and wiki links are off
      return nullptr;
  }
}

int EnterSpan(MD_SPANTYPE type, void* detail, void* u) {
  MdHtmlOut& out = MdOut(u);
  if (type == MD_SPAN_IMG) {
    ++out.image_depth;  // never an <img>: the picture's text stands in its place
    return 0;
  }
  if (out.image_depth > 0) return 0;
  if (type == MD_SPAN_A) {
    // The scheme is judged on the destination as the page will hold it: an entity is not
    // decoded here, so "&#106;avascript:" is no https: and is refused.
    std::string href = AttributeHtml(static_cast<MD_SPAN_A_DETAIL*>(detail)->href);
    bool ok = LinkAllowed(href);
    out.open.push_back(ok);
    if (ok) out.html += "<a href=\"" + href + "\">";
    return 0;
  }
  if (const char* tag = SpanTag(type)) out.html += std::string("<") + tag + ">";
  return 0;
}

int LeaveSpan(MD_SPANTYPE type, void*, void* u) {
  MdHtmlOut& out = MdOut(u);
  if (type == MD_SPAN_IMG) {
    --out.image_depth;
    return 0;
  }
  if (out.image_depth > 0) return 0;
  if (type == MD_SPAN_A) {
    if (!out.open.empty() && out.open.back()) out.html += "</a>";
    if (!out.open.empty()) out.open.pop_back();
    return 0;
  }
  if (const char* tag = SpanTag(type)) out.html += std::string("</") + tag + ">";
  return 0;
}

int OnText(MD_TEXTTYPE type, const MD_CHAR* text, MD_SIZE size, void* u) {
  MdHtmlOut& out = MdOut(u);
  std::string_view t(text, size);
  switch (type) {
    case MD_TEXT_NULLCHAR:
      out.html += "\xEF\xBF\xBD";
      break;
    case MD_TEXT_BR:
      out.html += out.image_depth > 0 ? " " : "<br>\n";
      break;
    case MD_TEXT_SOFTBR:
      out.html += out.image_depth > 0 ? " " : "\n";
      break;
    case MD_TEXT_ENTITY:
      out.html += PlainEntity(t) ? std::string(t) : Escape(t);
      break;
    default:  // normal text, code, and (were they on) raw HTML and math: all as text
      out.html += Escape(t);
      break;
  }
  return 0;
}

}  // namespace

bool LinkAllowed(std::string_view href) {
  if (href.starts_with("#")) return true;
  if (href.size() < 6) return false;
  std::string scheme;
  for (char c : href.substr(0, 6)) scheme += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return scheme == "https:";
}

std::string FromMarkdown(std::string_view markdown) {
  MD_PARSER parser{};
  parser.abi_version = 0;
  // GitHub's tables, strikethrough and task lists; not its permissive autolinks (a URL in a
  // value would become a link) and no raw HTML.
  parser.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_TASKLISTS | MD_FLAG_NOHTML;
  parser.enter_block = EnterBlock;
  parser.leave_block = LeaveBlock;
  parser.enter_span = EnterSpan;
  parser.leave_span = LeaveSpan;
  parser.text = OnText;
  MdHtmlOut out;
  if (md_parse(markdown.data(), static_cast<MD_SIZE>(markdown.size()), &parser, &out) != 0)
    return "<pre>" + Escape(markdown) + "</pre>\n";
  return out.html;
}

}  // namespace dossier::html
