// IOMMU rules: bare-metal GPUs whose DMA the IOMMU translates (iommu.translated-p2p), and IOMMU
// groups of passed-through devices that changed since the previous boot (iommu.groups-changed).
#include "analyze/evidence.h"
#include "analyze/pci_walk.h"
#include "analyze/roles.h"
#include "analyze/rule.h"

namespace dossier {
namespace {

const IommuGroup* GroupOf(const Machine& m, const PciDevice& d) {
  if (d.iommu_group.known()) {
    for (const auto& g : m.iommu.groups)
      if (g.id == *d.iommu_group) return &g;
  }
  for (const auto& g : m.iommu.groups)
    for (const auto& a : g.devices)
      if (a == d.address) return &g;
  return nullptr;
}

}  // namespace

std::optional<Finding> RuleIommuTranslatedP2p(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  if (!IsNotGuest(m)) return std::nullopt;
  // GPUs the host itself drives; GPUs bound to vfio-pci belong to guests, whose DMA must be
  // translated.
  std::vector<std::pair<const PciDevice*, const IommuGroup*>> translated;
  int driven = 0;
  for (const PciDevice* g : GpuDevices(m)) {
    if (!g->driver.known() || BoundToVfio(*g)) continue;
    ++driven;
    const IommuGroup* grp = GroupOf(m, *g);
    if (grp && grp->type.known() && (*grp->type == "DMA" || *grp->type == "DMA-FQ"))
      translated.push_back({g, grp});
  }
  if (driven < 2 || translated.empty()) return std::nullopt;
  Finding f;
  f.title = "The IOMMU translates the GPUs' DMA (" + *translated.front().second->type +
            "): P2P between them pays for translation; use passthrough mode";
  for (const auto& [g, grp] : translated) {
    f.evidence.push_back(
        Ev("GPU " + g->address + " IOMMU group " + std::to_string(grp->id) + " type", grp->type));
  }
  f.evidence.push_back(Ev("kernel command line", m.kernel.cmdline));
  f.explanation =
      "With the IOMMU's default domain translating (DMA or DMA-FQ), every DMA of the GPUs — "
      "including one GPU writing into another's memory window — is translated by the IOMMU, and "
      "on AMD root complexes peer requests are sent up to it. This costs bandwidth and has caused "
      "hangs and IO_PAGE_FAULTs in NCCL. Passthrough mode (identity domains) keeps the IOMMU for "
      "devices given to VMs and leaves the host's own DMA untranslated.";
  f.actions.push_back(
      {"Add `iommu=pt` to the kernel command line (keep amd_iommu=on / intel_iommu=on if VFIO is "
       "used), e.g. in GRUB_CMDLINE_LINUX_DEFAULT of /etc/default/grub, then update-grub and "
       "reboot",
       "cat /sys/kernel/iommu_groups/" + std::to_string(translated.front().second->id) +
           "/type   # identity; and: dmesg | grep -i 'Default domain type'",
       ""});
  f.not_helping = {
      "Turning the IOMMU off in the BIOS: it also stops translation, but loses interrupt "
      "remapping and VFIO, and machines with more than 255 logical CPUs need the IOMMU for "
      "x2APIC."};
  return f;
}

std::optional<Finding> RuleIommuGroupsChanged(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  const MachineDiff& d = ctx.changes;
  std::vector<const Change*> hits;
  std::vector<std::string> mapping;
  for (const auto& c : d.changes) {
    if (c.kind != "iommu-renumbered" && c.kind != "iommu-regrouped") continue;
    // Only passed-through devices carry group numbers in hypervisor mappings.
    bool vfio = false;
    for (const auto& dev : m.pci.devices) {
      if (!BoundToVfio(dev)) continue;
      if (c.subject == dev.address || c.detail.find(dev.address) != std::string::npos) vfio = true;
    }
    if (!vfio) continue;
    hits.push_back(&c);
  }
  if (hits.empty()) return std::nullopt;
  Finding f;
  f.title =
      "IOMMU groups of passed-through devices changed since the previous boot: VM device "
      "mappings keyed by group no longer match";
  for (const Change* c : hits) {
    f.evidence.push_back(
        Ev(c->subject, c->before + " -> " + c->after, d.from.file + " vs " + d.to.file));
  }
  for (const auto& dev : m.pci.devices) {
    if (!BoundToVfio(dev) || !dev.iommu_group.known()) continue;
    mapping.push_back(dev.address + " iommugroup=" + std::to_string(*dev.iommu_group));
  }
  f.explanation =
      "IOMMU groups are formed at boot from the PCI tree and its ACS settings; a BIOS change (ACS, "
      "bifurcation, a new card) or a kernel update renumbers or regroups them. Proxmox's PCI "
      "resource mappings (/etc/pve/mapping/pci.cfg) record iommugroup= for each device and refuse "
      "to start a VM when it no longer matches; devices that now share a group must all be "
      "passed to the same VM. The numbers below are from this boot: recheck after any further "
      "BIOS change.";
  if (!m.hypervisor.pci_mappings.empty()) {
    // The mapping itself was read: vm.mapping-stale says which entries no longer match and
    // carries the fix (and the blocking severity); this finding is the cause, not a second fix.
    f.severity = kWarning;
    f.explanation +=
        " This machine's pci.cfg was read: vm.mapping-stale names the entries that "
        "no longer match, if any.";
  } else {
    f.actions.push_back({"Update the mapping to this boot's groups: " + JoinList(mapping, 16),
                         "grep -n iommugroup /etc/pve/mapping/pci.cfg; qm start VMID", ""});
  }
  f.not_helping = {
      "Changing ACS back and forth: each change renumbers the groups again; fix the mapping to "
      "the current numbers."};
  return f;
}

}  // namespace dossier
