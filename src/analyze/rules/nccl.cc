// NCCL rules, from imported NCCL logs (model/nccl.h): NCCL fell back from P2P to shared memory
// (or refused P2P), and why, from the other facts the dossier holds about the machine.
#include <set>

#include "analyze/cross_checks.h"
#include "analyze/evidence.h"
#include "analyze/p2p_status.h"
#include "analyze/pci_walk.h"
#include "analyze/roles.h"
#include "analyze/rule.h"

namespace dossier {

std::optional<Finding> RuleNcclP2pFallback(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  const NcclInfo& n = m.nccl;
  std::vector<const NcclConnection*> shm;
  for (const auto& c : n.connections)
    if (c.transport.starts_with("SHM")) shm.push_back(&c);
  if (n.p2p_refused.empty() && shm.empty()) return std::nullopt;

  Finding f;
  f.title = "NCCL did not use P2P between GPUs of this machine" +
            std::string(shm.empty() ? ""
                                    : " (" + std::to_string(shm.size()) +
                                          " channel connection(s) over SHM)");
  for (size_t i = 0; i < n.p2p_refused.size() && i < 4; ++i)
    f.evidence.push_back(Ev("NCCL / server log", n.p2p_refused[i].message, n.p2p_refused[i].line));
  for (size_t i = 0; i < shm.size() && i < 4; ++i)
    f.evidence.push_back(Ev("channel " + std::to_string(shm[i]->channel) + " rank " +
                                std::to_string(shm[i]->from_rank) + " -> " +
                                std::to_string(shm[i]->to_rank),
                            shm[i]->transport, shm[i]->line));
  // Why, from what else the dossier knows; each cause found adds its evidence.
  std::vector<std::string> why;
  P2pStatusView st = P2pStatusOf(m);
  const auto& ps = m.topology.p2p_status;
  const CodeMatrix* status = st.read && !st.read->empty() ? st.read
                             : !ps.unstated.empty()       ? &ps.unstated
                             : !ps.pci.empty()            ? &ps.pci
                                                          : nullptr;
  if (status) {
    std::set<std::string> codes;
    for (size_t i = 0; i < status->size(); ++i)
      for (size_t j = 0; j < (*status)[i].size(); ++j)
        if (i != j && (*status)[i][j] != "OK" && (*status)[i][j] != "X")
          codes.insert((*status)[i][j]);
    if (!codes.empty()) {
      std::string list;
      for (const auto& c : codes) list += (list.empty() ? "" : ", ") + c;
      why.push_back("the NVIDIA driver reports P2P " + list +
                    " for these GPUs (see gpu.p2p-not-ok): NCCL uses P2P only where the driver "
                    "says OK");
      f.evidence.push_back(
          Ev("driver P2P status", list,
             status == st.read ? st.source : std::string("imported nvidia-smi topo -p2p")));
    }
  }
  // The pairs NCCL refused or connected over SHM, by GPU address: a refusal's bus ids, else its
  // CUDA ordinals through the ranks; an SHM connection's ranks.
  auto rank_bus = [&](auto matches) -> std::string {
    for (const auto& r : n.ranks)
      if (matches(r) && r.bus_id.known()) return *r.bus_id;
    return {};
  };
  std::set<std::pair<std::string, std::string>> named;
  auto name_pair = [&](std::string a, std::string b) {
    if (a.empty() || b.empty() || a == b) return;
    if (b < a) std::swap(a, b);
    named.insert({a, b});
  };
  for (const auto& r : n.p2p_refused) {
    if (r.bus_ids.size() == 2) {
      name_pair(r.bus_ids[0], r.bus_ids[1]);
    } else if (r.devices.size() == 2) {
      auto by_dev = [&](int64_t d) {
        return rank_bus([&](const NcclRank& x) { return x.cuda_device.value_or(-1) == d; });
      };
      name_pair(by_dev(r.devices[0]), by_dev(r.devices[1]));
    }
  }
  for (const NcclConnection* c : shm) {
    auto by_rank = [&](int64_t k) {
      return rank_bus([&](const NcclRank& x) { return x.rank == k; });
    };
    name_pair(by_rank(c->from_rank), by_rank(c->to_rank));
  }
  // Each pair's one answer (analyze/verdicts.h: on a guest, whether its host can route P2P
  // between the host GPUs behind the pair); the rule does not decide it again.
  const MachineVerdicts& v = ctx.V();
  size_t can = 0, cannot = 0, open = 0;
  std::string can_why, cannot_why, open_why;
  for (const auto& pv : v.pairs) {
    std::pair<std::string, std::string> key =
        pv.a < pv.b ? std::pair{pv.a, pv.b} : std::pair{pv.b, pv.a};
    if (!named.empty() && !named.count(key)) continue;
    (pv.can == Answer::kYes ? can : pv.can == Answer::kNo ? cannot : open) += 1;
    std::string& w = pv.can == Answer::kYes  ? can_why
                     : pv.can == Answer::kNo ? cannot_why
                                             : open_why;
    if (w.empty()) w = pv.why;
    if (f.evidence.size() < 10)
      f.evidence.push_back(Ev("GPU " + pv.a + " <-> " + pv.b + ": can do P2P",
                              std::string(AnswerWord(pv.can)) + " (" + pv.why + ")",
                              "verdict: GPU pairs (analyze/verdicts)"));
  }
  std::string scope = named.empty() ? "of the machine's GPU pairs" : "of the pairs NCCL names";
  if (cannot > 0)
    why.push_back(std::to_string(cannot) + " " + scope + " cannot do P2P where they sit (" +
                  cannot_why + ")");
  if (can > 0)
    why.push_back(
        std::to_string(can) + " " + scope + " can do P2P by their path (" + can_why +
        (IsGuest(m) ? ")" : "): what refused it is the driver or a setting, not where they sit"));
  if (open > 0 && can == 0 && cannot == 0)
    why.push_back("whether " + std::to_string(open) + " " + scope +
                  " can do P2P where they sit is not known (" + open_why + ")");
  if (IsGuest(m)) {
    // A clique the notes already record as tried (and not helping) is not suggested again.
    const TopicState* tried = v.Topic("p2p-clique");
    const bool moot = tried && tried->kind == TopicState::kMoot;
    std::string host =
        v.clique.answer == Answer::kYes && !moot
            ? "; its host can route P2P between the GPUs behind them (" + v.clique.why +
                  "), so advertising them as one clique (x-nv-gpudirect-clique) lets NCCL use it"
        : v.clique.answer == Answer::kNo
            ? "; and its host cannot route P2P between them either (" + v.clique.why + ")"
            : "";
    why.push_back(
        "this is a virtual machine: each passed-through GPU sits behind its own virtual "
        "root port and the hypervisor does not advertise a P2P path (see "
        "p2p.vm-isolated)" +
        host);
    f.evidence.push_back(Ev("virtualization guest", m.virtualization.guest));
  }
  // Does ACS stand in the way: the machine's one answer (on a guest, its host's).
  if (v.acs.answer == Answer::kYes) {
    why.push_back("ACS stands in the way: " + v.acs.why + " (see pcie.acs-redirect)");
    for (size_t i = 0; i < v.acs.evidence.size() && i < 3; ++i)
      f.evidence.push_back(v.acs.evidence[i]);
  }
  if (why.empty()) {
    f.explanation =
        "NCCL falls back to shared memory through the host when the CUDA driver refuses peer "
        "access between two GPUs. Why it refused is not in the dossier: import the machine's "
        "`nvidia-smi topo -p2p r` and `nvidia-smi topo -m` (or collect it) to find out.";
  } else {
    f.explanation =
        "NCCL falls back to shared memory through the host when the CUDA driver "
        "refuses peer access between two GPUs. Here: ";
    for (size_t i = 0; i < why.size(); ++i) f.explanation += (i ? "; " : "") + why[i];
    f.explanation += ".";
  }
  f.actions.push_back(
      {"See what the driver says for each pair", "nvidia-smi topo -p2p r; nvidia-smi topo -m", ""});
  f.actions.push_back({"Measure what the pairs really do, bytes checked", "dossier p2p", ""});
  f.not_helping = {
      "NCCL_P2P_LEVEL=SYS or NCCL_P2P_DISABLE=0: NCCL still needs the driver to grant peer "
      "access."};
  return f;
}

}  // namespace dossier

namespace dossier {

// nccl.topo-file-mismatch: a server's NCCL_TOPO_FILE describes GPUs or NUMA nodes this machine
// does not have (a file copied from another machine, written for another VM layout, or left from
// before a GPU moved). NCCL matches the file's <pci busid=…> against the GPUs it finds by bus id;
// a node that matches nothing places nothing, silently, and the GPU it was meant for falls back to
// the machine's own (in a VM, flat) tree.
std::optional<Finding> RuleNcclTopoFileMismatch(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  Finding f;
  std::vector<std::string> files;
  for (const Server* s : ServersWithTopoFile(m)) {
    NcclTopoCheck c = CheckNcclTopoFile(m, s->nccl_topo);
    if (c.problems.empty()) continue;
    files.push_back(*s->nccl_topo.file);
    f.evidence.push_back(
        Ev(s->engine + " (pid " + std::to_string(s->pid) + ") NCCL_TOPO_FILE", s->nccl_topo.file));
    for (size_t i = 0; i < c.problems.size(); ++i)
      f.evidence.push_back(Ev("topology file", c.problems[i], c.sources[i]));
  }
  if (files.empty()) return std::nullopt;
  f.title = "The NCCL topology file " + files.front() +
            (files.size() > 1 ? " (and " + std::to_string(files.size() - 1) + " more)" : "") +
            " does not describe this machine's GPUs";
  f.explanation =
      "NCCL reads NCCL_TOPO_FILE at initialisation and matches its <pci busid=…> nodes to the "
      "GPUs it finds by bus id; the enclosing <cpu numaid=…> decides which CPUs and memory serve "
      "each GPU. A bus id that is not a GPU here places nothing and says nothing, so the GPU it "
      "was meant for keeps the machine's own tree; a NUMA id the machine lacks or one that "
      "disagrees with the GPU's numa_node binds threads to the wrong socket. The file was most "
      "likely written for another machine or another VM layout.";
  f.not_helping = {
      "Removing NCCL_TOPO_FILE: in a VM the flat tree NCCL sees without it is what the file was "
      "meant to correct."};
  bool guest = ctx.view.HostLinkOf(m.name) != nullptr;
  f.actions.push_back(
      {guest ? "Regenerate the file from the host's real tree with the guest's bus ids: `dossier "
               "generate nccl-topo --machine " +
                   m.name + "`, and install it where NCCL_TOPO_FILE points"
             : "Correct the named bus ids and NUMA ids in the file to this machine's (`dossier "
               "report` lists the GPUs with their numa_node), or regenerate it",
       "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH <server command> 2>&1 | grep -E "
       "'TOPO_FILE|CPU/|GPU/'",
       ""});
  return f;
}

}  // namespace dossier
