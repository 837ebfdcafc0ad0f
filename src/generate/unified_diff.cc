#include "generate/unified_diff.h"

#include <vector>

#include "util/text.h"

namespace dossier::generate {

std::string UnifiedDiffSameLines(std::string_view a, std::string_view b, const std::string& name_a,
                                 const std::string& name_b) {
  std::vector<std::string_view> la = SplitLines(a), lb = SplitLines(b);
  const size_t n = std::min(la.size(), lb.size());
  std::vector<size_t> changed;
  for (size_t i = 0; i < n; ++i)
    if (la[i] != lb[i]) changed.push_back(i);
  if (changed.empty()) return "";
  std::string out = "--- " + name_a + "\n+++ " + name_b + "\n";
  constexpr size_t kContext = 3;
  size_t k = 0;
  while (k < changed.size()) {
    size_t begin = changed[k] >= kContext ? changed[k] - kContext : 0;
    size_t last = k;
    while (last + 1 < changed.size() && changed[last + 1] <= changed[last] + 2 * kContext) ++last;
    size_t end = std::min(n, changed[last] + kContext + 1);
    size_t len = end - begin;
    out += "@@ -" + std::to_string(begin + 1) + "," + std::to_string(len) + " +" +
           std::to_string(begin + 1) + "," + std::to_string(len) + " @@\n";
    for (size_t i = begin; i < end; ++i) {
      if (la[i] == lb[i]) {
        out += " " + std::string(la[i]) + "\n";
      } else {
        out += "-" + std::string(la[i]) + "\n";
        out += "+" + std::string(lb[i]) + "\n";
      }
    }
    k = last + 1;
  }
  return out;
}

}  // namespace dossier::generate
