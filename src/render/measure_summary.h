// A short summary of the measurements of a machine for the report's Measurements section (the
// detailed tables are the measurement renderers' own): per p2p run, what was measured and how it
// went; per serving run, the throughput and latency figures people compare.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "view/view.h"

namespace dossier {

struct P2pSummary {
  std::string time;
  std::string stale;  // measured in an earlier boot
  size_t gpus = 0, results = 0, ok = 0, corrupted = 0, hung = 0, waived = 0, errors = 0;
  bool interrupted = false;
  std::string best_p2p;     // "41.41 GB/s GPU 0 -> 1 uni-p2p at 16777216 B", or ""
  std::string best_staged;  // the same for copies staged through host memory
  // Both directions at once (bi-p2p, else bi-staged): the sum of the two directions, said so.
  std::string best_bidir;
  std::string small_latency;  // "13.40 us GPU 0 -> 1 (latency-staged)"
};

struct ServeSummaryRow {
  std::string time, endpoint, stale, load;  // load: "concurrency 64" or "rate 2/s"
  // nullopt: not known (a typed-in figure that did not give it); `unknown` says why.
  std::optional<double> total_tps, output_tps;
  std::string ttft_median_ms, tpot_median_ms;  // "" when not measured
  std::optional<int64_t> completed, failed;
  bool measured = false;  // a request completed, or the counts are not known (typed in)
  std::string unknown;    // why a figure above is not known; "" when all are
};

std::vector<P2pSummary> SummarizeP2p(const MachineView& mv);
std::vector<ServeSummaryRow> SummarizeServe(const MachineView& mv);

}  // namespace dossier
