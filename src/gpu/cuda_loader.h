// CudaLibrary: the CUDA driver API (libcuda.so.1) loaded at run time and initialized.
//
// Open() loads an explicit path (--cuda-lib) or libcuda.so.1, resolves every function the p2p
// measurement calls (newest versioned symbol first: cuMemAlloc_v2, cuEventElapsedTime_v2 from CUDA
// 12.8 else cuEventElapsedTime, …), and calls cuInit(0). A required function that is missing, or a
// cuInit that fails, makes Open() fail with the reason; the toolkit's stub libcuda.so answers
// CUDA_ERROR_STUB_LIBRARY, which is named as such. Optional functions (cuStreamWaitValue32) may be
// empty; the caller says what it does without them.
#pragma once

#include <memory>
#include <string>

#include "gpu/cuda_api.h"
#include "gpu/dynamic_library.h"
#include "util/result.h"

namespace dossier::gpu {

// "CUDA_ERROR_NOT_READY" for 600; "CUresult 12345" for codes we do not name.
std::string CudaResultName(CUresult rc);

class CudaLibrary {
 public:
  static Result<std::unique_ptr<CudaLibrary>> Open(const std::string& path);
  CudaLibrary(const CudaLibrary&) = delete;
  CudaLibrary& operator=(const CudaLibrary&) = delete;

  const std::string& path() const { return lib_.path(); }
  int driver_version() const { return driver_version_; }  // 12080 for 12.8; 0 when unknown

  // "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY"
  template <class Fn>
  static std::string Why(const Func<Fn>& f, CUresult rc) {
    if (!f) return f.name + ": " + f.missing;
    return f.name + ": " + CudaResultName(rc);
  }

  Func<cuInit_fn> init;
  Func<cuDriverGetVersion_fn> get_version;
  Func<cuDeviceGetCount_fn> device_count;
  Func<cuDeviceGet_fn> device_get;
  Func<cuDeviceGetString_fn> device_name, device_pci_bus_id;
  Func<cuDeviceCanAccessPeer_fn> can_access_peer;
  Func<cuDevicePrimaryCtxRetain_fn> primary_ctx_retain;
  Func<cuDevicePrimaryCtxRelease_fn> primary_ctx_release;
  Func<cuCtxSetCurrent_fn> ctx_set_current;
  Func<cuCtxEnablePeerAccess_fn> enable_peer;
  Func<cuCtxDisablePeerAccess_fn> disable_peer;
  Func<cuMemAlloc_fn> mem_alloc;
  Func<cuMemFree_fn> mem_free;
  Func<cuMemHostAlloc_fn> host_alloc;
  Func<cuMemFreeHost_fn> free_host;
  Func<cuMemHostRegister_fn> host_register;
  Func<cuMemHostUnregister_fn> host_unregister;
  Func<cuMemHostGetDevicePointer_fn> host_device_pointer;
  Func<cuMemcpyPeerAsync_fn> memcpy_peer_async;
  Func<cuMemcpyHtoDAsync_fn> memcpy_htod_async;
  Func<cuMemcpyDtoHAsync_fn> memcpy_dtoh_async;
  Func<cuMemcpyDtoDAsync_fn> memcpy_dtod_async;
  Func<cuMemsetD8Async_fn> memset_d8_async;
  Func<cuStreamCreate_fn> stream_create;
  Func<cuStreamDestroy_fn> stream_destroy;
  Func<cuStreamWaitEvent_fn> stream_wait_event;
  Func<cuStreamWaitValue32_fn> stream_wait_value32;  // optional
  Func<cuEventCreate_fn> event_create;
  Func<cuEventDestroy_fn> event_destroy;
  Func<cuEventRecord_fn> event_record;
  Func<cuEventQuery_fn> event_query;
  Func<cuEventElapsedTime_fn> event_elapsed;

 private:
  explicit CudaLibrary(DynamicLibrary lib) : lib_(std::move(lib)) {}
  // Resolves every function; returns the first required one that is missing, if any.
  std::string Resolve();
  DynamicLibrary lib_;
  int driver_version_ = 0;
};

}  // namespace dossier::gpu
