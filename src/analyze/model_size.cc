#include "analyze/model_size.h"

#include <fmt/format.h>

namespace dossier {
namespace {

// A fact that config.json simply did not have (rather than one it had in a shape not understood).
bool SizeAbsent(const Fact<int64_t>& f) {
  return !f.known() && f.unknown.starts_with("not in config.json");
}

bool SizeKnownPositive(const Fact<int64_t>& f) {
  return f.known() && *f > 0;
}

}  // namespace

int64_t DtypeBytes(const std::string& dtype) {
  if (dtype == "float32" || dtype == "fp32") return 4;
  if (dtype.starts_with("float8") || dtype == "fp8" || dtype.starts_with("fp8")) return 1;
  return 2;
}

std::string ParamsText(uint64_t n) {
  double d = static_cast<double>(n);
  if (d >= 1e11) return fmt::format("{:.1f} B", d / 1e9);
  if (d >= 1e9) return fmt::format("{:.2f} B", d / 1e9);
  return fmt::format("{:.0f} M", d / 1e6);
}

namespace {
ModelSize ModelSizeFromShape(const ModelConfig& mc);
}  // namespace

// The shape's count; else, for an unquantized checkpoint, the safetensors index's total_size over
// the dtype's bytes (every tensor stored in that dtype: close, not exact).
ModelSize ComputeModelSize(const ModelConfig& mc) {
  ModelSize out = ModelSizeFromShape(mc);
  if (!out.total_params && mc.weights_bytes.known() &&
      mc.quantization.method.value_or("") == "none" && mc.dtype.known()) {
    const int64_t b = DtypeBytes(*mc.dtype);
    out.total_params = *mc.weights_bytes / static_cast<uint64_t>(b);
    out.params_how = fmt::format("safetensors total_size {} B / {} B per {} parameter ({})",
                                 *mc.weights_bytes, b, *mc.dtype, out.params_how);
  }
  return out;
}

namespace {

ModelSize ModelSizeFromShape(const ModelConfig& mc) {
  ModelSize out;
  const bool have_base = SizeKnownPositive(mc.layers) && SizeKnownPositive(mc.hidden_size) &&
                         SizeKnownPositive(mc.heads);
  if (!have_base) {
    out.params_how = out.kv_how = "config.json lacks layers, hidden_size or attention heads";
    return out;
  }
  const uint64_t L = static_cast<uint64_t>(*mc.layers);
  const uint64_t h = static_cast<uint64_t>(*mc.hidden_size);
  const uint64_t H = static_cast<uint64_t>(*mc.heads);
  const uint64_t KV = SizeKnownPositive(mc.kv_heads) ? static_cast<uint64_t>(*mc.kv_heads) : H;
  const uint64_t d = SizeKnownPositive(mc.head_dim) ? static_cast<uint64_t>(*mc.head_dim) : h / H;
  out.mla = SizeKnownPositive(mc.kv_lora_rank);

  // --- attention, per layer ---
  // GQA/MHA: q and o are h x (H*d); k and v are h x (KV*d): h*d*(2H + 2KV).
  // MLA (DeepSeek-V2/V3): q through a rank-q_lora_rank bottleneck (or one h x H*(nope+rope)
  // matrix without one), kv_a: h x (kv_lora_rank + rope), kv_b: kv_lora_rank x H*(nope + v),
  // o: H*v x h.
  uint64_t attn = 0;
  std::string attn_how;
  if (out.mla) {
    if (!SizeKnownPositive(mc.qk_nope_head_dim) || !SizeKnownPositive(mc.qk_rope_head_dim) ||
        !SizeKnownPositive(mc.v_head_dim) ||
        !(SizeKnownPositive(mc.q_lora_rank) || SizeAbsent(mc.q_lora_rank))) {
      out.params_how = out.kv_how =
          "MLA model without qk_nope_head_dim, qk_rope_head_dim, v_head_dim or a usable "
          "q_lora_rank";
      return out;
    }
    const uint64_t nope = static_cast<uint64_t>(*mc.qk_nope_head_dim);
    const uint64_t rope = static_cast<uint64_t>(*mc.qk_rope_head_dim);
    const uint64_t v = static_cast<uint64_t>(*mc.v_head_dim);
    const uint64_t r = static_cast<uint64_t>(*mc.kv_lora_rank);
    uint64_t q = SizeKnownPositive(mc.q_lora_rank)
                     ? h * static_cast<uint64_t>(*mc.q_lora_rank) +
                           static_cast<uint64_t>(*mc.q_lora_rank) * H * (nope + rope)
                     : h * H * (nope + rope);
    attn = q + h * (r + rope) + r * H * (nope + v) + H * v * h;
    attn_how = "MLA attention";
    // MLA caches the compressed latent and the shared RoPE key, not per-head K and V.
    out.kv_elements_per_token = (r + rope) * L;
    out.kv_how =
        fmt::format("MLA: (kv_lora_rank {} + qk_rope_head_dim {}) x {} layers", r, rope, L);
  } else {
    attn = h * d * (2 * H + 2 * KV);
    attn_how = fmt::format("attention h*d*(2H+2KV) = {}*{}*(2*{}+2*{})", h, d, H, KV);
    out.kv_elements_per_token = 2 * KV * d * L;
    out.kv_how = fmt::format("2 (K and V) x {} KV heads x head_dim {} x {} layers", KV, d, L);
  }

  // --- MLP, per layer: a gated MLP (gate, up, down) is 3 x h x intermediate ---
  const bool moe = SizeKnownPositive(mc.routed_experts);
  uint64_t dense_layers =
      moe ? (SizeKnownPositive(mc.dense_layers) ? static_cast<uint64_t>(*mc.dense_layers) : 0) : L;
  if (dense_layers > L) dense_layers = L;
  const uint64_t moe_layers = L - dense_layers;
  if (dense_layers > 0 && !SizeKnownPositive(mc.intermediate_size)) {
    out.params_how = "config.json lacks intermediate_size";
    return out;
  }
  const uint64_t dense_mlp =
      dense_layers ? 3 * h * static_cast<uint64_t>(*mc.intermediate_size) : 0;
  uint64_t moe_total = 0, moe_active = 0;
  std::string moe_how;
  if (moe && moe_layers > 0) {
    if (!SizeKnownPositive(mc.moe_intermediate_size) || !SizeKnownPositive(mc.active_experts)) {
      out.params_how = "MoE config.json lacks moe_intermediate_size or num_experts_per_tok";
      return out;
    }
    const uint64_t E = static_cast<uint64_t>(*mc.routed_experts);
    const uint64_t k = static_cast<uint64_t>(*mc.active_experts);
    const uint64_t S = mc.shared_experts.known() && *mc.shared_experts > 0
                           ? static_cast<uint64_t>(*mc.shared_experts)
                           : 0;
    const uint64_t expert = 3 * h * static_cast<uint64_t>(*mc.moe_intermediate_size);
    // Routed experts, shared experts (each the size of a routed one), the router (h x E).
    moe_total = (E + S) * expert + h * E;
    moe_active = (k + S) * expert + h * E;
    moe_how = fmt::format(
        "; {} MoE layers of ({} routed + {} shared) experts of 3*h*{} (active: {} + {})",
        moe_layers, E, S, *mc.moe_intermediate_size, k, S);
  }

  // --- embeddings: the input table, and the output head unless tied to it ---
  if (!SizeKnownPositive(mc.vocab_size)) {
    out.params_how = "config.json lacks vocab_size";
    return out;
  }
  const uint64_t V = static_cast<uint64_t>(*mc.vocab_size);
  const bool tied = mc.tie_word_embeddings.value_or(false);
  const uint64_t emb = V * h * (tied ? 1 : 2);

  out.total_params = L * attn + dense_layers * dense_mlp + moe_layers * moe_total + emb;
  out.active_params = L * attn + dense_layers * dense_mlp + moe_layers * moe_active + emb;
  out.params_how = fmt::format(
      "{} layers x {} ({}); {} dense layers x 3*h*{}{}; embeddings {} x {}{} (norms and biases "
      "not counted)",
      L, attn, attn_how, dense_layers, mc.intermediate_size.value_or(0), moe_how, V, h,
      tied                             ? " (tied)"
      : mc.tie_word_embeddings.known() ? " x 2 (input and output)"
                                       : " x 2 (tie_word_embeddings not stated: counted untied)");
  return out;
}

}  // namespace
}  // namespace dossier
