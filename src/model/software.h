// Software that matters for inference, and the inference servers running. Filled by
// probe/software_*.cc, probe/servers.cc and probe/model_config.cc. Secrets are redacted by the
// probes before values land here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/fact.h"

namespace dossier {

struct CudaToolkit {
  std::string path;
  Fact<std::string> version;
  template <class V>
  void visit(V& v) {
    v("path", path);
    v("version", version);
  }
};

struct PythonEnv {
  std::string path;    // the environment's prefix (a venv or a system prefix)
  std::string origin;  // why it was looked at: "server pid 1234", "--venv", "$VIRTUAL_ENV"
  Fact<std::string> python_version;
  std::map<std::string, std::string> packages;  // normalized name -> version
  template <class V>
  void visit(V& v) {
    v("path", path);
    v("origin", origin);
    v("python_version", python_version);
    v("packages", packages);
  }
};

struct SoftwareInfo {
  Fact<std::string> nvidia_driver;  // /proc/driver/nvidia/version
  std::vector<CudaToolkit> cuda_toolkits;
  std::vector<PythonEnv> python_envs;
  std::map<std::string, std::string> env;  // the caller's environment variables that matter
  template <class V>
  void visit(V& v) {
    v("nvidia_driver", nvidia_driver);
    v("cuda_toolkits", cuda_toolkits);
    v("python_envs", python_envs);
    v("env", env);
  }
};

struct ModelQuantization {
  Fact<std::string> method;     // "modelopt", "fp8", "awq", "compressed-tensors"…
  Fact<std::string> algorithm;  // "NVFP4", "FP8"…
  Fact<std::vector<std::string>> excluded_modules;
  template <class V>
  void visit(V& v) {
    v("method", method);
    v("algorithm", algorithm);
    v("excluded_modules", excluded_modules);
  }
};

struct ModelConfig {
  Fact<std::string> path;  // the directory holding config.json, or the name given to the server
  Fact<std::string> architecture;
  Fact<std::string> model_type;
  Fact<int64_t> layers, hidden_size, heads, kv_heads;
  Fact<int64_t> routed_experts, shared_experts, active_experts;
  Fact<std::string> dtype;
  ModelQuantization quantization;
  template <class V>
  void visit(V& v) {
    v("path", path);
    v("architecture", architecture);
    v("model_type", model_type);
    v("layers", layers);
    v("hidden_size", hidden_size);
    v("heads", heads);
    v("kv_heads", kv_heads);
    v("routed_experts", routed_experts);
    v("shared_experts", shared_experts);
    v("active_experts", active_experts);
    v("dtype", dtype);
    v("quantization", quantization);
  }
};

struct Server {
  int64_t pid = 0;
  std::string engine;  // "sglang", "vllm", "tensorrt-llm", "llama.cpp"
  std::vector<std::string> argv;
  std::map<std::string, std::string> flags;  // "--tp-size" -> "8"; bare flags -> "true"
  Fact<std::string> python;                  // interpreter, from /proc/PID/exe
  std::map<std::string, std::string> env;    // the server's variables that matter
  ModelConfig model;
  template <class V>
  void visit(V& v) {
    v("pid", pid);
    v("engine", engine);
    v("argv", argv);
    v("flags", flags);
    v("python", python);
    v("env", env);
    v("model", model);
  }
};

}  // namespace dossier
