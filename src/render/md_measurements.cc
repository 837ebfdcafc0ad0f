// The report's Measurements section: a summary of each machine's p2p and serving measurements
// (the detailed tables are the measurement renderers' own).
#include <fmt/format.h>

#include "render/markdown.h"
#include "render/md_util.h"
#include "render/measure_summary.h"

namespace dossier {

void MdMeasurements(const View& view, const Analysis&, std::string* out) {
  bool any = false;
  for (const auto& mv : view.machines) {
    auto p2p = SummarizeP2p(mv);
    auto serve = SummarizeServe(mv);
    if (p2p.empty() && serve.empty()) continue;
    any = true;
    *out += "### " + md::Code(mv.machine.name, false) + "\n\n";
    if (!p2p.empty()) {
      md::Table t({"p2p run", "results", "best P2P, one way", "best staged, one way",
                   "both ways at once (sum)", "small-message latency"});
      for (const auto& s : p2p) {
        std::string when = s.time + (s.stale.empty() ? "" : " (stale: " + s.stale + ")") +
                           (s.interrupted ? " (interrupted)" : "");
        std::string res = fmt::format("{} ok", s.ok);
        if (s.corrupted) res += fmt::format(", **{} corrupted**", s.corrupted);
        if (s.hung) res += fmt::format(", {} hung", s.hung);
        if (s.waived) res += fmt::format(", {} waived", s.waived);
        if (s.errors) res += fmt::format(", {} errors", s.errors);
        t.Row({md::Escape(when), res, md::Escape(s.best_p2p.empty() ? "-" : s.best_p2p),
               md::Escape(s.best_staged.empty() ? "-" : s.best_staged),
               md::Escape(s.best_bidir.empty() ? "-" : s.best_bidir),
               md::Escape(s.small_latency.empty() ? "-" : s.small_latency)});
      }
      *out += t.Render() + "\n";
      // The newest sweep in full: tables per size, the pair matrix, the verdicts.
      *out += "Latest p2p sweep in detail:\n\n";
      MdP2p(mv, out);
      *out += "\n";
    }
    if (!serve.empty()) {
      md::Table t({"serve-bench run", "load", "total tok/s", "output tok/s", "TTFT median ms",
                   "TPOT median ms", "completed / failed"});
      for (const auto& r : serve) {
        std::string when = r.time + (r.stale.empty() ? "" : " (stale: " + r.stale + ")");
        // A run that completed nothing measured no throughput: it failed. A figure not known
        // (typed in without it) says so, never 0.
        bool failed = !r.measured;
        auto num = [](const std::optional<double>& v) {
          return v ? fmt::format("{:.1f}", *v) : std::string("not known");
        };
        auto count = [](const std::optional<int64_t>& v) {
          return v ? std::to_string(*v) : std::string("not known");
        };
        t.Row({md::Escape(when) + " " + md::Code(r.endpoint), md::Escape(r.load),
               failed ? "run failed" : num(r.total_tps), failed ? "-" : num(r.output_tps),
               r.ttft_median_ms.empty() ? "-" : md::Escape(r.ttft_median_ms),
               r.tpot_median_ms.empty() ? "-" : md::Escape(r.tpot_median_ms),
               r.completed || r.failed ? count(r.completed) + " / " + count(r.failed)
                                       : "not known (" + md::Escape(r.unknown) + ")"});
      }
      *out += t.Render() + "\n";
    }
  }
  if (!any && !view.dossier_path.empty())
    *out += "No measurement yet: `dossier p2p`, `dossier serve-bench URL`.\n\n";
}

}  // namespace dossier
