// qemu-args: the QEMU arguments that advertise a guest's passed-through GPUs to its NVIDIA driver
// as P2P cliques (vfio-pci's x-nv-gpudirect-clique=N, N 0-15): Proxmox's `args:` line, or for
// libvirt a <qemu:override> block (libvirt >= 8.2; with QEMU >= 6.2 libvirt passes -device as JSON,
// which `-set device.ID.PROP=V` does not reach) or, for an older libvirt whose QEMU got -device as
// key=value, the <qemu:commandline> -set form. The property only tells the guest driver that the
// GPUs can reach each other; the host must really route peer traffic between them. So a pair
// joins a clique only where the host's facts say it can (view/host_p2p.h: the host driver's P2P
// OK, or a shared switch); the pairs' verdicts come with the view's link (MachineLink::pairs), the
// same ones the report and p2p.vm-isolated show. Refuses without a linked host (the guest alone
// cannot tell), and when no pair can.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "generate/generator.h"
#include "generate/quote.h"
#include "generate/select.h"
#include "generate/vm_lookup.h"
#include "util/text.h"

namespace dossier {

using generate::ShellWord;
using generate::ValidLibvirtAlias;
using generate::ValidQemuId;
using generate::XmlEscape;
using generate::XmlProblem;
namespace {

constexpr size_t kMaxCliques = 16;  // x-nv-gpudirect-clique takes 0-15 (QEMU hw/vfio/pci-quirks.c)

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
  const bool libvirt = host.hypervisor.kind.value_or("") == "libvirt";
  // The guest GPUs whose host GPU is known, by index into l.gpus, in guest order.
  std::vector<size_t> gpus;
  std::vector<std::string> left_out;
  for (size_t i = 0; i < l.gpus.size(); ++i) {
    const PassthroughGpu& p = l.gpus[i];
    if (p.slot.empty() || p.host_address.empty()) {
      left_out.push_back(p.guest_address + ": its host GPU is not known (" + p.why + ")");
      continue;
    }
    // The id goes into the artifact run as root: one outside its syntax (an alias taken from a
    // domain XML can hold anything) is left out, never written.
    if (libvirt ? !ValidLibvirtAlias(p.slot) : !ValidQemuId(p.slot)) {
      left_out.push_back(p.guest_address + ": its device id '" + Printable(p.slot) +
                         "' is not a valid " +
                         (libvirt ? "libvirt alias (a letter, then letters, digits, '-', '_')"
                                  : "QEMU device id") +
                         "; left out");
      continue;
    }
    gpus.push_back(i);
  }
  auto can = [&](size_t i, size_t j) {
    const PassthroughPair* v = l.Pair(i, j);
    return v && v->clique;
  };
  // Greedy cliques in guest order: a GPU joins the first clique every member of which it can
  // reach.
  std::vector<std::vector<size_t>> cliques;
  for (size_t p : gpus) {
    bool placed = false;
    for (auto& c : cliques) {
      if (std::all_of(c.begin(), c.end(), [&](size_t q) { return can(q, p); })) {
        c.push_back(p);
        placed = true;
        break;
      }
    }
    if (!placed) cliques.push_back({p});
  }
  // Pairs grouped by what was found, in order of first appearance: a 8-GPU VM has 28 pairs.
  std::vector<std::pair<std::string, std::vector<std::string>>> pair_notes;
  for (size_t x = 0; x < gpus.size(); ++x)
    for (size_t y = x + 1; y < gpus.size(); ++y) {
      const PassthroughGpu &a = l.gpus[gpus[x]], &b = l.gpus[gpus[y]];
      const PassthroughPair* v = l.Pair(gpus[x], gpus[y]);
      std::string why = v ? (v->clique ? "P2P: " : "no clique: ") + v->why
                          : std::string("no clique: the host's facts do not say");
      std::string pair =
          fmt::format("{} ({}) - {} ({})", a.slot, a.host_address, b.slot, b.host_address);
      auto it = std::find_if(pair_notes.begin(), pair_notes.end(),
                             [&](const auto& n) { return n.first == why; });
      if (it == pair_notes.end())
        pair_notes.push_back({why, {pair}});
      else
        it->second.push_back(pair);
    }
  std::erase_if(cliques, [](const auto& c) { return c.size() < 2; });
  if (cliques.size() > kMaxCliques) cliques.resize(kMaxCliques);

  // (device id, clique number) of every GPU in a clique. libvirt's id is the device alias.
  std::vector<std::pair<std::string, size_t>> sets;
  for (size_t c = 0; c < cliques.size(); ++c)
    for (size_t i : cliques[c]) {
      std::string id = libvirt ? l.gpus[i].slot : DeviceId(l.gpus[i], hs.vm, host);
      if (!ValidQemuId(id)) continue;  // checked above; the ".0" of a whole device keeps it valid
      sets.push_back({id, c});
    }
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
  // libvirt: <qemu:override> unless the running QEMU shows key=value -device (an older libvirt,
  // where only the -set form works).
  const bool json_devices =
      !(hs.vm && hs.vm->qemu_json_devices.known() && !*hs.vm->qemu_json_devices);
  std::string commandline = "<qemu:commandline>\n";
  for (const auto& [id, c] : sets)
    commandline += "  <qemu:arg value='-set'/>\n  <qemu:arg value='" +
                   XmlEscape("device." + id + ".x-nv-gpudirect-clique=" + std::to_string(c)) +
                   "'/>\n";
  commandline += "</qemu:commandline>\n";
  const std::string ns =
      "<!-- inside <domain>, with xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0' on "
      "<domain> -->\n";
  if (libvirt && json_devices) {
    a.text = ns + "<qemu:override>\n";
    for (const auto& [id, c] : sets)
      a.text += "  <qemu:device alias='" + XmlEscape(id) +
                "'>\n    <qemu:frontend>\n      <qemu:property name='x-nv-gpudirect-clique' "
                "type='unsigned' value='" +
                std::to_string(c) + "'/>\n    </qemu:frontend>\n  </qemu:device>\n";
    a.text += "</qemu:override>\n";
  } else if (libvirt) {
    a.text = ns + commandline;
  } else {
    // Proxmox splits args: like a shell (PVE::Tools::split_args): each word quoted for one.
    a.text = "args:";
    for (const auto& [id, c] : sets)
      a.text +=
          " -set " + ShellWord("device." + id + ".x-nv-gpudirect-clique=" + std::to_string(c));
    a.text += "\n";
  }
  if (libvirt) {
    // Built as text for its layout; proved well-formed inside the <domain> it is pasted into.
    std::string domain =
        "<domain xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n" + a.text + "</domain>";
    if (std::string why = XmlProblem(domain); !why.empty())
      return Error{Error::kOther, "the generated block is not well-formed XML (" + why +
                                      "): a bug in dossier, please report it"};
  }
  std::string how;
  if (libvirt) {
    std::string seen =
        !hs.vm || !hs.vm->qemu_json_devices.known()
            ? "the VM is not running, so how libvirt passes its devices is not known; "
              "<qemu:override> is for libvirt >= 8.2"
        : *hs.vm->qemu_json_devices
            ? "its running QEMU got -device as JSON (" + hs.vm->qemu_json_devices.source +
                  "), which `-set device.…` does not reach"
            : "its running QEMU got -device as key=value (" + hs.vm->qemu_json_devices.source +
                  "), so the -set form works";
    how = "libvirt: put the block in the domain with `virsh edit " + ShellWord(l.vm_id) +
          "` (declare the qemu namespace on <domain>), then shut the domain down and start it "
          "(a reboot from inside keeps the old QEMU). The form follows what was seen: " +
          seen + ".";
    // Only when nothing was seen: a running QEMU with JSON -device ignores the -set form.
    if (!hs.vm || !hs.vm->qemu_json_devices.known())
      how += " For a libvirt older than 8.2 (QEMU < 6.2), the -set form instead:\n" + commandline;
  } else {
    how = "Proxmox: add the line to " + ShellWord("/etc/pve/qemu-server/" + l.vm_id + ".conf") +
          " (merge it with an args: line already there), then stop and start the VM (a "
          "reboot from inside keeps the old QEMU).";
  }
  a.notes = fmt::format(
      "{} clique(s) for VM {} on {} ({}):\n{}{} The property tells the guest driver the GPUs "
      "can reach each other; it changes nothing on the host. Check the bytes, not only the "
      "speed: dossier p2p.",
      cliques.size(), l.vm_id, l.host, libvirt ? "libvirt" : "Proxmox", why_pairs, how);
  a.verify = libvirt
                 ? "virsh dumpxml " + ShellWord(l.vm_id) +
                       " | grep -B2 -A2 gpudirect; on the host: pgrep -af qemu-system | grep -o "
                       "'x-nv-gpudirect-clique[^,}]*'; in the guest: nvidia-smi topo -p2p r; "
                       "dossier p2p"
                 : "qm showcmd " + ShellWord(l.vm_id) +
                       " | grep -o 'x-nv-gpudirect-clique=[0-9]*'; in the guest: nvidia-smi "
                       "topo -p2p r; dossier p2p";
  return a;
}

}  // namespace dossier
