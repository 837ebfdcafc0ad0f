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
  // FP8 block scaling: weight_block_size [128, 128] gives one float32 scale per block (DeepSeek-V3,
  // Qwen3-FP8); the first dimension is kept (the blocks people ship are square).
  Fact<int64_t> weight_block_size;
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
    v("weight_block_size", weight_block_size);
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
  // The shape the parameter count and the KV size are computed from (analyze/model_size.h):
  // intermediate_size (dense MLP), moe_intermediate_size (one expert), vocab_size, head_dim
  // (when stated), first_k_dense_replace (DeepSeek/GLM: the first layers are dense), and for
  // multi-head latent attention (DeepSeek-V2/V3) the ranks and head dims of its projections.
  Fact<int64_t> intermediate_size, moe_intermediate_size, vocab_size, head_dim, dense_layers;
  Fact<int64_t> q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim;
  Fact<bool> tie_word_embeddings;
  // Multi-token-prediction layers after the main ones (num_nextn_predict_layers: DeepSeek-V3,
  // GLM): loaded only when the server runs speculative decoding with them.
  Fact<int64_t> mtp_layers;
  Fact<int64_t> context_length;  // max_position_embeddings: the longest request the model takes
  // Sliding-window attention: the window, and how many layers use it (layer_types entries
  // "sliding_attention": gpt-oss, Gemma 3); their KV cache holds at most the window's tokens.
  Fact<int64_t> sliding_window, sliding_layers;
  // DeepSeek sparse attention (DeepSeek-V3.2, GLM-5): the lightning indexer's key width. Its
  // keys are cached for every token beside the MLA latent (analyze/memory_plan.cc); its heads
  // size its query projection.
  Fact<int64_t> index_head_dim, index_n_heads;
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
    v("intermediate_size", intermediate_size);
    v("moe_intermediate_size", moe_intermediate_size);
    v("vocab_size", vocab_size);
    v("head_dim", head_dim);
    v("dense_layers", dense_layers);
    v("q_lora_rank", q_lora_rank);
    v("kv_lora_rank", kv_lora_rank);
    v("qk_nope_head_dim", qk_nope_head_dim);
    v("qk_rope_head_dim", qk_rope_head_dim);
    v("v_head_dim", v_head_dim);
    v("tie_word_embeddings", tie_word_embeddings);
    v("mtp_layers", mtp_layers);
    v("context_length", context_length);
    v("sliding_window", sliding_window);
    v("sliding_layers", sliding_layers);
    v("index_head_dim", index_head_dim);
    v("index_n_heads", index_n_heads);
    v("dtype", dtype);
    v("weights_bytes", weights_bytes);
    v("quantization", quantization);
  }
};

// What a serving engine logged about its memory while starting (`dossier import` of a vLLM or
// SGLang log, import/server_log.cc): the figures the memory plan (analyze/memory_plan.h) is
// checked against. Both engines print GiB (bytes / 2^30), older releases labelled "GB".
struct ServerMemoryLog {
  Fact<std::string> engine;               // "vllm", "sglang"
  Fact<uint64_t> weights_bytes_per_gpu;   // "Model loading took 78.79 GiB"; SGLang "mem usage="
  Fact<uint64_t> kv_cache_bytes_per_gpu;  // "Available KV cache memory: 8.11 GiB"; K + V size
  Fact<uint64_t> kv_tokens;               // "GPU KV cache size: 178,880 tokens"; "#tokens: N"
  Fact<double> max_concurrency;           // "Maximum concurrency for 131,072 tokens …: 4.07x"
  Fact<int64_t> concurrency_context;      // the 131,072 of that line
  Fact<uint64_t> cuda_graph_bytes;        // "Graph capturing finished in 5 secs, took 0.53 GiB"
  Fact<std::string> out_of_memory;        // the first "CUDA out of memory" line
  template <class V>
  void visit(V& v) {
    v("engine", engine);
    v("weights_bytes_per_gpu", weights_bytes_per_gpu);
    v("kv_cache_bytes_per_gpu", kv_cache_bytes_per_gpu);
    v("kv_tokens", kv_tokens);
    v("max_concurrency", max_concurrency);
    v("concurrency_context", concurrency_context);
    v("cuda_graph_bytes", cuda_graph_bytes);
    v("out_of_memory", out_of_memory);
  }
};

// One GPU an NCCL topology file places: a <pci> node with a <gpu> child or a display-class
// (0x03xxxx) leaf, under the <cpu numaid=…> that holds it.
struct NcclTopoGpu {
  std::string bus_id;     // as NCCL reads it, lowercased, domain added: "0000:01:00.0"
  Fact<int64_t> numa_id;  // the enclosing <cpu>'s numaid; unknown when none says one
  int64_t line = 0;       // line of its <pci> node in the file
  template <class V>
  void visit(V& v) {
    v("bus_id", bus_id);
    v("numa_id", numa_id);
    v("line", line);
  }
};

// The NCCL topology file a server names in NCCL_TOPO_FILE (probe/nccl_topo_file.cc), read under
// the server's root; what the rule nccl.topo-file-mismatch and the cross-checks compare with the
// machine's GPUs and NUMA nodes.
struct NcclTopoFile {
  // The file read (source: the environment that named it); unknown with why when not set,
  // unreadable or not a regular file.
  Fact<std::string> file;
  std::string parse_error;            // "file:line: what"; empty when it parsed
  std::vector<int64_t> cpu_numa_ids;  // numaid of every <cpu>, in file order
  std::vector<NcclTopoGpu> gpus;      // in file order
  template <class V>
  void visit(V& v) {
    v("file", file);
    v("parse_error", parse_error);
    v("cpu_numa_ids", cpu_numa_ids);
    v("gpus", gpus);
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
  NcclTopoFile nccl_topo;  // the file NCCL_TOPO_FILE names
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
    v("nccl_topo", nccl_topo);
  }
};

}  // namespace dossier
