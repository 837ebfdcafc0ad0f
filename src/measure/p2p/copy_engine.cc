#include "measure/p2p/copy_engine.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>

#include "gpu/pci_bus_id.h"
#include "measure/p2p/verify.h"

namespace dossier::p2p {
namespace {

using gpu::CudaLibrary;

template <class Fn>
Error CudaError(const gpu::Func<Fn>& f, CUresult rc) {
  return Error::Io(CudaLibrary::Why(f, rc));
}

}  // namespace

Result<std::unique_ptr<CopyEngine>> CopyEngine::Open(const CudaLibrary& cuda) {
  std::unique_ptr<CopyEngine> e(new CopyEngine(cuda));
  int n = 0;
  if (CUresult rc = cuda.device_count.fn(&n); rc != CUDA_SUCCESS)
    return CudaError(cuda.device_count, rc);
  if (n <= 0) return Error::NotFound("the CUDA driver sees no GPU");
  n = std::min(n, 256);
  e->devices_.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    Device& d = e->devices_[static_cast<size_t>(i)];
    if (CUresult rc = cuda.device_get.fn(&d.dev, i); rc != CUDA_SUCCESS) {
      d.unusable = CudaLibrary::Why(cuda.device_get, rc);
      continue;
    }
    char bus[64] = {};
    if (cuda.device_pci_bus_id.fn(bus, sizeof bus - 1, d.dev) == CUDA_SUCCESS)
      d.bus_id = gpu::NormalizePciBusId(std::string(bus, ::strnlen(bus, sizeof bus))).value_or("");
  }
  for (int i = 0; i < n; ++i) {
    Device& d = e->devices_[static_cast<size_t>(i)];
    d.can_access.assign(static_cast<size_t>(n), false);
    d.peer_on.assign(static_cast<size_t>(n), false);
    for (int j = 0; j < n; ++j) {
      int can = 0;
      if (i != j && cuda.can_access_peer.fn(&can, d.dev, e->devices_[static_cast<size_t>(j)].dev) ==
                        CUDA_SUCCESS)
        d.can_access[static_cast<size_t>(j)] = can != 0;
    }
  }
  return e;
}

CopyEngine::~CopyEngine() {
  if (any_hung_) {
    // A hung copy may still read the flag or write host memory: keep all of it for the process.
    for (auto& [node, h] : hosts_) {
      if (h.src) h.src->Abandon();
      if (h.dst) h.dst->Abandon();
    }
    if (staging_) staging_->Abandon();
  } else {
    // Host memory first, while a context is still current to unregister it in.
    for (const Device& d : devices_)
      if (d.ctx && cuda_.ctx_set_current.fn(d.ctx) == CUDA_SUCCESS) break;
    hosts_.clear();
    staging_.reset();
    if (flag_block_) cuda_.free_host.fn(flag_block_);
  }
  for (size_t i = 0; i < devices_.size(); ++i) {
    Device& d = devices_[i];
    if (!d.ctx || !d.unusable.empty()) continue;  // a hung GPU is left to process exit
    if (cuda_.ctx_set_current.fn(d.ctx) != CUDA_SUCCESS) continue;
    for (size_t j = 0; j < d.peer_on.size(); ++j)
      if (d.peer_on[j] && devices_[j].ctx && devices_[j].unusable.empty())
        cuda_.disable_peer.fn(devices_[j].ctx);
    if (d.src) cuda_.mem_free.fn(d.src);
    if (d.dst) cuda_.mem_free.fn(d.dst);
    for (CUevent ev : {d.start, d.end, d.aux})
      if (ev) cuda_.event_destroy.fn(ev);
    if (d.stream) cuda_.stream_destroy.fn(d.stream);
    cuda_.primary_ctx_release.fn(d.dev);
  }
  cuda_.ctx_set_current.fn(nullptr);
}

Status CopyEngine::Current(int d) {
  CUresult rc = cuda_.ctx_set_current.fn(devices_[static_cast<size_t>(d)].ctx);
  if (rc != CUDA_SUCCESS) return CudaError(cuda_.ctx_set_current, rc);
  return OkStatus();
}

Status CopyEngine::Context(int i) {
  Device& d = devices_[static_cast<size_t>(i)];
  if (!d.unusable.empty()) return Error::Unsupported(d.unusable);
  if (d.ctx) return Current(i);
  CUresult rc = cuda_.primary_ctx_retain.fn(&d.ctx, d.dev);
  if (rc != CUDA_SUCCESS) {
    d.ctx = nullptr;
    d.unusable = CudaLibrary::Why(cuda_.primary_ctx_retain, rc);
    return Error::Io(d.unusable);
  }
  if (Status s = Current(i); !s) return s;
  if ((rc = cuda_.stream_create.fn(&d.stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
    return CudaError(cuda_.stream_create, rc);
  for (CUevent* ev : {&d.start, &d.end, &d.aux})
    if ((rc = cuda_.event_create.fn(ev, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
      return CudaError(cuda_.event_create, rc);
  return OkStatus();
}

CopyEngine::Polled CopyEngine::Poll(CUevent e, Clock::time_point deadline, const char* what,
                                    std::string* why) {
  // Polled, never synchronized: cuEventSynchronize has no timeout, and a copy that never
  // completes must not hang the tool. Sleeping between polls does not disturb the timing, which
  // the events take on the GPU.
  for (int spins = 0;; ++spins) {
    CUresult rc = cuda_.event_query.fn(e);
    if (rc == CUDA_SUCCESS) return Polled::kDone;
    if (rc != CUDA_ERROR_NOT_READY) {
      *why = std::string(what) + ": " + CudaLibrary::Why(cuda_.event_query, rc);
      return Polled::kError;
    }
    if (Clock::now() >= deadline) {
      *why = std::string(what) + " did not complete in time";
      return Polled::kTimeout;
    }
    if (spins > 100) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

Status CopyEngine::Wait(int dev, CUevent e, Clock::time_point deadline, const char* what) {
  std::string why;
  Polled p = Poll(e, deadline, what, &why);
  if (p == Polled::kDone) return OkStatus();
  if (p == Polled::kTimeout) {
    any_hung_ = true;
    devices_[static_cast<size_t>(dev)].unusable = why + " (hung); the GPU was not used again";
  }
  return Error::Io(why);
}

Status CopyEngine::EnsureShared() {
  if (!staging_) {
    auto s = PinnedHostMemory::Create(cuda_, kWholeCheckBytes, -1);
    if (!s) return s.error();
    staging_ = std::move(*s);
  }
  if (!flag_block_ && wait_value_ok_) {
    CUresult rc = cuda_.host_alloc.fn(&flag_block_, 4096,
                                      CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    if (rc == CUDA_SUCCESS) rc = cuda_.host_device_pointer.fn(&flag_dev_, flag_block_, 0);
    if (rc != CUDA_SUCCESS || !cuda_.stream_wait_value32) {
      wait_value_ok_ = false;
      timing_note_ = "copies ran as they were queued (no host flag to hold the streams: " +
                     (cuda_.stream_wait_value32 ? CudaLibrary::Why(cuda_.host_alloc, rc)
                                                : cuda_.stream_wait_value32.missing) +
                     "); small sizes may include the time to queue them";
      return OkStatus();
    }
    flag_ = static_cast<volatile uint32_t*>(flag_block_);
    *flag_ = 0;
  }
  return OkStatus();
}

uint64_t CopyEngine::SeedOf(const Endpoint& e) const {
  return e.host() ? 0x200 + static_cast<uint64_t>(e.node + 1)
                  : 0x100 + static_cast<uint64_t>(e.device);
}

Status CopyEngine::PrepareDevice(int i, size_t capacity, Clock::time_point deadline) {
  if (Status s = Context(i); !s) return s;
  if (Status s = EnsureShared(); !s) return s;
  Device& d = devices_[static_cast<size_t>(i)];
  if (d.capacity >= capacity) return OkStatus();
  if (d.src) cuda_.mem_free.fn(d.src);
  if (d.dst) cuda_.mem_free.fn(d.dst);
  d.src = d.dst = 0;
  d.capacity = 0;
  CUresult rc = cuda_.mem_alloc.fn(&d.src, capacity);
  if (rc == CUDA_SUCCESS) rc = cuda_.mem_alloc.fn(&d.dst, capacity);
  if (rc != CUDA_SUCCESS) return CudaError(cuda_.mem_alloc, rc);
  // The source pattern goes up through the staging buffer, one staging-full at a time.
  uint64_t seed = SeedOf(Endpoint{i, -1});
  for (size_t off = 0; off < capacity; off += staging_->size()) {
    size_t n = std::min(staging_->size(), capacity - off);
    FillPattern(seed, off, n, staging_->data());
    rc = cuda_.memcpy_htod_async.fn(d.src + off, staging_->data(), n, d.stream);
    if (rc != CUDA_SUCCESS) return CudaError(cuda_.memcpy_htod_async, rc);
    if ((rc = cuda_.event_record.fn(d.end, d.stream)) != CUDA_SUCCESS)
      return CudaError(cuda_.event_record, rc);
    if (Status s = Wait(i, d.end, deadline, "filling the source buffer"); !s) return s;
  }
  d.capacity = capacity;
  return OkStatus();
}

Status CopyEngine::PrepareHost(int64_t node, size_t capacity) {
  HostSide& h = hosts_[node];
  if (h.src && h.src->size() >= capacity) return OkStatus();
  h.src.reset();
  h.dst.reset();
  auto src = PinnedHostMemory::Create(cuda_, capacity, node);
  if (!src) return src.error();
  auto dst = PinnedHostMemory::Create(cuda_, capacity, node);
  if (!dst) return dst.error();
  h.src = std::move(*src);
  h.dst = std::move(*dst);
  FillPattern(SeedOf(Endpoint{-1, node}), 0, h.src->size(), h.src->data());
  return OkStatus();
}

const std::string& CopyEngine::host_placement(int64_t node) const {
  static const std::string kNone = "not allocated";
  auto it = hosts_.find(node);
  return it == hosts_.end() || !it->second.src ? kNone : it->second.src->placement();
}

Status CopyEngine::SetPeer(int from, int to, bool on) {
  Device& a = devices_[static_cast<size_t>(from)];
  if (a.peer_on[static_cast<size_t>(to)] == on) return OkStatus();
  if (Status s = Context(to); !s) return s;
  if (Status s = Context(from); !s) return s;
  CUcontext peer = devices_[static_cast<size_t>(to)].ctx;
  CUresult rc = on ? cuda_.enable_peer.fn(peer, 0) : cuda_.disable_peer.fn(peer);
  // Already in the state asked for (a context shared with an earlier run): that is success.
  if (rc != CUDA_SUCCESS && rc != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED &&
      rc != CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
    return on ? CudaError(cuda_.enable_peer, rc) : CudaError(cuda_.disable_peer, rc);
  a.peer_on[static_cast<size_t>(to)] = on;
  return OkStatus();
}

Status CopyEngine::Clear(const Endpoint& dst, size_t bytes, Clock::time_point deadline) {
  if (dst.host()) {
    auto it = hosts_.find(dst.node);
    if (it == hosts_.end() || !it->second.dst || it->second.dst->size() < bytes)
      return Error::Invalid("host buffer not prepared");
    std::memset(it->second.dst->data(), 0, bytes);
    return OkStatus();
  }
  if (Status s = Context(dst.device); !s) return s;
  Device& d = devices_[static_cast<size_t>(dst.device)];
  CUresult rc = cuda_.memset_d8_async.fn(d.dst, 0, bytes, d.stream);
  if (rc != CUDA_SUCCESS) return CudaError(cuda_.memset_d8_async, rc);
  if ((rc = cuda_.event_record.fn(d.end, d.stream)) != CUDA_SUCCESS)
    return CudaError(cuda_.event_record, rc);
  return Wait(dst.device, d.end, deadline, "clearing the destination");
}

Status CopyEngine::Issue(const Direction& dir, size_t bytes, CUstream s) {
  CUresult rc;
  if (dir.src.host()) {
    rc = cuda_.memcpy_htod_async.fn(devices_[static_cast<size_t>(dir.dst.device)].dst,
                                    hosts_[dir.src.node].src->data(), bytes, s);
    if (rc != CUDA_SUCCESS) return CudaError(cuda_.memcpy_htod_async, rc);
  } else if (dir.dst.host()) {
    rc = cuda_.memcpy_dtoh_async.fn(hosts_[dir.dst.node].dst->data(),
                                    devices_[static_cast<size_t>(dir.src.device)].src, bytes, s);
    if (rc != CUDA_SUCCESS) return CudaError(cuda_.memcpy_dtoh_async, rc);
  } else if (dir.src.device == dir.dst.device) {
    // Device-local: one GPU's memory to another buffer in it, by the copy engine, as
    // nvbandwidth's device_local_copy (cuMemcpyAsync between two device buffers).
    const Device& a = devices_[static_cast<size_t>(dir.src.device)];
    rc = cuda_.memcpy_dtod_async.fn(a.dst, a.src, bytes, s);
    if (rc != CUDA_SUCCESS) return CudaError(cuda_.memcpy_dtod_async, rc);
  } else {
    // The same call with peer access on or off, as p2pBandwidthLatencyTest does: with it off the
    // driver stages the bytes through host memory.
    const Device& a = devices_[static_cast<size_t>(dir.src.device)];
    const Device& b = devices_[static_cast<size_t>(dir.dst.device)];
    rc = cuda_.memcpy_peer_async.fn(b.dst, b.ctx, a.src, a.ctx, bytes, s);
    if (rc != CUDA_SUCCESS) return CudaError(cuda_.memcpy_peer_async, rc);
  }
  return OkStatus();
}

void CopyEngine::MarkHung(const std::vector<Direction>& dirs, const std::string& why) {
  any_hung_ = true;
  for (const auto& d : dirs)
    for (int dev : {d.src.device, d.dst.device})
      if (dev >= 0 && devices_[static_cast<size_t>(dev)].unusable.empty())
        devices_[static_cast<size_t>(dev)].unusable = why;
}

BatchResult CopyEngine::TimeBatch(const std::vector<Direction>& dirs, int copies, size_t bytes,
                                  Clock::time_point deadline) {
  BatchResult r;
  auto fail = [&](BatchResult::Status st, std::string why) {
    r.status = st;
    r.detail = std::move(why);
    return r;
  };
  if (dirs.empty() || dirs.size() > 2) return fail(BatchResult::kError, "one or two directions");
  std::vector<int> devs;
  for (const auto& d : dirs) {
    int dev = StreamDevice(d);
    if (Status s = Context(dev); !s) return fail(BatchResult::kError, s.error().message);
    devs.push_back(dev);
  }
  auto dev = [&](size_t i) -> Device& { return devices_[static_cast<size_t>(devs[i])]; };
  if (Status s = EnsureShared(); !s) return fail(BatchResult::kError, s.error().message);

  // 1. Hold every stream behind the flag.
  const uint32_t k = ++flag_seq_;
  if (wait_value_ok_) {
    for (size_t i = 0; i < dirs.size(); ++i) {
      Current(devs[i]);
      CUresult rc =
          cuda_.stream_wait_value32.fn(dev(i).stream, flag_dev_, k, CU_STREAM_WAIT_VALUE_GEQ);
      if (rc != CUDA_SUCCESS) {
        wait_value_ok_ = false;
        timing_note_ = "copies ran as they were queued (" +
                       CudaLibrary::Why(cuda_.stream_wait_value32, rc) +
                       "); small sizes may include the time to queue them";
        break;  // a wait already queued is released below with the others
      }
    }
  }
  // 2. Start event on the first stream; the second stream starts with it.
  std::string error;
  auto check = [&](const auto& f, CUresult rc) {
    if (rc != CUDA_SUCCESS && error.empty()) error = CudaLibrary::Why(f, rc);
  };
  Current(devs[0]);
  check(cuda_.event_record, cuda_.event_record.fn(dev(0).start, dev(0).stream));
  if (dirs.size() == 2) {
    Current(devs[1]);
    check(cuda_.stream_wait_event, cuda_.stream_wait_event.fn(dev(1).stream, dev(0).start, 0));
  }
  // 3. The copies, interleaved between the directions.
  for (int c = 0; c < copies && error.empty(); ++c) {
    for (size_t i = 0; i < dirs.size() && error.empty(); ++i) {
      Current(devs[i]);
      if (Status s = Issue(dirs[i], bytes, dev(i).stream); !s) error = s.error().message;
    }
  }
  // 4. The end event on the first stream, after the second stream's work.
  if (dirs.size() == 2) {
    Current(devs[1]);
    check(cuda_.event_record, cuda_.event_record.fn(dev(1).aux, dev(1).stream));
    Current(devs[0]);
    check(cuda_.stream_wait_event, cuda_.stream_wait_event.fn(dev(0).stream, dev(1).aux, 0));
  }
  Current(devs[0]);
  check(cuda_.event_record, cuda_.event_record.fn(dev(0).end, dev(0).stream));
  // 5. Release, then wait with a bound.
  if (flag_) {
    std::atomic_thread_fence(std::memory_order_release);
    *flag_ = k;
  }
  std::string why;
  Polled done = Poll(dev(0).end, deadline, "the copies", &why);
  if (done == Polled::kTimeout) {
    MarkHung(dirs, "a copy on this GPU did not complete (hung); the GPU was not used again");
    return fail(BatchResult::kHung, why);
  }
  if (done == Polled::kError) return fail(BatchResult::kError, why);
  if (!error.empty()) return fail(BatchResult::kError, error);
  float ms = 0;
  CUresult rc = cuda_.event_elapsed.fn(&ms, dev(0).start, dev(0).end);
  if (rc != CUDA_SUCCESS)
    return fail(BatchResult::kError, CudaLibrary::Why(cuda_.event_elapsed, rc));
  r.ms = ms;
  return r;
}

Result<uint8_t*> CopyEngine::ReadBack(const Endpoint& e, size_t offset, size_t len,
                                      uint8_t* host_copy, Clock::time_point deadline) {
  if (e.host()) {
    auto it = hosts_.find(e.node);
    if (it == hosts_.end() || !it->second.dst) return Error::Invalid("host buffer not prepared");
    return it->second.dst->data() + offset;
  }
  if (Status s = Context(e.device); !s) return s.error();
  Device& d = devices_[static_cast<size_t>(e.device)];
  CUresult rc = cuda_.memcpy_dtoh_async.fn(host_copy, d.dst + offset, len, d.stream);
  if (rc != CUDA_SUCCESS) return CudaError(cuda_.memcpy_dtoh_async, rc);
  if ((rc = cuda_.event_record.fn(d.end, d.stream)) != CUDA_SUCCESS)
    return CudaError(cuda_.event_record, rc);
  if (Status s = Wait(e.device, d.end, deadline, "reading back the destination"); !s)
    return s.error();
  return host_copy;
}

Result<std::optional<size_t>> CopyEngine::Verify(const Direction& dir, size_t bytes,
                                                 Clock::time_point deadline) {
  if (Status s = EnsureShared(); !s) return s.error();
  const uint64_t seed = SeedOf(dir.src);
  for (const Window& w : CheckWindows(bytes)) {
    for (size_t off = 0; off < w.len; off += staging_->size()) {
      size_t n = std::min(staging_->size(), w.len - off);
      auto data = ReadBack(dir.dst, w.offset + off, n, staging_->data(), deadline);
      if (!data) return data.error();
      // Windows ascend: the first mismatch found is the first one there is among them.
      if (auto bad = FirstMismatch(seed, w.offset + off, n, *data)) return bad;
    }
  }
  return std::optional<size_t>();
}

}  // namespace dossier::p2p
