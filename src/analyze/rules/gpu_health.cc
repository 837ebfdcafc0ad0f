// gpu.health: a GPU NVML reports as misbehaving. Fires on any of: clocks held down by a slowdown
// reason while the GPU is idle (power cap, HW slowdown, thermal, power brake beside gpu_idle:
// idle alone is not a throttle, FIELD_NOTES), uncorrected ECC errors, a row remap (or page
// retirement) pending, a recovery action other than none, or a PCIe replay counter that climbed
// between two collects of the same boot (link-level retries: a bad riser, slot or cable). A rule
// that lacks the facts does not fire; unknown is not healthy, only not evidence.
#include <fmt/format.h>

#include <algorithm>

#include "analyze/evidence.h"
#include "analyze/rule.h"

namespace dossier {
namespace {

std::string GpuLabel(const NvmlGpu& g) {
  return "GPU " + std::to_string(g.index) + " (" + g.pci_bus_id.value_or("?") + ")";
}

const NvmlGpu* SameGpu(const Machine& earlier, const NvmlGpu& g) {
  if (!g.pci_bus_id.known()) return nullptr;
  for (const auto& e : earlier.nvml.gpus)
    if (e.pci_bus_id.known() && *e.pci_bus_id == *g.pci_bus_id) return &e;
  return nullptr;
}

}  // namespace

std::optional<Finding> RuleGpuHealth(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  Finding f;
  std::vector<std::string> what;
  bool critical = false;
  bool throttle = false, ecc = false, remap = false, replays = false, recovery = false;
  for (const auto& g : m.nvml.gpus) {
    const NvmlHealth& h = g.health;
    const std::string who = GpuLabel(g);
    if (h.clocks_event_mask.known()) {
      auto mask = static_cast<uint64_t>(*h.clocks_event_mask);
      if ((mask & kClocksEventGpuIdle) && (mask & kClocksEventSlowdowns)) {
        throttle = true;
        what.push_back(who + " throttles while idle");
        f.evidence.push_back(Ev(who + " clocks event reasons", h.clocks_event_reasons));
        if (h.power_draw_w.known())
          f.evidence.push_back(Ev(who + " power draw (W)", h.power_draw_w));
        if (h.temperature_c.known())
          f.evidence.push_back(Ev(who + " temperature (C)", h.temperature_c));
      }
    }
    int64_t unc =
        std::max(h.ecc_uncorrected_volatile.value_or(0), h.ecc_uncorrected_aggregate.value_or(0));
    if (unc > 0) {
      ecc = critical = true;
      what.push_back(fmt::format("{} has uncorrected ECC errors", who));
      f.evidence.push_back(
          Ev(who + " uncorrected ECC errors (volatile)", h.ecc_uncorrected_volatile));
      f.evidence.push_back(
          Ev(who + " uncorrected ECC errors (aggregate)", h.ecc_uncorrected_aggregate));
    }
    if (h.remap_pending.value_or(false) || h.retired_pages_pending.value_or(false) ||
        h.remap_failed.value_or(false)) {
      remap = critical = true;
      what.push_back(who + (h.remap_failed.value_or(false) ? " failed a row remap"
                                                           : " has a row remap pending"));
      if (h.remap_pending.known())
        f.evidence.push_back(Ev(who + " row remap pending", h.remap_pending));
      if (h.remap_failed.value_or(false))
        f.evidence.push_back(Ev(who + " row remap failed", h.remap_failed));
      if (h.retired_pages_pending.value_or(false))
        f.evidence.push_back(Ev(who + " retired pages pending", h.retired_pages_pending));
    }
    if (h.recovery_action.known() && *h.recovery_action != "none") {
      recovery = critical = true;
      what.push_back(who + " asks for " + *h.recovery_action);
      f.evidence.push_back(Ev(who + " recovery action", h.recovery_action));
    }
    if (ctx.mv.earlier_same_boot && h.pcie_replay_count.known()) {
      const NvmlGpu* e = SameGpu(ctx.mv.earlier_same_boot->machine, g);
      if (e && e->health.pcie_replay_count.known() &&
          *h.pcie_replay_count > *e->health.pcie_replay_count) {
        replays = true;
        what.push_back(fmt::format("{} PCIe replays climbed from {} to {}", who,
                                   *e->health.pcie_replay_count, *h.pcie_replay_count));
        f.evidence.push_back(Ev(who + " PCIe replays, earlier in this boot",
                                std::to_string(*e->health.pcie_replay_count),
                                ctx.mv.earlier_same_boot->record.file + " (" +
                                    ctx.mv.earlier_same_boot->record.time + ")"));
        f.evidence.push_back(Ev(who + " PCIe replays, now", h.pcie_replay_count));
      }
    }
  }
  if (what.empty()) return std::nullopt;
  if (critical) f.severity = kCritical;
  f.title = "NVML reports GPU trouble: " + what.front() +
            (what.size() > 1 ? fmt::format(" (and {} more)", what.size() - 1) : "");
  f.explanation =
      "What the NVIDIA driver reports about the GPUs' health, as nvidia-smi -q shows it. ";
  if (throttle)
    f.explanation +=
        "An idle GPU reports gpu_idle alone; a slowdown reason beside it (hardware slowdown, "
        "power brake, thermal, power cap) holds the clocks down before any work arrives: the "
        "board, its power connectors or its cooling, not the workload. ";
  if (ecc)
    f.explanation +=
        "Uncorrected ECC errors mean data in GPU memory was lost: results computed on it may be "
        "wrong, and the driver retires or remaps the row at the next reset. ";
  if (remap)
    f.explanation +=
        "A pending row remap (or page retirement) takes effect only after a GPU reset; until "
        "then the bad row is still in use. A failed remap means the memory is beyond repair. ";
  if (recovery) f.explanation += "The driver itself asks for the recovery action named. ";
  if (replays)
    f.explanation +=
        "PCIe replays are link-level retransmissions: a counter that climbs within one boot "
        "points at the riser, slot or cable, and costs bandwidth before anything fails. ";
  if (ecc || remap || recovery)
    f.actions.push_back({"Drain the GPU and reset it (or reboot), then check again",
                         "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT", ""});
  if (throttle)
    f.actions.push_back(
        {"Check the board's power cables, the chassis power brake and cooling; "
         "read the reasons while idle",
         "nvidia-smi -q -d PERFORMANCE", ""});
  if (replays)
    f.actions.push_back({"Reseat the GPU, its riser or cable; watch the counter under load",
                         "nvidia-smi -q | grep -i replay", ""});
  f.actions.push_back({"Collect again to see whether it holds", "dossier collect", ""});
  return f;
}

}  // namespace dossier
