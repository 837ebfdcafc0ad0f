// P2P rules that follow from where the GPUs sit: a guest whose GPUs each hang off their own
// virtual root port (p2p.vm-isolated), and a host or bare-metal machine whose GPUs each sit alone
// under their own root complex (p2p.separate-root-complexes).
#include <algorithm>
#include <cctype>
#include <optional>
#include <set>

#include "analyze/cross_checks.h"
#include "analyze/evidence.h"
#include "analyze/pci_walk.h"
#include "analyze/roles.h"
#include "analyze/rule.h"

namespace dossier {
namespace {

// True when no two GPUs share a bridge, false when two do, nullopt when neither the PCI walk nor
// the level matrix says.
std::optional<bool> NoSharedBridge(const Machine& m, const std::vector<const PciDevice*>& gpus) {
  bool all_known = true;
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (size_t j = i + 1; j < gpus.size(); ++j) {
      PairPath p = PathBetween(m, *gpus[i], *gpus[j]);
      if (p.kind == PairPath::kSharedBridge) return false;
      if (p.kind == PairPath::kUnknown) all_known = false;
    }
  }
  if (all_known) return true;
  // The level matrix (from the PCI walk of analyze/topology) when parents were not recorded.
  const auto& lv = m.topology.gpu_levels;
  if (lv.size() < 2) return std::nullopt;
  for (size_t i = 0; i < lv.size(); ++i) {
    for (size_t j = 0; j < lv[i].size(); ++j) {
      if (i == j) continue;
      const std::string& l = lv[i][j];
      if (l == "PIX" || l == "PXB" || l.rfind("NV", 0) == 0) return false;
      if (l != "PHB" && l != "NODE" && l != "SYS") return std::nullopt;
    }
  }
  return true;
}

std::string TpFlag(const Machine& m, std::vector<Evidence>* ev) {
  for (const auto& s : m.servers) {
    for (const char* f : {"--tp-size", "--tp", "--tensor-parallel-size"}) {
      auto it = s.flags.find(f);
      if (it == s.flags.end()) continue;
      ev->push_back(Ev(s.engine + " server (pid " + std::to_string(s.pid) + ") " + f, it->second,
                       "/proc/" + std::to_string(s.pid) + "/cmdline"));
      return it->second;
    }
  }
  return "";
}

// The latest small-message latency the dossier measured between two GPUs, as evidence.
void LatencyEvidence(const MachineView& mv, std::vector<Evidence>* ev) {
  if (mv.p2p.empty()) return;
  const P2pMeasurement& pm = mv.p2p.back();
  for (const auto& r : pm.results) {
    if (r.mode.rfind("latency", 0) != 0 || !r.latency_us.known() || r.src < 0 || r.dst < 0)
      continue;
    ev->push_back(Ev("measured latency GPU " + std::to_string(r.src) + " -> " +
                         std::to_string(r.dst) + " (" + r.mode + ")",
                     std::to_string(*r.latency_us) + " us", "p2p measurement " + pm.time));
    return;
  }
}

std::string CliqueArgs(size_t n) {
  std::string out = "args: ";
  for (size_t i = 0; i < n; ++i) {
    out += (i ? " " : "") + std::string("-set device.hostpci") + std::to_string(i) +
           ".x-nv-gpudirect-clique=0";
  }
  return out;
}

// The host's verdict on each guest GPU pair (view/host_p2p.h, carried by the link), grouped by
// host level and verdict so that an 8-GPU VM's 28 pairs read as a few lines: "host level SYS,
// 16 pairs (GPU0-GPU4, …): no clique: …". Guest GPU numbers are the guest's GPU order.
struct PairGroup {
  std::string level, why;
  bool clique = false;
  bool decided = false;
  std::vector<std::string> pairs;
};

std::vector<PairGroup> HostPairGroups(const MachineLink& l) {
  std::vector<PairGroup> groups;
  for (const auto& p : l.pairs) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const PairGroup& g) {
      return g.level == p.host_level && g.clique == p.clique && g.decided == p.decided &&
             g.why == p.why;
    });
    if (it == groups.end()) {
      groups.push_back({p.host_level, p.why, p.clique, p.decided, {}});
      it = groups.end() - 1;
    }
    it->pairs.push_back("GPU" + std::to_string(p.a) + "-GPU" + std::to_string(p.b));
  }
  return groups;
}

// The verdict may open with the level itself ("host level SYS: …"): said once where the level
// is named already.
std::string WithoutLevel(const PairGroup& g) {
  std::string level = "host level " + (g.level.empty() ? std::string("unknown") : g.level);
  return g.why.rfind(level + ": ", 0) == 0 ? g.why.substr(level.size() + 2) : g.why;
}

void HostPairEvidence(const MachineLink& l, const std::vector<PairGroup>& groups, Finding* f) {
  for (const auto& g : groups) {
    std::string list;
    for (size_t i = 0; i < g.pairs.size() && i < 6; ++i) list += (i ? ", " : "") + g.pairs[i];
    if (g.pairs.size() > 6) list += ", … (" + std::to_string(g.pairs.size() - 6) + " more)";
    f->evidence.push_back(Ev("host level " + (g.level.empty() ? std::string("unknown") : g.level) +
                                 ", " + std::to_string(g.pairs.size()) + " guest GPU pair(s) " +
                                 list,
                             (g.clique    ? "x-nv-gpudirect-clique can help: "
                              : g.decided ? "no clique: "
                                          : "not known: ") +
                                 WithoutLevel(g),
                             "host " + l.host + ", VM " + l.vm_id + " (passthrough map)"));
  }
}

// Evidence of p2p.vm-isolated; returns the tensor-parallel size the server runs with ("" when
// unknown) and the guest's host when the dossier holds it.
const MachineView* VmIsolatedEvidence(const RuleContext& ctx,
                                      const std::vector<const PciDevice*>& gpus, Finding* fp,
                                      std::string* tp_out) {
  const Machine& m = ctx.m();
  Finding& f = *fp;
  f.evidence.push_back(Ev("virtual machine", m.virtualization.guest));
  f.evidence.push_back(Ev("hypervisor", m.virtualization.hypervisor));
  for (const PciDevice* g : gpus)
    f.evidence.push_back(Ev("GPU " + g->address + " parent", g->parent));
  if (!m.topology.gpu_levels.empty())
    f.evidence.push_back(Ev("GPU pair levels (PCI walk)", "no pair shares a switch or bridge",
                            "topology.gpu_levels"));
  LatencyEvidence(ctx.mv, &f.evidence);
  *tp_out = TpFlag(m, &f.evidence);

  const MachineView* host = HostOf(ctx);
  if (host) {
    auto hg = GpuDevices(host->machine);
    std::set<std::string> rcs;
    for (const PciDevice* g : hg) rcs.insert(RootComplexOf(host->machine, *g));
    f.evidence.push_back(Ev("host " + host->machine.name + " GPUs",
                            std::to_string(hg.size()) + " GPUs under " +
                                std::to_string(rcs.size()) + " root complex(es)",
                            host->record.file.empty() ? "host record" : host->record.file));
    if (const MachineLink* l = ctx.view.HostLinkOf(m.name))
      HostPairEvidence(*l, HostPairGroups(*l), &f);
  }

  return host;
}

// The step that settles an open clique verdict: the host's driver's own P2P status. The same
// words and command from p2p.vm-isolated (on the guest) and p2p.separate-root-complexes (on the
// host), so the plan lists it once.
Action FindOutHostP2p(const std::string& guest) {
  return {
      "Find out whether the host can route P2P between these GPUs: bind two of them to the "
      "nvidia driver on the host for a moment (the VM stopped), run `nvidia-smi topo -p2p rw` "
      "there and collect or import it into the dossier; where it says OK, the "
      "x-nv-gpudirect-clique generator then writes the VM config change.",
      "nvidia-smi topo -p2p rw   # on the host; then: dossier generate qemu-args" +
          (guest.empty() ? std::string() : " --machine " + guest),
      "host"};
}

// Explanation, what will not help and actions of p2p.vm-isolated.
void VmIsolatedAdvice(const Machine& m, const MachineVerdicts& verdicts, const MachineLink* link,
                      size_t gpu_count, const std::string& tp, Finding* fp) {
  Finding& f = *fp;
  // Whether ACS matters on the host is the host's verdict (analyze/verdicts.h), not this rule's.
  bool acs_moot = verdicts.acs.answer == Answer::kNo;
  f.explanation =
      "This is a virtual machine whose GPUs are passed through with VFIO. Each GPU sits behind its "
      "own emulated PCIe root port, and no virtual switch or bridge is shared by any two of them, "
      "so the NVIDIA driver in the guest sees no path it knows to be peer-capable: it reports P2P "
      "as not supported (NS), and CUDA and NCCL stage every GPU-to-GPU copy through host memory "
      "(two PCIe crossings and a CPU synchronisation: about 10+ us per small message instead of "
      "about 1 us). On the host, VFIO puts each GPU in its own IOMMU domain; a peer write from one "
      "GPU to another's memory window is translated by the host IOMMU and routed by the host's "
      "root complexes. The guest can neither see nor change any of that. ";
  if (acs_moot) {
    f.explanation += "On the host, " + verdicts.acs.why + ": no ACS setting can create a P2P path.";
  } else {
    f.explanation +=
        "If the host's GPUs each sit under their own root complex (check the host's record or "
        "`lspci -tv` there), ACS has no shared bridge to act on there either.";
  }

  f.not_helping = {
      "Changing ACS inside the guest: the guest's root ports are emulated by QEMU; their ACS bits "
      "reach neither the host's bridges nor its IOMMU.",
      "Disabling ACS in the host BIOS: ACS acts only on a bridge two devices share; with none, the "
      "change only renumbers IOMMU groups (and breaks VM device mappings keyed by group).",
      "NCCL_P2P_LEVEL or NCCL_P2P_DISABLE=0: NCCL uses P2P only when the driver reports P2P read "
      "and write OK; no NCCL setting turns NS into OK.",
      "pcie_acs_override on the host: it pretends isolation to split IOMMU groups; it never "
      "creates a P2P path.",
  };
  if (link && !link->pairs.empty()) {
    // The host is in the dossier: say for which pairs a clique can help, and why not elsewhere.
    std::vector<PairGroup> groups = HostPairGroups(*link);
    std::string can, cannot, open;
    size_t can_pairs = 0;
    for (const auto& g : groups) {
      std::string line = "host level " + (g.level.empty() ? std::string("unknown") : g.level) +
                         " (" + std::to_string(g.pairs.size()) + " pair(s)): " + WithoutLevel(g);
      std::string& to = g.clique ? can : g.decided ? cannot : open;
      to += to.empty() ? line : "; " + line;
      if (g.clique) can_pairs += g.pairs.size();
    }
    std::vector<std::string> parts;
    if (!can.empty()) parts.push_back("a P2P clique can work where " + can);
    if (!cannot.empty()) parts.push_back("a clique would not help where " + cannot);
    if (!open.empty()) parts.push_back("whether a clique would work is not known where " + open);
    f.explanation +=
        " Per guest GPU pair, the host (" + link->host + ", VM " + link->vm_id + ") says: ";
    for (size_t i = 0; i < parts.size(); ++i) f.explanation += (i ? "; " : "") + parts[i];
    f.explanation += ".";
    // Whether a clique works is the pair's verdict: advised, moot, or to be found out.
    if (verdicts.clique.answer == Answer::kYes) {
      f.actions.push_back(
          {"Advertise the GPUs the host can route P2P between (" + std::to_string(can_pairs) +
               " pair(s), see the evidence) to the guest driver as P2P cliques with QEMU's "
               "vfio-pci option x-nv-gpudirect-clique; the generator writes the VM config change "
               "for exactly those and says why for every pair. Then check the bytes, not only "
               "the speed.",
           "dossier generate qemu-args --machine " + link->guest +
               "   # then in the guest: nvidia-smi topo -p2p r; dossier p2p",
           "host"});
    } else if (verdicts.clique.answer == Answer::kNo) {
      f.not_helping.push_back(
          "x-nv-gpudirect-clique (QEMU vfio-pci) for these GPUs: " + verdicts.clique.why + ".");
    } else {
      f.actions.push_back(FindOutHostP2p(link->guest));
    }
  } else {
    f.actions.push_back(
        {"Where the host can do P2P between these GPUs (bare metal on the same host shows P2P "
         "OK), advertise them to the guest driver as one P2P clique with QEMU's vfio-pci option "
         "x-nv-gpudirect-clique. Proxmox: pass each GPU as the single function ….00.0 (so QEMU "
         "names it hostpciN, not hostpciN.0) and add to /etc/pve/qemu-server/VMID.conf: `" +
             CliqueArgs(gpu_count) +
             "`. With the host collected into the dossier, `dossier generate qemu-args` writes "
             "it for the pairs the host can route. Then check the bytes, not only the speed.",
         "nvidia-smi topo -p2p r   # in the guest: OK between the GPUs; then: dossier p2p",
         "host"});
  }
  // A topology file the server already names was read and checked: say so instead of advising one.
  if (std::string topo = TopoFileAlreadySet(m); !topo.empty()) {
    f.not_helping.push_back("Another NCCL topology file: " + topo +
                            ". It places rings and CPU threads; it does not make P2P available.");
  } else {
    f.actions.push_back(
        {"Give NCCL a topology file describing the host's real tree (an XML <system> with a <cpu "
         "numaid=…> per NUMA node and each GPU's <pci busid=…> under it, as on the host) and set "
         "NCCL_TOPO_FILE=/etc/nccl-topo.xml in the server's environment. It lets NCCL place rings "
         "and CPU threads well; it does not by itself make P2P available.",
         "NCCL_DEBUG=INFO <server command> 2>&1 | grep -i topo", ""});
  }
  f.actions.push_back(
      {"Use a parallelism layout with less cross-GPU traffic" +
           (tp.empty() ? std::string() : " (now tensor parallel " + tp + ")") +
           ", for example tensor parallel 4 with pipeline parallel 2 instead of tensor parallel "
           "8, and measure both.",
       "dossier serve-bench URL --concurrency 1,64", ""});
  f.actions.push_back(
      {"Run the model on bare metal (the host itself), where the driver sees the real topology "
       "and can use P2P across root complexes where the platform supports it.",
       "nvidia-smi topo -p2p r   # on the host, with the nvidia driver bound", "host"});
}

// What the notes say was done to ACS (a just-changed fact or a tried entry naming it), with the
// notes line; "" when they say nothing.
std::string AcsChangeInNotes(const Notes& n) {
  auto names_acs = [](const std::string& s) {
    for (size_t at = s.find("ACS"); at != std::string::npos; at = s.find("ACS", at + 1)) {
      bool left = at == 0 || !std::isalnum(static_cast<unsigned char>(s[at - 1]));
      bool right = at + 3 >= s.size() || !std::isalnum(static_cast<unsigned char>(s[at + 3]));
      if (left && right) return true;
    }
    return false;
  };
  std::string where = n.path.empty() ? std::string("notes.toml") : n.path;
  for (const auto& f : n.facts)
    if (f.status == "just-changed" && names_acs(f.name))
      return f.name + " " + f.value + " (just changed, " + where + ":" + std::to_string(f.line) +
             ")";
  for (const auto& t : n.tried)
    if (names_acs(t.what))
      return t.what + (t.result.empty() ? "" : " → " + t.result) + " (" + where + ":" +
             std::to_string(t.line) + ")";
  return "";
}

}  // namespace

std::optional<Finding> RuleP2pVmIsolated(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  if (!IsGuest(m)) return std::nullopt;
  auto gpus = GpuDevices(m);
  if (gpus.size() < 2) return std::nullopt;
  std::optional<bool> isolated = NoSharedBridge(m, gpus);
  if (!isolated || !*isolated) return std::nullopt;
  Finding f;
  f.title = std::to_string(gpus.size()) +
            " GPUs passed through, each behind its own virtual root port: GPU peer-to-peer is "
            "unavailable or staged through host memory";
  std::string tp;
  const MachineView* host = VmIsolatedEvidence(ctx, gpus, &f, &tp);
  (void)host;
  VmIsolatedAdvice(m, ctx.V(), ctx.view.HostLinkOf(m.name), gpus.size(), tp, &f);
  return f;
}

std::optional<Finding> RuleP2pSeparateRootComplexes(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  if (!IsNotGuest(m) || !GpusOnSeparateRootComplexes(m)) return std::nullopt;
  auto gpus = GpuDevices(m);
  Finding f;
  f.title = "Each of the " + std::to_string(gpus.size()) +
            " GPUs sits alone under its own root complex: P2P depends on the CPU's fabric, and "
            "ACS has no shared bridge to act on";
  bool vfio = false;
  for (const PciDevice* g : gpus) {
    f.evidence.push_back(Ev("GPU " + g->address + " root complex", g->root_complex));
    vfio = vfio || BoundToVfio(*g);
  }
  if (m.cpu.model.known()) f.evidence.push_back(Ev("CPU", m.cpu.model));
  f.explanation =
      "No PCIe switch or root port is shared by any two GPUs. Peer-to-peer traffic between them "
      "must cross the CPU's internal fabric (AMD Infinity Fabric between root complexes, the "
      "inter-socket link across sockets); whether the NVIDIA driver allows it is the platform's "
      "call (nvidia-smi topo -m shows NODE within a socket, SYS across). ACS lives on bridges and "
      "switch ports: with no bridge shared by two GPUs, ACS settings can neither enable nor block "
      "anything between them; changing ACS only renumbers IOMMU groups.";
  if (vfio) {
    f.explanation +=
        " These GPUs are bound to vfio-pci for guests: each is its own IOMMU group, and a guest "
        "sees them behind separate virtual root ports (see p2p.vm-isolated on the guest).";
  }
  // Someone changed ACS hoping for P2P: the time it costs is real, say it louder.
  if (const std::string acs = AcsChangeInNotes(ctx.notes); !acs.empty()) {
    f.severity = kWarning;
    f.evidence.push_back(Ev("ACS changed, per the notes", acs, "notes"));
  }
  f.not_helping = {
      "Disabling ACS (BIOS, setpci, pci=disable_acs_redir): there is no shared bridge for it to "
      "act on.",
      "pcie_acs_override: it only splits IOMMU groups further.",
  };
  if (vfio) {
    // For its guests: the clique verdict of the guest/host pair (analyze/verdicts.h).
    std::string guest;
    for (const auto& l : ctx.view.links)
      if (l.host == m.name) guest = guest.empty() ? l.guest : guest;
    const Verdict& clique = ctx.V().clique;
    if (clique.answer == Answer::kYes) {
      f.actions.push_back(
          {"For a guest: advertise the GPU pairs this host can route P2P between as P2P cliques "
           "(QEMU vfio-pci x-nv-gpudirect-clique): " +
               clique.why + "; the generator writes the VM config change for exactly those.",
           "dossier generate qemu-args" + (guest.empty() ? std::string() : " --machine " + guest) +
               "   # then in the guest: nvidia-smi topo -p2p r; dossier p2p",
           ""});
    } else if (clique.answer == Answer::kNo) {
      f.not_helping.push_back("x-nv-gpudirect-clique (QEMU vfio-pci) for a guest: " + clique.why +
                              ".");
    } else {
      Action a = FindOutHostP2p(guest);
      a.where = "";
      f.actions.push_back(std::move(a));
    }
  } else {
    f.actions.push_back({"Check what the driver allows between these GPUs, and measure it.",
                         "nvidia-smi topo -p2p r && dossier p2p", ""});
  }
  f.actions.push_back(
      {"Keep the GPUs that talk most within one CPU socket (NODE is faster than SYS): choose the "
       "GPU order of the tensor-parallel group by NUMA node (CUDA_VISIBLE_DEVICES).",
       "nvidia-smi topo -m", ""});
  return f;
}

}  // namespace dossier
