// Hand-written rather than libpci's pci_find_cap: libpci needs a pci_dev from one of its access
// methods, reads config space itself (so it cannot decode bytes a caller already holds, nor a
// 64-byte unprivileged read without its own fallbacks), and its default error handler exits the
// process. The register layout below is the PCI Express Base Specification's, as Linux's
// include/uapi/linux/pci_regs.h writes it.
#include "probe/pci_config.h"

#include <bitset>
#include <optional>

namespace dossier {
namespace {

constexpr size_t kHeaderBytes = 64;
constexpr size_t kStandardBytes = 256;
constexpr size_t kExtendedBytes = 4096;

constexpr const char* kNoExtended =
    "no extended configuration space (conventional PCI bus, e.g. an i440FX guest)";

std::optional<uint8_t> Byte(std::string_view b, size_t at) {
  if (at >= b.size()) return std::nullopt;
  return static_cast<uint8_t>(b[at]);
}
std::optional<uint16_t> Word(std::string_view b, size_t at) {
  if (at > b.size() || b.size() - at < 2) return std::nullopt;
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) | static_cast<uint8_t>(b[at + 1]) << 8);
}
std::optional<uint32_t> Dword(std::string_view b, size_t at) {
  auto lo = Word(b, at);
  auto hi = Word(b, at + 2);
  if (!lo || !hi) return std::nullopt;
  return static_cast<uint32_t>(*lo) | static_cast<uint32_t>(*hi) << 16;
}

std::string Hex(unsigned v) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[v & 0xf]);
    v >>= 4;
  } while (v);
  return "0x" + out;
}

std::string Truncated(size_t n) {
  return "configuration space truncated at " + std::to_string(n) + " bytes";
}

// Why a walk that did not find a capability cannot say it is absent.
std::string WalkFailure(PciWalkEnd end, size_t n, const char* list) {
  if (end == PciWalkEnd::kTruncated) return Truncated(n);
  return std::string(list) + " capability list loops (garbage configuration space)";
}

const PciCapability* Find(const PciCapabilityList& l, uint16_t id) {
  for (const auto& c : l.caps)
    if (c.id == id) return &c;
  return nullptr;
}

// Bits 7:4 of the PCI Express Capabilities register, named as model/pci.h documents.
const char* PortTypeName(unsigned type) {
  switch (type) {
    case 0:
      return "endpoint";
    case 1:
      return "legacy_endpoint";
    case 4:
      return "root_port";
    case 5:
      return "upstream";
    case 6:
      return "downstream";
    case 7:
      return "pcie_to_pci_bridge";
    case 8:
      return "pci_to_pcie_bridge";
    case 9:
      return "rc_integrated_endpoint";
    case 10:
      return "rc_event_collector";
    default:
      return nullptr;
  }
}

// Link speed field (Link Capabilities / Link Status bits 3:0): 1 = 2.5 GT/s (Gen1) … 7 = 128 GT/s.
void SetLinkState(uint32_t reg, const std::string& src, PciLinkState* s) {
  unsigned speed = reg & 0xf;
  unsigned width = (reg >> 4) & 0x3f;
  if (speed >= 1 && speed <= 7)
    s->gen.Set(speed, src);
  else
    s->gen.Unknown("link speed field is " + std::to_string(speed) + " (no link)", src);
  if (width > 0)
    s->width.Set(width, src);
  else
    s->width.Unknown("link width field is 0 (link down)", src);
}

void UnknownLink(PciLink* l, const std::string& why, const std::string& src) {
  for (PciLinkState* s : {&l->current, &l->max}) {
    s->gen.Unknown(why, src);
    s->width.Unknown(why, src);
  }
}

void DecodeExpress(std::string_view b, uint16_t at, const std::string& path, PciConfig* out) {
  std::string src = path + " (PCI Express capability at " + Hex(at) + ")";
  auto caps = Word(b, at + 2u);
  if (!caps) {
    out->port_type.Unknown(Truncated(b.size()), src);
    UnknownLink(&out->link, Truncated(b.size()), src);
    return;
  }
  unsigned type = (*caps >> 4) & 0xf;
  if (const char* name = PortTypeName(type))
    out->port_type.Set(name, src);
  else
    out->port_type.Unknown("reserved port type " + std::to_string(type), src);
  if (type == 9 || type == 10) {  // integrated into the root complex: no link
    UnknownLink(&out->link, "no link (integrated into the root complex)", src);
    return;
  }
  auto lnkcap = Dword(b, at + 0x0cu);
  auto lnksta = Word(b, at + 0x12u);
  if (lnkcap && (type == 4 || type == 6))  // root port, downstream port
    out->port_number = Known(static_cast<int64_t>(*lnkcap >> 24), src + " Link Capabilities");
  if (lnkcap)
    SetLinkState(*lnkcap, src + " Link Capabilities", &out->link.max);
  else
    UnknownLink(&out->link, Truncated(b.size()), src);
  if (lnksta) {
    SetLinkState(*lnksta, src + " Link Status", &out->link.current);
  } else {
    out->link.current.gen.Unknown(Truncated(b.size()), src);
    out->link.current.width.Unknown(Truncated(b.size()), src);
  }
}

void DecodeAcs(std::string_view b, uint16_t at, const std::string& path, PciAcs* acs) {
  std::string src = path + " (ACS capability at " + Hex(at) + ")";
  acs->present.Set(true, src);
  auto cap = Word(b, at + 4u);
  auto ctl = Word(b, at + 6u);
  if (cap)
    acs->capability.Set(AcsBitNames(*cap), src);
  else
    acs->capability.Unknown(Truncated(b.size()), src);
  if (ctl)
    acs->control.Set(AcsBitNames(*ctl), src);
  else
    acs->control.Unknown(Truncated(b.size()), src);
}

// One MiB shifted by n, or nothing when that would not fit in 64 bits (garbage bytes).
std::optional<uint64_t> MiBShift(unsigned n) {
  if (n > 43) return std::nullopt;
  return uint64_t{1} << (20 + n);
}

void DecodeRebar(std::string_view b, uint16_t at, const std::string& path, PciRebar* rebar) {
  rebar->present.Set(true, path + " (Resizable BAR capability at " + Hex(at) + ")");
  auto first = Dword(b, at + 8u);
  if (!first) return;
  unsigned count = (*first >> 5) & 0x7;  // number of resizable BARs, in the first control only
  if (count > 6) count = 6;
  for (unsigned i = 0; i < count; ++i) {
    auto cap = Dword(b, at + 4u + 8u * i);
    auto ctl = Dword(b, at + 8u + 8u * i);
    if (!cap || !ctl) break;
    PciResizableBar bar;
    bar.bar = *ctl & 0x7;
    auto cur = MiBShift((*ctl >> 8) & 0x3f);
    if (bar.bar > 5 || !cur) continue;  // not a BAR index / not a size: garbage
    bar.current_bytes = *cur;
    for (unsigned bit = 4; bit < 32; ++bit) {
      if (*cap & (1u << bit)) bar.supported_bytes.push_back(*MiBShift(bit - 4));
    }
    rebar->bars.push_back(std::move(bar));
  }
}

}  // namespace

std::vector<std::string> AcsBitNames(uint16_t bits) {
  static const char* kNames[] = {"SV", "TB", "RR", "CR", "UF", "EC", "DT"};
  std::vector<std::string> out;
  for (unsigned i = 0; i < 7; ++i)
    if (bits & (1u << i)) out.emplace_back(kNames[i]);
  return out;
}

PciCapabilityList WalkPciCapabilities(std::string_view config) {
  PciCapabilityList out;
  std::string_view b = config.substr(0, std::min(config.size(), kStandardBytes));
  auto status = Word(b, 0x06);
  auto header = Byte(b, 0x0e);
  if (!status || !header) {
    out.end = PciWalkEnd::kTruncated;
    return out;
  }
  if (!(*status & 0x10)) return out;  // no capability list
  unsigned type = *header & 0x7f;
  size_t pointer_at = type == 2 ? 0x14 : 0x34;  // CardBus bridges keep it elsewhere
  if (type > 2) return out;
  auto first = Byte(b, pointer_at);
  if (!first) {
    out.end = PciWalkEnd::kTruncated;
    return out;
  }
  std::bitset<kStandardBytes> seen;
  unsigned pos = *first & 0xfc;
  // 48 steps, as the kernel's PCI_FIND_CAP_TTL: more entries than fit is a loop.
  for (int step = 0; step < 48; ++step) {
    if (pos < 0x40) {  // the list ends with a pointer into the header (usually 0)
      out.end = PciWalkEnd::kComplete;
      return out;
    }
    auto id = Byte(b, pos);
    auto next = Byte(b, pos + 1);
    if (!id || !next) {
      out.end = PciWalkEnd::kTruncated;
      return out;
    }
    if (*id == 0xff) {  // all ones: the device stopped answering
      out.end = PciWalkEnd::kComplete;
      return out;
    }
    if (seen[pos]) break;
    seen[pos] = true;
    out.caps.push_back({*id, static_cast<uint16_t>(pos)});
    pos = *next & 0xfc;
  }
  out.end = PciWalkEnd::kLoop;
  return out;
}

PciCapabilityList WalkPciExtendedCapabilities(std::string_view config) {
  PciCapabilityList out;
  std::string_view b = config.substr(0, std::min(config.size(), kExtendedBytes));
  unsigned pos = 0x100;
  auto first = Dword(b, pos);
  if (!first) {
    out.end = b.size() <= kStandardBytes ? PciWalkEnd::kNone : PciWalkEnd::kTruncated;
    return out;
  }
  if (*first == 0 || *first == 0xffffffff) return out;  // no extended capabilities
  std::bitset<kExtendedBytes / 4> seen;
  // (4096 - 256) / 8 steps, as the kernel: each entry takes at least 8 bytes.
  for (int step = 0; step < 480; ++step) {
    auto header = Dword(b, pos);
    if (!header) {
      out.end = PciWalkEnd::kTruncated;
      return out;
    }
    if (seen[pos / 4]) break;
    seen[pos / 4] = true;
    uint16_t id = *header & 0xffff;
    if (id != 0) out.caps.push_back({id, static_cast<uint16_t>(pos)});
    unsigned next = (*header >> 20) & 0xffc;
    if (next < 0x100) {
      out.end = PciWalkEnd::kComplete;
      return out;
    }
    pos = next;
  }
  out.end = PciWalkEnd::kLoop;
  return out;
}

PciConfig UnknownPciConfig(const std::string& why, std::string_view path_view) {
  PciConfig out;
  std::string path(path_view);
  out.port_type.Unknown(why, path);
  UnknownLink(&out.link, why, path);
  out.acs.present.Unknown(why, path);
  out.acs.capability.Unknown(why, path);
  out.acs.control.Unknown(why, path);
  out.rebar.present.Unknown(why, path);
  return out;
}

namespace {

void AcsUnknown(const std::string& why, const std::string& src, PciAcs* acs) {
  acs->present.Unknown(why, src);
  acs->capability.Unknown(why, src);
  acs->control.Unknown(why, src);
}
void AcsAbsent(const std::string& src, PciAcs* acs) {
  acs->present.Set(false, src);
  acs->capability.Set({}, src);
  acs->control.Set({}, src);
}

// ACS and Resizable BAR from the extended list of a device with the PCI Express capability and
// more than 256 bytes.
void DecodeExtended(std::string_view b, const std::string& path, PciConfig* out) {
  PciCapabilityList ext = WalkPciExtendedCapabilities(b);
  bool walked = ext.end == PciWalkEnd::kComplete || ext.end == PciWalkEnd::kNone;
  std::string ext_src = path + " (extended capability list)";
  std::string why = walked ? std::string() : WalkFailure(ext.end, b.size(), "extended");
  if (const PciCapability* acs = Find(ext, kPciExtCapAcs)) {
    DecodeAcs(b, acs->offset, path, &out->acs);
  } else if (walked) {
    AcsAbsent(ext_src, &out->acs);
  } else {
    AcsUnknown(why, path, &out->acs);
  }
  if (const PciCapability* rebar = Find(ext, kPciExtCapRebar)) {
    DecodeRebar(b, rebar->offset, path, &out->rebar);
  } else if (walked) {
    out->rebar.present.Set(false, ext_src);
  } else {
    out->rebar.present.Unknown(why, path);
  }
}

}  // namespace

PciConfig DecodePciConfig(std::string_view config, std::string_view path_view,
                          std::string_view header_only) {
  PciConfig out;
  std::string path(path_view);
  std::string_view b = config.substr(0, std::min(config.size(), kExtendedBytes));
  auto unknown_all = [&](const std::string& why) { out = UnknownPciConfig(why, path); };
  if (b.size() < kHeaderBytes) {
    unknown_all(b.empty() ? "configuration space empty"
                          : Truncated(b.size()) + " (the header alone is 64)");
    return out;
  }
  if (b.size() == kHeaderBytes) {
    unknown_all(std::string(header_only));
    return out;
  }
  if (Word(b, 0) == 0xffff) {
    unknown_all("configuration space reads all ones (device gone or powered off)");
    return out;
  }

  PciCapabilityList std_caps = WalkPciCapabilities(b);
  bool walked = std_caps.end == PciWalkEnd::kComplete || std_caps.end == PciWalkEnd::kNone;
  const PciCapability* express = Find(std_caps, kPciCapExpress);
  if (express) {
    DecodeExpress(b, express->offset, path, &out);
  } else {
    std::string why = walked ? "no PCI Express capability (conventional PCI device)"
                             : WalkFailure(std_caps.end, b.size(), "standard");
    out.port_type.Unknown(why, path);
    UnknownLink(&out.link, why, path);
  }

  // Extended capabilities: none readable without the 4096-byte space, none at all without the
  // PCI Express capability (a conventional device's extended space may alias its first 256
  // bytes, so it is not walked).
  if (b.size() <= kStandardBytes) {
    std::string why = b.size() == kStandardBytes ? std::string(kNoExtended) : Truncated(b.size());
    AcsUnknown(why, path, &out.acs);
    out.rebar.present.Unknown(why, path);
  } else if (express) {
    DecodeExtended(b, path, &out);
  } else if (!walked) {
    std::string why = WalkFailure(std_caps.end, b.size(), "standard");
    AcsUnknown(why, path, &out.acs);
    out.rebar.present.Unknown(why, path);
  } else {
    std::string src = path + " (no PCI Express capability, so no extended capabilities)";
    AcsAbsent(src, &out.acs);
    out.rebar.present.Set(false, src);
  }
  return out;
}

}  // namespace dossier
