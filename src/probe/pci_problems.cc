#include "probe/pci_problems.h"

#include <algorithm>

#include "util/text.h"

namespace dossier {
namespace {

// Phrases of the kernel's resource code (drivers/pci/setup-res.c, setup-bus.c, iov.c).
constexpr std::string_view kResourcePhrases[] = {
    "no space for",    "failed to assign",          "can't assign; no space",
    "can't claim BAR", "not enough MMIO resources",
};

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// "    1.234567" (dmesg), "Mon Dec  2 16:18:01 2024" (dmesg -T), "    T1" / "C3" (caller id).
bool IsTimestampOrCaller(std::string_view inside) {
  std::string_view t = Trim(inside);
  if (t.empty() || t.size() > 40) return false;
  if (std::all_of(t.begin(), t.end(), [](char c) { return IsDigit(c) || c == '.'; })) return true;
  if ((t[0] == 'T' || t[0] == 'C') && t.size() > 1 && std::all_of(t.begin() + 1, t.end(), IsDigit))
    return true;
  bool digit = std::any_of(t.begin(), t.end(), IsDigit);
  bool colon = t.find(':') != std::string_view::npos;
  bool plain = std::all_of(t.begin(), t.end(), [](char c) {
    return IsDigit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == ' ' || c == ':' ||
           c == '.' || c == ',' || c == '+' || c == '-';
  });
  return digit && colon && plain && t.size() >= 19;
}

// "16:18:01" somewhere in s.
bool HasClockTime(std::string_view s) {
  for (size_t i = 0; i + 8 <= s.size(); ++i) {
    std::string_view t = s.substr(i, 8);
    if (IsDigit(t[0]) && IsDigit(t[1]) && t[2] == ':' && IsDigit(t[3]) && IsDigit(t[4]) &&
        t[5] == ':' && IsDigit(t[6]) && IsDigit(t[7]))
      return true;
  }
  return false;
}

// Matches DDDD:BB:DD.F (a domain of 4 to 8 hex digits) at `i`; its length, or 0.
size_t AddressAt(std::string_view s, size_t i) {
  size_t j = i;
  while (j < s.size() && IsHexDigit(s[j]) && j - i < 9) ++j;
  size_t domain = j - i;
  if (domain < 4 || domain > 8) return 0;
  auto hex = [&](size_t at, size_t n) {
    if (at + n > s.size()) return false;
    for (size_t k = at; k < at + n; ++k)
      if (!IsHexDigit(s[k])) return false;
    return true;
  };
  auto is = [&](size_t at, char c) { return at < s.size() && s[at] == c; };
  if (!is(j, ':') || !hex(j + 1, 2) || !is(j + 3, ':') || !hex(j + 4, 2)) return 0;
  size_t end = j + 6;  // after DDDD:BB:DD
  if (is(end, '.') && hex(end + 1, 1) && !(end + 2 < s.size() && IsHexDigit(s[end + 2]))) {
    return end + 2 - i;
  }
  return 0;
}

}  // namespace

std::string_view KmsgMessage(std::string_view record) {
  size_t semi = record.find(';');
  if (semi == std::string_view::npos) return {};
  std::string_view msg = record.substr(semi + 1);
  size_t nl = msg.find('\n');
  return nl == std::string_view::npos ? msg : msg.substr(0, nl);
}

std::string_view StripLogPrefix(std::string_view line) {
  std::string_view s = line;
  // A syslog header ("Dec  2 16:18:01 host kernel: " or an ISO time) ends at "kernel: "; the
  // time in it tells it from a message that happens to say "kernel: ".
  size_t k = s.find("kernel: ");
  if (k != std::string_view::npos && k <= 120 && HasClockTime(s.substr(0, k))) {
    s.remove_prefix(k + 8);
  }
  for (int round = 0; round < 3; ++round) {
    size_t b = s.find_first_not_of(' ');
    std::string_view t = b == std::string_view::npos ? std::string_view() : s.substr(b);
    if (t.starts_with('[')) {
      size_t close = t.find(']');
      if (close != std::string_view::npos && IsTimestampOrCaller(t.substr(1, close - 1))) {
        s = t.substr(close + 1);
        continue;
      }
    }
    if (t.starts_with("kernel: ")) {  // journalctl -k / Ubuntu's /var/log/dmesg: after the time
      s = t.substr(8);
      continue;
    }
    s = t;
    break;
  }
  return Trim(s);
}

std::string PciAddressIn(std::string_view m) {
  for (size_t i = 0; i < m.size(); ++i) {
    if (!IsHexDigit(m[i]) || (i > 0 && IsHexDigit(m[i - 1]))) continue;
    if (size_t n = AddressAt(m, i)) return ToLower(m.substr(i, n));
  }
  // NVRM names the GPU as "PCI:0000:01:00" (domain:bus:device), function 0.
  for (size_t k = m.find("PCI:"); k != std::string_view::npos; k = m.find("PCI:", k + 1)) {
    std::string_view rest = m.substr(k + 4);
    size_t j = 0;
    while (j < rest.size() && IsHexDigit(rest[j]) && j < 9) ++j;
    if (j < 4 || j > 8 || rest.size() < j + 6) continue;
    std::string_view tail = rest.substr(j, 6);  // ":BB:DD"
    if (tail[0] == ':' && IsHexDigit(tail[1]) && IsHexDigit(tail[2]) && tail[3] == ':' &&
        IsHexDigit(tail[4]) && IsHexDigit(tail[5]) &&
        !(rest.size() > j + 6 && IsHexDigit(rest[j + 6]))) {
      return ToLower(rest.substr(0, j + 6)) + ".0";
    }
  }
  return {};
}

namespace {

// The resource a message is about, "0000:00:1c.3 bridge window" or "0000:08:00.0 BAR 1": the
// address, then the words up to the first " [" after it. "" when the message has no address or
// no bracket.
std::string ResourceOf(std::string_view msg) {
  std::string addr = PciAddressIn(msg);
  if (addr.empty()) return "";
  size_t at = msg.find(addr);
  if (at == std::string_view::npos) return "";
  std::string_view rest = msg.substr(at + addr.size());
  if (rest.starts_with(": ")) rest.remove_prefix(2);
  size_t br = rest.find(" [");
  if (br == std::string_view::npos || br == 0) return "";
  return addr + " " + std::string(rest.substr(0, br));
}

}  // namespace

void PciProblemScanner::Add(std::string_view line) {
  std::string_view msg = StripLogPrefix(line);
  // "…: assigned" after a failure of the same resource: the kernel placed it after all.
  if (msg.ends_with(": assigned") || msg.ends_with(": assigned\r")) {
    std::string res = ResourceOf(msg);
    if (res.empty()) return;
    for (auto& p : problems_)
      if (p.resolved.empty() && ResourceOf(p.message) == res)
        p.resolved = "assigned later in the same log: " + Printable(msg, kMaxMessage);
    return;
  }
  if (problems_.size() >= kMaxProblems) return;
  bool resource = std::any_of(std::begin(kResourcePhrases), std::end(kResourcePhrases),
                              [&](std::string_view p) { return msg.find(p) != msg.npos; });
  bool nvrm = msg.find("NVRM:") != msg.npos &&
              (msg.find("BAR") != msg.npos || msg.find("PCI I/O region") != msg.npos);
  if (!resource && !nvrm) return;
  std::string text = Printable(msg, kMaxMessage);
  if (!seen_.insert(text).second) return;
  PciProblem p;
  std::string addr = PciAddressIn(text);
  if (addr.empty()) {
    p.address.Unknown("the message names no device");
  } else {
    p.address.Set(addr, "the message");
  }
  p.message = text;
  problems_.push_back(std::move(p));
}

void PciProblemScanner::AddText(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && problems_.size() < kMaxProblems) {
    size_t j = text.find('\n', i);
    if (j == std::string_view::npos) j = text.size();
    Add(text.substr(i, j - i));
    i = j + 1;
  }
}

void PciProblemScanner::AddKmsgRecord(std::string_view record) {
  std::string_view msg = KmsgMessage(record);
  for (size_t k = msg.find("\\x0a"); k != std::string_view::npos; k = msg.find("\\x0a")) {
    Add(msg.substr(0, k));
    msg.remove_prefix(k + 4);
  }
  Add(msg);
}

}  // namespace dossier
