// The IOMMU: whether one is on, which hardware units the kernel registered (/sys/class/iommu:
// dmar0 on Intel, ivhd0 on AMD, virtio-iommu in some guests), and the groups in
// /sys/kernel/iommu_groups with their default domain type (DMA, DMA-FQ, identity for iommu=pt,
// blocked) and members. Groups are what a VFIO passthrough maps and what renumbers after a BIOS
// ACS change, so they are kept whole.
//
// A kernel with the IOMMU off still has /sys/kernel/iommu_groups, empty, and no /sys/class/iommu
// entries. On the live machine an absent directory is therefore "none"; in a captured tree it is
// "not in the capture" (capture tools such as hwloc's keep /sys/devices and /sys/bus but not
// /sys/kernel), which is unknown rather than off.
#include <algorithm>

#include "probe/probe.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

constexpr const char* kGroups = "/sys/kernel/iommu_groups";
constexpr const char* kClass = "/sys/class/iommu";

// Entries of a directory. Live, an absent directory is an empty list when /sys exists (the
// kernel creates these only with an IOMMU driver); in a captured tree it is not in the capture.
Fact<std::vector<std::string>> ListIommuDir(const RootFs& fs, const char* dir) {
  Fact<std::vector<std::string>> out;
  auto list = fs.List(dir);
  if (list) {
    out.Set(*list, dir);
  } else if (list.error().kind == Error::kNotFound && fs.live() && fs.IsDir("/sys")) {
    out.Set({}, std::string(dir) + " (directory absent)");
  } else if (list.error().kind == Error::kNotFound) {
    out.Unknown("not in the capture", dir);
  } else {
    out.Unknown(ReasonFor(list.error()), dir);
  }
  return out;
}

}  // namespace

void ProbeIommu(const ProbeContext& ctx, Machine* m) {
  const RootFs& fs = ctx.fs;
  IommuInfo& io = m->iommu;
  io.hardware = ListIommuDir(fs, kClass);

  Fact<std::vector<std::string>> groups = ListIommuDir(fs, kGroups);
  for (const auto& name : groups.value_or({})) {
    auto id = ParseInt(name);
    if (!id || *id < 0) {
      if (ctx.log)
        ctx.log->push_back(std::string("iommu: skipping ") + kGroups + "/" + Printable(name));
      continue;
    }
    IommuGroup g;
    g.id = *id;
    std::string dir = std::string(kGroups) + "/" + name;
    ReadStringFact(fs, dir + "/type", &g.type);
    auto devices = fs.List(dir + "/devices");
    if (devices) {
      g.devices = *devices;
    } else if (ctx.log) {
      ctx.log->push_back("iommu: " + dir + "/devices: " + devices.error().message);
    }
    io.groups.push_back(std::move(g));
  }
  std::sort(io.groups.begin(), io.groups.end(),
            [](const IommuGroup& a, const IommuGroup& b) { return a.id < b.id; });

  if (!io.groups.empty()) {
    io.enabled.Set(true, kGroups);
  } else if (io.hardware.known() && !io.hardware->empty()) {
    io.enabled.Set(true, kClass);  // units registered, no device translated yet
  } else if (groups.known()) {
    // The kernel keeps iommu_groups (empty when off): an empty one is the answer even where
    // the capture left out /sys/class/iommu.
    io.enabled.Set(false, std::string(kGroups) + " empty" +
                              (io.hardware.known() ? std::string(", ") + kClass + " empty" : ""));
  } else if (!io.hardware.known()) {
    io.enabled.Unknown(groups.unknown == io.hardware.unknown
                           ? groups.unknown + " (neither " + kGroups + " nor " + kClass + ")"
                           : groups.unknown,
                       kGroups);
  } else {
    io.enabled.Unknown(groups.unknown, kGroups);
  }
}

}  // namespace dossier
