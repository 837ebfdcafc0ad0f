#include "render/md_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace dossier::md {

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
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
  std::string body = in_table ? Escape(s) : std::string(s);
  if (body.front() == '`' || body.back() == '`') body = " " + body + " ";
  return fence + body + fence;
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
