// Which environment variables matter for inference (NCCL_*, CUDA_*, SGLANG_*, HF_*…), shared by
// the caller's environment (software.cc) and each server's /proc/PID/environ (servers.cc). Values
// are redacted here, so a token never reaches the model: HF_TOKEN keeps its name (knowing it is set
// is useful) and loses its value.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dossier {

// True for the names of the table in inference_env.cc (prefixes and exact names).
bool IsInferenceEnvName(std::string_view name);

// The variables that matter, each value redacted (util/redact.h) and cut at kMaxEnvValue bytes.
std::map<std::string, std::string> InferenceEnv(const std::map<std::string, std::string>& env);

// NUL-separated "NAME=value" records (/proc/PID/environ) into a map; at most max_vars records, a
// record without '=' skipped. The first definition of a name wins, as getenv() sees it.
std::map<std::string, std::string> ParseEnviron(std::string_view data, size_t max_vars = 4096);

inline constexpr size_t kMaxEnvValue = 8192;

}  // namespace dossier
