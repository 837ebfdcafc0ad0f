// Software that matters for inference, and the inference servers running. Filled by
// probe/software.cc (CUDA toolkits, environment variables), probe/python_envs.cc (Python
// environments and package versions), probe/servers.cc (servers, their flags and environment) and
// probe/model_config.cc (the model each server serves). Secrets are redacted by the probes before
// values land here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/fact.h"

namespace dossier {

struct CudaToolkit {
  std::string path;  // the toolkit's directory, links resolved ("/usr/local/cuda-12.8")
  Fact<std::string> version;
  std::vector<std::string> aliases;  // links that name it: "/usr/local/cuda", "/usr/local/cuda-12"
  template <class V>
  void visit(V& v) {
    v("path", path);
    v("version", version);
    v("aliases", aliases);
  }
};

struct PythonEnv {
  std::string path;    // the environment's prefix (a venv or a system prefix)
  std::string origin;  // why it was looked at: "server pid 1234", "--venv", "$VIRTUAL_ENV"
  // The machine path the environment's files were read under: "" for the machine's own root,
  // "/proc/PID/root" for a server running in another mount namespace (a container).
  std::string fs_root;
  std::string kind;  // "venv" (pyvenv.cfg), "conda" (conda-meta), "system"
  Fact<std::string> python_version;
  Fact<std::string> home;              // pyvenv.cfg "home": the interpreter a venv was made from
  std::vector<std::string> site_dirs;  // site-packages / dist-packages directories read
  std::map<std::string, std::string> packages;  // PEP 503 name -> version, inference packages only
  // What could not be read: a METADATA without Version, two versions of one package, an
  // unreadable directory. Each names the file.
  std::vector<std::string> problems;
  template <class V>
  void visit(V& v) {
    v("path", path);
    v("origin", origin);
    v("fs_root", fs_root);
    v("kind", kind);
    v("python_version", python_version);
    v("home", home);
    v("site_dirs", site_dirs);
    v("packages", packages);
    v("problems", problems);
  }
};

struct SoftwareInfo {
  Fact<std::string> nvidia_driver;  // /proc/driver/nvidia/version
  std::vector<CudaToolkit> cuda_toolkits;
  Fact<std::string> cuda_default;  // the toolkit /usr/local/cuda points to
  std::vector<PythonEnv> python_envs;
  std::map<std::string, std::string> env;  // the caller's environment variables that matter
  template <class V>
  void visit(V& v) {
    v("nvidia_driver", nvidia_driver);
    v("cuda_toolkits", cuda_toolkits);
    v("cuda_default", cuda_default);
    v("python_envs", python_envs);
    v("env", env);
  }
};

struct ModelQuantization {
  Fact<std::string> method;     // "modelopt", "fp8", "awq", "compressed-tensors"… "none"
  Fact<std::string> algorithm;  // "NVFP4", "FP8", "MIXED_PRECISION"…
  Fact<std::vector<std::string>> excluded_modules;
  // For MIXED_PRECISION checkpoints: each algorithm with the number of modules that use it.
  Fact<std::vector<std::string>> layer_algorithms;  // "NVFP4: 225 modules"
  Fact<std::string> kv_cache_algorithm;             // "FP8", or unknown when not stated
  Fact<int64_t> group_size;
  // Whether attention projections stay unquantized (an excluded module names attention, or no
  // quantized layer does): the seed story's NVFP4-on-experts-only shape.
  Fact<bool> attention_excluded;
  template <class V>
  void visit(V& v) {
    v("method", method);
    v("algorithm", algorithm);
    v("excluded_modules", excluded_modules);
    v("layer_algorithms", layer_algorithms);
    v("kv_cache_algorithm", kv_cache_algorithm);
    v("group_size", group_size);
    v("attention_excluded", attention_excluded);
  }
};

struct ModelConfig {
  Fact<std::string> path;         // the directory holding config.json, or the name given
  Fact<std::string> config_file;  // the config.json read (or why none applies: a GGUF file)
  Fact<std::string> architecture;
  Fact<std::string> model_type;
  Fact<int64_t> layers, hidden_size, heads, kv_heads;
  Fact<int64_t> routed_experts, shared_experts, active_experts;
  Fact<std::string> dtype;
  Fact<uint64_t> weights_bytes;  // model.safetensors.index.json metadata.total_size
  ModelQuantization quantization;
  template <class V>
  void visit(V& v) {
    v("path", path);
    v("config_file", config_file);
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
    v("weights_bytes", weights_bytes);
    v("quantization", quantization);
  }
};

struct Server {
  int64_t pid = 0;
  std::string engine;             // "sglang", "vllm", "tensorrt-llm", "llama.cpp", "tgi"
  std::string detected_by;        // what matched: "-m sglang.launch_server", "vllm serve"…
  std::vector<std::string> argv;  // redacted
  std::map<std::string, std::string> flags;  // "--tp-size" -> "8"; bare flags -> "true"
  Fact<std::string> exe;                     // /proc/PID/exe
  Fact<std::string> python;                  // interpreter, from /proc/PID/exe
  Fact<std::string> python_env;              // prefix of its Python environment
  Fact<std::string> cwd;                     // /proc/PID/cwd: relative model paths start here
  // "" when the server sees the machine's own files; "/proc/PID/root" when it runs in another
  // mount namespace (a container) and its paths were read through that link.
  std::string fs_root;
  Fact<bool> env_read;                     // whether /proc/PID/environ could be read, and why not
  std::map<std::string, std::string> env;  // the server's variables that matter, redacted
  Fact<std::vector<int64_t>> worker_pids;  // its descendants of the same engine (TP ranks…)
  ModelConfig model;
  template <class V>
  void visit(V& v) {
    v("pid", pid);
    v("engine", engine);
    v("detected_by", detected_by);
    v("argv", argv);
    v("flags", flags);
    v("exe", exe);
    v("python", python);
    v("python_env", python_env);
    v("cwd", cwd);
    v("fs_root", fs_root);
    v("env_read", env_read);
    v("env", env);
    v("worker_pids", worker_pids);
    v("model", model);
  }
};

}  // namespace dossier
