// A stand-in for the CUDA toolkit's stub libcuda.so (lib64/stubs/), which exists to let programs
// link without a driver: it exports the driver API and every call answers
// CUDA_ERROR_STUB_LIBRARY (34). No Debian package ships it, so the suite builds this one and the
// loader's handling of a stub picked up by mistake (LD_LIBRARY_PATH pointing into stubs/) is
// tested everywhere. It exports the symbols the loader resolves (src/gpu/cuda_loader.cc), all of
// them, so that what fails is cuInit and not a missing symbol.
#define STUB_EXPORT extern "C" __attribute__((visibility("default"))) int

namespace {
constexpr int kStubLibrary = 34;  // CUDA_ERROR_STUB_LIBRARY
}

#define STUB(name)        \
  STUB_EXPORT name(...) { \
    return kStubLibrary;  \
  }

STUB(cuInit)
STUB(cuDriverGetVersion)
STUB(cuDeviceGetCount)
STUB(cuDeviceGet)
STUB(cuDeviceGetName)
STUB(cuDeviceGetPCIBusId)
STUB(cuDeviceCanAccessPeer)
STUB(cuDevicePrimaryCtxRetain)
STUB(cuDevicePrimaryCtxRelease_v2)
STUB(cuCtxSetCurrent)
STUB(cuCtxEnablePeerAccess)
STUB(cuCtxDisablePeerAccess)
STUB(cuMemAlloc_v2)
STUB(cuMemFree_v2)
STUB(cuMemHostAlloc)
STUB(cuMemFreeHost)
STUB(cuMemHostRegister_v2)
STUB(cuMemHostUnregister)
STUB(cuMemHostGetDevicePointer_v2)
STUB(cuMemcpyPeerAsync)
STUB(cuMemcpyHtoDAsync_v2)
STUB(cuMemcpyDtoHAsync_v2)
STUB(cuMemcpyDtoDAsync_v2)
STUB(cuMemsetD8Async)
STUB(cuStreamCreate)
STUB(cuStreamDestroy_v2)
STUB(cuStreamWaitEvent)
STUB(cuStreamWaitValue32_v2)
STUB(cuEventCreate)
STUB(cuEventDestroy_v2)
STUB(cuEventRecord)
STUB(cuEventQuery)
STUB(cuEventElapsedTime_v2)
