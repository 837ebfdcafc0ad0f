// Markdown sections for the PCI tree (devices by root complex and parent chain, like
// `lspci -tv`, with links, BARs and Resizable BAR of the GPUs) and for the IOMMU and ACS
// (groups, and the ACS registers of every bridge and port).
#include <fmt/format.h>
#include <algorithm>

#include <map>
#include <set>

#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {
namespace {

std::string Reason(const std::string& why) {
  return "unknown (" + md::Escape(why.empty() ? "not recorded" : why) + ")";
}

// "Gen5 x16"; the parts that are unknown say why.
std::string LinkState(const PciLinkState& s) {
  if (!s.gen.known() && !s.width.known() && s.gen.unknown == s.width.unknown) {
    return Reason(s.gen.unknown);
  }
  std::string g = s.gen.known() ? "Gen" + std::to_string(*s.gen) : "Gen " + Reason(s.gen.unknown);
  std::string w =
      s.width.known() ? "x" + std::to_string(*s.width) : "width " + Reason(s.width.unknown);
  return g + " " + w;
}

// "Gen1 x16 (max Gen4 x16) **below max speed**".
std::string LinkText(const PciLink& l) {
  const auto& c = l.current;
  const auto& m = l.max;
  bool all_unknown = !c.gen.known() && !c.width.known() && !m.gen.known() && !m.width.known();
  if (all_unknown && c.gen.unknown == m.gen.unknown && c.width.unknown == m.width.unknown &&
      c.gen.unknown == c.width.unknown) {
    return Reason(c.gen.unknown);
  }
  std::string out = LinkState(c) + " (max " + LinkState(m) + ")";
  if (c.gen.known() && m.gen.known() && *c.gen < *m.gen) out += " **below max speed**";
  if (c.width.known() && m.width.known() && *c.width < *m.width) out += " **below max width**";
  return out;
}

bool BelowMax(const PciLink& l) {
  return (l.current.gen.known() && l.max.gen.known() && *l.current.gen < *l.max.gen) ||
         (l.current.width.known() && l.max.width.known() && *l.current.width < *l.max.width);
}

bool IsPortOrBridge(const PciDevice& d) {
  static const std::set<std::string> kPorts = {"root_port", "upstream", "downstream",
                                               "pcie_to_pci_bridge", "pci_to_pcie_bridge"};
  return (d.port_type.known() && kPorts.count(*d.port_type)) ||
         (d.class_id.known() && d.class_id->starts_with("0x0604"));
}

std::string DeviceLine(const PciDevice& d) {
  std::string line = md::Code(d.address, false) + " " + md::Cell(d.name);
  // Brackets with no "(" or "[" after them, and no reference definition anywhere: not a link.
  if (d.port_type.known() && *d.port_type != "endpoint")
    line += " [" + md::Escape(*d.port_type) + "]";
  line += " — driver: " + md::Cell(d.driver) + ", NUMA node: " + md::Cell(d.numa_node) +
          ", link: " + LinkText(d.link);
  return line;
}

struct Tree {
  const std::vector<PciDevice>& devs;
  std::set<std::string> present;            // addresses listed
  std::multimap<std::string, size_t> kids;  // parent address -> children
  std::set<size_t> done;                    // guards against a parent cycle in a bad record
};

// Depth-first under one device.
void Subtree(Tree* t, size_t i, int depth, std::string* out) {
  if (!t->done.insert(i).second) return;
  const PciDevice& d = t->devs[i];
  *out += std::string(2 * depth, ' ') + "- " + DeviceLine(d);
  if (d.parent.known() && !t->present.count(*d.parent)) {
    *out += " (parent " + md::Code(*d.parent, false) + " not listed)";
  }
  *out += "\n";
  auto [b, e] = t->kids.equal_range(d.address);
  for (auto it = b; it != e; ++it) Subtree(t, it->second, depth + 1, out);
}

std::string Bars(const PciDevice& d) {
  if (d.bars.empty()) return "none listed";
  std::string out;
  for (const auto& b : d.bars) {
    if (!out.empty()) out += "; ";
    out += "BAR" + std::to_string(b.index) + " " + md::Bytes(b.size_bytes);
    if (b.is64) out += " 64-bit";
    if (b.prefetchable) out += " prefetchable";
  }
  return out;
}

std::string Rebar(const PciRebar& r) {
  if (!r.present.known()) return md::Cell(r.present);
  if (!*r.present) return "no capability";
  if (r.bars.empty()) return "capability present, no resizable BAR listed";
  std::string out;
  for (const auto& b : r.bars) {
    if (!out.empty()) out += "; ";
    out += "BAR" + std::to_string(b.bar) + " " + md::Bytes(b.current_bytes);
    if (!b.supported_bytes.empty()) {
      uint64_t lo = *std::min_element(b.supported_bytes.begin(), b.supported_bytes.end());
      uint64_t hi = *std::max_element(b.supported_bytes.begin(), b.supported_bytes.end());
      out += " (supported " + md::Bytes(lo) + " to " + md::Bytes(hi) + ")";
      if (b.current_bytes < hi) out += " **smaller than the largest supported**";
    }
  }
  return out;
}

}  // namespace

void MdPciTree(const MachineView& mv, std::string* out) {
  const auto& devs = mv.machine.pci.devices;
  if (devs.empty()) {
    std::string s = md::NotPastedText(mv.coverage, Family::kPciDevices);
    *out += s.empty() ? "No PCI devices recorded (/sys/bus/pci/devices absent or unreadable).\n"
                      : s + "\n";
    return;
  }
  Tree tree{devs, {}, {}, {}};
  for (const auto& d : devs) tree.present.insert(d.address);
  std::map<std::string, std::vector<size_t>> tops;  // root complex ("" unknown) -> top devices
  std::string unknown_root;                         // why, for the "" group
  for (size_t i = 0; i < devs.size(); ++i) {
    const PciDevice& d = devs[i];
    if (d.parent.known() && tree.present.count(*d.parent) && *d.parent != d.address) {
      tree.kids.emplace(*d.parent, i);
      continue;
    }
    std::string root = d.root_complex.value_or("");
    if (root.empty() && unknown_root.empty()) unknown_root = d.root_complex.unknown;
    tops[root].push_back(i);
  }
  for (const auto& [root, list] : tops) {
    *out += root.empty() ? "- root complex " + Reason(unknown_root) + "\n"
                         : "- " + md::Code(root, false) + "\n";
    for (size_t i : list) Subtree(&tree, i, 1, out);
  }
  for (size_t i = 0; i < devs.size(); ++i) {  // only reachable through a parent cycle
    if (!tree.done.count(i)) Subtree(&tree, i, 0, out);
  }
  if (std::any_of(devs.begin(), devs.end(), [](const PciDevice& d) { return BelowMax(d.link); })) {
    *out +=
        "\nA link below its maximum speed is normal for an idle GPU (it trains down to save "
        "power); a width below the maximum, or a low speed under load, is a fault.\n";
  }
  *out += "\n" +
          md::SourceLine(mv.coverage, Family::kPciDevices,
                         "`/sys/bus/pci/devices/*` (link files, or the PCI Express capability in "
                         "`config` where they are absent).") +
          "\n";
  md::NotPasted(mv.coverage, Family::kPciLinks, out);

  md::Table t({"device", "name", "BARs", "Resizable BAR"});
  for (const auto& d : devs) {
    if (!d.class_id.known() || !d.class_id->starts_with("0x03")) continue;  // display / 3D
    t.Row({md::Code(d.address), md::Cell(d.name), Bars(d), Rebar(d.rebar)});
  }
  if (!t.empty()) *out += "\nBARs of the display and 3D controllers:\n\n" + t.Render();
}

namespace {

// ACSCtl lines pasted without the device lines above them (`lspci -vvv | grep ACSCtl`): what
// they say, grouped by control bits, with where they were pasted. They name no bridge.
void PastedAcsLines(const std::vector<PciAcsLine>& lines, std::string* out) {
  if (lines.empty()) return;
  std::map<std::string, std::vector<std::string>> by;  // control bits -> where
  for (const auto& l : lines) {
    std::string bits = l.control.known() ? md::Str(*l.control) : md::Cell(l.control);
    std::string at = l.line.rfind("imported: ", 0) == 0 ? l.line.substr(10) : l.line;
    by[bits].push_back(at);
  }
  *out += fmt::format(
      "\nACS control pasted as {} `ACSCtl` line(s) without their devices (which bridge each "
      "belongs to is not in the pasted outputs):\n\n",
      lines.size());
  for (const auto& [bits, at] : by) {
    *out += fmt::format("- {} line(s): control {} ({}", at.size(), md::Escape(bits),
                        md::Code(at.front(), false));
    if (at.size() > 1) *out += fmt::format(" and {} more", at.size() - 1);
    *out += ")\n";
  }
}

}  // namespace

void MdIommuAcs(const MachineView& mv, std::string* out) {
  const Machine& m = mv.machine;
  md::FactTable f;
  f.Add("IOMMU enabled", m.iommu.enabled);
  f.Add("IOMMU hardware", m.iommu.hardware);
  *out += f.Render();
  if (md::NotPasted(mv.coverage, Family::kIommu, out)) {
  } else if (m.iommu.groups.empty()) {
    *out += "\nNo IOMMU groups.\n";
  } else {
    md::Table g({"group", "type", "devices"});
    for (const auto& grp : m.iommu.groups) {
      std::string members;
      for (const auto& a : grp.devices) members += (members.empty() ? "" : ", ") + md::Code(a);
      g.Row({std::to_string(grp.id), md::Cell(grp.type), members.empty() ? "none" : members});
    }
    *out += "\n" + g.Render() + "\n" +
            md::SourceLine(mv.coverage, Family::kIommu,
                           "`/sys/kernel/iommu_groups/*/{type,devices}`.") +
            "\n";
  }

  md::Table a({"device", "name", "port type", "ACS capability", "ACS control"});
  std::string without;
  // Rows that all say the same (QEMU's emulated root ports, or everything unknown without root)
  // are one sentence, not a table.
  std::set<std::pair<std::string, std::string>> kinds;
  std::vector<std::string> listed;
  for (const auto& d : m.pci.devices) {
    bool has = d.acs.present.known() && *d.acs.present;
    bool bridge = IsPortOrBridge(d);
    if (!has && !bridge) continue;
    // A pasted bridge whose ACS no paste showed: nothing to say about it here (the pasted
    // ACSCtl lines without their devices are listed below).
    if (!mv.coverage.collected && !d.acs.present.known() && !d.acs.control.known()) continue;
    if (bridge && d.acs.present.known() && !*d.acs.present) {
      without += (without.empty() ? "" : ", ") + md::Code(d.address, false);
      continue;
    }
    std::string cap = d.acs.present.known() ? md::Cell(d.acs.capability) : md::Cell(d.acs.present);
    std::string ctl = d.acs.present.known() ? md::Cell(d.acs.control) : md::Cell(d.acs.present);
    a.Row({md::Code(d.address), md::Cell(d.name), md::Cell(d.port_type), cap, ctl});
    kinds.insert({cap, ctl});
    listed.push_back(md::Code(d.address, false));
  }
  PastedAcsLines(m.pci.acs_lines, out);
  if (a.empty() && without.empty()) {
    if (!m.pci.acs_lines.empty() || md::NotPasted(mv.coverage, Family::kAcs, out)) return;
    *out += mv.coverage.collected
                ? "\nNo bridge or port, and no device with Access Control Services.\n"
                : "\nNo ACS capability in the pasted outputs.\n";
    return;
  }
  if (kinds.size() == 1 && listed.size() > 1) {
    std::string list;
    for (size_t i = 0; i < listed.size() && i < 4; ++i) list += (i ? ", " : "") + listed[i];
    if (listed.size() > 4) list += fmt::format(" and {} more", listed.size() - 4);
    *out += fmt::format(
        "\nAccess Control Services (from `config`): the same on all {} bridges and ports "
        "({}): capability {}, control {}.\n",
        listed.size(), list, kinds.begin()->first, kinds.begin()->second);
  } else if (!a.empty()) {
    *out += "\nAccess Control Services (from `config`):\n\n" + a.Render() +
            "\nSV source validation, TB translation blocking, RR request redirect, CR completion "
            "redirect, UF upstream forwarding, EC egress control, DT direct translated P2P. RR "
            "or CR in the control register sends peer-to-peer traffic up through the root "
            "complex.\n";
  }
  if (!without.empty()) *out += "\nBridges and ports without an ACS capability: " + without + ".\n";
}

}  // namespace dossier
