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

// Bytes per element of a dtype name ("bfloat16" 2, "float8_e4m3fn" 1, "float32" 4); 2 when the
// name is not recognised (bf16/fp16, what serving engines run activations and KV in).
int64_t DtypeBytes(const std::string& dtype);

// "671.0 B" / "8.03 B" / "560 M": a parameter count for people.
std::string ParamsText(uint64_t n);

}  // namespace dossier
