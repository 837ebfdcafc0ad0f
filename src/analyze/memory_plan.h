// Will the model fit, and how many requests at once: the memory plan of a served model on its
// GPUs, from config.json's shape (analyze/model_size.h), the quantization config, the server's
// layout flags and each GPU's memory, before anything is loaded. Arithmetic only: every figure
// carries its formula with the numbers put in (docs/memory-plan.md), and a figure that cannot be
// had is unknown with the reason, never 0.
//
// What it does not model, said in the docs: activation peaks beyond the stated reserve, the
// allocator's fragmentation, vision towers, Mamba state, norms and biases (a few MB).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/fact.h"
#include "model/software.h"

namespace dossier {

struct PlanLayout {
  int64_t tp = 1, pp = 1;
  int64_t ep = 1;  // expert parallel: experts spread over this many ranks (1: split by TP)
  int64_t dp_attention = 1;  // SGLang --enable-dp-attention: attention replicated over DP ranks
  // vLLM --decode-context-parallel-size: the ranks of a DCP group each hold every DCP-th token of
  // a sequence's KV cache instead of all of it (what MLA's latent, whole on every TP rank, needs).
  int64_t dcp = 1;
  std::string Text() const;  // "TP 8", "TP 4 x PP 2", "TP 8, EP 8"
  int64_t Gpus() const { return tp * pp; }
};

// What the plan is computed from; each input with where it came from.
struct PlanInputs {
  ModelConfig model;
  std::string engine;  // "vllm", "sglang", … ("" when planned by hand)
  PlanLayout layout;
  std::string layout_from;             // "--tp-size 8 (server command line)"
  Fact<uint64_t> gpu_memory_bytes;     // one GPU's total memory (the smallest, when they differ)
  Fact<int64_t> gpus;                  // GPUs the machine has (the layout must fit in them)
  Fact<double> mem_fraction;           // --mem-fraction-static / --gpu-memory-utilization
  Fact<int64_t> kv_bytes_per_element;  // from --kv-cache-dtype, the checkpoint, else the dtype
  Fact<int64_t> context;               // tokens per request the concurrency is computed for
  Fact<uint64_t> reserve_bytes;        // activations, CUDA graphs, NCCL buffers, per GPU
  bool mtp_loaded = false;             // speculative decoding with the MTP layers (their weights)
  std::string mtp_from;
  std::optional<int64_t> target_concurrency;  // from the notes' targets
  std::string target_from;
};

// One figure of the plan beside what the server itself logged (a ServerMemoryLog).
struct PlanCheck {
  std::string what;  // "weights per GPU", "KV tokens per GPU", …
  double plan = 0, server = 0;
  std::string unit;           // "GiB", "tokens", "requests"
  std::string server_source;  // the log line
  std::string check_inputs;   // what to look at when they disagree
  double Difference() const { return server == 0 ? 0 : (plan - server) / server; }
};

struct MemoryPlan {
  std::string label;  // "served", "alternative"
  PlanLayout layout;
  std::string layout_from;
  Fact<uint64_t> params_total, params_active, params_mtp;
  Fact<uint64_t> weight_bytes_total;      // every rank's share added up (replicas counted once)
  Fact<uint64_t> weight_bytes_per_gpu;    // the fullest GPU
  std::vector<std::string> weight_parts;  // "routed experts: 724.8 B params x 0.5625 B (NVFP4)…"
  Fact<uint64_t> kv_bytes_per_token;      // whole model, every layer
  Fact<uint64_t> kv_bytes_per_token_per_gpu;  // what one GPU holds of one token
  Fact<uint64_t> gpu_memory_bytes;
  Fact<uint64_t> kv_budget_bytes_per_gpu;  // memory x fraction - weights - reserve
  Fact<uint64_t> kv_tokens_per_gpu;        // the token pool (a token's KV split over the ranks)
  Fact<int64_t> context;
  Fact<double> max_concurrency;  // requests of `context` tokens at once, whole deployment
  Fact<bool> fits;               // the weights fit, and the target's concurrency when there is one
  std::vector<std::string> inputs;  // every input with its source, for the reader to check
  std::vector<PlanCheck> checks;    // beside the server's own log, when one was imported
  std::string engine;               // the inputs' engine ("" when planned by hand)
  std::optional<int64_t> target_concurrency;  // the notes' highest, when `fits` was judged on it
  std::string target_from;
};

// Past this relative difference a plan figure and the server's disagree (a finding says so).
inline constexpr double kPlanDisagreement = 0.10;

// The plan's figures beside the server's log: weights, KV bytes per token (from the log's KV
// memory and tokens), the token pool, the maximum concurrency at the log's context length.
std::vector<PlanCheck> CheckAgainstLog(const MemoryPlan& p, const PlanInputs& in,
                                       const ServerMemoryLog& log);

// One plan for the inputs' layout.
MemoryPlan ComputeMemoryPlan(const PlanInputs& in);

// The layouts worth comparing with the served one on the same GPUs: TP N/2 x PP 2 for TP >= 4,
// expert parallel over the TP ranks for an MoE model that does not use it, and for an MLA model
// under TP the engine's way not to hold the whole latent on every rank (`engine` "vllm": decode
// context parallel over the TP ranks; "sglang": DP attention over them; "": both).
std::vector<PlanLayout> AlternativeLayouts(const PlanLayout& served, const ModelConfig& mc,
                                           const std::string& engine = "");

// Bytes one quantized weight takes with its scales ("NVFP4: 4-bit values + one FP8 scale per
// 16"), or unknown with the reason; for an unquantized checkpoint, the dtype's bytes.
struct WeightFormat {
  std::optional<double> bytes_per_param;
  std::string name;  // "NVFP4", "FP8 (128x128 blocks)", "INT4 (group 128)", "bfloat16"
  std::string how;   // the formula, or why unknown
};
WeightFormat QuantizedWeightFormat(const ModelConfig& mc);

// "8x96GiB", "4x80GB", "2 x 141 GiB" -> count and bytes per GPU; nullopt when not of that form.
struct GpuSpec {
  int64_t count = 0;
  uint64_t bytes = 0;
};
std::optional<GpuSpec> ParseGpuSpec(const std::string& text);

}  // namespace dossier

namespace dossier {

struct Machine;
struct Notes;

// What a person asks `dossier plan` to change in the served layout, or to plan without a server.
struct PlanOverrides {
  std::optional<int64_t> tp, pp, ep, context;
  std::optional<std::string> kv_dtype;  // "auto", "fp8", "bf16"…
  std::optional<double> mem_fraction;
  std::optional<GpuSpec> gpus;
  std::optional<uint64_t> reserve_bytes;
};

// The inputs for a server of a machine, from its flags, its model, the machine's GPUs and the
// notes' targets, with the overrides applied.
PlanInputs InputsForServer(const Server& s, const Machine& m, const Notes& notes,
                           const PlanOverrides& o);

// The inputs for a model and hardware given by hand (`dossier plan --model … --gpus …`).
PlanInputs InputsForModel(const ModelConfig& mc, const Notes& notes, const PlanOverrides& o);

// The served plan, then one per alternative layout, for each server of the machine that serves a
// model with a config.json.
std::vector<MemoryPlan> MachineMemoryPlans(const Machine& m, const Notes& notes,
                                           const PlanOverrides& o = {});

// Bytes of one KV cache element: the engine's --kv-cache-dtype when given ("auto" is the model's
// dtype), else the checkpoint's stated KV quantization, else the model's dtype.
Fact<int64_t> KvCacheElementBytes(const std::map<std::string, std::string>& flags,
                                  const ModelConfig& mc, const std::string& flags_source);

}  // namespace dossier
