// The sweep plan of `dossier p2p`: which copies to time, in which order. Pure data, no CUDA: the
// plan is built from the device count and the options, so it is tested on its own.
//
// Order: per GPU pair, the staged modes first (peer access off), then the peer modes (peer access
// on), so access is switched once per pair; then per GPU its device-local copies and
// host<->device. A bidirectional mode is planned once per unordered pair. The per-GPU modes cover
// every GPU the run sees (with --pairs, the GPUs named), so one GPU is measured too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.h"

namespace dossier::p2p {

// Mode names, as stored in P2pResult::mode.
inline constexpr const char* kUniP2p = "uni-p2p";
inline constexpr const char* kBiP2p = "bi-p2p";
inline constexpr const char* kUniStaged = "uni-staged";
inline constexpr const char* kBiStaged = "bi-staged";
inline constexpr const char* kLatencyP2p = "latency-p2p";
inline constexpr const char* kLatencyStaged = "latency-staged";
inline constexpr const char* kH2dLocal = "h2d-local";
inline constexpr const char* kH2dFar = "h2d-far";
inline constexpr const char* kD2hLocal = "d2h-local";
inline constexpr const char* kD2hFar = "d2h-far";
// One GPU's memory to another buffer in the same GPU's memory (nvbandwidth's device_local_copy):
// the GPU's own memory path, the ceiling any copy that involves it is read against.
inline constexpr const char* kDeviceLocal = "device-local";

bool IsPeerMode(std::string_view mode);  // peer access enabled
bool IsBidirectional(std::string_view mode);
bool IsLatency(std::string_view mode);
bool IsHostMode(std::string_view mode);  // h2d-*/d2h-*
bool IsFarHost(std::string_view mode);
bool IsDeviceLocal(std::string_view mode);

struct PlanItem {
  int src = -1;  // CUDA ordinal; -1 for host memory
  int dst = -1;
  std::string mode;
  uint64_t size = 0;
  bool operator==(const PlanItem&) const = default;
};

using GpuPair = std::pair<int, int>;

struct PlanOptions {
  std::vector<uint64_t> sizes;  // bandwidth sizes, ascending
  std::vector<GpuPair> pairs;   // ordered pairs; empty: every ordered pair
  uint64_t latency_bytes = 16;  // the small-message size (p2pBandwidthLatencyTest uses 16 bytes)
  bool host = true;             // host<->device per GPU
  bool local = true;            // device-local copies per GPU
};

// 4 KiB, 12 KiB, 64 KiB, 256 KiB, 1 MiB, 4 MiB, 16 MiB, 64 MiB, 256 MiB: 12 KiB and 16 MiB are the
// seed story's table rows.
std::vector<uint64_t> DefaultSizes();

// "4K,12K,16M,256MiB,4096": K/KB/KiB, M/MB/MiB, G/GB/GiB are all binary (1024-based) multiples.
// Sorted, duplicates dropped; each between 1 byte and 4 GiB.
Result<std::vector<uint64_t>> ParseSizes(std::string_view text);
// "0-1,2-3": ordered pairs of CUDA ordinals, duplicates dropped; "a-a" is an error.
Result<std::vector<GpuPair>> ParsePairs(std::string_view text);
// Every pair names a device below `devices`.
Status CheckPairs(const std::vector<GpuPair>& pairs, int devices);

// May be empty (no pairs and no per-GPU mode): the caller says why and measures nothing.
std::vector<PlanItem> BuildPlan(int devices, const PlanOptions& options);

// How many copies one timed batch holds: enough bytes that the two events' resolution (about half
// a microsecond) and the start of the batch are small against it, few enough that queueing them
// does not fill the stream (at most 100).
int CopiesPerBatch(const PlanItem& item);

// 12288 -> "12 KiB"; 16777216 -> "16 MiB"; 16 -> "16 B".
std::string FormatSize(uint64_t bytes);

}  // namespace dossier::p2p
