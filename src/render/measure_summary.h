// A short summary of the measurements of a machine for the report's Measurements section (the
// detailed tables are the measurement renderers' own): per p2p run, what was measured and how it
// went; per serving run, the throughput and latency figures people compare.
#pragma once

#include <string>
#include <vector>

#include "view/view.h"

namespace dossier {

struct P2pSummary {
  std::string time;
  std::string stale;  // measured in an earlier boot
  size_t gpus = 0, results = 0, ok = 0, corrupted = 0, hung = 0, waived = 0, errors = 0;
  bool interrupted = false;
  std::string best_p2p;       // "41.41 GB/s GPU 0 -> 1 uni-p2p at 16777216 B", or ""
  std::string best_staged;    // the same for copies staged through host memory
  std::string small_latency;  // "13.40 us GPU 0 -> 1 (latency-staged)"
};

struct ServeSummaryRow {
  std::string time, endpoint, stale, load;  // load: "concurrency 64" or "rate 2/s"
  double total_tps = 0, output_tps = 0;
  std::string ttft_median_ms, tpot_median_ms;  // "" when not measured
  int64_t completed = 0, failed = 0;
};

std::vector<P2pSummary> SummarizeP2p(const MachineView& mv);
std::vector<ServeSummaryRow> SummarizeServe(const MachineView& mv);

}  // namespace dossier
