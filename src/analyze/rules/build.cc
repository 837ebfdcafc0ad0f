// Build rules: CUDA extensions compiled for architectures other than the GPUs present.
#include <algorithm>
#include <set>

#include "analyze/cuda_arch.h"
#include "analyze/evidence.h"
#include "analyze/roles.h"
#include "analyze/rule.h"

namespace dossier {

std::optional<Finding> RuleBuildCudaArchMismatch(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  // Every GPU capability present (from the device-id table or NVML), with one GPU as evidence.
  std::vector<std::pair<CudaArch, const Gpu*>> caps;
  std::set<std::string> seen;
  for (const auto& g : m.gpus) {
    if (!g.compute_capability.known() || !seen.insert(*g.compute_capability).second) continue;
    if (auto cc = ParseComputeCapability(*g.compute_capability)) caps.push_back({*cc, &g});
  }
  if (caps.empty()) return std::nullopt;
  struct Where {
    std::string who, value, source;
  };
  std::vector<Where> lists;
  if (auto it = m.software.env.find("TORCH_CUDA_ARCH_LIST"); it != m.software.env.end())
    lists.push_back({"caller's environment", it->second, "environment of dossier collect"});
  for (const auto& s : m.servers) {
    if (auto it = s.env.find("TORCH_CUDA_ARCH_LIST"); it != s.env.end())
      lists.push_back({s.engine + " server (pid " + std::to_string(s.pid) + ") environment",
                       it->second, "/proc/" + std::to_string(s.pid) + "/environ"});
  }
  Finding f;
  std::vector<std::string> missing;
  std::vector<const Gpu*> shown;
  for (const auto& w : lists) {
    auto parsed = ParseCudaArchList(w.value);
    if (!parsed) continue;  // a list we cannot read is not evidence of a mismatch
    bool lacks = false;
    for (const auto& [cc, gpu] : caps) {
      if (ArchListCovers(*parsed, cc)) continue;
      lacks = true;
      std::string c = *gpu->compute_capability;
      if (std::find(missing.begin(), missing.end(), c) == missing.end()) missing.push_back(c);
      if (std::find(shown.begin(), shown.end(), gpu) == shown.end()) shown.push_back(gpu);
    }
    if (lacks) f.evidence.push_back(Ev("TORCH_CUDA_ARCH_LIST in the " + w.who, w.value, w.source));
  }
  for (const Gpu* gpu : shown)
    f.evidence.push_back(
        Ev("GPU " + gpu->address + " compute capability", gpu->compute_capability));
  if (missing.empty()) return std::nullopt;
  std::string want;
  for (const auto& c : missing) want += (want.empty() ? "" : ";") + c;
  f.title = "TORCH_CUDA_ARCH_LIST does not include the GPUs' compute capability " +
            JoinList(missing) + ": extensions built with it lack kernels for these GPUs";
  f.explanation =
      "CUDA extensions compiled from source (flash-attn, sgl-kernel, vLLM and SGLang custom ops, "
      "DeepGEMM…) contain machine code only for the architectures in TORCH_CUDA_ARCH_LIST. A "
      "cubin runs only on GPUs of the same major version: code for 10.0 (B200) does not run on "
      "12.0 (RTX PRO 6000 and RTX 50 Blackwell). Such kernels fail with 'no kernel image is "
      "available for execution on the device', or the software falls back to slower paths. "
      "Entries with +PTX can be compiled by the driver at first use, slowly.";
  f.actions.push_back(
      {"Set `TORCH_CUDA_ARCH_LIST=\"" + want +
           "\"` and rebuild the extensions that were compiled from source (pip install "
           "--no-build-isolation --force-reinstall --no-deps PACKAGE)",
       "cuobjdump --list-elf PATH/TO/EXTENSION.so | grep sm_" +
           std::to_string(caps.front().first.major) + std::to_string(caps.front().first.minor),
       ""});
  f.not_helping = {
      "Upgrading PyTorch alone: prebuilt wheels carry their own architectures, but extensions "
      "built locally keep the ones they were built with."};
  return f;
}

}  // namespace dossier
