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

// Keys with a ceiling the hardware or the kernel sets, so that a value past it is a damaged
// input, not a fact: PCIe defines link widths up to x32 and (with 7.0) seven generations (10
// leaves room for the next ones); Linux numbers NUMA nodes below MAX_NUMNODES (at most 1024)
// and CPUs below NR_CPUS (at most 8192 on x86 and arm64 today; 1 << 16 leaves room).
struct Ceiling {
  std::string_view key;
  double most;
  const char* what;
};
constexpr std::array<Ceiling, 9> kCeilings = {{
    {"gen", 10, "PCIe has 7 generations"},
    {"pcie_device_max_gen", 10, "PCIe has 7 generations"},
    {"width", 32, "a PCIe link is at most x32"},
    {"numa_node", 1023, "Linux has at most 1024 NUMA nodes"},
    {"numa_id", 1023, "Linux has at most 1024 NUMA nodes"},
    {"cpu_numa_ids", 1023, "Linux has at most 1024 NUMA nodes"},
    {"threads", 65536, "more CPUs than any kernel numbers"},
    {"cores", 65536, "more CPUs than any kernel numbers"},
    {"sockets", 65536, "more CPUs than any kernel numbers"},
}};

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
  for (const auto& c : kCeilings)
    if (c.key == key && v > c.most)
      return "above " + std::to_string(static_cast<int64_t>(c.most)) + " (" + c.what + ")";
  return std::nullopt;
}

}  // namespace dossier
