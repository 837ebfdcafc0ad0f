// GPU rules from what the NVIDIA driver itself reports: P2P status per GPU pair (NVML).
#include <set>

#include "analyze/evidence.h"
#include "analyze/p2p_status.h"
#include "analyze/roles.h"
#include "analyze/rule.h"

namespace dossier {
namespace {

const char* Meaning(const std::string& code) {
  if (code == "CNS") return "chipset not supported";
  if (code == "GNS") return "GPU not supported";
  if (code == "TNS") return "topology not supported";
  if (code == "DR") return "disabled by a driver registry key";
  if (code == "NS") return "not supported";
  if (code == "U") return "unknown";
  return "not OK";
}

// What the machine's one answer per GPU pair (analyze/verdicts.h) says of the pairs the driver
// refuses: whether their path allows P2P (on a guest: whether its host can route P2P between the
// host GPUs behind them). The rule reports the driver's codes; where the pairs sit is decided
// once, for every reader, and only read here.
void WherePairsSit(const RuleContext& ctx, const std::vector<std::pair<size_t, size_t>>& bad,
                   Finding* f) {
  const Machine& m = ctx.m();
  auto address = [&](size_t index) -> std::string {
    for (const auto& g : m.gpus)
      if (g.index == static_cast<int64_t>(index)) return g.address;
    return {};
  };
  std::set<std::pair<std::string, std::string>> named;
  for (const auto& [i, j] : bad) {
    std::string a = address(i), b = address(j);
    if (a.empty() || b.empty()) continue;
    named.insert(a < b ? std::pair{a, b} : std::pair{b, a});
  }
  size_t n[3] = {0, 0, 0};  // yes, no, unknown
  std::string why[3];
  for (const auto& pv : ctx.V().pairs) {
    if (!named.count(pv.a < pv.b ? std::pair{pv.a, pv.b} : std::pair{pv.b, pv.a})) continue;
    int k = pv.can == Answer::kYes ? 0 : pv.can == Answer::kNo ? 1 : 2;
    ++n[k];
    if (why[k].empty()) why[k] = pv.why;
  }
  if (n[0] + n[1] + n[2] == 0) return;
  const char* words[3] = {"can do P2P by their path", "cannot do P2P where they sit",
                          "cannot tell whether their path allows P2P"};
  std::string said;
  for (int k = 0; k < 3; ++k)
    if (n[k])
      said +=
          (said.empty() ? "" : "; ") + std::to_string(n[k]) + " " + words[k] + " (" + why[k] + ")";
  f->explanation += " Where these pairs sit (one answer per pair" +
                    std::string(IsGuest(m) ? ", from the guest's host" : "") + "): " + said + ".";
  f->evidence.push_back(
      Ev("refused pairs that can / cannot / cannot tell do P2P by their path",
         std::to_string(n[0]) + " / " + std::to_string(n[1]) + " / " + std::to_string(n[2]),
         "verdict: GPU pairs (analyze/verdicts)"));
}

}  // namespace

std::optional<Finding> P2pNotOkFrom(const Machine& m, const P2pStatusView& st,
                                    std::vector<std::pair<size_t, size_t>>* bad) {
  const bool alone = !st.only.empty();  // one pasted capability: the others are not known
  if (!st.read || (!st.write && !alone)) return std::nullopt;
  const auto& r = *st.read;
  const CodeMatrix& w = alone ? r : *st.write;
  std::vector<Evidence> ev;
  std::set<std::string> codes;
  size_t pairs = 0;
  for (size_t i = 0; i < r.size() && i < w.size(); ++i) {
    for (size_t j = 0; j < r[i].size() && j < w[i].size(); ++j) {
      if (i == j) continue;
      const std::string &rc = r[i][j], &wc = w[i][j];
      if (rc == "OK" && wc == "OK") continue;
      if (rc.empty() || rc == "X" || rc == "-") continue;
      ++pairs;
      if (bad) bad->push_back({i, j});
      codes.insert(rc);
      codes.insert(wc);
      if (ev.size() < 8) {
        ev.push_back(Ev("GPU " + std::to_string(i) + " -> " + std::to_string(j) + " P2P",
                        alone ? st.only + " " + rc +
                                    " (the other capabilities are not in the "
                                    "pasted outputs)"
                              : "read " + rc + ", write " + wc,
                        st.source));
      }
    }
  }
  if (pairs == 0) return std::nullopt;
  Finding f;
  f.title = "The NVIDIA driver reports P2P " + (alone ? st.only : std::string("read/write")) +
            " other than OK for " + std::to_string(pairs) + " GPU pair(s) (" +
            JoinList(std::vector<std::string>(codes.begin(), codes.end())) + ")";
  f.evidence = std::move(ev);
  f.explanation =
      "NCCL and CUDA use direct GPU-to-GPU copies only when the driver reports P2P read and write "
      "OK (nvidia-smi topo -p2p r / w); otherwise every transfer is staged through host memory. "
      "Codes seen: ";
  for (const auto& c : codes) {
    if (c == "OK") continue;
    f.explanation += c + " = " + Meaning(c) + "; ";
  }
  f.explanation +=
      "GNS is the driver's policy for consumer GPUs; NS in a virtual machine follows from the "
      "virtual topology (see p2p.vm-isolated); CNS and TNS from the PCI path (ACS, root "
      "complexes).";
  if (IsGuest(m)) {
    f.actions.push_back(
        {"In a guest: advertise the GPUs as one P2P clique (QEMU vfio-pci x-nv-gpudirect-clique), "
         "where the host can do P2P between them",
         "nvidia-smi topo -p2p r; nvidia-smi topo -p2p w", ""});
  }
  if (codes.count("DR")) {
    f.actions.push_back(
        {"Remove the registry key that disables P2P (NVreg_RegistryDwords in the nvidia module "
         "options)",
         "grep -r RegistryDwords /etc/modprobe.d/; cat /proc/driver/nvidia/params", ""});
  }
  f.actions.push_back({"Measure what the pairs really do, bytes checked", "dossier p2p", ""});
  f.not_helping = {"NCCL_P2P_LEVEL / NCCL_P2P_DISABLE=0: NCCL still requires the driver's OK."};
  return f;
}

std::optional<Finding> RuleGpuP2pNotOk(const RuleContext& ctx) {
  P2pStatusView st = P2pStatusOf(ctx.m());
  if (!st.read || !st.write || st.read->empty() || st.write->empty()) {
    st.read = st.write = nullptr;
    // An imported `nvidia-smi topo -p2p` holds one capability (or one whose capability was not
    // pasted): a code other than OK there is reason enough, and the evidence names the one
    // capability it came from; the others were not pasted, so they are not claimed.
    const auto& s = ctx.m().topology.p2p_status;
    for (const auto* mtx : {&s.read, &s.write, &s.pci, &s.unstated, &s.atomics}) {
      if (mtx->empty()) continue;
      st.read = mtx;
      st.write = nullptr;
      st.only = mtx == &s.read      ? "read"
                : mtx == &s.write   ? "write"
                : mtx == &s.pci     ? "prop"
                : mtx == &s.atomics ? "atomics"
                                    : "status (capability not pasted)";
      st.source = "imported nvidia-smi topo -p2p (" + st.only + ")";
      break;
    }
  }
  std::vector<std::pair<size_t, size_t>> bad;
  auto f = P2pNotOkFrom(ctx.m(), st, &bad);
  if (f) WherePairsSit(ctx, bad, &*f);
  return f;
}

}  // namespace dossier
