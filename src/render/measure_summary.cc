#include "render/measure_summary.h"
#include "util/utf8.h"

#include <fmt/format.h>

#include "analyze/measure_stale.h"

namespace dossier {
namespace {

std::string DeviceLabel(int64_t i) {
  return i < 0 ? "host" : "GPU " + std::to_string(i);
}

}  // namespace

std::vector<P2pSummary> SummarizeP2p(const MachineView& mv) {
  std::vector<P2pSummary> out;
  for (const auto& pm : mv.p2p) {
    P2pSummary s;
    s.time = pm.time;
    s.stale = MeasurementStale(mv, pm.time, pm.boot_id, pm.hostname);
    s.gpus = pm.gpu_addresses.size();
    s.interrupted = pm.interrupted;
    double best_p = -1, best_s = -1, best_b = -1;
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
      // One-way figures and both-ways figures apart: a bidirectional GB/s is the two directions
      // summed, and next to a one-way figure it reads as twice the link.
      bool p2p = r.mode == "uni-p2p";
      bool staged = r.mode == "uni-staged";
      bool bidir = r.mode == "bi-p2p" || r.mode == "bi-staged";
      if (r.gbps_median.known() && bidir && *r.gbps_median > best_b) {
        best_b = *r.gbps_median;
        s.best_bidir =
            fmt::format("{:.2f} GB/s {} <-> {} {} at {} B, both directions summed", best_b,
                        DeviceLabel(r.src), DeviceLabel(r.dst), r.mode, r.size_bytes);
      }
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
      row.stale = MeasurementStale(mv, sm.time, sm.boot_id, sm.hostname);
      if (r.concurrency.known())
        row.load = "concurrency " + std::to_string(*r.concurrency);
      else if (r.request_rate.known())
        row.load = fmt::format("rate {:g}/s", *r.request_rate);
      auto known = [&](const char* figure) {
        if (r.Knows(figure)) return true;
        if (row.unknown.empty()) row.unknown = r.not_known.at(figure);
        return false;
      };
      if (known("total_tokens_per_s")) row.total_tps = r.total_tokens_per_s;
      if (known("output_tokens_per_s")) row.output_tps = r.output_tokens_per_s;
      if (r.ttft_ms.median.known()) row.ttft_median_ms = fmt::format("{:.1f}", *r.ttft_ms.median);
      if (r.tpot_ms.median.known()) row.tpot_median_ms = fmt::format("{:.1f}", *r.tpot_ms.median);
      if (known("completed")) row.completed = r.completed;
      if (known("failed")) row.failed = r.failed;
      row.measured = r.MeasuredSomething();
      out.push_back(std::move(row));
    }
  }
  return out;
}

}  // namespace dossier
