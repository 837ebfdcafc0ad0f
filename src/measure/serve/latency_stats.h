// Summary statistics of one latency metric (mean, median, p90, p99, max), computed the way the
// serving benchmarks people compare with compute them: percentiles by linear interpolation
// between the closest ranks (numpy's default, which vLLM's bench serve and SGLang's
// bench_serving use), so the same samples give the same figures here and there.
#pragma once

#include <vector>

#include "model/measurement.h"

namespace dossier::serve {

// p in [0, 100] of already sorted values; NaN when there are none.
double Percentile(const std::vector<double>& sorted, double p);

// Stats of the values (milliseconds), and `percentiles` into LatencyStats::selected. Unknown, with
// the reason, when there are no samples (selected stays empty).
LatencyStats StatsOf(std::vector<double> values, const char* why_none,
                     const std::vector<double>& percentiles = {});

}  // namespace dossier::serve
