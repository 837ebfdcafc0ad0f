#include "util/utf8.h"

#include <algorithm>
#include <cstdio>

namespace dossier {
namespace {

// Length of the well-formed sequence starting at s[i], 0 when the byte there starts none.
// The ranges are those of RFC 3629's table (Unicode 15, table 3-7), which excludes overlong
// forms, surrogates (ED A0..BF) and code points above U+10FFFF (F4 90.. and F5..FF).
size_t SequenceAt(std::string_view s, size_t i) {
  auto b = [&](size_t k) -> unsigned { return static_cast<unsigned char>(s[i + k]); };
  auto in = [](unsigned v, unsigned lo, unsigned hi) { return v >= lo && v <= hi; };
  unsigned c = b(0);
  if (c < 0x80) return 1;
  size_t left = s.size() - i;
  if (in(c, 0xC2, 0xDF)) return left >= 2 && in(b(1), 0x80, 0xBF) ? 2 : 0;
  if (in(c, 0xE0, 0xEF)) {
    if (left < 3) return 0;
    unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return in(b(1), lo, hi) && in(b(2), 0x80, 0xBF) ? 3 : 0;
  }
  if (in(c, 0xF0, 0xF4)) {
    if (left < 4) return 0;
    unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return in(b(1), lo, hi) && in(b(2), 0x80, 0xBF) && in(b(3), 0x80, 0xBF) ? 4 : 0;
  }
  return 0;
}

// A character a terminal acts on, at s[i] (a sequence of n bytes): the C0 controls but NUL (it
// separates the words of /proc/PID/cmdline), tab and line feed, a CR not ending a CRLF line, DEL,
// and the C1 controls U+0080..U+009F (U+009B is CSI to some terminals).
bool TerminalControlAt(std::string_view s, size_t i, size_t n) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (n == 2) return c == 0xC2 && static_cast<unsigned char>(s[i + 1]) <= 0x9F;
  if (n != 1) return false;
  if (c == '\r') return !(i + 1 < s.size() && s[i + 1] == '\n');
  return (c < 0x20 && c != 0 && c != '\t' && c != '\n') || c == 0x7F;
}

}  // namespace

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = SequenceAt(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string MakeValidUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = SequenceAt(s, i);
    if (n == 0 || TerminalControlAt(s, i, n)) {
      // A byte that is not text, or a control character: visible, each byte as \xNN.
      for (size_t k = 0; k < std::max<size_t>(n, 1); ++k) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(s[i + k]));
        out += buf;
      }
      i += std::max<size_t>(n, 1);
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

void MakeValidUtf8InPlace(std::string* s) {
  std::string_view v = *s;
  for (size_t i = 0; i < v.size();) {
    size_t n = SequenceAt(v, i);
    if (n == 0 || TerminalControlAt(v, i, n)) {
      *s = MakeValidUtf8(v);
      return;
    }
    i += n;
  }
}

std::vector<std::string> MakeValidUtf8(const std::vector<std::string>& v) {
  std::vector<std::string> out;
  out.reserve(v.size());
  for (const auto& s : v) out.push_back(MakeValidUtf8(s));
  return out;
}

std::string_view CutUtf8(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  size_t i = 0;
  while (i < max_bytes) {
    size_t n = SequenceAt(s, i);
    if (n == 0) n = 1;  // an invalid byte stands alone
    if (i + n > max_bytes) break;
    i += n;
  }
  return s.substr(0, i);
}

}  // namespace dossier
