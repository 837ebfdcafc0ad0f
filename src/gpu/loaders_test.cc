// The NVML and CUDA loaders against the stand-in libraries (tests/standins/) and the CUDA
// toolkit's stub libcuda.so: which symbol versions are picked, and the reasons kept on failure.
#include <gtest/gtest.h>

#include <filesystem>

#include "gpu/cuda_loader.h"
#include "gpu/nvml_loader.h"
#include "gpu/pci_bus_id.h"
#include "tests/standin_paths.h"

namespace dossier::gpu {
namespace {

using testing::StandinFixture;

TEST(NvmlLoader, PrefersVersionedSymbols) {
  StandinFixture f("seed-guest");
  auto lib = NvmlLibrary::Open(testing::NvmlStandin());
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->init.name, "nvmlInit_v2");
  EXPECT_EQ((*lib)->pci_info.name, "nvmlDeviceGetPciInfo_v3");
  EXPECT_EQ((*lib)->handle_by_index.name, "nvmlDeviceGetHandleByIndex_v2");
  EXPECT_FALSE((*lib)->pci_info_v1);
  unsigned n = 0;
  EXPECT_EQ(NvmlLibrary::Call((*lib)->device_count, &n), NVML_SUCCESS);
  EXPECT_EQ(n, 8u);
}

TEST(NvmlLoader, FallsBackToPlainNamesAndSaysWhatIsMissing) {
  StandinFixture f("bare-pair");
  auto lib = NvmlLibrary::Open(testing::NvmlStandinPlain());
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->init.name, "nvmlInit");
  EXPECT_EQ((*lib)->pci_info.name, "nvmlDeviceGetPciInfo");
  EXPECT_TRUE((*lib)->pci_info_v1);
  EXPECT_FALSE((*lib)->numa_node_id);
  std::string why = NvmlLibrary::Why((*lib)->numa_node_id, NVML_ERROR_FUNCTION_NOT_FOUND);
  EXPECT_EQ(why.rfind("nvmlDeviceGetNumaNodeId: not in ", 0), 0u) << why;
}

TEST(NvmlLoader, InitFailureIsTheReason) {
  StandinFixture f("init-fails");
  auto lib = NvmlLibrary::Open(testing::NvmlStandin());
  ASSERT_FALSE(lib);
  EXPECT_EQ(lib.error().message, "nvmlInit_v2: DRIVER_NOT_LOADED");
}

TEST(NvmlLoader, MissingLibraryKeepsTheLoaderMessage) {
  auto lib = NvmlLibrary::Open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(lib);
  EXPECT_NE(lib.error().message.find("cannot open shared object file"), std::string::npos)
      << lib.error().message;
}

TEST(NvmlLoader, NamesReturnCodes) {
  EXPECT_EQ(NvmlReturnName(3), "NOT_SUPPORTED");
  EXPECT_EQ(NvmlReturnName(999), "UNKNOWN");
  EXPECT_EQ(NvmlReturnName(12345), "nvmlReturn_t 12345");
}

TEST(CudaLoader, StubLibraryGivesACleanReason) {
  // The suite's own stub (tests/standins/cuda_stub.cc), always; the toolkit's too where one is.
  std::vector<std::string> stubs = {testing::StandinLib("cuda_stub_standin")};
  if (std::filesystem::exists("/usr/local/cuda/lib64/stubs/libcuda.so"))
    stubs.push_back("/usr/local/cuda/lib64/stubs/libcuda.so");
  for (const auto& stub : stubs) {
    auto lib = CudaLibrary::Open(stub);
    ASSERT_FALSE(lib) << stub;
    EXPECT_NE(lib.error().message.find("cuInit: CUDA_ERROR_STUB_LIBRARY"), std::string::npos)
        << stub << ": " << lib.error().message;
  }
}

TEST(CudaLoader, StandinResolvesNewestSymbols) {
  StandinFixture f("bare-pair");
  auto lib = CudaLibrary::Open(testing::CudaStandin());
  ASSERT_TRUE(lib) << lib.error().message;
  EXPECT_EQ((*lib)->event_elapsed.name, "cuEventElapsedTime_v2");
  EXPECT_EQ((*lib)->mem_alloc.name, "cuMemAlloc_v2");
  EXPECT_EQ((*lib)->stream_wait_value32.name, "cuStreamWaitValue32_v2");
  EXPECT_EQ((*lib)->driver_version(), 12080);
}

TEST(CudaLoader, InitFailureAndMissingLibrary) {
  {
    StandinFixture f("init-fails");
    auto lib = CudaLibrary::Open(testing::CudaStandin());
    ASSERT_FALSE(lib);
    EXPECT_EQ(lib.error().message, "cuInit: CUDA_ERROR_NO_DEVICE");
  }
  auto none = CudaLibrary::Open("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("cannot open shared object file"), std::string::npos);
}

TEST(PciBusId, NormalizesWhatTheLibrariesWrite) {
  EXPECT_EQ(NormalizePciBusId("00000000:E1:00.0"), "0000:e1:00.0");
  EXPECT_EQ(NormalizePciBusId("0000:01:00.0"), "0000:01:00.0");
  EXPECT_EQ(NormalizePciBusId("00010000:01:1f.7"), "10000:01:1f.7");
  EXPECT_EQ(NormalizePciBusId(" 0000:01:00.0\n"), "0000:01:00.0");
  EXPECT_FALSE(NormalizePciBusId("01:00.0"));
  EXPECT_FALSE(NormalizePciBusId("0000:01:20.0"));  // device numbers stop at 0x1f
  EXPECT_FALSE(NormalizePciBusId("0000:0g:00.0"));
  EXPECT_FALSE(NormalizePciBusId(""));
  EXPECT_EQ(FormatPciBusId(0, 0xc1, 0), "0000:c1:00.0");
}

}  // namespace
}  // namespace dossier::gpu
