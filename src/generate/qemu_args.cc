// qemu-args: the QEMU arguments that advertise a guest's passed-through GPUs to its NVIDIA driver
// as P2P cliques (vfio-pci's x-nv-gpudirect-clique=N, N 0-15): Proxmox's `args:` line, or the
// libvirt <qemu:commandline> block. The property only tells the guest driver that the GPUs can
// reach each other; the host must really route peer traffic between them. So a pair joins a
// clique only where the host's facts say it can: the host driver reported P2P read and write OK
// between the two GPUs (NVML, or an imported `nvidia-smi topo -p2p`), or they share a PCIe switch
// on the host (PIX/PXB). GPUs on separate root complexes with no P2P status from the host are
// left out, each with the reason, and the error says what to run on the host. Refuses without a
// linked host (the guest alone cannot tell).
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "generate/generator.h"
#include "generate/select.h"
#include "generate/vm_lookup.h"

namespace dossier {
namespace {

constexpr size_t kMaxCliques = 16;  // x-nv-gpudirect-clique takes 0-15 (QEMU hw/vfio/pci-quirks.c)

struct PairVerdict {
  bool can = false;
  std::string why;
};

std::string Cell(const std::vector<std::vector<std::string>>& m, size_t i, size_t j) {
  return i < m.size() && j < m[i].size() ? m[i][j] : "";
}

// Whether the host can carry P2P between its GPUs `a` and `b` (indices into its gpus), and why.
PairVerdict HostPair(const Machine& host, size_t a, size_t b) {
  const Topology& t = host.topology;
  std::string r = Cell(t.p2p_status.read, a, b), w = Cell(t.p2p_status.write, a, b);
  if (r == "OK" && w == "OK") return {true, "the host driver reports P2P read and write OK"};
  if (!r.empty() && r != "?" && r != "OK")
    return {false, "the host driver reports P2P read " + r + " (nvidia-smi topo -p2p)"};
  if (!w.empty() && w != "?" && w != "OK")
    return {false, "the host driver reports P2P write " + w + " (nvidia-smi topo -p2p)"};
  std::string level = Cell(t.gpu_levels, a, b);
  if (level == "PIX" || level == "PXB")
    return {true, "they share a PCIe switch on the host (" + level + ")"};
  return {false, "host level " + (level.empty() ? std::string("unknown") : level) +
                     ": across root complexes P2P depends on the CPU, and the host gave no P2P "
                     "status (its GPUs are bound to vfio-pci there)"};
}

// The QEMU device id Proxmox gives the GPU: hostpciN for a single function, hostpciN.0 when the
// whole device (all functions) is passed, as a configured address or mapping path without ".F".
std::string DeviceId(const PassthroughGpu& p, const Vm* vm, const Machine& host) {
  std::string configured;
  if (vm) {
    for (const auto& h : vm->hostpci) {
      if (h.slot != p.slot) continue;
      if (h.host.known()) configured = *h.host;
      if (configured.empty() && h.mapping.known())
        for (const auto& m : host.hypervisor.pci_mappings)
          if (m.name == *h.mapping)
            for (const auto& e : m.entries)
              if (e.path.known() && configured.empty()) configured = *e.path;
    }
  }
  std::string first = configured.substr(0, configured.find(';'));
  bool whole = !first.empty() && first.find('.') == std::string::npos;
  return whole ? p.slot + ".0" : p.slot;
}

}  // namespace

Result<Artifact> GenerateQemuArgs(const GenerateArgs& args, const View& view, const Analysis&) {
  auto picked = generate::PickLinkedGuest(args, view);
  if (!picked) return picked.error();
  const MachineLink& l = *picked->link;
  const generate::HostSide& hs = picked->host_side;
  const Machine& host = hs.host->machine;
  std::map<std::string, size_t> host_index;  // host GPU address -> index into host.gpus
  for (size_t i = 0; i < host.gpus.size(); ++i) host_index[host.gpus[i].address] = i;

  // The guest GPUs whose host GPU is known, in guest order.
  std::vector<const PassthroughGpu*> gpus;
  std::vector<std::string> left_out;
  for (const auto& p : l.gpus) {
    if (p.slot.empty() || p.host_address.empty() || !host_index.count(p.host_address)) {
      left_out.push_back(p.guest_address + ": its host GPU is not known (" + p.why + ")");
      continue;
    }
    gpus.push_back(&p);
  }
  // Greedy cliques in guest order: a GPU joins the first clique every member of which it can
  // reach; pairs that cannot are said once each.
  std::vector<std::vector<const PassthroughGpu*>> cliques;
  // Pairs grouped by what was found, in order of first appearance: a 8-GPU VM has 28 pairs.
  std::vector<std::pair<std::string, std::vector<std::string>>> pair_notes;
  for (const PassthroughGpu* p : gpus) {
    bool placed = false;
    for (auto& c : cliques) {
      bool all = true;
      for (const PassthroughGpu* q : c) {
        PairVerdict v = HostPair(host, host_index[q->host_address], host_index[p->host_address]);
        if (!v.can) all = false;
      }
      if (all) {
        c.push_back(p);
        placed = true;
        break;
      }
    }
    if (!placed) cliques.push_back({p});
  }
  for (size_t i = 0; i < gpus.size(); ++i)
    for (size_t j = i + 1; j < gpus.size(); ++j) {
      PairVerdict v =
          HostPair(host, host_index[gpus[i]->host_address], host_index[gpus[j]->host_address]);
      std::string why = (v.can ? "P2P: " : "no clique: ") + v.why;
      std::string pair = fmt::format("{} ({}) - {} ({})", gpus[i]->slot, gpus[i]->host_address,
                                     gpus[j]->slot, gpus[j]->host_address);
      auto it = std::find_if(pair_notes.begin(), pair_notes.end(),
                             [&](const auto& n) { return n.first == why; });
      if (it == pair_notes.end())
        pair_notes.push_back({why, {pair}});
      else
        it->second.push_back(pair);
    }
  std::erase_if(cliques, [](const auto& c) { return c.size() < 2; });
  if (cliques.size() > kMaxCliques) cliques.resize(kMaxCliques);

  const bool libvirt = host.hypervisor.kind.value_or("") == "libvirt";
  std::vector<std::string> sets;  // "device.ID.x-nv-gpudirect-clique=N"
  for (size_t c = 0; c < cliques.size(); ++c)
    for (const PassthroughGpu* p : cliques[c])
      sets.push_back("device." + (libvirt ? p->slot : DeviceId(*p, hs.vm, host)) +
                     ".x-nv-gpudirect-clique=" + std::to_string(c));

  std::string why_pairs;
  for (const auto& [why, pairs] : pair_notes) {
    std::string list;
    for (size_t i = 0; i < pairs.size() && i < 3; ++i) list += (i ? ", " : "") + pairs[i];
    if (pairs.size() > 3) list += fmt::format(" and {} more", pairs.size() - 3);
    why_pairs += fmt::format("  {} pair(s), {}: {}\n", pairs.size(), list, why);
  }
  for (const auto& n : left_out) why_pairs += "  " + n + "\n";
  if (sets.empty()) {
    return Error::Invalid(
        "no two GPUs of '" + l.guest +
        "' can form a P2P clique from what the dossier knows of "
        "the host '" +
        l.host + "':\n" + why_pairs +
        "Advertising a clique the host cannot route makes the guest driver use P2P that fails or "
        "corrupts data. To decide, bind the GPUs to the nvidia driver on the host for a moment "
        "and run `nvidia-smi topo -p2p rw` there (then `dossier collect` on the host, or "
        "`dossier import` of that output with --machine " +
        l.host + ").");
  }

  Artifact a;
  if (libvirt) {
    a.text =
        "<!-- in the domain element, with "
        "xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0' on <domain> -->\n"
        "<qemu:commandline>\n";
    for (const auto& s : sets)
      a.text += "  <qemu:arg value='-set'/>\n  <qemu:arg value='" + s + "'/>\n";
    a.text += "</qemu:commandline>\n";
  } else {
    a.text = "args:";
    for (const auto& s : sets) a.text += " -set " + s;
    a.text += "\n";
  }
  a.notes = fmt::format(
      "{} clique(s) for VM {} on {} ({}):\n{}"
      "{}: add the line to /etc/pve/qemu-server/{}.conf (merge it with an args: line already "
      "there), then stop and start the VM (a reboot from inside keeps the old QEMU). The property "
      "tells the guest driver the GPUs can reach each other; it changes nothing on the host. "
      "Check the bytes, not only the speed: dossier p2p.",
      cliques.size(), l.vm_id, l.host, libvirt ? "libvirt" : "Proxmox", why_pairs,
      libvirt ? "libvirt: put the block in the domain (virsh edit), the qemu namespace declared"
              : "Proxmox",
      l.vm_id);
  a.verify = libvirt
                 ? "virsh dumpxml " + l.vm_id +
                       " | grep -A2 gpudirect; in the guest: nvidia-smi topo -p2p r; dossier p2p"
                 : "qm showcmd " + l.vm_id +
                       " | grep -o 'x-nv-gpudirect-clique=[0-9]*'; in the guest: nvidia-smi "
                       "topo -p2p r; dossier p2p";
  return a;
}

}  // namespace dossier
