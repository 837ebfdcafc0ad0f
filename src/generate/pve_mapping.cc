// pve-mapping: the host's /etc/pve/mapping/pci.cfg with every stale iommugroup replaced by the
// device's group now, and nothing else changed — order, other attributes, other nodes' entries,
// comments, byte for byte. The text is the one the host's collect (or import) read; the entries'
// status and current group come from the mapping check (hypervisor/mapping_check.h). --diff prints
// a unified diff; the notes give `pvesh set /cluster/mapping/pci/NAME --map …` as the manual way.
#include <algorithm>
#include <map>
#include <set>

#include "generate/generator.h"
#include "generate/quote.h"
#include "generate/select.h"
#include "generate/unified_diff.h"
#include "hypervisor/pci_cfg.h"
#include "util/text.h"

namespace dossier {

using generate::ShellQuote;
using generate::ShellWord;
namespace {

bool IsProxmoxHost(const MachineView& mv) {
  return mv.machine.hypervisor.kind.value_or("") == "proxmox";
}

// The Proxmox node the corrected entries are for: the host's node name when its facts have it;
// for a pasted pci.cfg (no hostname pasted), the node its checked entries state (node=pve), the
// one the mapping check compared against (view/imports.cc). '?' never stands for a name.
std::string NodeName(const HypervisorInfo& hv) {
  if (hv.node.known() && !hv.node->empty()) return *hv.node;
  std::set<std::string> nodes;
  for (const auto& mp : hv.pci_mappings)
    for (const auto& e : mp.entries)
      if (e.node.known() && e.status.known() && *e.status != "other-node") nodes.insert(*e.node);
  if (nodes.empty())
    for (const auto& mp : hv.pci_mappings)
      for (const auto& e : mp.entries)
        if (e.node.known()) nodes.insert(*e.node);
  std::string out;
  for (const auto& n : nodes) out += (out.empty() ? "" : "', '") + n;
  return out.empty() ? "unknown: no hostname and no node= in the file" : out;
}

}  // namespace

Result<Artifact> GeneratePveMapping(const GenerateArgs& args, const View& view, const Analysis&) {
  auto host = generate::PickMachine(args, view, IsProxmoxHost, "Proxmox host");
  if (!host) return host.error();
  const Machine& m = (*host)->machine;
  const HypervisorInfo& hv = m.hypervisor;
  if (!hv.pci_cfg.known())
    return Error::Invalid("no /etc/pve/mapping/pci.cfg in the facts of '" + m.name + "' (" +
                          (hv.pci_cfg.unknown.empty() ? "not collected" : hv.pci_cfg.unknown) +
                          "): collect the Proxmox host, or import its pci.cfg");
  const std::string& text = *hv.pci_cfg;
  // The file to correct is the host's, whatever it was read from: a pasted copy's source
  // ("imported: host.txt:40 (pve-pci-cfg)") is no file to patch or write over.
  const std::string path = hypervisor::kPciCfgPath;
  auto parsed = hypervisor::ParsePciCfg(text, path);

  // Replacements (offset, length, new text), and what cannot be corrected by a number.
  std::vector<std::tuple<size_t, size_t, std::string>> edits;
  std::vector<std::string> corrected, not_fixed;
  std::set<std::string> changed_maps;
  for (const auto& pos : parsed.positions) {
    const PciMapping& pm = parsed.mappings[pos.mapping];
    // The checked facts of the same entry (same file, same parse order).
    const PciMappingEntry* e = nullptr;
    for (const auto& hm : hv.pci_mappings)
      if (hm.name == pm.name && pos.entry < hm.entries.size()) e = &hm.entries[pos.entry];
    if (!e || !e->status.known() || *e->status != "stale") {
      if (e && e->status.known() && *e->status == "missing")
        not_fixed.push_back(pm.name + " (line " + std::to_string(pos.line) +
                            "): " + e->problem.value_or("no device at its path") +
                            ": fix the path by hand");
      continue;
    }
    bool group_wrong = e->iommugroup.known() && e->iommu_group_now.known() &&
                       *e->iommugroup != *e->iommu_group_now;
    std::string problem = e->problem.value_or("");
    bool other_wrong = problem.find("'id'") != std::string::npos ||
                       problem.find("'subsystem-id'") != std::string::npos;
    if (other_wrong)
      not_fixed.push_back(pm.name + " (line " + std::to_string(pos.line) + "): " + problem +
                          ": another device is at the path now; not corrected");
    if (!group_wrong || pos.group_offset == std::string::npos) continue;
    edits.emplace_back(pos.group_offset, pos.group_length, std::to_string(*e->iommu_group_now));
    corrected.push_back(pm.name + " (line " + std::to_string(pos.line) + ", " +
                        e->path.value_or("") + "): iommugroup " + std::to_string(*e->iommugroup) +
                        " -> " + std::to_string(*e->iommu_group_now));
    changed_maps.insert(pm.name);
  }
  std::string out = text;
  std::sort(edits.begin(), edits.end(),
            [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
  for (const auto& [off, len, repl] : edits) out.replace(off, len, repl);

  Artifact a;
  if (args.diff) {
    a.text = generate::UnifiedDiffSameLines(text, out, path, path + " (corrected)");
  } else {
    a.text = out;
  }
  std::string notes;
  if (!hv.pci_cfg.source.empty() && hv.pci_cfg.source != path)
    notes += "Read from " + Printable(hv.pci_cfg.source, 200) + ".\n";  // from a record: any bytes
  if (corrected.empty()) {
    notes += "Nothing to correct in " + path + ": no entry of node '" + NodeName(hv) +
             "' has a stale IOMMU group";
    notes += args.diff ? " (empty diff).\n" : "; the file is printed unchanged.\n";
  } else {
    notes += "Corrected in " + path + " (node '" + NodeName(hv) + "'):\n";
    for (const auto& c : corrected) notes += "  " + c + "\n";
    notes += "Apply: review, then write it over " + path +
             " on the host (it is on pmxcfs: the change reaches the whole cluster), or set each "
             "changed mapping with pvesh, which replaces the mapping's whole map list (every "
             "node's entry):\n";
    // The corrected map lines of each changed mapping, from the corrected text.
    auto fixed = hypervisor::ParsePciCfg(out, path);
    auto lines = SplitLines(out);
    for (const auto& name : changed_maps) {
      std::string cmd = "  pvesh set " + ShellWord("/cluster/mapping/pci/" + name);
      for (const auto& pos : fixed.positions) {
        if (fixed.mappings[pos.mapping].name != name) continue;
        std::string_view l = Trim(lines[static_cast<size_t>(pos.line - 1)]);
        cmd += " --map " + ShellQuote(std::string(Trim(l.substr(3))));
      }
      notes += cmd + "\n";
    }
  }
  for (const auto& n : not_fixed) notes += "Not corrected: " + n + "\n";
  for (const auto& p : parsed.problems) notes += "Note: " + p + "\n";
  a.notes = notes;
  // The VMs that use a changed mapping: their start is the check.
  std::vector<std::string> vms;
  for (const auto& vm : hv.vms)
    for (const auto& h : vm.hostpci)
      if (h.mapping.known() && (changed_maps.count(*h.mapping) || changed_maps.empty()) &&
          std::find(vms.begin(), vms.end(), vm.id) == vms.end())
        vms.push_back(vm.id);
  if (vms.empty()) {
    a.verify = "qm start VMID && qm showcmd VMID --pretty | grep vfio-pci";
  } else {
    for (const auto& id : vms)
      a.verify += (a.verify.empty() ? "" : "; ") + std::string("qm start ") + ShellWord(id) +
                  " && qm showcmd " + ShellWord(id) + " --pretty | grep vfio-pci";
    a.verify += "   # the VM starts; each vfio-pci host= is the mapped device";
  }
  return a;
}

}  // namespace dossier
