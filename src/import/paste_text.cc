#include "import/paste_text.h"

#include <cstdio>

#include "import/import_text.h"
#include "util/text.h"
#include "util/utf8.h"

namespace dossier::import {
namespace {

std::string Escaped(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

// The tags a chat window or a web page wraps pasted text in. Only these are removed: the XML a
// person pastes (libvirt's <domain>, NCCL's <system>) uses none of them.
bool ChatTag(std::string_view line, size_t i, size_t* end) {
  if (line[i] != '<') return false;
  size_t close = line.find('>', i);
  if (close == std::string_view::npos || close - i > 300) return false;
  std::string_view tag = line.substr(i + 1, close - i - 1);
  if (!tag.empty() && tag.front() == '/') tag.remove_prefix(1);
  std::string name = ToLower(tag.substr(0, tag.find_first_of(" \t/")));
  static const char* const kTags[] = {
      "p",     "br",    "div",   "span", "pre",  "code",       "td", "th", "tr",
      "table", "tbody", "thead", "li",   "ul",   "ol",         "b",  "i",  "strong",
      "em",    "tt",    "font",  "kbd",  "samp", "blockquote", "hr"};
  for (const char* t : kTags)
    if (name == t) {
      *end = close;
      return true;
    }
  return false;
}

// The line without chat tags, entities decoded; its indentation kept.
std::string UnwrapChatLine(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    size_t end = 0;
    if (ChatTag(line, i, &end)) {
      i = end;
      continue;
    }
    if (line[i] == '&') {
      if (size_t n = DecodeEntity(line.substr(i), &out)) {
        i += n - 1;
        continue;
      }
    }
    out += line[i];
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
  return out;
}

// What a chat window or a web page did to the whole paste, undone where it can be undone exactly,
// each repair said in the notes. Importers then read the text as the terminal printed it.
void RepairChatDamage(Paste* p) {
  Lines& lines = p->lines;
  size_t nonempty = 0, tagged = 0;
  for (const auto& l : lines) {
    if (Trim(l.text).empty()) continue;
    ++nonempty;
    for (size_t i = 0, end = 0; i < l.text.size(); ++i)
      if (ChatTag(l.text, i, &end)) {
        ++tagged;
        break;
      }
  }
  if (nonempty == 0) return;
  // HTML tags on a third of the lines or more: the text went through a web page or a chat.
  if (tagged > 0 && tagged * 3 >= nonempty) {
    for (auto& l : lines) l.text = UnwrapChatLine(l.text);
    p->notes.push_back(std::to_string(tagged) +
                       " line(s) carried HTML tags (a chat's or a web page's): read without them");
  }
  // A blank line after every line: no two text lines touch, and each run of blanks between
  // them is odd (a real blank line became three). Undone exactly: a run of k becomes (k-1)/2.
  if (nonempty >= 4) {
    bool every = true;
    for (size_t i = 0; i < lines.size() && every; ++i) {
      if (Trim(lines[i].text).empty()) continue;
      if (i + 1 < lines.size() && !Trim(lines[i + 1].text).empty()) every = false;
      size_t k = 0;
      while (i + 1 + k < lines.size() && Trim(lines[i + 1 + k].text).empty()) ++k;
      if (i + 1 + k < lines.size() && k % 2 == 0) every = false;
    }
    if (every) {
      Lines kept;
      for (size_t i = 0; i < lines.size();) {
        if (!Trim(lines[i].text).empty()) {
          kept.push_back(std::move(lines[i++]));
          continue;
        }
        size_t k = 0;
        while (i + k < lines.size() && Trim(lines[i + k].text).empty()) ++k;
        for (size_t j = 0; j < (k - 1) / 2 && i + k < lines.size(); ++j)
          kept.push_back(lines[i + j]);
        i += k;
      }
      lines = std::move(kept);
      p->notes.push_back("a blank line came after every line (a chat's): read without them");
    }
  }
  // The same blanks before every line (a chat's or a quote's indentation): removed, so that
  // what the format puts at the start of a line is there again.
  if (nonempty >= 3) {
    std::string common;
    bool first = true;
    for (const auto& l : lines) {
      if (Trim(l.text).empty()) continue;
      size_t w = l.text.find_first_not_of(" \t");
      std::string_view lead(l.text.data(), w);
      if (first) {
        common = std::string(lead);
        first = false;
      } else {
        size_t n = 0;
        while (n < common.size() && n < lead.size() && common[n] == lead[n]) ++n;
        common.resize(n);
      }
      if (common.empty()) break;
    }
    if (!common.empty()) {
      for (auto& l : lines)
        if (l.text.size() >= common.size()) l.text.erase(0, common.size());
      p->notes.push_back("every line began with the same " + std::to_string(common.size()) +
                         " blank(s) (a chat's or a quote's): read without them");
    }
  }
}

}  // namespace

std::string CleanLine(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\x1b') {
      // CSI: ESC [ params final-byte; OSC: ESC ] … BEL or ESC \; anything else: ESC + one byte.
      if (i + 1 < line.size() && line[i + 1] == '[') {
        size_t j = i + 2;
        while (j < line.size() && (line[j] < 0x40 || line[j] > 0x7e)) ++j;
        i = j;
      } else if (i + 1 < line.size() && line[i + 1] == ']') {
        size_t j = i + 2;
        while (j < line.size() && line[j] != '\x07' && line[j] != '\x1b') ++j;
        if (j < line.size() && line[j] == '\x1b') ++j;
        i = j;
      } else {
        ++i;
      }
      continue;
    }
    if (c == '\r') continue;
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t') {
      out += Escaped(u);  // stray control bytes stay visible, never raw
      continue;
    }
    out.push_back(c);
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
  MakeValidUtf8InPlace(&out);  // the project's one door: invalid bytes become visible \xNN
  return out;
}

Result<Paste> ReadPaste(std::string_view bytes, const std::string& file) {
  if (bytes.size() > kMaxPasteBytes) {
    return Error::TooLarge(
        file + ": " + std::to_string(bytes.size() >> 20) + " MiB is more than an import reads (" +
        std::to_string(kMaxPasteBytes >> 20) + " MiB); pass only the outputs that matter");
  }
  Paste p;
  size_t line_no = 1, line_start = 0, control = 0;
  for (size_t i = 0; i <= bytes.size(); ++i) {
    bool end = i == bytes.size();
    if (end || bytes[i] == '\n') {
      std::string_view raw = bytes.substr(line_start, i - line_start);
      // A compact JSON document (collect --format json, nvbandwidth -j) is one long line: a line
      // that opens a JSON object and ends closing one may be as long as a whole paste.
      std::string_view rt = Trim(raw);
      bool json_line = rt.size() > 1 && rt.front() == '{' && rt.back() == '}';
      if (raw.size() > kMaxLineBytes && !json_line) {
        return Error::Invalid(file + ":" + std::to_string(line_no) + ": a line of " +
                              std::to_string(raw.size()) + " bytes (at most " +
                              std::to_string(kMaxLineBytes) +
                              " are read): not a pasted command output; was a binary file "
                              "given, or were the newlines lost?");
      }
      if (!(end && raw.empty())) {
        std::string clean = CleanLine(raw);
        if (IsElision(clean)) {
          p.notes.push_back("line " + std::to_string(line_no) + ": '" + clean +
                            "' (a part was left out of the paste; what follows is read on)");
        } else {
          p.lines.push_back({line_no, std::move(clean)});
        }
      }
      if (end) break;
      ++line_no;
      line_start = i + 1;
      continue;
    }
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c == 0) {
      return Error::Invalid(file + ":" + std::to_string(line_no) + ": a NUL byte (column " +
                            std::to_string(i - line_start + 1) +
                            "): this is binary data, not a pasted text output");
    }
    if (c < 0x20 && c != '\t' && c != '\r' && c != '\x1b' && c != '\f') {
      // A few stray control bytes happen in pastes; many mean a binary file.
      if (++control > 64 && control * 20 > i) {
        return Error::Invalid(file + ":" + std::to_string(line_no) +
                              ": control bytes throughout: this looks like binary data, not a "
                              "pasted text output");
      }
    }
  }
  RepairChatDamage(&p);
  p.text = MakeValidUtf8(bytes);  // kept as pasted; CleanLine escapes the same bytes the same way
  return p;
}

}  // namespace dossier::import
