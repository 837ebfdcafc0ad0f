#include "hypervisor/options.h"

#include <cstdio>

#include "util/text.h"

namespace dossier::hypervisor {

std::vector<Option> SplitOptions(std::string_view s) {
  std::vector<Option> out;
  std::string item;
  auto flush = [&] {
    Option o;
    size_t eq = item.find('=');
    if (eq == std::string::npos) {
      o.value = item;
    } else {
      o.key = item.substr(0, eq);
      o.value = item.substr(eq + 1);
    }
    if (!o.key.empty() || !o.value.empty()) out.push_back(std::move(o));
    item.clear();
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ',') {
      if (i + 1 < s.size() && s[i + 1] == ',') {  // QEMU's escaped comma
        item += ',';
        ++i;
        continue;
      }
      flush();
      continue;
    }
    item += s[i];
  }
  flush();
  return out;
}

const std::string* FindOption(const std::vector<Option>& opts, std::string_view key) {
  for (const auto& o : opts)
    if (o.key == key) return &o.value;
  return nullptr;
}

namespace {

bool Hex(std::string_view s, size_t max_digits, unsigned* out) {
  if (s.empty() || s.size() > max_digits) return false;
  auto v = ParseUint(s, 16);
  if (!v) return false;
  *out = static_cast<unsigned>(*v);
  return true;
}

// domain, bus, device, function (-1 when absent); false when not an address.
bool SplitAddress(std::string_view s, unsigned* dom, unsigned* bus, unsigned* dev, int* fn) {
  s = Trim(s);
  auto parts = Split(s, ':');
  std::string_view b, d;
  *dom = 0;
  if (parts.size() == 3) {
    if (!Hex(parts[0], 4, dom)) return false;
    b = parts[1];
    d = parts[2];
  } else if (parts.size() == 2) {
    b = parts[0];
    d = parts[1];
  } else {
    return false;
  }
  *fn = -1;
  size_t dot = d.find('.');
  if (dot != std::string_view::npos) {
    unsigned f;
    if (!Hex(d.substr(dot + 1), 1, &f) || f > 7) return false;
    *fn = static_cast<int>(f);
    d = d.substr(0, dot);
  }
  return Hex(b, 2, bus) && Hex(d, 2, dev) && *dev < 32;
}

}  // namespace

std::string FullPciAddress(std::string_view s, int function_default) {
  unsigned dom, bus, dev;
  int fn;
  if (!SplitAddress(s, &dom, &bus, &dev, &fn)) return "";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", dom, bus, dev,
                fn < 0 ? function_default : fn);
  return buf;
}

bool IsWholeDevice(std::string_view s) {
  unsigned dom, bus, dev;
  int fn;
  return SplitAddress(s, &dom, &bus, &dev, &fn) && fn < 0;
}

}  // namespace dossier::hypervisor
