// CopyEngine: the copies of `dossier p2p`, over the CUDA driver API loaded at run time. It owns
// what a measurement allocates (the devices' primary contexts, one stream and three events per
// device, a source and a destination buffer per device, pinned host memory per NUMA node, a pinned
// staging buffer and a host flag) and frees it when destroyed, except what a copy that never
// completed may still touch.
//
// A timed batch: every stream taking part first waits (cuStreamWaitValue32) for a host flag; the
// start event, the copies and the end event are queued behind that wait; then the host raises the
// flag. So the time between the events is the copies' alone, not the host's work of queueing them
// (the role of the delay kernel in p2pBandwidthLatencyTest and the spin kernel in nvbandwidth).
// Where the driver refuses the wait, copies run as they are queued and timing_note() says so.
//
// Nothing here blocks without a bound: completion is polled (cuEventQuery) against a deadline. A
// batch that misses it is "hung"; the GPUs it used are then left alone (not freed, not used again)
// because freeing memory under a copy that may still run is what a blocking call would wait on.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu/cuda_loader.h"
#include "measure/p2p/host_memory.h"
#include "util/result.h"

namespace dossier::p2p {

using Clock = std::chrono::steady_clock;

// Where the bytes of a copy come from or go to: a device's buffer, or pinned host memory.
struct Endpoint {
  int device = -1;    // CUDA ordinal; -1 for host memory
  int64_t node = -1;  // host memory's NUMA node (-1: default policy)
  bool host() const { return device < 0; }
};

struct Direction {
  Endpoint src, dst;
};

struct BatchResult {
  enum Status { kOk, kHung, kError } status = kOk;
  double ms = 0;       // between the start and end events
  std::string detail;  // why, when not kOk
};

class CopyEngine {
 public:
  // Counts the devices and asks which pairs can access each other; allocates nothing yet.
  static Result<std::unique_ptr<CopyEngine>> Open(const gpu::CudaLibrary& cuda);
  ~CopyEngine();
  CopyEngine(const CopyEngine&) = delete;
  CopyEngine& operator=(const CopyEngine&) = delete;

  int device_count() const { return static_cast<int>(devices_.size()); }
  // DDDD:BB:DD.F of a device, "" when the driver did not say.
  const std::string& bus_id(int d) const { return devices_[d].bus_id; }
  bool can_access_peer(int a, int b) const { return devices_[a].can_access[b]; }
  // False once a copy on the device hung (or its context could not be made); reason says which.
  bool usable(int d) const { return devices_[d].unusable.empty(); }
  const std::string& unusable_reason(int d) const { return devices_[d].unusable; }
  // Empty while batches are held back by a stream wait; else why they are not.
  const std::string& timing_note() const { return timing_note_; }

  // Lets `from`'s context access `to`'s memory directly (on), or not (off). Idempotent.
  Status SetPeer(int from, int to, bool on);
  // Source (with its pattern) and destination buffers of `capacity` bytes on a device.
  Status PrepareDevice(int d, size_t capacity, Clock::time_point deadline);
  // Source (with its pattern) and destination pinned host buffers on a NUMA node.
  Status PrepareHost(int64_t node, size_t capacity);
  const std::string& host_placement(int64_t node) const;

  // Zeroes the first `bytes` of an endpoint's destination buffer.
  Status Clear(const Endpoint& dst, size_t bytes, Clock::time_point deadline);
  // Times `copies` copies of `bytes` bytes in each direction, the directions concurrently.
  BatchResult TimeBatch(const std::vector<Direction>& dirs, int copies, size_t bytes,
                        Clock::time_point deadline);
  // Compares the destination with the source's pattern over the verification windows; the first
  // differing offset, or nullopt when intact.
  Result<std::optional<size_t>> Verify(const Direction& d, size_t bytes,
                                       Clock::time_point deadline);

 private:
  struct Device {
    CUdevice dev = 0;
    std::string bus_id;
    std::vector<bool> can_access;
    std::vector<bool> peer_on;
    CUcontext ctx = nullptr;
    CUstream stream = nullptr;
    CUevent start = nullptr, end = nullptr, aux = nullptr;
    CUdeviceptr src = 0, dst = 0;
    size_t capacity = 0;
    std::string unusable;
  };
  struct HostSide {
    std::unique_ptr<PinnedHostMemory> src, dst;
  };

  explicit CopyEngine(const gpu::CudaLibrary& cuda) : cuda_(cuda) {}
  Status Context(int d);  // retains the primary context and makes it current; creates the stream
  Status Current(int d);
  enum class Polled { kDone, kTimeout, kError };
  Polled Poll(CUevent e, Clock::time_point deadline, const char* what, std::string* why);
  // Poll as a Status; a timeout marks the device hung.
  Status Wait(int dev, CUevent e, Clock::time_point deadline, const char* what);
  Status EnsureShared();  // staging buffer and flag
  Status Issue(const Direction& d, size_t bytes, CUstream s);
  int StreamDevice(const Direction& d) const { return d.src.host() ? d.dst.device : d.src.device; }
  uint64_t SeedOf(const Endpoint& e) const;
  Result<uint8_t*> ReadBack(const Endpoint& e, size_t offset, size_t len, uint8_t* host_copy,
                            Clock::time_point deadline);
  void MarkHung(const std::vector<Direction>& dirs, const std::string& why);

  const gpu::CudaLibrary& cuda_;
  std::vector<Device> devices_;
  std::map<int64_t, HostSide> hosts_;
  std::unique_ptr<PinnedHostMemory> staging_;
  volatile uint32_t* flag_ = nullptr;  // pinned, mapped into every context (portable)
  void* flag_block_ = nullptr;
  CUdeviceptr flag_dev_ = 0;
  uint32_t flag_seq_ = 0;
  bool wait_value_ok_ = true;
  std::string timing_note_;
  bool any_hung_ = false;
};

}  // namespace dossier::p2p
