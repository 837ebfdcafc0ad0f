#include "model/number_domain.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace dossier {
namespace {

// Keys whose -1 is a value of its own ("none"); every other number is at least 0.
constexpr std::array<std::string_view, 11> kMinusOneIsNone = {
    "numa_node", "numa_id",   "cpu_numa_ids", "src", "dst",        "rank",
    "channel",   "from_rank", "to_rank",      "dev", "cuda_device"};

}  // namespace

int64_t SmallestAllowed(std::string_view key) {
  return std::find(kMinusOneIsNone.begin(), kMinusOneIsNone.end(), key) != kMinusOneIsNone.end()
             ? -1
             : 0;
}

std::optional<std::string> OutsideDomain(std::string_view key, double v) {
  if (!std::isfinite(v)) return "not a finite number";
  int64_t least = SmallestAllowed(key);
  if (v < static_cast<double>(least))
    return least == 0 ? "below 0 (a count, size, rate, id or generation)"
                      : "below -1 (-1 is 'none'; nothing is lower)";
  return std::nullopt;
}

}  // namespace dossier
