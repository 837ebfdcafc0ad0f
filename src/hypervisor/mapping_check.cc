#include "hypervisor/mapping_check.h"

#include "hypervisor/options.h"
#include "util/text.h"

namespace dossier::hypervisor {
namespace {

// "0x10de" + "0x2bb1" -> "10de:2bb1"; empty when either is unknown.
std::string IdPair(const Fact<std::string>& a, const Fact<std::string>& b) {
  if (!a.known() || !b.known()) return "";
  auto strip = [](const std::string& s) {
    return ToLower(s.rfind("0x", 0) == 0 ? s.substr(2) : s);
  };
  return strip(*a) + ":" + strip(*b);
}

const PciDevice* Find(const PciInfo& pci, const std::string& address) {
  for (const auto& d : pci.devices)
    if (d.address == address) return &d;
  return nullptr;
}

}  // namespace

void CheckPciMappings(const std::string& node, const PciInfo& pci, const std::string& pci_source,
                      std::vector<PciMapping>* mappings) {
  for (auto& m : *mappings) {
    for (auto& e : m.entries) {
      const std::string src = e.path.source;
      if (!e.node.known() || !e.path.known()) {
        e.status.Unknown("malformed entry (no node= or path=)", src);
        continue;
      }
      if (node.empty()) {
        e.status.Unknown("this machine's Proxmox node name is unknown (no hostname)", src);
        continue;
      }
      if (*e.node != node) {
        e.status = Known(std::string("other-node"), src);
        e.iommu_group_now.Unknown("an entry for node '" + *e.node + "', not this one", src);
        continue;
      }
      std::string first = FullPciAddress(Split(*e.path, ';')[0]);
      if (first.empty()) {
        e.status.Unknown("path '" + *e.path + "' is not a PCI address", src);
        continue;
      }
      if (pci.devices.empty()) {
        e.status.Unknown("this machine's PCI devices could not be read", pci_source);
        continue;
      }
      const PciDevice* d = Find(pci, first);
      if (!d) {
        e.status = Known(std::string("missing"), src);
        e.problem = Known("no device at " + first + " on this machine", pci_source);
        e.iommu_group_now.Unknown("no device at " + first, pci_source);
        continue;
      }
      e.iommu_group_now = d->iommu_group;
      std::vector<std::string> wrong;
      auto compare = [&](const char* prop, const Fact<std::string>& conf, const std::string& now) {
        if (conf.known() && !now.empty() && *conf != now)
          wrong.push_back(std::string("'") + prop + "' does not match for '" + m.name + "' (" +
                          *conf + " != " + now + ")");
      };
      compare("id", e.id, IdPair(d->vendor_id, d->device_id));
      compare("subsystem-id", e.subsystem_id,
              IdPair(d->subsystem_vendor_id, d->subsystem_device_id));
      if (e.iommugroup.known()) {
        if (!d->iommu_group.known()) {
          wrong.push_back(
              "'iommugroup' does not match for '" + m.name + "' (" + std::to_string(*e.iommugroup) +
              " != none: " +
              (d->iommu_group.unknown.empty() ? "no IOMMU group" : d->iommu_group.unknown) + ")");
        } else if (*e.iommugroup != *d->iommu_group) {
          wrong.push_back("'iommugroup' does not match for '" + m.name + "' (" +
                          std::to_string(*e.iommugroup) + " != " + std::to_string(*d->iommu_group) +
                          ")");
        }
      }
      if (wrong.empty()) {
        e.status = Known(std::string("ok"), src);
      } else {
        e.status = Known(std::string("stale"), src);
        std::string p;
        for (const auto& w : wrong) p += (p.empty() ? "" : "; ") + w;
        e.problem = Known(p, src + " against " + d->address);
      }
    }
  }
  // Every entry's problem is said: none where the entry matches its device, else why it was not
  // checked (a null without its reason would read as a fact nobody looked at).
  for (auto& m : *mappings)
    for (auto& e : m.entries) {
      if (e.problem.known() || !e.problem.unknown.empty()) continue;
      if (e.status.known() && *e.status == "ok")
        e.problem.Unknown("none: the configured ids and IOMMU group match the device",
                          e.status.source);
      else
        e.problem.Unknown("not checked: " + (e.status.known() ? *e.status : e.status.unknown),
                          e.status.source);
    }
}

}  // namespace dossier::hypervisor
