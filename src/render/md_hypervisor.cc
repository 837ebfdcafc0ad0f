// The hypervisor layer in the report: on a host, its VMs with their passed-through devices (as
// configured and as running) and the Proxmox PCI mappings with their check; on a linked guest,
// the passthrough map: which guest GPU is which host GPU, and how that was told.
#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {
namespace {

std::string OrDash(const std::string& s) {
  return s.empty() ? "-" : md::Escape(s);
}

template <class T>
std::string Short(const Fact<T>& f) {
  if (f.known()) return md::Escape(md::Str(*f));
  return "unknown";
}

}  // namespace

void MdHypervisor(const MachineView& mv, std::string* out) {
  const HypervisorInfo& hv = mv.machine.hypervisor;
  if (std::string s = md::NotPastedText(mv.coverage, Family::kHypervisor); !s.empty()) {
    *out += s + "\n";
    return;
  }
  if (!hv.kind.known()) {
    *out += "No VMs run here (" +
            md::Escape(hv.kind.unknown.empty() ? "not collected" : hv.kind.unknown) + ").\n";
    return;
  }
  *out += "Hypervisor: **" + md::Escape(*hv.kind) + "**" +
          (hv.node.known() ? ", node " + md::Code(*hv.node, false) : std::string()) + ".\n\n";
  for (const auto& vm : hv.vms) {
    // An imported `qm showcmd` or domain XML does not say whether the VM runs: say so.
    std::string state = !vm.running.known()
                            ? "running unknown (" + md::Escape(vm.running.unknown) + ")"
                        : *vm.running ? "running, pid " + Short(vm.pid)
                                      : "not running";
    *out += "VM " + md::Code(vm.id, false) +
            (vm.name.known() ? " (" + md::Escape(*vm.name) + ")" : "") + ": " + state +
            ", machine " + Short(vm.machine) + ", NUMA " +
            (vm.numa.value_or(false) ? "on" : "off") + ", SMBIOS UUID " + Short(vm.smbios_uuid) +
            " — " + md::Code(vm.config.value_or(""), false) + "\n\n";
    if (!vm.numa_nodes.empty()) {
      md::Table t({"guest node", "cpus", "host nodes", "policy"});
      for (const auto& n : vm.numa_nodes)
        t.Row({std::to_string(n.id), Short(n.cpus), md::Cell(n.hostnodes), Short(n.policy)});
      *out += t.Render() + "\n";
    }
    if (!vm.hostpci.empty()) {
      // The clique column only where a command line gave one (x-nv-gpudirect-clique).
      bool cliques = false;
      for (const auto& h : vm.hostpci) cliques = cliques || h.gpudirect_clique.known();
      std::vector<std::string> head = {"slot", "configured",           "mapping",
                                       "pcie", "running host address", "guest bus"};
      if (cliques) head.push_back("P2P clique");
      md::Table t(head);
      for (const auto& h : vm.hostpci) {
        std::vector<std::string> row = {md::Code(h.slot),
                                        Short(h.host),
                                        Short(h.mapping),
                                        Short(h.pcie),
                                        md::Cell(h.running_host_address),
                                        Short(h.guest_bus)};
        if (cliques) row.push_back(Short(h.gpudirect_clique));
        t.Row(row);
      }
      *out += t.Render() + "\n";
    }
  }
  if (!hv.pci_mappings.empty()) {
    md::Table t({"mapping", "node", "path", "iommugroup", "group now", "status", "problem"});
    for (const auto& m : hv.pci_mappings)
      for (const auto& e : m.entries) {
        std::string status = Short(e.status);
        if (status == "stale" || status == "missing") status = "**" + status + "**";
        t.Row({md::Code(m.name), Short(e.node), md::Code(e.path.value_or("")), Short(e.iommugroup),
               md::Cell(e.iommu_group_now), status,
               e.problem.known() ? md::Code(*e.problem) : "-"});
      }
    *out += "PCI resource mappings (" + md::Code(hv.pci_cfg.source, false) +
            "), checked as Proxmox checks them at VM start:\n\n" + t.Render() + "\n";
  }
  if (!hv.problems.empty()) {
    *out += "Input not understood (ignored):\n\n";
    for (const auto& p : hv.problems) *out += "- " + md::Code(p, false) + "\n";
    *out += "\n";
  }
}

namespace {

// The guest's GPU matrix with the host's real level beside each flattened guest level: the
// guest's PCI walk sees every GPU behind its own virtual root port (PHB), the host's walk sees
// where the GPUs really are. GPU numbers are the guest's GPU order, as in its matrix above.
void MdHostLevels(const MachineView& mv, const MachineLink& l, std::string* out) {
  const size_t n = l.gpus.size();
  if (n < 2 || l.pairs.empty()) return;
  const auto& guest = mv.machine.topology.gpu_levels;
  auto guest_level = [&](size_t i, size_t j) {
    return i < guest.size() && j < guest[i].size() ? guest[i][j] : std::string("?");
  };
  std::vector<std::string> header{""};
  for (size_t j = 0; j < n; ++j) header.push_back("GPU" + std::to_string(j));
  header.push_back("host GPU");
  md::Table t(header);
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::string> row{"GPU" + std::to_string(i)};
    for (size_t j = 0; j < n; ++j) {
      if (i == j) {
        row.push_back("X");
        continue;
      }
      const PassthroughPair* p = l.Pair(i, j);
      std::string host = p && !p->host_level.empty() ? p->host_level : "?";
      row.push_back(md::Escape(guest_level(i, j)) + " (host: " + md::Escape(host) +
                    (p && p->clique ? ", P2P" : "") + ")");
    }
    row.push_back(l.gpus[i].host_address.empty() ? "unknown" : md::Code(l.gpus[i].host_address));
    t.Row(std::move(row));
  }
  *out +=
      "GPU levels as the guest sees them, with the host's real level between the same GPUs "
      "(`P2P`: the host can route peer traffic between them, so an x-nv-gpudirect-clique can "
      "work; `?`: a host GPU is not known):\n\n" +
      t.Render() + "\n";
}

}  // namespace

void MdPassthrough(const View& view, const MachineView& mv, std::string* out) {
  const MachineLink* l = view.HostLinkOf(mv.machine.name);
  if (!l) return;
  *out += "#### Passthrough map (host " + md::Code(l->host, false) + ", VM " +
          md::Escape(l->vm_id) + ")\n\n";
  *out += "Linked by " + std::string(l->how == "smbios-uuid" ? "SMBIOS UUID" : "the notes") + ": " +
          md::Prose(l->evidence, false) + ".\n\n";
  md::Table t({"guest GPU", "root port", "port #", "slot", "host GPU", "from", "host NUMA",
               "host root complex", "IOMMU group", "host link"});
  for (const auto& p : l->gpus) {
    std::string link = p.host_link.current.gen.known() && p.host_link.current.width.known()
                           ? "Gen" + std::to_string(*p.host_link.current.gen) + " x" +
                                 std::to_string(*p.host_link.current.width)
                           : "-";
    t.Row({md::Code(p.guest_address), p.guest_port.empty() ? "-" : md::Code(p.guest_port),
           p.port_number.known() ? std::to_string(*p.port_number) : "?", OrDash(p.slot),
           p.host_address.empty() ? "unknown" : md::Code(p.host_address), OrDash(p.source),
           Short(p.host_numa_node), Short(p.host_root_complex), Short(p.host_iommu_group), link});
  }
  *out += t.Render() + "\n";
  for (const auto& p : l->gpus)
    *out += "- " + md::Code(p.guest_address) + ": " + md::Prose(p.why, false) + "\n";
  *out +=
      "\nGuest bus numbers follow slot order: on a Proxmox Q35 guest hostpci4-7 (ports at "
      "10.0-10.3) come before hostpci0-3 (1c.0-1c.3).\n\n";
  MdHostLevels(mv, *l, out);
}

}  // namespace dossier
