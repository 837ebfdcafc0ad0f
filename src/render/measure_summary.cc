#include "render/measure_summary.h"
#include "util/utf8.h"

#include <fmt/format.h>

namespace dossier {
namespace {

std::string StaleOf(const MachineView& mv, const std::string& boot) {
  if (boot.empty() || !mv.machine.boot_id.known() || boot == *mv.machine.boot_id) return "";
  return "measured in boot " + std::string(CutUtf8(boot, 8)) + ", before the latest reboot";
}

std::string DeviceLabel(int64_t i) {
  return i < 0 ? "host" : "GPU " + std::to_string(i);
}

}  // namespace

std::vector<P2pSummary> SummarizeP2p(const MachineView& mv) {
  std::vector<P2pSummary> out;
  for (const auto& pm : mv.p2p) {
    P2pSummary s;
    s.time = pm.time;
    s.stale = StaleOf(mv, pm.boot_id);
    s.gpus = pm.gpu_addresses.size();
    s.interrupted = pm.interrupted;
    double best_p = -1, best_s = -1;
    for (const auto& r : pm.results) {
      ++s.results;
      if (r.verdict == "ok")
        ++s.ok;
      else if (r.verdict == "corrupted")
        ++s.corrupted;
      else if (r.verdict == "hung")
        ++s.hung;
      else if (r.verdict == "waived")
        ++s.waived;
      else
        ++s.errors;
      if (r.verdict != "ok") continue;
      std::string where = DeviceLabel(r.src) + " -> " + DeviceLabel(r.dst) + " " + r.mode + " at " +
                          std::to_string(r.size_bytes) + " B";
      bool p2p = r.mode == "uni-p2p" || r.mode == "bi-p2p";
      bool staged = r.mode == "uni-staged" || r.mode == "bi-staged";
      if (r.gbps_median.known() && p2p && *r.gbps_median > best_p) {
        best_p = *r.gbps_median;
        s.best_p2p = fmt::format("{:.2f} GB/s {}", best_p, where);
      }
      if (r.gbps_median.known() && staged && *r.gbps_median > best_s) {
        best_s = *r.gbps_median;
        s.best_staged = fmt::format("{:.2f} GB/s {}", best_s, where);
      }
      if (s.small_latency.empty() && r.mode.rfind("latency", 0) == 0 && r.latency_us.known())
        s.small_latency = fmt::format("{:.2f} us {} -> {} ({})", *r.latency_us, DeviceLabel(r.src),
                                      DeviceLabel(r.dst), r.mode);
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<ServeSummaryRow> SummarizeServe(const MachineView& mv) {
  std::vector<ServeSummaryRow> out;
  for (const auto& sm : mv.serve) {
    for (const auto& r : sm.runs) {
      ServeSummaryRow row;
      row.time = sm.time;
      row.endpoint = sm.endpoint;
      row.stale = StaleOf(mv, sm.boot_id);
      if (r.concurrency.known())
        row.load = "concurrency " + std::to_string(*r.concurrency);
      else if (r.request_rate.known())
        row.load = fmt::format("rate {:g}/s", *r.request_rate);
      row.total_tps = r.total_tokens_per_s;
      row.output_tps = r.output_tokens_per_s;
      if (r.ttft_ms.median.known()) row.ttft_median_ms = fmt::format("{:.1f}", *r.ttft_ms.median);
      if (r.tpot_ms.median.known()) row.tpot_median_ms = fmt::format("{:.1f}", *r.tpot_ms.median);
      row.completed = r.completed;
      row.failed = r.failed;
      out.push_back(std::move(row));
    }
  }
  return out;
}

}  // namespace dossier
