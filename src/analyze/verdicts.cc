#include "analyze/verdicts.h"

#include <algorithm>
#include <cctype>

#include "analyze/evidence.h"
#include "analyze/pci_walk.h"
#include "analyze/roles.h"
#include "analyze/rule.h"
#include "view/host_p2p.h"

namespace dossier {
namespace {

std::string VerdictLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// `w` (lower case) in `t` (lower case); a word of letters only must stand alone ("acs" is not in
// "acsctl"), or with `stem`, only start a word ("crash" is in "crashes").
bool VerdictHasWord(const std::string& t, const std::string& w, bool stem = false) {
  bool letters = std::all_of(w.begin(), w.end(), [](char c) { return std::isalpha(c) != 0; });
  for (size_t at = t.find(w); at != std::string::npos; at = t.find(w, at + 1)) {
    if (!letters) return true;
    bool left = at == 0 || !std::isalnum(static_cast<unsigned char>(t[at - 1]));
    size_t end = at + w.size();
    bool right = stem || end >= t.size() || !std::isalnum(static_cast<unsigned char>(t[end]));
    if (left && right) return true;
  }
  return false;
}

std::string NotesAt(const Notes& n, int64_t line) {
  std::string name = n.path.empty() ? std::string("notes.toml") : n.path;
  if (size_t slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
  return name + ":" + std::to_string(line);
}

bool RedirectsP2p(const PciDevice& d) {
  if (!d.acs.control.known()) return false;
  const auto& c = *d.acs.control;
  return std::find(c.begin(), c.end(), "RR") != c.end() ||
         std::find(c.begin(), c.end(), "CR") != c.end();
}

// Does ACS stand in the way of P2P between the GPUs of a machine that is not a guest.
Verdict AcsOnMachine(const Machine& m) {
  Verdict v;
  v.question = "Does ACS stand in the way of P2P between the GPUs of " + m.name + "?";
  auto gpus = GpuDevices(m);
  if (gpus.size() < 2) {
    v.why = "fewer than two GPUs of " + m.name + " are known";
    return v;
  }
  if (GpusOnSeparateRootComplexes(m)) {
    v.answer = Answer::kNo;
    v.why = "each of the " + std::to_string(gpus.size()) + " GPUs of " + m.name +
            " sits alone under its own root complex: there is no bridge two GPUs share for ACS "
            "to act on; changing ACS only renumbers IOMMU groups (and breaks VM device mappings "
            "keyed by group)";
    for (const PciDevice* g : gpus) {
      v.evidence.push_back(
          Ev("GPU " + g->address + " root complex", RootComplexOf(m, *g),
             g->root_complex.source.empty() ? "PCI walk" : g->root_complex.source));
    }
    return v;
  }
  bool unknown = false;
  std::vector<std::string> redirecting;
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (size_t j = i + 1; j < gpus.size(); ++j) {
      PairPath p = PathBetween(m, *gpus[i], *gpus[j]);
      if (p.kind == PairPath::kUnknown) unknown = true;
      if (p.kind != PairPath::kSharedBridge && p.kind != PairPath::kSameRootComplex) continue;
      std::vector<const PciDevice*> below = p.below_a;
      below.insert(below.end(), p.below_b.begin(), p.below_b.end());
      for (const PciDevice* br : below) {
        if (!br->acs.control.known() && br->acs.present.value_or(true)) unknown = true;
        if (RedirectsP2p(*br) &&
            std::find(redirecting.begin(), redirecting.end(), br->address) == redirecting.end()) {
          redirecting.push_back(br->address);
          v.evidence.push_back(Ev(br->address + " ACS control", br->acs.control));
        }
      }
    }
  }
  if (!redirecting.empty()) {
    v.answer = Answer::kYes;
    v.why = "ACS redirect is on at " + JoinList(redirecting, 4) +
            ", on the path between two GPUs: their P2P goes up through the root complex";
  } else if (!unknown) {
    v.answer = Answer::kNo;
    v.why = "no bridge on the path between two GPUs of " + m.name + " redirects P2P";
  } else {
    size_t lines = 0;
    for (const auto& l : m.pci.acs_lines)
      if (l.control.known()) ++lines;
    v.why = "where the GPUs of " + m.name + " sit, or the ACS bits of the bridges between them, " +
            "is not known" +
            (lines ? " (the " + std::to_string(lines) +
                         " pasted ACSCtl line(s) do not say which bridge each belongs to)"
                   : std::string());
  }
  return v;
}

Verdict CliqueFromPairs(const std::vector<PairVerdict>& pairs, const std::string& whose) {
  Verdict v;
  v.question = "Would a P2P clique (x-nv-gpudirect-clique) work for the GPUs of " + whose + "?";
  size_t yes = 0, no = 0, open = 0;
  std::string open_why, no_why;
  for (const auto& p : pairs) {
    if (p.can == Answer::kYes) ++yes;
    if (p.can == Answer::kNo) ++no, no_why = p.why;
    if (p.can == Answer::kUnknown) ++open, open_why = p.why;
  }
  if (pairs.empty()) {
    v.why = "no GPU pair of " + whose + " is known on its host";
  } else if (yes > 0) {
    v.answer = Answer::kYes;
    v.why = "the host can route P2P for " + std::to_string(yes) + " of " +
            std::to_string(pairs.size()) + " GPU pair(s)";
  } else if (open == 0) {
    v.answer = Answer::kNo;
    v.why = "the host's facts show no GPU pair it can route P2P between (" + no_why +
            "): a clique only tells the guest driver the GPUs can reach each other";
  } else {
    v.why = "not known from the host's facts: " + open_why +
            "; bind two GPUs to the nvidia driver on the host for a moment and run `nvidia-smi "
            "topo -p2p rw` there to know";
  }
  v.evidence.push_back(
      Ev("GPU pairs the host can / cannot / cannot tell route P2P",
         std::to_string(yes) + " / " + std::to_string(no) + " / " + std::to_string(open),
         "view/host_p2p (passthrough map)"));
  return v;
}

Answer PairAnswer(bool decided, bool can) {
  return !decided ? Answer::kUnknown : can ? Answer::kYes : Answer::kNo;
}

Verdict IommuOn(const Machine& m) {
  Verdict v;
  v.question = "Is the IOMMU of " + m.name + " on?";
  if (m.iommu.enabled.known()) {
    v.answer = *m.iommu.enabled ? Answer::kYes : Answer::kNo;
    v.why = *m.iommu.enabled ? "the kernel formed IOMMU groups" : "no IOMMU groups";
  } else {
    v.why = m.iommu.enabled.unknown.empty() ? "not recorded" : m.iommu.enabled.unknown;
  }
  v.evidence.push_back(Ev("IOMMU enabled", m.iommu.enabled));
  return v;
}

Verdict NumaKnown(const Machine& m) {
  Verdict v;
  v.question = "Is each GPU's NUMA node known on " + m.name + "?";
  size_t known = 0, lost = 0;
  const auto gpus = GpuNumaNodes(m);
  for (const auto& g : gpus) {
    if (!g.node->known()) continue;
    (**g.node < 0 ? lost : known) += 1;
    if (**g.node < 0 && v.evidence.size() < 8)
      v.evidence.push_back(Ev("GPU " + g.address + " numa_node", *g.node));
  }
  if (lost > 0) {
    v.answer = Answer::kNo;
    v.why = std::to_string(lost) + " GPU(s) at numa_node -1";
  } else if (known > 0 && known == gpus.size()) {
    v.answer = Answer::kYes;
    v.why = "every GPU's numa_node is set";
  } else {
    v.why = gpus.empty() ? "no GPU known" : "some GPUs' numa_node is not recorded";
  }
  return v;
}

// The machines whose notes apply with this one's: itself, its host, its guests.
std::set<std::string> Related(const View& view, const std::string& me) {
  std::set<std::string> out{me};
  for (const auto& l : view.links) {
    if (l.guest == me) out.insert(l.host);
    if (l.host == me) out.insert(l.guest);
  }
  for (const auto& nm : view.notes.machines) {
    if (nm.name == me && !nm.guest_of.empty()) out.insert(nm.guest_of);
    if (nm.guest_of == me) out.insert(nm.name);
  }
  return out;
}

// The "will not help" line a verdict's "no" gives a topic.
std::string MootLine(const std::string& topic, const Verdict& v) {
  // One line for both ways of changing ACS: the verdict is the same for both.
  if (topic == "acs-bios" || topic == "acs-kernel")
    return "Changing ACS (BIOS, setpci, pci=disable_acs_redir): " + v.why;
  if (topic == "p2p-clique") return "x-nv-gpudirect-clique (QEMU vfio-pci): " + v.why;
  return topic + ": " + v.why;
}

void TopicsFromVerdicts(const View& view, MachineVerdicts* mv) {
  for (const auto& t : AdviceTopics()) {
    const Verdict* v = std::string(t.question) == "acs"      ? &mv->acs
                       : std::string(t.question) == "clique" ? &mv->clique
                                                             : nullptr;
    if (!v) continue;
    TopicState& s = mv->topics[t.id];
    if (v->answer == Answer::kYes) s.kind = TopicState::kAdvised;
    if (v->answer == Answer::kNo) {
      s.kind = TopicState::kMoot;
      s.line = MootLine(t.id, *v);
    }
  }
  // The notes: what was tried on this machine, its host or its guests is not advised again; what
  // failed is known not to help, once, with the note's line.
  std::set<std::string> related = Related(view, mv->machine);
  for (const auto& tr : view.notes.tried) {
    if (!tr.machine.empty() && !related.count(tr.machine)) continue;
    const std::string at = NotesAt(view.notes, tr.line);
    for (const auto& id : TopicsOf(tr.what)) {
      TopicState& s = mv->topics[id];
      if (!s.done.empty()) continue;  // the first entry about it
      s.done = tr.what + (tr.result.empty() ? "" : " → " + tr.result) + " (" + at + ")";
      s.failed = TriedFailed(tr.result);
      if (s.kind == TopicState::kMoot) {
        // The verdict's reason, and the note that shows it.
        s.line += "; tried: " + s.done;
      } else if (s.failed) {
        s.line = tr.what + ": " + (tr.result.empty() ? std::string("did not work") : tr.result) +
                 " (tried, " + at + ")";
      } else {
        s.line = tr.what + ": done already" + (tr.result.empty() ? "" : " (" + tr.result + ")") +
                 " (tried, " + at + ")";
      }
      s.kind = TopicState::kMoot;  // done: never advised again
    }
  }
}

}  // namespace

const char* AnswerWord(Answer a) {
  return a == Answer::kYes ? "yes" : a == Answer::kNo ? "no" : "unknown";
}

const MachineVerdicts& VerdictTable::Of(const std::string& machine) const {
  static const MachineVerdicts kNone;
  for (const auto& m : machines)
    if (m.machine == machine) return m;
  return kNone;
}

const std::vector<AdviceTopic>& AdviceTopics() {
  static const std::vector<AdviceTopic> kTopics = {
      {"acs-bios", "acs", {{"acs", "bios"}}},
      {"acs-kernel",
       "acs",
       {{"disable_acs_redir"}, {"config_acs"}, {"ecap_acs"}, {"setpci", "acs"}}},
      {"acs-override", "", {{"pcie_acs_override"}, {"acs override"}}},
      {"p2p-clique", "clique", {{"gpudirect-clique"}, {"p2p clique"}}},
      {"iommu-passthrough", "", {{"iommu=pt"}, {"iommu", "passthrough mode"}}},
      {"pci-realloc", "", {{"pci=realloc"}}},
      {"q35", "", {{"i440fx", "q35"}}},
      {"nccl-p2p-level", "", {{"nccl_p2p_level"}, {"nccl_p2p_disable"}}},
      {"torch-arch", "", {{"torch_cuda_arch_list"}}},
      {"pve-mapping", "", {{"pci.cfg"}, {"pve-mapping"}}},
  };
  return kTopics;
}

std::set<std::string> TopicsOf(const std::string& text) {
  std::set<std::string> out;
  std::string t = VerdictLower(text);
  for (const auto& topic : AdviceTopics()) {
    for (const auto& group : topic.words) {
      bool all = !group.empty();
      for (const char* w : group) all = all && VerdictHasWord(t, w);
      if (all) out.insert(topic.id);
    }
  }
  return out;
}

std::vector<GpuNumaNode> GpuNumaNodes(const Machine& m) {
  std::vector<GpuNumaNode> out;
  for (const PciDevice* d : GpuDevices(m)) {
    const Fact<int64_t>* node = &d->numa_node;
    for (const auto& g : m.gpus)
      if (g.address == d->address && g.numa_node.known()) node = &g.numa_node;
    out.push_back({d->address, node});
  }
  // GPUs known without their PCI device (an imported nvidia-smi or topo -m).
  for (const auto& g : m.gpus)
    if (std::none_of(out.begin(), out.end(),
                     [&](const GpuNumaNode& n) { return n.address == g.address; }))
      out.push_back({g.address, &g.numa_node});
  return out;
}

bool TriedFailed(const std::string& result) {
  std::string r = VerdictLower(result);
  // Words of a result that did not work; "errors gone" worked, so "error" is not among them.
  for (const char* w : {"fail", "crash", "nan", "no longer", "did not", "didn't", "does not",
                        "doesn't", "no effect", "no change", "unchanged", "not help", "worse",
                        "hang", "broke", "no difference", "not work", "segfault", "regress"})
    if (VerdictHasWord(r, w, true)) return true;
  return false;
}

VerdictTable DecideVerdicts(const View& view) {
  VerdictTable t;
  t.machines.resize(view.machines.size());
  // Machines that are not guests first: a guest's ACS answer is its host's.
  for (size_t i = 0; i < view.machines.size(); ++i) {
    const MachineView& mv = view.machines[i];
    const Machine& m = mv.machine;
    MachineVerdicts& v = t.machines[i];
    v.machine = m.name;
    v.iommu = IommuOn(m);
    v.numa = NumaKnown(m);
    if (const MachineLink* l = view.HostLinkOf(m.name)) {
      for (const auto& p : l->pairs)
        v.pairs.push_back({l->gpus[p.a].guest_address, l->gpus[p.b].guest_address, p.host_level,
                           PairAnswer(p.decided, p.clique), p.why});
      v.clique =
          CliqueFromPairs(v.pairs, m.name + " (from host " + l->host + ", VM " + l->vm_id + ")");
    } else if (!IsGuest(m)) {
      for (size_t a = 0; a < m.gpus.size(); ++a)
        for (size_t b = a + 1; b < m.gpus.size(); ++b) {
          HostP2p h = HostP2pBetween(m, m.gpus[a].address, m.gpus[b].address);
          v.pairs.push_back(
              {m.gpus[a].address, m.gpus[b].address, h.level, PairAnswer(h.decided, h.can), h.why});
        }
    }
    if (!IsGuest(m)) v.acs = AcsOnMachine(m);
  }
  for (size_t i = 0; i < view.machines.size(); ++i) {
    const MachineView& mv = view.machines[i];
    MachineVerdicts& v = t.machines[i];
    const Machine& m = mv.machine;
    if (IsGuest(m)) {
      static const MachineDiff kNoChanges;
      RuleContext c{mv, view, view.notes, kNoChanges};
      const MachineView* host = HostOf(c);
      if (host) {
        v.acs = t.Of(host->machine.name).acs;
      } else {
        v.acs.question = "Does ACS stand in the way of P2P between the GPUs of " + m.name + "?";
        v.acs.why =
            "the guest's bridges are emulated; its host's are not in the dossier (collect or "
            "import the host)";
      }
      if (!view.HostLinkOf(m.name)) {
        v.clique.question =
            "Would a P2P clique (x-nv-gpudirect-clique) work for the GPUs of " + m.name + "?";
        v.clique.why = "the guest's host, or the VM behind it, is not in the dossier";
      }
    } else {
      // A host: the clique its guests could use (one answer for both sides of the pair).
      std::vector<PairVerdict> guests_pairs;
      for (const auto& l : view.links)
        if (l.host == m.name)
          for (const auto& p : t.Of(l.guest).pairs) guests_pairs.push_back(p);
      bool vfio = false;
      for (const PciDevice* g : GpuDevices(m)) vfio = vfio || BoundToVfio(*g);
      if (!guests_pairs.empty()) {
        v.clique = CliqueFromPairs(guests_pairs, "the guests of " + m.name);
      } else if (vfio) {
        v.clique = CliqueFromPairs(v.pairs, m.name);
      } else {
        v.clique.question =
            "Would a P2P clique (x-nv-gpudirect-clique) work for the GPUs of " + m.name + "?";
        v.clique.why = "no GPU of " + m.name + " is passed through to a guest";
      }
    }
  }
  for (auto& v : t.machines) TopicsFromVerdicts(view, &v);
  return t;
}

void EnforceVerdicts(const MachineVerdicts& v, Finding* f) {
  std::vector<std::string> moot_lines;
  // Each line once; a line that another extends (the same reason, with the tried entry) once.
  auto add_moot = [&](const TopicState& s) {
    for (auto& l : moot_lines) {
      if (l.starts_with(s.line)) return;
      if (s.line.starts_with(l)) {
        l = s.line;
        return;
      }
    }
    moot_lines.push_back(s.line);
  };
  // Actions on a topic the dossier settled as moot (or done) go; the finding says why instead.
  std::erase_if(f->actions, [&](const Action& a) {
    bool drop = false;
    for (const auto& id : TopicsOf(a.step)) {
      const TopicState* s = v.Topic(id);
      if (s && s->kind == TopicState::kMoot) {
        drop = true;
        add_moot(*s);
      }
    }
    return drop;
  });
  // "Will not help" lines about a topic: the one line the dossier holds when it is moot; none
  // when it is advised, or open on a question the facts do not settle.
  std::vector<std::string> kept;
  for (const auto& line : f->not_helping) {
    std::string what = line.substr(0, line.find(": "));
    auto topics = TopicsOf(what);
    if (topics.empty()) {
      kept.push_back(line);
      continue;
    }
    bool keep_own = true;
    for (const auto& id : topics) {
      const TopicState* s = v.Topic(id);
      const AdviceTopic* t = nullptr;
      for (const auto& x : AdviceTopics())
        if (x.id == id) t = &x;
      if (s && s->kind == TopicState::kMoot) {
        add_moot(*s);
        keep_own = false;
      } else if ((s && s->kind == TopicState::kAdvised) || (t && *t->question)) {
        keep_own = false;
      }
    }
    if (keep_own) kept.push_back(line);
  }
  for (auto& l : moot_lines)
    if (std::find(kept.begin(), kept.end(), l) == kept.end()) kept.push_back(l);
  f->not_helping = std::move(kept);
}

}  // namespace dossier
