#include "gpu/cuda_loader.h"

namespace dossier::gpu {

std::string CudaResultName(CUresult rc) {
  switch (rc) {
    case CUDA_SUCCESS:
      return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE:
      return "CUDA_ERROR_INVALID_VALUE";
    case CUDA_ERROR_OUT_OF_MEMORY:
      return "CUDA_ERROR_OUT_OF_MEMORY";
    case CUDA_ERROR_NOT_INITIALIZED:
      return "CUDA_ERROR_NOT_INITIALIZED";
    case CUDA_ERROR_DEINITIALIZED:
      return "CUDA_ERROR_DEINITIALIZED";
    case CUDA_ERROR_STUB_LIBRARY:
      return "CUDA_ERROR_STUB_LIBRARY (this is the CUDA toolkit's stub libcuda.so, not the "
             "driver's)";
    case CUDA_ERROR_NO_DEVICE:
      return "CUDA_ERROR_NO_DEVICE";
    case CUDA_ERROR_INVALID_DEVICE:
      return "CUDA_ERROR_INVALID_DEVICE";
    case CUDA_ERROR_INVALID_CONTEXT:
      return "CUDA_ERROR_INVALID_CONTEXT";
    case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED:
      return "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED";
    case CUDA_ERROR_INVALID_HANDLE:
      return "CUDA_ERROR_INVALID_HANDLE";
    case CUDA_ERROR_NOT_READY:
      return "CUDA_ERROR_NOT_READY";
    case CUDA_ERROR_ILLEGAL_ADDRESS:
      return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case CUDA_ERROR_LAUNCH_TIMEOUT:
      return "CUDA_ERROR_LAUNCH_TIMEOUT";
    case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED:
      return "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED";
    case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED:
      return "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED";
    case CUDA_ERROR_TOO_MANY_PEERS:
      return "CUDA_ERROR_TOO_MANY_PEERS";
    case CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
      return "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED";
    case CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED:
      return "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED";
    case CUDA_ERROR_NOT_PERMITTED:
      return "CUDA_ERROR_NOT_PERMITTED";
    case CUDA_ERROR_NOT_SUPPORTED:
      return "CUDA_ERROR_NOT_SUPPORTED";
    case CUDA_ERROR_UNKNOWN:
      return "CUDA_ERROR_UNKNOWN";
    default:
      return "CUresult " + std::to_string(rc);
  }
}

Result<std::unique_ptr<CudaLibrary>> CudaLibrary::Open(const std::string& path) {
  auto lib = DynamicLibrary::Open({path.empty() ? std::string("libcuda.so.1") : path});
  if (!lib) return lib.error();
  std::unique_ptr<CudaLibrary> cuda(new CudaLibrary(std::move(*lib)));
  if (std::string missing = cuda->Resolve(); !missing.empty()) return Error::Unsupported(missing);
  CUresult rc = cuda->init.fn(0);
  if (rc != CUDA_SUCCESS) return Error::Io(Why(cuda->init, rc));
  int v = 0;
  if (cuda->get_version.fn(&v) == CUDA_SUCCESS) cuda->driver_version_ = v;
  return cuda;
}

std::string CudaLibrary::Resolve() {
  const DynamicLibrary& l = lib_;
  init = l.Find<cuInit_fn>({"cuInit"});
  get_version = l.Find<cuDriverGetVersion_fn>({"cuDriverGetVersion"});
  device_count = l.Find<cuDeviceGetCount_fn>({"cuDeviceGetCount"});
  device_get = l.Find<cuDeviceGet_fn>({"cuDeviceGet"});
  device_name = l.Find<cuDeviceGetString_fn>({"cuDeviceGetName"});
  device_pci_bus_id = l.Find<cuDeviceGetString_fn>({"cuDeviceGetPCIBusId"});
  can_access_peer = l.Find<cuDeviceCanAccessPeer_fn>({"cuDeviceCanAccessPeer"});
  // The primary context, not cuCtxCreate: in CUDA 13 cuCtxCreate maps to a _v4 with a params
  // struct, and the primary context is the one the runtime and every framework share anyway.
  primary_ctx_retain = l.Find<cuDevicePrimaryCtxRetain_fn>({"cuDevicePrimaryCtxRetain"});
  primary_ctx_release = l.Find<cuDevicePrimaryCtxRelease_fn>(
      {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  ctx_set_current = l.Find<cuCtxSetCurrent_fn>({"cuCtxSetCurrent"});
  enable_peer = l.Find<cuCtxEnablePeerAccess_fn>({"cuCtxEnablePeerAccess"});
  disable_peer = l.Find<cuCtxDisablePeerAccess_fn>({"cuCtxDisablePeerAccess"});
  mem_alloc = l.Find<cuMemAlloc_fn>({"cuMemAlloc_v2"});
  mem_free = l.Find<cuMemFree_fn>({"cuMemFree_v2"});
  host_alloc = l.Find<cuMemHostAlloc_fn>({"cuMemHostAlloc"});
  free_host = l.Find<cuMemFreeHost_fn>({"cuMemFreeHost"});
  host_register = l.Find<cuMemHostRegister_fn>({"cuMemHostRegister_v2", "cuMemHostRegister"});
  host_unregister = l.Find<cuMemHostUnregister_fn>({"cuMemHostUnregister"});
  host_device_pointer = l.Find<cuMemHostGetDevicePointer_fn>({"cuMemHostGetDevicePointer_v2"});
  memcpy_peer_async = l.Find<cuMemcpyPeerAsync_fn>({"cuMemcpyPeerAsync"});
  memcpy_htod_async = l.Find<cuMemcpyHtoDAsync_fn>({"cuMemcpyHtoDAsync_v2"});
  memcpy_dtoh_async = l.Find<cuMemcpyDtoHAsync_fn>({"cuMemcpyDtoHAsync_v2"});
  memcpy_dtod_async = l.Find<cuMemcpyDtoDAsync_fn>({"cuMemcpyDtoDAsync_v2"});
  memset_d8_async = l.Find<cuMemsetD8Async_fn>({"cuMemsetD8Async"});
  stream_create = l.Find<cuStreamCreate_fn>({"cuStreamCreate"});
  stream_destroy = l.Find<cuStreamDestroy_fn>({"cuStreamDestroy_v2", "cuStreamDestroy"});
  stream_wait_event = l.Find<cuStreamWaitEvent_fn>({"cuStreamWaitEvent"});
  stream_wait_value32 =
      l.Find<cuStreamWaitValue32_fn>({"cuStreamWaitValue32_v2", "cuStreamWaitValue32"});
  event_create = l.Find<cuEventCreate_fn>({"cuEventCreate"});
  event_destroy = l.Find<cuEventDestroy_fn>({"cuEventDestroy_v2", "cuEventDestroy"});
  event_record = l.Find<cuEventRecord_fn>({"cuEventRecord"});
  event_query = l.Find<cuEventQuery_fn>({"cuEventQuery"});
  // cuEventElapsedTime_v2 exists from CUDA 12.8 on; older drivers have only the plain name.
  event_elapsed = l.Find<cuEventElapsedTime_fn>({"cuEventElapsedTime_v2", "cuEventElapsedTime"});

  // Everything but the stream wait is required; the first one missing is the reason.
  auto check = [](const auto& f) { return f ? std::string() : f.name + ": " + f.missing; };
  for (const std::string& why : {check(init),
                                 check(get_version),
                                 check(device_count),
                                 check(device_get),
                                 check(device_name),
                                 check(device_pci_bus_id),
                                 check(can_access_peer),
                                 check(primary_ctx_retain),
                                 check(primary_ctx_release),
                                 check(ctx_set_current),
                                 check(enable_peer),
                                 check(disable_peer),
                                 check(mem_alloc),
                                 check(mem_free),
                                 check(host_alloc),
                                 check(free_host),
                                 check(host_register),
                                 check(host_unregister),
                                 check(host_device_pointer),
                                 check(memcpy_peer_async),
                                 check(memcpy_htod_async),
                                 check(memcpy_dtoh_async),
                                 check(memcpy_dtod_async),
                                 check(memset_d8_async),
                                 check(stream_create),
                                 check(stream_destroy),
                                 check(stream_wait_event),
                                 check(event_create),
                                 check(event_destroy),
                                 check(event_record),
                                 check(event_query),
                                 check(event_elapsed)}) {
    if (!why.empty()) return why;
  }
  return {};
}

}  // namespace dossier::gpu
