// IOMMU group listings, as the common scripts over /sys/kernel/iommu_groups print them:
//  - "IOMMU Group 12:" headers with indented `lspci -nns` lines below;
//  - one line per device: "IOMMU group 12 01:00.0 VGA compatible controller [0300]: …" (the
//    printf loop; "IOMMU Group 12 01:00.0 …" too);
//  - `find /sys/kernel/iommu_groups/ -type l`: "/sys/kernel/iommu_groups/12/devices/0000:01:00.0".
// Facts: iommu.groups[] (id, devices), iommu.enabled, and pci.devices[] with iommu_group and what
// the lspci text says of each device.
#include <algorithm>
#include <unordered_set>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

// "IOMMU Group 12" / "IOMMU group 12:" at the start of a line: the group and what follows.
bool GroupPrefix(std::string_view line, int64_t* id, std::string_view* rest) {
  std::string_view t = Trim(line);
  if (!(t.starts_with("IOMMU Group ") || t.starts_with("IOMMU group "))) return false;
  t.remove_prefix(12);
  size_t end = 0;
  while (end < t.size() && t[end] >= '0' && t[end] <= '9') ++end;
  auto n = ParseInt(t.substr(0, end));
  if (!n) return false;
  *id = *n;
  t.remove_prefix(end);
  if (t.starts_with(":")) t.remove_prefix(1);
  *rest = Trim(t);
  return true;
}

bool SysfsLink(std::string_view line, int64_t* id, std::string* addr) {
  std::string_view t = Trim(line);
  size_t at = t.find("/iommu_groups/");
  if (at == std::string_view::npos) return false;
  t.remove_prefix(at + 14);
  size_t slash = t.find('/');
  if (slash == std::string_view::npos) return false;
  auto n = ParseInt(t.substr(0, slash));
  size_t dev = t.find("/devices/");
  if (!n || dev == std::string_view::npos) return false;
  auto a = NormalizePciAddress(Trim(t.substr(dev + 9)));
  if (!a) return false;
  *id = *n;
  *addr = *a;
  return true;
}

bool IommuStarts(const Lines& lines, size_t i) {
  int64_t id;
  std::string_view rest;
  std::string addr;
  return GroupPrefix(lines[i].text, &id, &rest) || SysfsLink(lines[i].text, &id, &addr);
}

int IommuDetect(const Lines& lines) {
  int hits = 0;
  for (size_t i = 0; i < lines.size() && i < 200; ++i)
    if (IommuStarts(lines, i)) ++hits;
  return hits > 0 ? 80 : 0;
}

Status IommuParse(const Lines& lines, const ImportSource& src, Imported* out) {
  Machine& m = out->machine;
  MachineIndex ix(&m);
  // (group, address) pairs already listed: a group's devices once each, without a search.
  std::unordered_set<std::string> listed;
  int64_t group = -1;
  size_t devices = 0;
  for (const auto& l : lines) {
    std::string at = src.At(l.number);
    int64_t id;
    std::string_view rest;
    std::string addr;
    std::string_view desc;
    if (SysfsLink(l.text, &id, &addr)) {
      group = id;
    } else if (GroupPrefix(l.text, &id, &rest)) {
      group = id;
      ix.GroupAt(id);
      if (rest.empty()) continue;  // a header; devices follow indented
      size_t sp = rest.find(' ');
      auto a = NormalizePciAddress(rest.substr(0, sp));
      if (!a) continue;
      addr = *a;
      desc = sp == std::string_view::npos ? std::string_view() : Trim(rest.substr(sp));
    } else {
      std::string_view t = Trim(l.text);
      size_t sp = t.find(' ');
      auto a = NormalizePciAddress(t.substr(0, sp));
      if (!a || group < 0) {
        if (!t.empty())
          out->notes.push_back(src.file + ":" + std::to_string(l.number) +
                               ": not an IOMMU group line: '" + Printable(t, 60) + "'");
        continue;
      }
      addr = *a;
      desc = sp == std::string_view::npos ? std::string_view() : Trim(t.substr(sp));
    }
    IommuGroup& g = ix.GroupAt(group);
    if (listed.insert(std::to_string(group) + " " + addr).second) g.devices.push_back(addr);
    PciDevice& d = ix.DeviceAt(addr);
    d.iommu_group.Set(group, at);
    if (!desc.empty()) ReadLspciDescription(desc, &d, at);
    ++devices;
    out->facts += 2;
  }
  if (m.iommu.groups.empty()) return Error::Invalid("no 'IOMMU Group N' line");
  std::sort(m.iommu.groups.begin(), m.iommu.groups.end(),
            [](const IommuGroup& a, const IommuGroup& b) { return a.id < b.id; });
  m.iommu.enabled.Set(true, src.At(lines.front().number));
  return OkStatus();
}

}  // namespace

Importer IommuGroupsImporter() {
  return {"iommu-groups",
          "IOMMU group listings (the /sys/kernel/iommu_groups loops: headers or one line per "
          "device, or find's paths)",
          {"iommu_groups"},
          IommuStarts,
          IommuDetect,
          IommuParse};
}

}  // namespace dossier::import
