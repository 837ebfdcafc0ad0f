#include "render/md_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace dossier::md {

namespace {

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// A control character (a line break, a tab, ESC, DEL) as one space: a line break would end the
// table row or start a block, and a terminal escape has no business in a document.
bool IsControl(char c) {
  return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
}

// The escaping of Escape; `at_start` when s begins the value (a line may begin there).
std::string EscapeText(std::string_view s, bool at_start) {
  std::string out;
  out.reserve(s.size() + 8);
  size_t i = 0;
  if (at_start) {
    while (i < s.size() && (s[i] == ' ' || IsControl(s[i]))) ++i;  // no indented code block
    if (i < s.size()) {
      char c = s[i];
      char next = i + 1 < s.size() ? s[i + 1] : ' ';
      // A heading, a quote, a list item, a thematic break, a setext underline, or a link
      // reference definition or task marker ("[x]: …", "[ ] …").
      if (c == '#' || c == '>' || c == '[' ||
          ((c == '-' || c == '+' || c == '=') && (next == ' ' || next == c || IsControl(next)))) {
        out += '\\';
        out += c;
        ++i;
      } else if (c >= '0' && c <= '9') {
        // "1. x" or "1) x": an ordered list item.
        size_t j = i;
        while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
        if (j < s.size() && (s[j] == '.' || s[j] == ')') &&
            (j + 1 == s.size() || s[j + 1] == ' ' || IsControl(s[j + 1]))) {
          out.append(s.substr(i, j - i));
          out += '\\';
          out += s[j];
          i = j + 1;
        }
      }
    }
  }
  // A heading's closing sequence: the last '#' of the value.
  size_t last_hash = std::string_view::npos;
  size_t end = s.find_last_not_of(' ');
  if (end != std::string_view::npos && s[end] == '#' && end >= i) last_hash = end;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (IsControl(c)) {
      out += ' ';
      continue;
    }
    bool escape = false;
    switch (c) {
      case '\\':
      case '`':
      case '*':
      case '<':
      case '|':
      case '~':
        escape = true;
        break;
      case '&': {  // only where it starts an entity ("&amp;", "&#60;"): "AT&T" stays
        size_t j = i + 1;
        while (j < s.size() && (IsAsciiAlnum(s[j]) || s[j] == '#')) ++j;
        escape = j > i + 1 && j < s.size() && s[j] == ';';
        break;
      }
      case '_':  // inside a word it cannot open or close emphasis: total_tokens_per_s stays
        escape = !(i > 0 && IsAsciiAlnum(s[i - 1]) && i + 1 < s.size() && IsAsciiAlnum(s[i + 1]));
        break;
      case '#':
        escape = i == last_hash;
        break;
      case ']':
        // A link or image needs "](" or "][" (a reference needs a definition, which only a
        // line's start can hold, escaped above); the value's end is followed by what the caller
        // writes. "[RTX PRO 6000] x" stays as it is.
        escape = i + 1 == s.size() || s[i + 1] == '(' || s[i + 1] == '[';
        break;
      default:
        break;
    }
    if (escape) out += '\\';
    out += c;
  }
  return out;
}

size_t BacktickRun(std::string_view s, size_t at) {
  size_t n = 0;
  while (at + n < s.size() && s[at + n] == '`') ++n;
  return n;
}

}  // namespace

std::string Escape(std::string_view s) {
  return EscapeText(s, true);
}

std::string Code(std::string_view s, bool in_table) {
  if (s.empty()) return "";
  // A run of backticks one longer than the longest inside, so the span cannot end early.
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string fence(longest + 1, '`');
  std::string body;
  body.reserve(s.size());
  for (char c : s) {
    if (IsControl(c))
      body += ' ';
    else if (c == '|' && in_table)
      body += "\\|";
    else
      body += c;
  }
  bool all_spaces = body.find_first_not_of(' ') == std::string::npos;
  if (body.front() == '`' || body.back() == '`' ||
      (!all_spaces && body.front() == ' ' && body.back() == ' '))
    body = " " + body + " ";
  return fence + body + fence;
}

std::string CodeBlock(std::string_view s) {
  size_t longest = 0, run = 0;
  std::string body;
  body.reserve(s.size() + 1);
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    body += c != '\n' && IsControl(c) ? ' ' : c;
  }
  if (body.empty() || body.back() != '\n') body += '\n';
  std::string fence(std::max<size_t>(3, longest + 1), '`');
  return fence + "\n" + body + fence + "\n";
}

std::string Prose(std::string_view s, bool in_table) {
  // CommonMark's code spans: a run of n backticks up to the next run of exactly n; a run without
  // its match is literal backticks.
  std::string out;
  size_t text_from = 0, i = 0;
  auto flush = [&](size_t to) {
    if (to > text_from) out += EscapeText(s.substr(text_from, to - text_from), text_from == 0);
  };
  while (i < s.size()) {
    if (s[i] != '`') {
      ++i;
      continue;
    }
    size_t n = BacktickRun(s, i);
    size_t close = std::string_view::npos;
    for (size_t j = i + n; j < s.size();) {
      if (s[j] != '`') {
        ++j;
        continue;
      }
      size_t m = BacktickRun(s, j);
      if (m == n) {
        close = j;
        break;
      }
      j += m;
    }
    if (close == std::string_view::npos) {
      i += n;  // literal backticks: escaped with the text around them
      continue;
    }
    flush(i);
    std::string_view body = s.substr(i + n, close - i - n);
    // CommonMark strips one space at each end when both are there (and not all spaces).
    if (body.size() >= 2 && body.front() == ' ' && body.back() == ' ' &&
        body.find_first_not_of(' ') != std::string_view::npos)
      body = body.substr(1, body.size() - 2);
    out += Code(body, in_table);
    i = close + n;
    text_from = i;
  }
  flush(s.size());
  return out;
}

std::string Str(const std::string& v) {
  return v;
}
std::string Str(int64_t v) {
  return std::to_string(v);
}
std::string Str(uint64_t v) {
  return std::to_string(v);
}
std::string Str(bool v) {
  return v ? "yes" : "no";
}
std::string Str(const std::vector<std::string>& v) {
  if (v.empty()) return "none";
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}
std::string Str(const std::vector<int64_t>& v) {
  std::string out;
  for (auto n : v) out += (out.empty() ? "" : " ") + std::to_string(n);
  return out;
}
std::string Str(const std::vector<uint64_t>& v) {
  std::string out;
  for (auto n : v) out += (out.empty() ? "" : ", ") + Bytes(n);
  return out;
}

std::string Bytes(uint64_t n) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(n);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  if (v == static_cast<double>(static_cast<uint64_t>(v))) {
    return fmt::format("{} {}", static_cast<uint64_t>(v), kUnits[u]);
  }
  return fmt::format("{:.2f} {}", v, kUnits[u]);
}

std::string Table::Render() const {
  std::string out = "|";
  for (const auto& h : header_) out += " " + h + " |";
  out += "\n|";
  for (size_t i = 0; i < header_.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& r : rows_) {
    out += "|";
    for (size_t i = 0; i < header_.size(); ++i) out += " " + (i < r.size() ? r[i] : "") + " |";
    out += "\n";
  }
  return out;
}

std::optional<std::string> UniformOffDiagonal(const std::vector<std::vector<std::string>>& m) {
  if (m.size() < 2) return std::nullopt;
  std::optional<std::string> v;
  for (size_t i = 0; i < m.size(); ++i) {
    if (m[i].size() != m.size()) return std::nullopt;
    for (size_t j = 0; j < m.size(); ++j) {
      if (i == j) continue;
      if (!v) v = m[i][j];
      if (m[i][j] != *v) return std::nullopt;
    }
  }
  return v;
}

std::string NotPastedText(const Coverage& c, Family f) {
  if (c.Covers(f)) return "";
  const FamilyInfo& info = InfoOf(f);
  std::string label = info.label;
  if (!label.empty())
    label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
  return Escape(label) + ": " + kNotPasted + " (paste: " + Code(info.paste, false) + ").";
}

bool NotPasted(const Coverage& c, Family f, std::string* out) {
  std::string s = NotPastedText(c, f);
  if (s.empty()) return false;
  *out += "\n" + s + "\n";
  return true;
}

std::string SourceLine(const Coverage& c, Family f, std::string_view collected) {
  if (c.collected) return "Source: " + std::string(collected);
  auto it = c.pasted.find(f);
  if (it == c.pasted.end() || it->second.empty()) return std::string("Source: ") + kNotPasted + ".";
  std::string s = "Source: pasted ";
  for (size_t i = 0; i < it->second.size(); ++i) s += (i ? ", " : "") + Code(it->second[i], false);
  return s + ".";
}

}  // namespace dossier::md
