// A stand-in for libcuda.so.1: the driver API symbols dossier's p2p measurement calls, over the
// fixture machine DOSSIER_STANDIN names (fixtures.h). "Device memory" is host memory and every
// copy is a real memcpy, so verification is exercised for real; the time a copy takes is a model
// (latency + bytes / bandwidth per path) kept on each stream's virtual clock, which events stamp.
//
// Streams run lazily: work queued on a stream executes whenever the caller polls (cuEventQuery,
// cuStreamQuery) and nothing blocks it: a stream waits for a 32-bit host value to reach a target
// (cuStreamWaitValue32) or for another stream's event. A copy on the fixture's hang pair never
// runs, so everything queued behind it never completes; one on the corrupt pair zeroes 256 bytes.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "fixtures.h"
#include "gpu/cuda_api.h"

struct CUctx_st {
  int device;
  std::set<int> peers;  // devices whose memory this context may access directly
};
struct CUevent_st {
  bool recorded = false;
  bool done = false;
  double t_us = 0;
};

namespace {

struct Op {
  enum Kind { kCopy, kMemset, kRecord, kWaitEvent, kWaitValue } kind;
  void* dst = nullptr;
  const void* src = nullptr;
  size_t n = 0;
  double cost_us = 0;
  bool corrupt = false;
  bool hang = false;
  unsigned char value = 0;
  CUevent_st* event = nullptr;
  const volatile uint32_t* addr = nullptr;
  uint32_t target = 0;
};

}  // namespace

struct CUstream_st {
  int device;
  std::deque<Op> ops;
  double clock_us = 0;
  double factor = 1.0;  // per-batch spread, set by the value waited for
};

namespace {

struct Alloc {
  int device;  // -1: host memory
  size_t size;
};

std::recursive_mutex g_mu;
const standin::Fixture* g_fixture = nullptr;
std::vector<CUctx_st*> g_contexts;    // by CUDA ordinal
std::vector<int> g_visible;           // CUDA ordinal -> fixture GPU (CUDA_VISIBLE_DEVICES)
std::map<uintptr_t, Alloc> g_allocs;  // base address -> allocation
std::set<CUstream_st*> g_streams;
std::set<CUevent_st*> g_events;

int DeviceOf(const void* p) {
  auto a = reinterpret_cast<uintptr_t>(p);
  auto it = g_allocs.upper_bound(a);
  if (it == g_allocs.begin()) return -1;
  --it;
  if (a < it->first + it->second.size) return it->second.device;
  return -1;
}

double Cost(const standin::Link& l, size_t n) {
  return l.latency_us + static_cast<double>(n) / (l.gbps * 1e3);
}

// Host ranges registered with cuMemHostRegister: start -> bytes. As the driver does, a range that
// overlaps one registered is refused, and only a registered start may be unregistered.
std::map<uintptr_t, size_t> g_host_registered;

void Reset() {
  g_host_registered.clear();
  for (auto* s : g_streams) delete s;
  for (auto* e : g_events) delete e;
  for (auto& [p, a] : g_allocs) std::free(reinterpret_cast<void*>(p));
  for (auto* c : g_contexts) delete c;
  g_streams.clear();
  g_events.clear();
  g_allocs.clear();
  g_contexts.clear();
  g_visible.clear();
}

// The fixture GPU behind a CUDA device handle (the handle is the ordinal), or null.
const standin::Gpu* GpuAt(CUdevice d) {
  if (!g_fixture || d < 0 || d >= static_cast<int>(g_visible.size())) return nullptr;
  return &g_fixture->gpus[static_cast<size_t>(g_visible[static_cast<size_t>(d)])];
}

// At exit, what the last initialization created goes (a real driver tears its state down too; a
// leak checker would otherwise report the stand-in's objects).
struct AtExit {
  ~AtExit() { Reset(); }
} g_at_exit;

// Runs queued work on every stream until none can move.
void Progress() {
  bool moved = true;
  while (moved) {
    moved = false;
    double now = 0;
    for (auto* s : g_streams) now = std::max(now, s->clock_us);
    for (auto* s : g_streams) {
      while (!s->ops.empty()) {
        Op& op = s->ops.front();
        if (op.kind == Op::kCopy) {
          if (op.hang) break;
          std::memmove(op.dst, op.src, op.n);
          if (op.corrupt) {
            size_t off = op.n > 8192 ? 4096 : op.n / 2;
            std::memset(static_cast<char*>(op.dst) + off, 0, std::min<size_t>(256, op.n - off));
          }
          s->clock_us += op.cost_us * s->factor;
        } else if (op.kind == Op::kMemset) {
          std::memset(op.dst, op.value, op.n);
        } else if (op.kind == Op::kRecord) {
          op.event->done = true;
          op.event->t_us = s->clock_us;
        } else if (op.kind == Op::kWaitEvent) {
          if (op.event->recorded && !op.event->done) break;
          if (op.event->recorded) s->clock_us = std::max(s->clock_us, op.event->t_us);
        } else if (op.kind == Op::kWaitValue) {
          if (static_cast<int32_t>(*op.addr - op.target) < 0) break;
          s->clock_us = std::max(s->clock_us, now);
          s->factor = 1.0 + 0.02 * (static_cast<int>(op.target % 3) - 1);
        }
        s->ops.pop_front();
        moved = true;
      }
    }
  }
}

CUresult Enqueue(CUstream s, Op op) {
  if (!g_fixture) return CUDA_ERROR_NOT_INITIALIZED;
  if (!s || !g_streams.count(s)) return CUDA_ERROR_INVALID_HANDLE;
  s->ops.push_back(op);
  Progress();
  return CUDA_SUCCESS;
}

bool PeerEnabled(int a, int b) {
  for (auto* c : g_contexts)
    if ((c->device == a && c->peers.count(b)) || (c->device == b && c->peers.count(a))) return true;
  return false;
}

}  // namespace

#define API extern "C" __attribute__((visibility("default"))) CUresult

API cuInit(unsigned flags) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  const standin::Fixture* f = &standin::Selected();
  if (f->init_fails) return CUDA_ERROR_NO_DEVICE;
  // Every initialization starts from nothing (a real process initializes once; tests load the
  // library once and initialize it per test, maybe with another fixture).
  Reset();
  // CUDA_VISIBLE_DEVICES: the driver enumerates only the GPUs listed; none listed is no device.
  std::vector<int> visible = standin::VisibleGpus(*f);
  if (visible.empty()) return CUDA_ERROR_NO_DEVICE;
  g_fixture = f;
  g_visible = visible;
  // A context's device is the fixture GPU (what the fault pairs and peer state name).
  for (int g : g_visible) g_contexts.push_back(new CUctx_st{g, {}});
  return CUDA_SUCCESS;
}
API cuDriverGetVersion(int* v) {
  *v = g_fixture ? g_fixture->cuda_version : standin::Selected().cuda_version;
  return CUDA_SUCCESS;
}
API cuGetErrorName(CUresult, const char** name) {
  *name = "standin";
  return CUDA_SUCCESS;
}
API cuDeviceGetCount(int* n) {
  if (!g_fixture) return CUDA_ERROR_NOT_INITIALIZED;
  *n = static_cast<int>(g_visible.size());
  return CUDA_SUCCESS;
}
API cuDeviceGet(CUdevice* d, int ordinal) {
  if (!g_fixture) return CUDA_ERROR_NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= static_cast<int>(g_visible.size()))
    return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}
API cuDeviceGetName(char* out, int len, CUdevice d) {
  const standin::Gpu* g = GpuAt(d);
  if (!g) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(out, static_cast<size_t>(len), "%s", g->name);
  return CUDA_SUCCESS;
}
API cuDeviceGetPCIBusId(char* out, int len, CUdevice d) {
  const standin::Gpu* g = GpuAt(d);
  if (!g) return CUDA_ERROR_INVALID_DEVICE;
  std::snprintf(out, static_cast<size_t>(len), "%04X:%02X:00.0", g->domain, g->bus);
  return CUDA_SUCCESS;
}
API cuDeviceCanAccessPeer(int* can, CUdevice a, CUdevice b) {
  if (!g_fixture) return CUDA_ERROR_NOT_INITIALIZED;
  *can = g_fixture->peer && a != b ? 1 : 0;
  return CUDA_SUCCESS;
}
API cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice d) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!g_fixture || d < 0 || d >= static_cast<int>(g_contexts.size()))
    return CUDA_ERROR_INVALID_DEVICE;
  *ctx = g_contexts[d];
  return CUDA_SUCCESS;
}
API cuDevicePrimaryCtxRelease_v2(CUdevice) {
  return CUDA_SUCCESS;
}

// The current context. Per thread in the real driver; one global here, because dossier drives CUDA
// from one thread and LeakSanitizer (GCC 12) mis-reads the dynamic TLS of a dlopen'ed library.
CUctx_st* t_current = nullptr;

API cuCtxSetCurrent(CUcontext c) {
  t_current = c;
  return CUDA_SUCCESS;
}
API cuCtxEnablePeerAccess(CUcontext peer, unsigned flags) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!t_current || !peer || flags) return CUDA_ERROR_INVALID_VALUE;
  if (!g_fixture->peer) return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
  if (!t_current->peers.insert(peer->device).second) return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
  return CUDA_SUCCESS;
}
API cuCtxDisablePeerAccess(CUcontext peer) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!t_current || !peer) return CUDA_ERROR_INVALID_CONTEXT;
  if (!t_current->peers.erase(peer->device)) return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
  return CUDA_SUCCESS;
}
API cuMemAlloc_v2(CUdeviceptr* p, size_t n) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!t_current) return CUDA_ERROR_INVALID_CONTEXT;
  void* m = std::malloc(n ? n : 1);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  g_allocs[reinterpret_cast<uintptr_t>(m)] = {t_current->device, n};
  *p = reinterpret_cast<CUdeviceptr>(m);
  return CUDA_SUCCESS;
}
API cuMemFree_v2(CUdeviceptr p) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  auto it = g_allocs.find(static_cast<uintptr_t>(p));
  if (it == g_allocs.end()) return CUDA_ERROR_INVALID_VALUE;
  std::free(reinterpret_cast<void*>(it->first));
  g_allocs.erase(it);
  return CUDA_SUCCESS;
}
API cuMemHostAlloc(void** p, size_t n, unsigned) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  void* m = std::malloc(n ? n : 1);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  g_allocs[reinterpret_cast<uintptr_t>(m)] = {-1, n};
  *p = m;
  return CUDA_SUCCESS;
}
API cuMemFreeHost(void* p) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  auto it = g_allocs.find(reinterpret_cast<uintptr_t>(p));
  if (it == g_allocs.end()) return CUDA_ERROR_INVALID_VALUE;
  std::free(p);
  g_allocs.erase(it);
  return CUDA_SUCCESS;
}
API cuMemHostRegister_v2(void* p, size_t n, unsigned) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!p || !n) return CUDA_ERROR_INVALID_VALUE;
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (auto [start, bytes] : g_host_registered)
    if (a < start + bytes && start < a + n) return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  g_host_registered[a] = n;
  return CUDA_SUCCESS;
}
API cuMemHostUnregister(void* p) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  return g_host_registered.erase(reinterpret_cast<uintptr_t>(p))
             ? CUDA_SUCCESS
             : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}
// For tests: how many host ranges are registered now (a test sees that what it registered is
// unregistered when its owner goes).
extern "C" __attribute__((visibility("default"))) size_t dossier_standin_host_registrations() {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  return g_host_registered.size();
}
API cuMemHostGetDevicePointer_v2(CUdeviceptr* d, void* p, unsigned) {
  *d = reinterpret_cast<CUdeviceptr>(p);  // unified addressing: the same address
  return CUDA_SUCCESS;
}
API cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n,
                      CUstream s) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!dctx || !sctx) return CUDA_ERROR_INVALID_CONTEXT;
  int a = sctx->device, b = dctx->device;
  if (DeviceOf(reinterpret_cast<void*>(src)) != a || DeviceOf(reinterpret_cast<void*>(dst)) != b)
    return CUDA_ERROR_INVALID_VALUE;
  bool p2p = PeerEnabled(a, b);
  Op op{Op::kCopy};
  op.dst = reinterpret_cast<void*>(dst);
  op.src = reinterpret_cast<const void*>(src);
  op.n = n;
  op.cost_us = Cost(p2p ? g_fixture->p2p_link : g_fixture->staged, n);
  op.corrupt = p2p && a == g_fixture->corrupt_src && b == g_fixture->corrupt_dst;
  op.hang = p2p && a == g_fixture->hang_src && b == g_fixture->hang_dst;
  return Enqueue(s, op);
}
API cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t n, CUstream s) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (DeviceOf(reinterpret_cast<void*>(dst)) < 0) return CUDA_ERROR_INVALID_VALUE;
  Op op{Op::kCopy};
  op.dst = reinterpret_cast<void*>(dst);
  op.src = src;
  op.n = n;
  op.cost_us = Cost(g_fixture->h2d, n);
  return Enqueue(s, op);
}
API cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t n, CUstream s) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (DeviceOf(reinterpret_cast<void*>(src)) < 0) return CUDA_ERROR_INVALID_VALUE;
  Op op{Op::kCopy};
  op.dst = dst;
  op.src = reinterpret_cast<const void*>(src);
  op.n = n;
  op.cost_us = Cost(g_fixture->d2h, n);
  return Enqueue(s, op);
}
API cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  int a = DeviceOf(reinterpret_cast<void*>(src)), b = DeviceOf(reinterpret_cast<void*>(dst));
  if (a < 0 || b < 0) return CUDA_ERROR_INVALID_VALUE;
  Op op{Op::kCopy};
  op.dst = reinterpret_cast<void*>(dst);
  op.src = reinterpret_cast<const void*>(src);
  op.n = n;
  // Within one GPU at its memory's speed; across GPUs (unified addressing) as a peer copy would.
  op.cost_us = Cost(a == b ? g_fixture->local : g_fixture->staged, n);
  return Enqueue(s, op);
}
API cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (DeviceOf(reinterpret_cast<void*>(dst)) < 0) return CUDA_ERROR_INVALID_VALUE;
  Op op{Op::kMemset};
  op.dst = reinterpret_cast<void*>(dst);
  op.n = n;
  op.value = v;
  return Enqueue(s, op);
}
API cuStreamCreate(CUstream* s, unsigned) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!t_current) return CUDA_ERROR_INVALID_CONTEXT;
  *s = new CUstream_st{t_current->device, {}, 0, 1.0};
  g_streams.insert(*s);
  return CUDA_SUCCESS;
}
API cuStreamDestroy_v2(CUstream s) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!g_streams.erase(s)) return CUDA_ERROR_INVALID_HANDLE;
  delete s;
  return CUDA_SUCCESS;
}
API cuStreamWaitEvent(CUstream s, CUevent e, unsigned) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!g_events.count(e)) return CUDA_ERROR_INVALID_HANDLE;
  Op op{Op::kWaitEvent};
  op.event = e;
  return Enqueue(s, op);
}
API cuStreamWaitValue32_v2(CUstream s, CUdeviceptr addr, uint32_t value, unsigned flags) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!g_fixture) return CUDA_ERROR_NOT_INITIALIZED;
  if (!g_fixture->wait_value) return CUDA_ERROR_NOT_SUPPORTED;
  if (flags != CU_STREAM_WAIT_VALUE_GEQ || !addr) return CUDA_ERROR_INVALID_VALUE;
  Op op{Op::kWaitValue};
  op.addr = reinterpret_cast<const volatile uint32_t*>(addr);
  op.target = value;
  return Enqueue(s, op);
}
API cuEventCreate(CUevent* e, unsigned) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  *e = new CUevent_st;
  g_events.insert(*e);
  return CUDA_SUCCESS;
}
API cuEventDestroy_v2(CUevent e) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!g_events.erase(e)) return CUDA_ERROR_INVALID_HANDLE;
  // Ops still queued on a hung stream may name it: leave it allocated (a leak only after a hang).
  for (auto* s : g_streams)
    for (auto& op : s->ops)
      if (op.event == e) return CUDA_SUCCESS;
  delete e;
  return CUDA_SUCCESS;
}
API cuEventRecord(CUevent e, CUstream s) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!g_events.count(e)) return CUDA_ERROR_INVALID_HANDLE;
  e->recorded = true;
  e->done = false;
  Op op{Op::kRecord};
  op.event = e;
  return Enqueue(s, op);
}
API cuEventQuery(CUevent e) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!g_events.count(e)) return CUDA_ERROR_INVALID_HANDLE;
  Progress();
  return !e->recorded || e->done ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}
static CUresult Elapsed(float* ms, CUevent a, CUevent b) {
  std::lock_guard<std::recursive_mutex> l(g_mu);
  if (!g_events.count(a) || !g_events.count(b)) return CUDA_ERROR_INVALID_HANDLE;
  Progress();
  if (!a->recorded || !b->recorded) return CUDA_ERROR_INVALID_HANDLE;
  if (!a->done || !b->done) return CUDA_ERROR_NOT_READY;
  *ms = static_cast<float>((b->t_us - a->t_us) / 1000.0);
  return CUDA_SUCCESS;
}
API cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
  return Elapsed(ms, a, b);
}
API cuEventElapsedTime_v2(float* ms, CUevent a, CUevent b) {
  return Elapsed(ms, a, b);
}
