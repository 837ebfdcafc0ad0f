// TORCH_CUDA_ARCH_LIST against a GPU's compute capability, as the CUDA compatibility rules have
// it: a cubin runs on its own major version at an equal or higher minor ('a' cubins only on their
// exact GPU), PTX is compiled by the driver for any equal or newer GPU and never for an older one.
#include "analyze/cuda_arch.h"

#include <gtest/gtest.h>

namespace dossier {
namespace {

std::string Parsed(std::string_view list) {
  auto l = ParseCudaArchList(list);
  if (!l) return "(not a list)";
  std::string out;
  for (const auto& a : *l) {
    out += (out.empty() ? "" : " ") + std::to_string(a.major) + "." + std::to_string(a.minor);
    if (a.suffix) out += a.suffix;
    if (a.ptx) out += "+PTX";
  }
  return out;
}

bool Covers(std::string_view list, std::string_view gpu) {
  auto l = ParseCudaArchList(list);
  auto g = ParseComputeCapability(gpu);
  EXPECT_TRUE(l && g) << list << " / " << gpu;
  return l && g && ArchListCovers(*l, *g);
}

TEST(CudaArch, ListsAsPyTorchsExtensionBuilderReadsThem) {
  EXPECT_EQ(Parsed("8.0;8.6+PTX"), "8.0 8.6+PTX");
  EXPECT_EQ(Parsed("\"10.0 12.0\""), "10.0 12.0");
  EXPECT_EQ(Parsed("9.0a,10.0f"), "9.0a 10.0f");
  EXPECT_EQ(Parsed("Ampere+PTX;Hopper"), "8.0+PTX 8.6+PTX 9.0");
  EXPECT_EQ(Parsed("ada"), "8.9");
  EXPECT_EQ(Parsed("8.x"), "(not a list)");
  EXPECT_EQ(Parsed("8.10"), "(not a list)");
  EXPECT_EQ(Parsed("Blackwell"), "(not a list)");  // not a name PyTorch knows
  EXPECT_EQ(Parsed(""), "(not a list)");
  auto sm = ParseComputeCapability("sm_120");
  ASSERT_TRUE(sm);
  EXPECT_EQ(sm->major, 12);
  EXPECT_EQ(sm->minor, 0);
  EXPECT_FALSE(ParseComputeCapability("sm_9"));
  EXPECT_FALSE(ParseComputeCapability("0.5"));
  EXPECT_FALSE(ParseComputeCapability("12"));
}

TEST(CudaArch, ACubinRunsOnItsMajorAtAnEqualOrHigherMinor) {
  EXPECT_TRUE(Covers("8.0", "8.6"));
  EXPECT_TRUE(Covers("8.6", "8.6"));
  EXPECT_FALSE(Covers("8.6", "8.0"));
  EXPECT_FALSE(Covers("8.0", "9.0"));
  EXPECT_FALSE(Covers("9.0", "8.9"));
  // The seed story: kernels built for B200 (10.0) do not run on the RTX PRO 6000 (12.0).
  EXPECT_FALSE(Covers("10.0", "12.0"));
  EXPECT_TRUE(Covers("10.0;12.0", "12.0"));
  EXPECT_TRUE(Covers("9.0a", "9.0"));
  EXPECT_FALSE(Covers("10.0a", "10.3"));  // arch-specific: its exact GPU only
  EXPECT_TRUE(Covers("10.0f", "10.3"));   // family: the later members of its major
  EXPECT_FALSE(Covers("10.0f", "12.0"));
}

TEST(CudaArch, PtxRunsOnEqualOrNewerGpusOnly) {
  EXPECT_TRUE(Covers("8.0+PTX", "8.0"));
  EXPECT_TRUE(Covers("8.0+PTX", "8.9"));
  EXPECT_TRUE(Covers("8.0+PTX", "12.0"));  // a newer major: the driver compiles it
  EXPECT_TRUE(Covers("9.0+PTX", "12.0"));
  EXPECT_FALSE(Covers("8.7+PTX", "8.6"));  // the same major, a newer minor: not older GPUs
  EXPECT_FALSE(Covers("9.0+PTX", "8.9"));  // a newer major with a lower minor
  EXPECT_FALSE(Covers("12.0+PTX", "10.0"));
  EXPECT_FALSE(Covers("8.0+PTX", "7.5"));
}

}  // namespace
}  // namespace dossier
