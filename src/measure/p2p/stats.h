// Summaries of repeated timings: median and spread (min, max). The median, not the mean: one
// batch delayed by the host or another process should not move the figure reported.
#pragma once

#include <vector>

namespace dossier::p2p {

struct Spread {
  double median = 0, min = 0, max = 0;
};

// `values` must not be empty; an even count takes the mean of the middle two.
Spread Summarize(std::vector<double> values);

}  // namespace dossier::p2p
