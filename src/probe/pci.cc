// The PCI tree from sysfs: every function under /sys/bus/pci/devices (links into
// /sys/devices/pciDDDD:BB/…), with its ids, driver, NUMA node, IOMMU group, place in the tree,
// link speed and width, BARs, and what its configuration space says (port type, ACS, Resizable
// BAR; see pci_config.h). Names come from the pci.ids under the root (pci_names.h).
//
// What may fail, per device: any attribute may be missing (older kernels have no link files,
// conventional PCI devices have no link at all) or unreadable; `config` is cut to 64 bytes for
// an unprivileged reader. Each becomes an unknown with its reason; one bad device never stops
// the walk.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <tuple>

#include "probe/cpu_topology.h"
#include "probe/pci_config.h"
#include "probe/pci_names.h"
#include "probe/probe.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

constexpr const char* kDevices = "/sys/bus/pci/devices";

bool IsHex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

// "0000:01:00.0" (the domain may have more digits: VMD domains are 10000 and up) as numbers for
// sorting; nullopt for anything else.
std::optional<std::tuple<uint64_t, uint64_t, uint64_t, uint64_t>> ParseAddress(std::string_view s) {
  auto parts = Split(s, ':');
  if (parts.size() != 3 || parts[0].size() < 4 || parts[0].size() > 8 || parts[1].size() != 2)
    return std::nullopt;
  auto df = Split(parts[2], '.');
  if (df.size() != 2 || df[0].size() != 2 || df[1].size() != 1) return std::nullopt;
  for (auto p : {parts[0], parts[1], df[0], df[1]})
    if (!IsHex(p)) return std::nullopt;
  return std::make_tuple(*ParseUint(parts[0], 16), *ParseUint(parts[1], 16), *ParseUint(df[0], 16),
                         *ParseUint(df[1], 16));
}

// "pci0000:00": the directory of a host bridge (a root complex) in /sys/devices.
bool IsRootComplexDir(std::string_view s) {
  if (!s.starts_with("pci")) return false;
  auto parts = Split(s.substr(3), ':');
  return parts.size() == 2 && parts[0].size() >= 4 && parts[1].size() == 2 && IsHex(parts[0]) &&
         IsHex(parts[1]);
}

// A hex id attribute ("0x10de\n") as "0x10de", with `digits` digits.
void ReadHexId(const RootFs& fs, const std::string& path, int digits, Fact<std::string>* out) {
  auto v = fs.ReadValue(path);
  if (!v) return out->Unknown(ReasonFor(v.error()), path);
  auto n = ParseUint(*v, 16);
  uint64_t max = (uint64_t{1} << (4 * digits)) - 1;
  if (!v->starts_with("0x") || !n || *n > max) {
    return out->Unknown("not a hex id: '" + Printable(*v, 40) + "'", path);
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(*n));
  out->Set(buf, path);
}

// The last component of a symbolic link's target; `absent` is the reason when there is none.
void ReadLinkName(const RootFs& fs, const std::string& path, const char* absent,
                  Fact<std::string>* out) {
  auto target = fs.ReadLink(path);
  if (!target) {
    return out->Unknown(
        target.error().kind == Error::kNotFound ? absent : ReasonFor(target.error()), path);
  }
  std::string name(BaseName(*target));
  if (name.empty()) return out->Unknown("empty link target", path);
  out->Set(name, path);
}

void ReadIommuGroup(const RootFs& fs, const std::string& dir, Fact<int64_t>* out) {
  Fact<std::string> name;
  ReadLinkName(fs, dir + "/iommu_group", "no IOMMU group", &name);
  if (!name.known()) return out->Unknown(name.unknown, name.source);
  auto id = ParseInt(*name);
  if (!id || *id < 0) {
    return out->Unknown("not a group number: '" + Printable(*name) + "'", name.source);
  }
  out->Set(*id, name.source);
}

// parent and root_complex from where the device's link leads:
// /sys/devices/pci0000:00/0000:00:01.1/0000:01:00.0 -> parent 0000:00:01.1, root pci0000:00.
void ReadPlace(const RootFs& fs, const std::string& dir, PciDevice* d) {
  auto real = fs.Resolve(dir);
  if (!real) {
    d->parent.Unknown(ReasonFor(real.error()), dir);
    d->root_complex.Unknown(ReasonFor(real.error()), dir);
    return;
  }
  std::string src = dir + " -> " + *real;
  auto parts = SplitAny(*real, "/");
  std::optional<size_t> root;
  for (size_t i = parts.size(); i-- > 0;) {
    if (IsRootComplexDir(parts[i])) {
      root = i;
      break;
    }
  }
  if (!root) {
    std::string why = "device path " + *real + " does not lead through a pciDDDD:BB host bridge";
    d->parent.Unknown(why, src);
    d->root_complex.Unknown(why, src);
    return;
  }
  d->root_complex.Set(std::string(parts[*root]), src);
  // The component before the device's own: a bridge's address, or the host bridge itself.
  std::string_view before = parts.size() >= 2 ? parts[parts.size() - 2] : std::string_view();
  if (ParseAddress(before)) {
    d->parent.Set(std::string(before), src);
  } else if (IsRootComplexDir(before)) {
    d->parent.Unknown("at the root complex", src);
  } else {
    d->parent.Unknown("device path " + *real + " has no bridge before the device", src);
  }
}

// "32.0 GT/s PCIe" (or "8 GT/s" from older kernels) -> 5.
std::optional<int64_t> GenFromSpeed(std::string_view s) {
  auto words = SplitAny(s, " \t");
  if (words.size() < 2 || words[1] != "GT/s") return std::nullopt;
  auto v = ParseDouble(words[0]);
  if (!v) return std::nullopt;
  static const struct {
    int tenths;
    int gen;
  } kGens[] = {{25, 1}, {50, 2}, {80, 3}, {160, 4}, {320, 5}, {640, 6}, {1280, 7}};
  for (const auto& g : kGens)
    if (*v * 10 > g.tenths - 1 && *v * 10 < g.tenths + 1) return g.gen;
  return std::nullopt;
}

// One of current/max from sysfs, or from the PCI Express capability where the files are absent.
void ReadLinkState(const RootFs& fs, const std::string& dir, const char* which,
                   const PciLinkState& from_config, PciLinkState* out) {
  std::string speed_path = dir + "/" + which + "_link_speed";
  auto speed = fs.ReadValue(speed_path);
  if (speed) {
    if (auto gen = GenFromSpeed(*speed))
      out->gen.Set(*gen, speed_path);
    else if (speed->starts_with("Unknown"))
      out->gen.Unknown("kernel reports '" + Printable(*speed, 40) + "' (no link)", speed_path);
    else
      out->gen.Unknown("not a link speed: '" + Printable(*speed, 40) + "'", speed_path);
  } else if (speed.error().kind == Error::kNotFound) {
    out->gen = from_config.gen;
  } else {
    out->gen.Unknown(ReasonFor(speed.error()), speed_path);
  }

  std::string width_path = dir + "/" + which + "_link_width";
  auto width = fs.ReadValue(width_path);
  if (!width) {
    if (width.error().kind == Error::kNotFound)
      out->width = from_config.width;
    else
      out->width.Unknown(ReasonFor(width.error()), width_path);
    return;
  }
  auto n = ParseInt(*width);
  if (!n)
    out->width.Unknown("not an integer: '" + Printable(*width, 40) + "'", width_path);
  else if (*n <= 0)
    out->width.Unknown("width " + std::to_string(*n) + " (link down)", width_path);
  else
    out->width.Set(*n, width_path);
}

// The first six lines of `resource` ("start end flags" in hex) are BARs 0-5; the rest are the
// expansion ROM and bridge windows. An unimplemented BAR is all zeros.
std::vector<PciBar> ReadBars(const RootFs& fs, const std::string& dir, Fact<int64_t>* count,
                             std::vector<std::string>* log) {
  std::vector<PciBar> bars;
  std::string path = dir + "/resource";
  auto text = fs.Read(path, 64 << 10);
  if (!text) {
    // Not "no BARs": the file that lists them was not read.
    count->Unknown(text.error().kind == Error::kNotFound && !fs.live() ? "not in the capture"
                                                                       : ReasonFor(text.error()),
                   path);
    return bars;
  }
  auto lines = SplitLines(*text);
  for (size_t i = 0; i < lines.size() && i < 6; ++i) {
    auto words = SplitAny(lines[i], " \t");
    if (words.empty()) continue;
    std::optional<uint64_t> start, end, flags;
    if (words.size() == 3) {
      start = ParseUint(words[0], 16);
      end = ParseUint(words[1], 16);
      flags = ParseUint(words[2], 16);
    }
    if (!start || !end || !flags) {
      if (log) log->push_back(path + ":" + std::to_string(i + 1) + ": not 'start end flags'");
      continue;
    }
    if ((*start == 0 && *end == 0) || *end < *start) continue;
    PciBar bar;
    bar.index = static_cast<int64_t>(i);
    bar.size_bytes = *end - *start + 1;
    bar.prefetchable = (*flags & 0x2000) != 0;  // IORESOURCE_PREFETCH
    bar.is64 = (*flags & 0x100000) != 0;        // IORESOURCE_MEM_64
    bars.push_back(bar);
  }
  count->Set(static_cast<int64_t>(bars.size()), path);
  return bars;
}

// Returns whether the file held the 64-byte header alone.
bool ReadConfig(const RootFs& fs, const std::string& dir, PciDevice* d, PciConfig* cfg) {
  std::string path = dir + "/config";
  // sysfs serves at most 4096 bytes; a larger file is not a config space, but its first 4096
  // bytes are decoded like any other garbage would be. Root helps only on the live machine.
  auto bytes = fs.ReadBytes(path, 1 << 20);
  *cfg = bytes ? DecodePciConfig(*bytes, path, fs.live() ? "needs root" : kCaptureHeaderOnly)
               : UnknownPciConfig(ReasonFor(bytes.error()), path);
  d->port_type = cfg->port_type;
  d->port_number = cfg->port_number;
  if (!d->port_number.known() && d->port_number.unknown.empty()) {
    // Only root and downstream ports carry a port number (Link Capabilities bits 31:24).
    if (!d->port_type.known())
      d->port_number.Unknown(d->port_type.unknown, d->port_type.source);
    else
      d->port_number.Unknown("a " + *d->port_type + " has none (root and downstream ports only)",
                             d->port_type.source);
  }
  d->acs = cfg->acs;
  d->rebar = cfg->rebar;
  return bytes && bytes->size() == 64;
}

PciDevice ReadDevice(const RootFs& fs, const std::string& address, PciNames* names,
                     int* header_only, std::vector<std::string>* log) {
  PciDevice d;
  d.address = address;
  std::string dir = std::string(kDevices) + "/" + address;
  ReadHexId(fs, dir + "/vendor", 4, &d.vendor_id);
  ReadHexId(fs, dir + "/device", 4, &d.device_id);
  ReadHexId(fs, dir + "/subsystem_vendor", 4, &d.subsystem_vendor_id);
  ReadHexId(fs, dir + "/subsystem_device", 4, &d.subsystem_device_id);
  ReadHexId(fs, dir + "/class", 6, &d.class_id);
  if (d.vendor_id.known() && d.device_id.known()) {
    d.name = names->Name(static_cast<uint16_t>(*ParseUint(*d.vendor_id, 16)),
                         static_cast<uint16_t>(*ParseUint(*d.device_id, 16)));
  } else {
    d.name.Unknown("vendor or device id unknown", dir);
  }
  ReadLinkName(fs, dir + "/driver", "no driver bound", &d.driver);
  ReadIntFact(fs, dir + "/numa_node", &d.numa_node);
  auto local = ReadCpuSet(fs, dir, "local_cpulist", "local_cpus");  // older kernels: mask only
  if (local.known())
    d.local_cpus.Set(FormatCpuList(*local), local.source);
  else
    d.local_cpus.Unknown(local.unknown, local.source);
  ReadIommuGroup(fs, dir, &d.iommu_group);
  ReadPlace(fs, dir, &d);
  PciConfig cfg;
  if (ReadConfig(fs, dir, &d, &cfg)) ++*header_only;
  ReadLinkState(fs, dir, "current", cfg.link.current, &d.link.current);
  ReadLinkState(fs, dir, "max", cfg.link.max, &d.link.max);
  d.bars = ReadBars(fs, dir, &d.bar_count, log);
  return d;
}

}  // namespace

void ProbePci(const ProbeContext& ctx, Machine* m) {
  auto entries = ctx.fs.List(kDevices);
  if (!entries) {
    bool absent = entries.error().kind == Error::kNotFound;
    if (absent && ctx.fs.live()) {
      m->pci.count.Set(0, std::string(kDevices) + " (absent: no PCI bus)");
    } else {
      // A capture without the directory says nothing about the machine's PCI devices.
      m->pci.count.Unknown(absent ? "not in the capture" : ReasonFor(entries.error()), kDevices);
    }
    if (ctx.log)
      ctx.log->push_back(std::string("pci: ") + kDevices + ": " +
                         (absent ? "directory absent" : entries.error().message));
    return;
  }
  PciNames names(ctx.fs);
  int header_only = 0;
  for (const auto& e : *entries) {
    if (!ParseAddress(e)) {
      if (ctx.log)
        ctx.log->push_back(std::string("pci: skipping ") + kDevices + "/" + Printable(e));
      continue;
    }
    m->pci.devices.push_back(ReadDevice(ctx.fs, e, &names, &header_only, ctx.log));
  }
  m->pci.count.Set(static_cast<int64_t>(m->pci.devices.size()), kDevices);
  if (header_only > 0 && ctx.log) {
    // Said once for the machine; each device's facts carry the same reason.
    ctx.log->push_back(
        "pci: " + std::to_string(header_only) + " of " + std::to_string(m->pci.devices.size()) +
        " config files hold 64 bytes: " +
        (ctx.fs.live()
             ? "capabilities, ACS and Resizable BAR need root (rerun as root)"
             : std::string(kCaptureHeaderOnly) + " (capabilities, ACS and Resizable BAR unknown)"));
  }
  std::sort(m->pci.devices.begin(), m->pci.devices.end(),
            [](const PciDevice& a, const PciDevice& b) {
              return ParseAddress(a.address) < ParseAddress(b.address);
            });
}

}  // namespace dossier
