#include "probe/inference_env.h"

#include <array>

#include "util/redact.h"
#include "util/utf8.h"

namespace dossier {
namespace {

// One table: name prefixes, then whole names. SGL_ is SGLang's older prefix
// (SGL_ENABLE_JIT_DEEPGEMM); NVSHMEM_/UCX_ steer DeepEP and disaggregation transports.
constexpr std::array<std::string_view, 20> kPrefixes = {
    "NCCL_",   "CUDA_",    "TORCH_",        "PYTORCH_", "SGLANG_",     "SGL_",       "VLLM_",
    "HF_",     "HUGGING_", "TRANSFORMERS_", "TRITON_",  "FLASHINFER_", "TRTLLM_",    "TLLM_",
    "NVIDIA_", "NVSHMEM_", "UCX_",          "CUBLAS_",  "CUDNN_",      "TOKENIZERS_"};
constexpr std::array<std::string_view, 6> kNames = {
    "OMP_NUM_THREADS", "MAX_JOBS", "LD_LIBRARY_PATH", "VIRTUAL_ENV", "CONDA_PREFIX", "LD_PRELOAD"};

}  // namespace

bool IsInferenceEnvName(std::string_view name) {
  for (auto p : kPrefixes)
    if (name.starts_with(p)) return true;
  for (auto n : kNames)
    if (name == n) return true;
  return false;
}

std::map<std::string, std::string> InferenceEnv(const std::map<std::string, std::string>& env) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : env) {
    if (!IsInferenceEnvName(name)) continue;
    std::string v = RedactEnvValue(name, value);
    if (v.size() > kMaxEnvValue) v = std::string(CutUtf8(v, kMaxEnvValue)) + "…(cut)";
    out.emplace(name, std::move(v));
  }
  return out;
}

std::map<std::string, std::string> ParseEnviron(std::string_view data, size_t max_vars) {
  std::map<std::string, std::string> out;
  size_t i = 0, seen = 0;
  while (i < data.size() && seen < max_vars) {
    size_t end = data.find('\0', i);
    if (end == std::string_view::npos) end = data.size();
    std::string_view rec = data.substr(i, end - i);
    i = end + 1;
    if (rec.empty()) continue;
    ++seen;
    size_t eq = rec.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    out.emplace(std::string(rec.substr(0, eq)), std::string(rec.substr(eq + 1)));
  }
  return out;
}

}  // namespace dossier
