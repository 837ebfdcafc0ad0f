#include "analyze/rule.h"

namespace dossier {

const std::vector<RuleEntry>& RuleTable() {
  static const std::vector<RuleEntry> kTable = {
      {"p2p.bytes-corrupted", kCritical,
       "a p2p measurement found copied bytes that did not arrive intact", RuleP2pBytesCorrupted},
      {"vm.mapping-stale", kCritical,
       "a Proxmox PCI mapping entry no longer matches the device or IOMMU group: the VM will "
       "not start",
       RuleVmMappingStale},
      {"iommu.groups-changed", kCritical,
       "IOMMU groups of passthrough devices changed since the previous boot: VMs whose mappings "
       "name groups no longer start",
       RuleIommuGroupsChanged},
      {"p2p.vm-isolated", kWarning,
       "guest with 2+ NVIDIA GPUs each behind its own virtual root port: no P2P, or staged",
       RuleP2pVmIsolated},
      {"p2p.separate-root-complexes", kInfo,
       "GPUs each alone under their own root complex: P2P rides the CPU fabric; ACS is moot "
       "(warning when the notes say ACS was changed to make P2P work)",
       RuleP2pSeparateRootComplexes},
      {"pcie.acs-redirect", kWarning,
       "ACS request/completion redirect on a bridge between two GPUs (or a GPU and a NIC)",
       RulePcieAcsRedirect},
      {"iommu.translated-p2p", kWarning,
       "bare metal, P2P-capable GPUs, IOMMU translating DMA (DMA/DMA-FQ): use passthrough mode",
       RuleIommuTranslatedP2p},
      {"gpu.p2p-not-ok", kWarning, "NVML reports P2P read or write other than OK for a GPU pair",
       RuleGpuP2pNotOk},
      {"gpu.health", kWarning,
       "NVML reports a GPU throttling at idle, uncorrected ECC errors, a pending row remap, a "
       "recovery action, or PCIe replays climbing within one boot",
       RuleGpuHealth},
      {"nccl.p2p-fallback", kWarning,
       "an NCCL log shows P2P refused or channels over SHM, and why, from the dossier's facts",
       RuleNcclP2pFallback},
      {"nccl.topo-file-mismatch", kWarning,
       "a server's NCCL_TOPO_FILE names GPUs or NUMA nodes this machine does not have (or misses "
       "some of its GPUs)",
       RuleNcclTopoFileMismatch},
      {"pcie.link-width-degraded", kWarning,
       "a GPU or bridge link runs narrower than both ends support (seating, riser, bifurcation)",
       RulePcieLinkWidthDegraded},
      {"pcie.link-speed-low", kInfo,
       "a GPU or bridge link runs below its top speed (normal at idle; recheck under load)",
       RulePcieLinkSpeedLow},
      {"pcie.bar-allocation-failed", kWarning, "the kernel could not assign a GPU's BAR",
       RulePcieBarAllocationFailed},
      {"vm.legacy-chipset", kWarning,
       "i440FX guest: no PCIe extended config space or capabilities for passed-through GPUs",
       RuleVmLegacyChipset},
      {"numa.gpu-affinity-unknown", kWarning,
       "more than one NUMA node but GPUs at numa_node -1: threads and memory cannot be placed",
       RuleNumaGpuAffinityUnknown},
      {"numa.overlapping-nodes", kWarning,
       "NUMA nodes whose CPU lists overlap (firmware or hypervisor tables; capture from two boots)",
       RuleNumaOverlappingNodes},
      {"build.cuda-arch-mismatch", kWarning,
       "TORCH_CUDA_ARCH_LIST lacks the compute capability of the GPUs present",
       RuleBuildCudaArchMismatch},
      {"p2p.below-expectation", kWarning,
       "measured P2P bandwidth far under the link limit at large message sizes",
       RuleP2pBelowExpectation},
      {"serve.below-target", kWarning, "a serving measurement misses a target from the notes",
       RuleServeBelowTarget},
      {"decode.communication-bound", kInfo,
       "TP all-reduces at the measured GPU-to-GPU latency cap single-stream tokens/s (warning "
       "when below the notes' single-stream target)",
       RuleDecodeCommunicationBound},
      {"plan.server-disagrees", kWarning,
       "the memory plan (weights, KV cache per token, KV tokens) differs from the server's own "
       "start-up log by more than 10 %",
       RulePlanServerDisagrees},
      {"plan.target-short", kWarning,
       "the served layout's memory plan holds fewer requests of the context length at once than "
       "the notes' target concurrency; says which alternative layouts would and would not",
       RulePlanTargetShort},
      {"notes.contradicted", kWarning,
       "a fact stated in the notes (named as in its alias table) disagrees with what a probe "
       "read (or a server's CUDA_HOME with /usr/local/cuda)",
       RuleNotesContradicted},
  };
  return kTable;
}

const MachineVerdicts& RuleContext::V() const {
  static const MachineVerdicts kNone;
  return verdicts ? verdicts->Of(mv.machine.name) : kNone;
}

std::vector<Finding> RunRules(const RuleContext& given) {
  // Decided here when the caller did not (tests, a diff of two records): the same answers.
  VerdictTable local;
  RuleContext ctx = given;
  if (!ctx.verdicts) {
    local = DecideVerdicts(ctx.view);
    ctx.verdicts = &local;
  }
  std::vector<Finding> out;
  for (const auto& r : RuleTable()) {
    std::optional<Finding> f = r.run(ctx);
    if (!f) continue;
    f->id = r.id;
    // The table's severity, unless the rule set its own for this case (raised or lowered from
    // what it saw; rule.h).
    if (f->severity.empty()) f->severity = r.severity;
    // A finding built on facts from an earlier record may no longer hold either.
    for (const auto& e : f->evidence) {
      if (f->stale.empty() && !e.stale.empty()) f->stale = "built on stale facts: " + e.stale;
    }
    EnforceVerdicts(ctx.V(), &*f);
    out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace dossier
