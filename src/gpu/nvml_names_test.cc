// NVML's and the CUDA driver's return codes by the numbers nvml.h and cuda.h give them: a message
// says NOT_FOUND where NVML said 6, and a code the table does not know is shown as its number,
// never as another code's name.
#include <gtest/gtest.h>

#include "gpu/cuda_loader.h"
#include "gpu/nvml_loader.h"

namespace dossier::gpu {
namespace {

TEST(NvmlReturnNames, EveryCodeByItsNumber) {
  const std::pair<int, const char*> codes[] = {
      {0, "SUCCESS"},
      {1, "UNINITIALIZED"},
      {2, "INVALID_ARGUMENT"},
      {3, "NOT_SUPPORTED"},
      {4, "NO_PERMISSION"},
      {5, "ALREADY_INITIALIZED"},
      {6, "NOT_FOUND"},
      {7, "INSUFFICIENT_SIZE"},
      {8, "INSUFFICIENT_POWER"},
      {9, "DRIVER_NOT_LOADED"},
      {10, "TIMEOUT"},
      {11, "IRQ_ISSUE"},
      {12, "LIBRARY_NOT_FOUND"},
      {13, "FUNCTION_NOT_FOUND"},
      {14, "CORRUPTED_INFOROM"},
      {15, "GPU_IS_LOST"},
      {16, "RESET_REQUIRED"},
      {17, "OPERATING_SYSTEM"},
      {18, "LIB_RM_VERSION_MISMATCH"},
      {19, "IN_USE"},
      {20, "MEMORY"},
      {21, "NO_DATA"},
      {999, "UNKNOWN"},
  };
  for (auto [n, name] : codes) EXPECT_EQ(NvmlReturnName(static_cast<nvmlReturn_t>(n)), name) << n;
  // Codes of newer drivers than this table (22 VGPU_ECC_NOT_SUPPORTED and on): the number.
  EXPECT_EQ(NvmlReturnName(static_cast<nvmlReturn_t>(22)), "nvmlReturn_t 22");
  EXPECT_EQ(NvmlReturnName(static_cast<nvmlReturn_t>(998)), "nvmlReturn_t 998");
}

TEST(CudaResultNames, EveryCodeByItsNumber) {
  const std::pair<int, const char*> codes[] = {
      {0, "CUDA_SUCCESS"},
      {1, "CUDA_ERROR_INVALID_VALUE"},
      {2, "CUDA_ERROR_OUT_OF_MEMORY"},
      {3, "CUDA_ERROR_NOT_INITIALIZED"},
      {4, "CUDA_ERROR_DEINITIALIZED"},
      {34,
       "CUDA_ERROR_STUB_LIBRARY (this is the CUDA toolkit's stub libcuda.so, not the driver's)"},
      {100, "CUDA_ERROR_NO_DEVICE"},
      {101, "CUDA_ERROR_INVALID_DEVICE"},
      {201, "CUDA_ERROR_INVALID_CONTEXT"},
      {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"},
      {400, "CUDA_ERROR_INVALID_HANDLE"},
      {600, "CUDA_ERROR_NOT_READY"},
      {700, "CUDA_ERROR_ILLEGAL_ADDRESS"},
      {702, "CUDA_ERROR_LAUNCH_TIMEOUT"},
      {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED"},
      {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED"},
      {711, "CUDA_ERROR_TOO_MANY_PEERS"},
      {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED"},
      {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED"},
      {800, "CUDA_ERROR_NOT_PERMITTED"},
      {801, "CUDA_ERROR_NOT_SUPPORTED"},
      {999, "CUDA_ERROR_UNKNOWN"},
  };
  for (auto [n, name] : codes) EXPECT_EQ(CudaResultName(static_cast<CUresult>(n)), name) << n;
  EXPECT_NE(CudaResultName(static_cast<CUresult>(719)).find("719"), std::string::npos);
}

}  // namespace
}  // namespace dossier::gpu
