// vm.mapping-stale: a Proxmox PCI resource mapping entry for this node no longer matches the
// machine (IOMMU group, vendor:device or subsystem id of its first path; or no device there), so
// every VM using the mapping fails to start — the seed story's blocking item after the BIOS
// change renumbered the IOMMU groups. The probe checks the entries as Proxmox does
// (hypervisor/mapping_check.h); this rule names them and the VMs that use them.
#include <set>

#include "analyze/evidence.h"
#include "analyze/rule.h"

namespace dossier {

std::optional<Finding> RuleVmMappingStale(const RuleContext& ctx) {
  const HypervisorInfo& hv = ctx.m().hypervisor;
  Finding f;
  std::set<std::string> vms_hit;
  std::string fixes, proxmox_errors;
  for (const auto& map : hv.pci_mappings) {
    std::vector<std::string> users;
    for (const auto& vm : hv.vms)
      for (const auto& h : vm.hostpci)
        if (h.mapping.known() && *h.mapping == map.name)
          users.push_back("VM " + vm.id + (vm.name.known() ? " (" + *vm.name + ")" : "") + " " +
                          h.slot);
    for (const auto& e : map.entries) {
      if (!e.status.known() || (*e.status != "stale" && *e.status != "missing")) continue;
      // No VM configuration read (a pasted pci.cfg alone) is not "no VM uses it".
      std::string who = !users.empty()   ? "used by "
                        : hv.vms.empty() ? "which VMs use it: no VM configuration was read"
                                         : "no VM uses it";
      for (size_t i = 0; i < users.size(); ++i) who += (i ? ", " : "") + users[i];
      f.evidence.push_back(Ev("mapping '" + map.name + "' " + e.path.value_or("?") + ": " +
                                  *e.status + " (" + who + ")",
                              e.problem));
      f.evidence.push_back(Ev("  configured iommugroup", e.iommugroup));
      f.evidence.push_back(Ev("  IOMMU group now", e.iommu_group_now));
      if (e.problem.known()) proxmox_errors += "\n- `" + *e.problem + "`";
      if (*e.status == "stale" && e.iommu_group_now.known())
        fixes += " " + map.name + ": iommugroup=" + std::to_string(*e.iommu_group_now) + ";";
      for (const auto& vm : hv.vms)
        for (const auto& h : vm.hostpci)
          if (h.mapping.known() && *h.mapping == map.name) vms_hit.insert(vm.id);
    }
  }
  // A pasted start failure (dossier import of `qm start` output) is the same evidence from
  // Proxmox's own side: its mapping check names the mapping and both groups; QEMU's VFIO errors
  // name the device and group it could not set up.
  bool stale_seen = !f.evidence.empty();
  for (const auto& e : hv.start_errors) {
    bool mismatch = e.mapping.known();
    if (!stale_seen && !mismatch) continue;
    std::string what = "VM " + e.vmid.value_or("?") + " start failed";
    if (e.device.known()) what += " on " + *e.device;
    if (e.iommu_group.known()) what += " (IOMMU group " + std::to_string(*e.iommu_group) + ")";
    f.evidence.push_back(Ev(what, e.message));
    if (e.vmid.known()) vms_hit.insert(*e.vmid);
    if (mismatch && e.message.known()) proxmox_errors += "\n- `" + *e.message + "`";
    if (mismatch && e.configured_group.known() && e.iommu_group.known() &&
        fixes.find(" " + *e.mapping + ":") == std::string::npos)
      fixes += " " + *e.mapping + ": iommugroup=" + std::to_string(*e.iommu_group) + ";";
  }
  if (f.evidence.empty()) return std::nullopt;
  std::string vm_list;
  for (const auto& v : vms_hit) vm_list += (vm_list.empty() ? "VM " : ", VM ") + v;
  f.title = "Proxmox PCI mapping no longer matches this machine: " +
            (vm_list.empty() ? std::string("a VM using it") : vm_list) + " will not start";
  f.explanation =
      "When a VM that uses a PCI resource mapping starts, Proxmox checks the mapping's entry for "
      "this node against the device at its first path: vendor:device id, subsystem id and IOMMU "
      "group (pve-guest-common PVE/Mapping/PCI.pm). A BIOS change (ACS, above-4G decoding, "
      "bifurcation) or a kernel update can renumber the IOMMU groups without changing any device, "
      "and the stored numbers go stale. The start then fails with an error such as:" +
      proxmox_errors +
      "\n\nA running VM keeps the devices it was started with; the failure comes at its next "
      "start.";
  f.not_helping = {
      "Rebooting the host or the VM again: the groups stay as the firmware now numbers them.",
      "Undoing the BIOS change only to match the old numbers: fix the mapping instead, and "
      "recheck it after every firmware change."};
  f.actions.push_back(
      {"Correct the mapping (only the stale iommugroup values change):" + fixes +
           " `dossier generate pve-mapping --machine " + ctx.m().name +
           "` prints the corrected /etc/pve/mapping/pci.cfg (--diff for a diff, or the pvesh "
           "commands).",
       "qm start " + (vms_hit.empty() ? std::string("VMID") : *vms_hit.begin()) +
           " && qm showcmd " + (vms_hit.empty() ? std::string("VMID") : *vms_hit.begin()) +
           " --pretty | grep vfio-pci",
       "host"});
  return f;
}

}  // namespace dossier
