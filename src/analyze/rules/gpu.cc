// GPU rules from what the NVIDIA driver itself reports: P2P status per GPU pair (NVML).
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

}  // namespace

std::optional<Finding> P2pNotOkFrom(const Machine& m, const P2pStatusView& st) {
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
  return P2pNotOkFrom(ctx.m(), st);
}

}  // namespace dossier
