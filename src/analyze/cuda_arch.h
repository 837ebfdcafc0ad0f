// TORCH_CUDA_ARCH_LIST as PyTorch's extension builder reads it ("8.0;8.6+PTX", "10.0 12.0",
// "Ampere"), and whether it builds code that runs on a GPU of a given compute capability.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dossier {

struct CudaArch {
  int major = 0, minor = 0;
  char suffix = 0;   // 'a' (arch-specific: only that exact GPU) or 'f' (family), else 0
  bool ptx = false;  // "+PTX": also embeds PTX the driver can compile for newer GPUs
};

// nullopt when an entry is neither major.minor[a|f][+PTX] nor a name PyTorch knows.
std::optional<std::vector<CudaArch>> ParseCudaArchList(std::string_view s);

// Compute capability "12.0" -> {12, 0}.
std::optional<CudaArch> ParseComputeCapability(std::string_view s);

// Whether code built for `list` runs on a GPU of capability `gpu`: a cubin runs on the same
// major version at an equal or higher minor (an 'a' cubin only on its exact GPU); PTX runs on any
// equal or newer GPU.
bool ArchListCovers(const std::vector<CudaArch>& list, const CudaArch& gpu);

}  // namespace dossier
