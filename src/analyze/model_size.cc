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

ModelShape ComputeModelShape(const ModelConfig& mc) {
  ModelShape s;
  // Ceilings far past any published model. A config.json past them is damaged or hostile: the
  // plan walks the layers one by one (num_hidden_layers 10^12 held `dossier report` for ever)
  // and the products below would wrap.
  const struct {
    const char* key;
    const Fact<int64_t>& f;
    int64_t most;
  } kCeilings[] = {
      {"num_hidden_layers", mc.layers, 10000},
      {"num_nextn_predict_layers", mc.mtp_layers, 1000},
      {"first_k_dense_replace", mc.dense_layers, 10000},
      {"hidden_size", mc.hidden_size, 1 << 20},
      {"num_attention_heads", mc.heads, 1 << 16},
      {"num_key_value_heads", mc.kv_heads, 1 << 16},
      {"head_dim", mc.head_dim, 1 << 16},
      {"intermediate_size", mc.intermediate_size, 1 << 24},
      {"moe_intermediate_size", mc.moe_intermediate_size, 1 << 24},
      {"n_routed_experts", mc.routed_experts, 1 << 20},
      {"n_shared_experts", mc.shared_experts, 1 << 20},
      {"num_experts_per_tok", mc.active_experts, 1 << 20},
      {"vocab_size", mc.vocab_size, 1 << 24},
      {"q_lora_rank", mc.q_lora_rank, 1 << 20},
      {"kv_lora_rank", mc.kv_lora_rank, 1 << 20},
      {"qk_nope_head_dim", mc.qk_nope_head_dim, 1 << 16},
      {"qk_rope_head_dim", mc.qk_rope_head_dim, 1 << 16},
      {"v_head_dim", mc.v_head_dim, 1 << 16},
      {"index_head_dim", mc.index_head_dim, 1 << 16},
      {"index_n_heads", mc.index_n_heads, 1 << 16},
  };
  for (const auto& c : kCeilings) {
    if (c.f.known() && *c.f > c.most) {
      s.why = fmt::format("config.json's {} = {} is past any model (at most {}): not counted",
                          c.key, *c.f, c.most);
      return s;
    }
  }
  const bool have_base = SizeKnownPositive(mc.layers) && SizeKnownPositive(mc.hidden_size) &&
                         SizeKnownPositive(mc.heads);
  if (!have_base) {
    s.why = "config.json lacks layers, hidden_size or attention heads";
    return s;
  }
  const uint64_t L = s.layers = static_cast<uint64_t>(*mc.layers);
  const uint64_t h = s.hidden = static_cast<uint64_t>(*mc.hidden_size);
  const uint64_t H = s.heads = static_cast<uint64_t>(*mc.heads);
  const uint64_t KV = s.kv_heads =
      SizeKnownPositive(mc.kv_heads) ? static_cast<uint64_t>(*mc.kv_heads) : H;
  const uint64_t d = s.head_dim =
      SizeKnownPositive(mc.head_dim) ? static_cast<uint64_t>(*mc.head_dim) : h / H;
  s.mla = SizeKnownPositive(mc.kv_lora_rank);
  s.mtp_layers = SizeKnownPositive(mc.mtp_layers) ? static_cast<uint64_t>(*mc.mtp_layers) : 0;

  // --- attention, per layer ---
  // GQA/MHA: q and o are h x (H*d); k and v are h x (KV*d): h*d*(2H + 2KV).
  // MLA (DeepSeek-V2/V3): q through a rank-q_lora_rank bottleneck (or one h x H*(nope+rope)
  // matrix without one), kv_a: h x (kv_lora_rank + rope), kv_b: kv_lora_rank x H*(nope + v),
  // o: H*v x h. The down-projections (q_a, kv_a) are not split by tensor parallelism: vLLM and
  // SGLang load them as replicated layers on every rank.
  if (s.mla) {
    if (!SizeKnownPositive(mc.qk_nope_head_dim) || !SizeKnownPositive(mc.qk_rope_head_dim) ||
        !SizeKnownPositive(mc.v_head_dim) ||
        !(SizeKnownPositive(mc.q_lora_rank) || SizeAbsent(mc.q_lora_rank))) {
      s.why =
          "MLA model without qk_nope_head_dim, qk_rope_head_dim, v_head_dim or a usable "
          "q_lora_rank";
      return s;
    }
    const uint64_t nope = static_cast<uint64_t>(*mc.qk_nope_head_dim);
    const uint64_t rope = static_cast<uint64_t>(*mc.qk_rope_head_dim);
    const uint64_t v = static_cast<uint64_t>(*mc.v_head_dim);
    const uint64_t r = static_cast<uint64_t>(*mc.kv_lora_rank);
    const bool qlora = SizeKnownPositive(mc.q_lora_rank);
    const uint64_t ql = qlora ? static_cast<uint64_t>(*mc.q_lora_rank) : 0;
    uint64_t q = qlora ? h * ql + ql * H * (nope + rope) : h * H * (nope + rope);
    s.attn = q + h * (r + rope) + r * H * (nope + v) + H * v * h;
    s.attn_replicated = (qlora ? h * ql : 0) + h * (r + rope);
    s.attn_how = "MLA attention";
    if (SizeKnownPositive(mc.index_head_dim)) {
      const uint64_t id = static_cast<uint64_t>(*mc.index_head_dim);
      s.index_cache_bytes_per_layer = id + id / 128 * 4;
      // wq_b: q_lora_rank x heads*index_head_dim, wk: h x index_head_dim, weights_proj: h x
      // heads. Without a head count or a query bottleneck the projections are not counted.
      if (SizeKnownPositive(mc.index_n_heads) && qlora) {
        const uint64_t ih = static_cast<uint64_t>(*mc.index_n_heads);
        const uint64_t indexer = ql * ih * id + h * id + h * ih;
        s.attn += indexer;
        s.attn_replicated += indexer;
        s.attn_how = "MLA attention with a sparse-attention indexer";
      }
    }
    // MLA caches the compressed latent and the shared RoPE key, not per-head K and V.
    s.kv_elements_per_token = (r + rope) * L;
    s.kv_how = fmt::format("MLA: (kv_lora_rank {} + qk_rope_head_dim {}) x {} layers", r, rope, L);
  } else {
    s.attn = h * d * (2 * H + 2 * KV);
    s.attn_how = fmt::format("attention h*d*(2H+2KV) = {}*{}*(2*{}+2*{})", h, d, H, KV);
    s.kv_elements_per_token = 2 * KV * d * L;
    s.kv_how = fmt::format("2 (K and V) x {} KV heads x head_dim {} x {} layers", KV, d, L);
  }

  // --- MLP, per layer: a gated MLP (gate, up, down) is 3 x h x intermediate ---
  const bool moe = SizeKnownPositive(mc.routed_experts);
  s.dense_layers =
      moe ? (SizeKnownPositive(mc.dense_layers) ? static_cast<uint64_t>(*mc.dense_layers) : 0) : L;
  if (s.dense_layers > L) s.dense_layers = L;
  s.moe_layers = L - s.dense_layers;
  if (s.dense_layers > 0 && !SizeKnownPositive(mc.intermediate_size)) {
    s.why = "config.json lacks intermediate_size";
    return s;
  }
  s.intermediate =
      SizeKnownPositive(mc.intermediate_size) ? static_cast<uint64_t>(*mc.intermediate_size) : 0;
  s.dense_mlp = s.dense_layers ? 3 * h * s.intermediate : 0;
  if (moe && s.moe_layers > 0) {
    if (!SizeKnownPositive(mc.moe_intermediate_size) || !SizeKnownPositive(mc.active_experts)) {
      s.why = "MoE config.json lacks moe_intermediate_size or num_experts_per_tok";
      return s;
    }
    s.routed = static_cast<uint64_t>(*mc.routed_experts);
    s.active = static_cast<uint64_t>(*mc.active_experts);
    s.shared = mc.shared_experts.known() && *mc.shared_experts > 0
                   ? static_cast<uint64_t>(*mc.shared_experts)
                   : 0;
    s.expert = 3 * h * static_cast<uint64_t>(*mc.moe_intermediate_size);
    s.router = h * s.routed;
    s.moe_how = fmt::format(
        "; {} MoE layers of ({} routed + {} shared) experts of 3*h*{} (active: {} + {})",
        s.moe_layers, s.routed, s.shared, *mc.moe_intermediate_size, s.active, s.shared);
  }

  // --- embeddings: the input table, and the output head unless tied to it ---
  if (!SizeKnownPositive(mc.vocab_size)) {
    s.why = "config.json lacks vocab_size";
    return s;
  }
  s.vocab = static_cast<uint64_t>(*mc.vocab_size);
  s.embed = s.vocab * h;
  s.tied = mc.tie_word_embeddings.value_or(false);
  s.tied_how = s.tied ? " (tied)"
               : mc.tie_word_embeddings.known()
                   ? " x 2 (input and output)"
                   : " x 2 (tie_word_embeddings not stated: counted untied)";
  s.ok = true;
  return s;
}

namespace {

ModelSize ModelSizeFromShape(const ModelConfig& mc) {
  ModelSize out;
  const ModelShape s = ComputeModelShape(mc);
  out.mla = s.mla;
  if (s.kv_elements_per_token) {
    out.kv_elements_per_token = s.kv_elements_per_token;
    out.kv_how = s.kv_how;
  }
  if (!s.ok) {
    out.params_how = s.why;
    if (!out.kv_elements_per_token) out.kv_how = s.why;
    return out;
  }
  const uint64_t emb = s.embed * (s.tied ? 1 : 2);
  const uint64_t moe_total = s.moe_layers ? (s.routed + s.shared) * s.expert + s.router : 0;
  const uint64_t moe_active = s.moe_layers ? (s.active + s.shared) * s.expert + s.router : 0;
  out.total_params =
      s.layers * s.attn + s.dense_layers * s.dense_mlp + s.moe_layers * moe_total + emb;
  out.active_params =
      s.layers * s.attn + s.dense_layers * s.dense_mlp + s.moe_layers * moe_active + emb;
  out.params_how = fmt::format(
      "{} layers x {} ({}); {} dense layers x 3*h*{}{}; embeddings {} x {}{} (norms and biases "
      "not counted)",
      s.layers, s.attn, s.attn_how, s.dense_layers, s.intermediate, s.moe_how, s.vocab, s.hidden,
      s.tied_how);
  return out;
}

}  // namespace
}  // namespace dossier
