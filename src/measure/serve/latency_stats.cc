#include "measure/serve/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace dossier::serve {

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  p = std::clamp(p, 0.0, 100.0);
  double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(rank));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  double frac = rank - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

LatencyStats StatsOf(std::vector<double> values, const char* why_none,
                     const std::vector<double>& percentiles) {
  LatencyStats s;
  if (values.empty()) {
    for (Fact<double>* f : {&s.mean, &s.median, &s.stddev, &s.p90, &s.p95, &s.p99, &s.max}) {
      f->Unknown(why_none);
    }
    return s;
  }
  std::sort(values.begin(), values.end());
  double sum = std::accumulate(values.begin(), values.end(), 0.0);
  double mean = sum / static_cast<double>(values.size());
  double sq = 0;
  for (double v : values) sq += (v - mean) * (v - mean);
  s.mean.Set(mean, "");
  s.median.Set(Percentile(values, 50), "");
  s.stddev.Set(std::sqrt(sq / static_cast<double>(values.size())), "");  // ddof 0, as np.std
  s.p90.Set(Percentile(values, 90), "");
  s.p95.Set(Percentile(values, 95), "");
  for (double p : percentiles) s.selected.emplace_back(p, Percentile(values, p));
  s.p99.Set(Percentile(values, 99), "");
  s.max.Set(values.back(), "");
  return s;
}

}  // namespace dossier::serve
