#include "measure/p2p/stats.h"

#include <algorithm>

namespace dossier::p2p {

Spread Summarize(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  return s;
}

}  // namespace dossier::p2p
