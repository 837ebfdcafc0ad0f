#include "measure/p2p/plan.h"

#include <algorithm>
#include <set>

#include "util/text.h"

namespace dossier::p2p {

bool IsPeerMode(std::string_view m) {
  return m == kUniP2p || m == kBiP2p || m == kLatencyP2p;
}
bool IsBidirectional(std::string_view m) {
  return m == kBiP2p || m == kBiStaged;
}
bool IsLatency(std::string_view m) {
  return m == kLatencyP2p || m == kLatencyStaged;
}
bool IsHostMode(std::string_view m) {
  return m.starts_with("h2d-") || m.starts_with("d2h-");
}
bool IsFarHost(std::string_view m) {
  return m == kH2dFar || m == kD2hFar;
}
bool IsDeviceLocal(std::string_view m) {
  return m == kDeviceLocal;
}

std::vector<uint64_t> DefaultSizes() {
  const uint64_t K = 1024, M = K * K;
  return {4 * K, 12 * K, 64 * K, 256 * K, 1 * M, 4 * M, 16 * M, 64 * M, 256 * M};
}

Result<std::vector<uint64_t>> ParseSizes(std::string_view text) {
  std::set<uint64_t> out;
  for (std::string_view piece : Split(text, ',')) {
    std::string_view t = Trim(piece);
    std::string_view digits = t;
    uint64_t mult = 1;
    size_t k = t.find_first_not_of("0123456789");
    if (k != std::string_view::npos) {
      digits = t.substr(0, k);
      std::string unit = ToLower(t.substr(k));
      if (unit == "k" || unit == "kb" || unit == "kib")
        mult = 1ull << 10;
      else if (unit == "m" || unit == "mb" || unit == "mib")
        mult = 1ull << 20;
      else if (unit == "g" || unit == "gb" || unit == "gib")
        mult = 1ull << 30;
      else if (unit != "b")
        return Error::Invalid("--sizes: '" + Printable(t) + "' has an unknown unit (use K, M, G)");
    }
    auto n = ParseUint(digits);
    if (!n || *n == 0)
      return Error::Invalid("--sizes: '" + Printable(t) + "' is not a positive size");
    if (*n > (4ull << 30) / mult)
      return Error::Invalid("--sizes: '" + Printable(t) + "' is larger than 4 GiB");
    out.insert(*n * mult);
  }
  if (out.empty()) return Error::Invalid("--sizes: no size given");
  return std::vector<uint64_t>(out.begin(), out.end());
}

Result<std::vector<GpuPair>> ParsePairs(std::string_view text) {
  std::vector<GpuPair> out;
  for (std::string_view piece : Split(text, ',')) {
    std::string_view t = Trim(piece);
    size_t dash = t.find('-');
    auto a = dash == std::string_view::npos ? std::nullopt : ParseInt(t.substr(0, dash));
    auto b = dash == std::string_view::npos ? std::nullopt : ParseInt(t.substr(dash + 1));
    if (!a || !b || *a < 0 || *b < 0 || *a > 4096 || *b > 4096)
      return Error::Invalid("--pairs: '" + Printable(t) +
                            "' is not a pair of GPU indices like 0-1");
    if (*a == *b) return Error::Invalid("--pairs: '" + Printable(t) + "' names one GPU twice");
    GpuPair p{static_cast<int>(*a), static_cast<int>(*b)};
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  }
  if (out.empty()) return Error::Invalid("--pairs: no pair given");
  return out;
}

Status CheckPairs(const std::vector<GpuPair>& pairs, int devices) {
  for (const auto& [a, b] : pairs) {
    if (a >= devices || b >= devices)
      return Error::Invalid("--pairs: " + std::to_string(a) + "-" + std::to_string(b) +
                            " names a GPU this machine does not have (CUDA sees " +
                            std::to_string(devices) + ")");
  }
  return OkStatus();
}

std::vector<PlanItem> BuildPlan(int devices, const PlanOptions& o) {
  std::vector<GpuPair> pairs = o.pairs;
  std::set<int> gpus;  // the per-GPU modes' GPUs: every one, or those --pairs names
  if (pairs.empty()) {
    for (int a = 0; a < devices; ++a) {
      gpus.insert(a);  // every GPU, paired or not
      for (int b = 0; b < devices; ++b)
        if (a != b) pairs.push_back({a, b});
    }
  }
  std::vector<PlanItem> plan;
  std::set<GpuPair> bi_done;  // unordered pairs whose bidirectional modes are planned
  auto sweep = [&](int a, int b, const char* mode) {
    for (uint64_t s : o.sizes) plan.push_back({a, b, mode, s});
  };
  for (const auto& [a, b] : pairs) {
    gpus.insert(a);
    gpus.insert(b);
    bool bi = bi_done.insert({std::min(a, b), std::max(a, b)}).second;
    sweep(a, b, kUniStaged);
    plan.push_back({a, b, kLatencyStaged, o.latency_bytes});
    if (bi) sweep(a, b, kBiStaged);
    sweep(a, b, kUniP2p);
    plan.push_back({a, b, kLatencyP2p, o.latency_bytes});
    if (bi) sweep(a, b, kBiP2p);
  }
  for (int g : gpus) {
    if (o.local) sweep(g, g, kDeviceLocal);
    if (o.host) {
      sweep(-1, g, kH2dLocal);
      sweep(g, -1, kD2hLocal);
      sweep(-1, g, kH2dFar);
      sweep(g, -1, kD2hFar);
    }
  }
  return plan;
}

int CopiesPerBatch(const PlanItem& item) {
  if (IsLatency(item.mode)) return 100;  // as p2pBandwidthLatencyTest
  const uint64_t kBatchBytes = 64ull << 20;
  uint64_t n = (kBatchBytes + item.size - 1) / std::max<uint64_t>(item.size, 1);
  return static_cast<int>(std::clamp<uint64_t>(n, 2, 100));
}

std::string FormatSize(uint64_t b) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (u < 3 && b >= 1024 && b % 1024 == 0) {
    b /= 1024;
    ++u;
  }
  return std::to_string(b) + " " + kUnits[u];
}

}  // namespace dossier::p2p
