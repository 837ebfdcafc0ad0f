// The served model's size from its config.json shape: total parameters, parameters active per
// token (an MoE routes each token through a few experts), and the KV cache a token occupies.
// Arithmetic only, each formula in model_size.cc and docs/decode-budget.md; what it cannot count
// (norms, biases, multi-token-prediction layers, vision towers) is said there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/software.h"

namespace dossier {

struct ModelSize {
  std::optional<uint64_t> total_params, active_params;
  std::string params_how;  // the formula with its numbers, or why there is no count
  // KV cache elements one token adds across all layers (multiply by the KV dtype's bytes).
  std::optional<uint64_t> kv_elements_per_token;
  std::string kv_how;  // "MLA: (kv_lora_rank 512 + qk_rope_head_dim 64) x 61 layers", or why not
  bool mla = false;    // multi-head latent attention (kv_lora_rank stated)
};

ModelSize ComputeModelSize(const ModelConfig& mc);

// The parameter count of each part of the model, from config.json's shape: what the size above
// adds up, and what the memory plan (analyze/memory_plan.h) places on each GPU. `ok` false with
// `why` when the shape lacks a size it needs.
struct ModelShape {
  bool ok = false;
  std::string why;
  uint64_t hidden = 0, heads = 0, kv_heads = 0, head_dim = 0;
  uint64_t layers = 0, dense_layers = 0, moe_layers = 0;
  uint64_t mtp_layers = 0;  // num_nextn_predict_layers: not in the totals (a draft model's)
  bool mla = false;
  uint64_t attn = 0;             // one layer's attention projections
  uint64_t attn_replicated = 0;  // of those, what tensor parallelism keeps whole on every rank
  std::string attn_how;
  // DeepSeek sparse attention (DeepSeek-V3.2, GLM-5): the bytes the lightning indexer's key cache
  // adds per token and layer whatever the KV dtype (FP8 keys and one float32 scale per 128 of
  // them, as vLLM and SGLang lay it out); 0 without an indexer. Its projections are counted in
  // `attn` and `attn_replicated` (the engines load them whole on every rank).
  uint64_t index_cache_bytes_per_layer = 0;
  uint64_t dense_mlp = 0;  // one dense layer's gated MLP
  uint64_t intermediate = 0;
  uint64_t expert = 0;  // one expert's gated MLP
  uint64_t routed = 0, shared = 0, active = 0;
  uint64_t router = 0;  // h x routed experts, per MoE layer
  std::string moe_how;
  uint64_t vocab = 0, embed = 0;  // one embedding table, vocab x hidden
  bool tied = false;
  std::string tied_how;
  uint64_t kv_elements_per_token = 0;  // all layers
  std::string kv_how;
};

ModelShape ComputeModelShape(const ModelConfig& mc);

// Bytes per element of a dtype name ("bfloat16" 2, "float8_e4m3fn" 1, "float32" 4); 2 when the
// name is not recognised (bf16/fp16, what serving engines run activations and KV in).
int64_t DtypeBytes(const std::string& dtype);

// "671.0 B" / "8.03 B" / "560 M": a parameter count for people.
std::string ParamsText(uint64_t n);

}  // namespace dossier
