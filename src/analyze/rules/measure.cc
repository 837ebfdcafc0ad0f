// Rules on measurements kept in the dossier: p2p copies whose bytes arrived damaged, P2P bandwidth
// far under the link limit, and serving results that miss a target in the notes. Each reads the
// newest measurement of the machine; one from an earlier boot makes the finding stale.
#include <cstdio>

#include "analyze/evidence.h"
#include "analyze/roles.h"
#include "analyze/rule.h"
#include "analyze/serve_metrics.h"
#include "util/utf8.h"

namespace dossier {
namespace {

// Below this share of the link limit, a large P2P copy is "far under" it. Healthy PCIe P2P reaches
// 65-85 % (p2pBandwidthLatencyTest: 26.3 of 31.5 GB/s on Gen4 x16, 42.5 of 63 on Gen5 x16).
constexpr double kBelowPercent = 50.0;
constexpr uint64_t kLargeBytes = 16u << 20;  // sizes from 16 MiB up are bandwidth-bound

std::string Fmt(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string StaleIfOtherBoot(const Machine& m, const std::string& boot, const std::string& what) {
  if (boot.empty() || !m.boot_id.known() || boot == *m.boot_id) return "";
  return what + " ran in boot " + std::string(CutUtf8(boot, 8)) +
         ", before the machine's latest reboot";
}

std::string PairText(const P2pResult& r) {
  auto side = [](int64_t i) { return i < 0 ? std::string("host") : "GPU " + std::to_string(i); };
  return side(r.src) + " -> " + side(r.dst) + " " + r.mode + " " + std::to_string(r.size_bytes) +
         " B";
}

}  // namespace

std::optional<Finding> RuleP2pBytesCorrupted(const RuleContext& ctx) {
  if (ctx.mv.p2p.empty()) return std::nullopt;
  const P2pMeasurement& pm = ctx.mv.p2p.back();
  std::vector<const P2pResult*> bad;
  for (const auto& r : pm.results)
    if (r.verdict == "corrupted") bad.push_back(&r);
  if (bad.empty()) return std::nullopt;
  Finding f;
  f.title = std::to_string(bad.size()) +
            " P2P copies delivered damaged bytes: do not use P2P on these pairs";
  for (size_t i = 0; i < bad.size() && i < 8; ++i)
    f.evidence.push_back(
        Ev(PairText(*bad[i]), "corrupted: " + bad[i]->detail, "p2p measurement " + pm.time));
  f.stale = StaleIfOtherBoot(ctx.m(), pm.boot_id, "the p2p measurement");
  f.explanation =
      "Bytes copied between these GPUs did not arrive as sent. A benchmark that only times copies "
      "would call this fast, and NCCL would hang or compute on garbage. Known causes: the IOMMU "
      "dropping or misrouting peer writes (IO_PAGE_FAULT / AMD-Vi / DMAR errors in the kernel "
      "log), a root complex that does not forward peer traffic correctly, and drivers patched to "
      "enable P2P on GPUs or platforms that do not support it.";
  f.not_helping = {"Trusting `nvidia-smi topo -p2p` OK: it reports capability, not correctness.",
                   "Retrying: the damage comes from the path, not from chance."};
  f.actions.push_back({"Stop P2P for now: NCCL_P2P_DISABLE=1 in the serving engine's environment",
                       "dossier p2p   # corrupted pairs listed again until the cause is fixed"});
  f.actions.push_back(
      {"Look for IOMMU faults during a p2p run", "dmesg | grep -iE 'IO_PAGE_FAULT|AMD-Vi|DMAR'"});
  if (IsNotGuest(ctx.m())) {
    f.actions.push_back({"On bare metal, put the IOMMU in passthrough mode (iommu=pt) and retest",
                         "cat /proc/cmdline; dossier p2p"});
  }
  return f;
}

std::optional<Finding> RuleP2pBelowExpectation(const RuleContext& ctx) {
  if (ctx.mv.p2p.empty()) return std::nullopt;
  const P2pMeasurement& pm = ctx.mv.p2p.back();
  std::vector<const P2pResult*> low;
  for (const auto& r : pm.results) {
    if ((r.mode != "uni-p2p" && r.mode != "bi-p2p") || r.verdict != "ok") continue;
    if (r.size_bytes < kLargeBytes || !r.percent_of_limit.known()) continue;
    if (*r.percent_of_limit < kBelowPercent) low.push_back(&r);
  }
  if (low.empty()) return std::nullopt;
  Finding f;
  f.title = std::to_string(low.size()) + " large P2P copies ran under " +
            Fmt("%.0f", kBelowPercent) + " % of the link limit";
  for (size_t i = 0; i < low.size() && i < 8; ++i) {
    const P2pResult& r = *low[i];
    std::string v = r.gbps_median.known() ? Fmt("%.2f GB/s", *r.gbps_median) : "?";
    v += " = " + Fmt("%.0f %%", *r.percent_of_limit);
    if (r.link_limit_gbps.known()) v += " of " + Fmt("%.1f GB/s", *r.link_limit_gbps);
    f.evidence.push_back(Ev(PairText(r), v, "p2p measurement " + pm.time));
  }
  f.stale = StaleIfOtherBoot(ctx.m(), pm.boot_id, "the p2p measurement");
  f.explanation =
      "Large peer-to-peer copies normally reach 65-85 % of the narrowest PCIe link on the path "
      "(about 26 of 31.5 GB/s on Gen4 x16, 42 of 63 GB/s on Gen5 x16). Far less points at the "
      "path: a link trained down or narrow, ACS redirect sending traffic through the root "
      "complex, IOMMU translation, or a crossing between sockets.";
  f.actions.push_back({"Read the links while a p2p run is going (see the pcie.* findings)",
                       "nvidia-smi --query-gpu=index,pcie.link.gen.current,"
                       "pcie.link.width.current --format=csv"});
  f.actions.push_back(
      {"Compare with the copy staged through host memory at the same size", "dossier p2p"});
  return f;
}

std::optional<Finding> RuleServeBelowTarget(const RuleContext& ctx) {
  if (ctx.notes.targets.empty() || ctx.mv.serve.empty()) return std::nullopt;
  Finding f;
  std::vector<std::string> missed;
  const ServeMeasurement* used = nullptr;
  for (const auto& t : ctx.notes.targets) {
    auto v = LatestForTarget(ctx.mv.serve, t);
    if (!v || TargetMet(t, v->value)) continue;
    missed.push_back(TargetText(t));
    used = v->measurement;
    f.evidence.push_back(Ev("target " + TargetText(t), Fmt("%g", t.value),
                            ctx.notes.path + ":" + std::to_string(t.line)));
    f.evidence.push_back(
        Ev("measured " + t.metric, Fmt("%.1f", v->value),
           "serve-bench " + v->measurement->time + " " + v->measurement->endpoint));
    if (f.stale.empty())
      f.stale = StaleIfOtherBoot(ctx.m(), v->measurement->boot_id, "the serving measurement");
  }
  if (missed.empty()) return std::nullopt;
  f.title = "Serving misses " + std::to_string(missed.size()) + " target(s): " + JoinList(missed);
  f.explanation =
      "The newest serving measurement falls short of the goal in the notes. The other findings "
      "say what in the machine limits it (GPU-to-GPU paths for tensor parallelism, NUMA "
      "placement, build flags); after each change, measure again with the same settings so the "
      "numbers compare.";
  std::string conc;
  for (const auto& r : used->runs)
    if (r.concurrency.known()) conc += (conc.empty() ? "" : ",") + std::to_string(*r.concurrency);
  std::string cmd = "dossier serve-bench " + used->endpoint;
  if (!conc.empty()) cmd += " --concurrency " + conc;
  if (used->input_len > 0) cmd += " --input-len " + std::to_string(used->input_len);
  if (used->output_len > 0) cmd += " --output-len " + std::to_string(used->output_len);
  f.actions.push_back({"Re-measure after each change, with the same settings", cmd});
  return f;
}

}  // namespace dossier
