// NVML's return codes by the numbers nvml.h gives them: a message says NOT_FOUND where NVML said
// 6, and a code this table does not know is shown as its number, never as another code's name.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace dossier::gpu
