#include "util/text.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>

namespace dossier {

std::string_view Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n\f\v");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r\n\f\v");
  return s.substr(b, e - b + 1);
}

std::vector<std::string_view> SplitLines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find('\n', i);
    if (j == std::string_view::npos) j = s.size();
    std::string_view line = s.substr(i, j - i);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    i = j + 1;
  }
  return out;
}

std::vector<std::string_view> SplitAny(std::string_view s, std::string_view seps) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t b = s.find_first_not_of(seps, i);
    if (b == std::string_view::npos) break;
    size_t e = s.find_first_of(seps, b);
    if (e == std::string_view::npos) e = s.size();
    out.push_back(s.substr(b, e - b));
    i = e;
  }
  return out;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t i = 0;
  for (;;) {
    size_t j = s.find(sep, i);
    if (j == std::string_view::npos) {
      out.push_back(s.substr(i));
      return out;
    }
    out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
}

namespace {

// Strips a 0x prefix and picks the base (0: 16 with the prefix, else 10). Empty: nothing to parse.
std::string_view NumberBody(std::string_view s, int* base) {
  bool hex_prefix = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (*base == 0) *base = hex_prefix ? 16 : 10;
  if (*base == 16 && hex_prefix) s.remove_prefix(2);
  return s;
}

}  // namespace

std::optional<uint64_t> ParseUint(std::string_view s, int base) {
  s = NumberBody(Trim(s), &base);
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int64_t> ParseInt(std::string_view s, int base) {
  s = Trim(s);
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) return std::nullopt;
  auto v = ParseUint(s, base);
  if (!v || *v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return neg ? -static_cast<int64_t>(*v) : static_cast<int64_t>(*v);
}

std::optional<double> ParseDouble(std::string_view s) {
  s = Trim(s);
  if (s.empty() || s.size() > 64) return std::nullopt;
  std::string buf(s);
  char* end = nullptr;
  double v = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size()) return std::nullopt;
  return v;
}

std::optional<std::vector<int64_t>> ParseCpuList(std::string_view s) {
  std::vector<int64_t> out;
  s = Trim(s);
  if (s.empty()) return out;
  for (std::string_view part : Split(s, ',')) {
    part = Trim(part);
    size_t dash = part.find('-');
    auto a = ParseInt(part.substr(0, dash));
    auto b = dash == std::string_view::npos ? a : ParseInt(part.substr(dash + 1));
    // A CPU number at INT64_MAX made the loop below never end (found by fuzz_soak).
    if (!a || !b || !PlausibleCpu(*a) || !PlausibleCpu(*b) || *b < *a || *b - *a > 65536 ||
        out.size() > 1'000'000) {
      return std::nullopt;
    }
    for (int64_t c = *a; c <= *b; ++c) out.push_back(c);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<std::vector<int64_t>> ParseCpuMask(std::string_view s) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  // Digits only, least significant last; commas only separate groups of 8.
  std::string digits;
  for (std::string_view group : Split(s, ',')) {
    if (group.empty() || group.size() > 8) return std::nullopt;
    digits += group;
  }
  if (digits.size() > 8192 / 4) return std::nullopt;
  std::vector<int64_t> out;
  int64_t bit = 0;
  for (size_t i = digits.size(); i-- > 0; bit += 4) {
    auto v = ParseUint(std::string_view(&digits[i], 1), 16);
    if (!v) return std::nullopt;
    for (int b = 0; b < 4; ++b)
      if (*v & (1u << b)) out.push_back(bit + b);
  }
  return out;
}

std::string FormatCpuList(const std::vector<int64_t>& cpus) {
  std::string out;
  size_t i = 0;
  while (i < cpus.size()) {
    size_t j = i;
    // Compared without adding to INT64_MAX (a pasted list is not bounded by its importer alone).
    while (j + 1 < cpus.size() && cpus[j] < cpus[j + 1] && cpus[j + 1] - 1 == cpus[j]) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::optional<std::string_view> ValueAfter(std::string_view line, char sep) {
  size_t k = line.find(sep);
  if (k == std::string_view::npos) return std::nullopt;
  return Trim(line.substr(k + 1));
}

std::string_view Unquote(std::string_view s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    return s.substr(1, s.size() - 2);
  }
  return s;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::string Printable(std::string_view s, size_t n) {
  std::string out;
  for (unsigned char c : s.substr(0, n)) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > n) out += "…";
  return out;
}

}  // namespace dossier
