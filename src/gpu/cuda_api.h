// Our own minimal declarations of the CUDA driver API C ABI (libcuda.so.1): opaque handles, the
// constants we pass or branch on, and one function-pointer type per function we call. Checked
// against CUDA 13's cuda.h (FIELD_NOTES.md); the build needs no CUDA toolkit. The stand-in in
// tests/standins/ implements these same declarations.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // 64-bit builds only, like the driver's _v2 API
struct CUctx_st;
struct CUstream_st;
struct CUevent_st;
using CUcontext = CUctx_st*;
using CUstream = CUstream_st*;
using CUevent = CUevent_st*;

enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_STUB_LIBRARY = 34,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_LAUNCH_TIMEOUT = 702,
  CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
  CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
  CUDA_ERROR_TOO_MANY_PEERS = 711,
  CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
  CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
  CUDA_ERROR_NOT_PERMITTED = 800,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CUDA_ERROR_UNKNOWN = 999,
};

enum : unsigned {
  CU_STREAM_NON_BLOCKING = 0x1,
  CU_EVENT_DEFAULT = 0x0,
  CU_STREAM_WAIT_VALUE_GEQ = 0x0,  // wait until (int32_t)(*addr - value) >= 0
  CU_MEMHOSTALLOC_PORTABLE = 0x01,
  CU_MEMHOSTALLOC_DEVICEMAP = 0x02,
  CU_MEMHOSTREGISTER_PORTABLE = 0x01,
};

using cuInit_fn = CUresult (*)(unsigned flags);
using cuDriverGetVersion_fn = CUresult (*)(int* version);
using cuGetErrorName_fn = CUresult (*)(CUresult error, const char** name);
using cuDeviceGetCount_fn = CUresult (*)(int* count);
using cuDeviceGet_fn = CUresult (*)(CUdevice* device, int ordinal);
using cuDeviceGetString_fn = CUresult (*)(char* out, int len, CUdevice device);
using cuDeviceCanAccessPeer_fn = CUresult (*)(int* can, CUdevice device, CUdevice peer);
using cuDevicePrimaryCtxRetain_fn = CUresult (*)(CUcontext* ctx, CUdevice device);
using cuDevicePrimaryCtxRelease_fn = CUresult (*)(CUdevice device);
using cuCtxSetCurrent_fn = CUresult (*)(CUcontext ctx);
using cuCtxEnablePeerAccess_fn = CUresult (*)(CUcontext peer, unsigned flags);
using cuCtxDisablePeerAccess_fn = CUresult (*)(CUcontext peer);
using cuMemAlloc_fn = CUresult (*)(CUdeviceptr* ptr, size_t bytes);
using cuMemFree_fn = CUresult (*)(CUdeviceptr ptr);
using cuMemHostAlloc_fn = CUresult (*)(void** ptr, size_t bytes, unsigned flags);
using cuMemFreeHost_fn = CUresult (*)(void* ptr);
using cuMemHostRegister_fn = CUresult (*)(void* ptr, size_t bytes, unsigned flags);
using cuMemHostUnregister_fn = CUresult (*)(void* ptr);
using cuMemHostGetDevicePointer_fn = CUresult (*)(CUdeviceptr* dptr, void* ptr, unsigned flags);
using cuMemcpyPeerAsync_fn = CUresult (*)(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src,
                                          CUcontext src_ctx, size_t bytes, CUstream stream);
using cuMemcpyHtoDAsync_fn = CUresult (*)(CUdeviceptr dst, const void* src, size_t bytes,
                                          CUstream stream);
using cuMemcpyDtoHAsync_fn = CUresult (*)(void* dst, CUdeviceptr src, size_t bytes,
                                          CUstream stream);
using cuMemcpyDtoDAsync_fn = CUresult (*)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                          CUstream stream);
using cuMemsetD8Async_fn = CUresult (*)(CUdeviceptr dst, unsigned char value, size_t n,
                                        CUstream stream);
using cuStreamCreate_fn = CUresult (*)(CUstream* stream, unsigned flags);
using cuStreamDestroy_fn = CUresult (*)(CUstream stream);
using cuStreamWaitEvent_fn = CUresult (*)(CUstream stream, CUevent event, unsigned flags);
using cuStreamWaitValue32_fn = CUresult (*)(CUstream stream, CUdeviceptr addr, uint32_t value,
                                            unsigned flags);
using cuEventCreate_fn = CUresult (*)(CUevent* event, unsigned flags);
using cuEventDestroy_fn = CUresult (*)(CUevent event);
using cuEventRecord_fn = CUresult (*)(CUevent event, CUstream stream);
using cuEventQuery_fn = CUresult (*)(CUevent event);
using cuEventElapsedTime_fn = CUresult (*)(float* ms, CUevent start, CUevent end);

}  // extern "C"
