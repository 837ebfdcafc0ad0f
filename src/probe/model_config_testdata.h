// Model files for tests: a GLM-5-NVFP4-like checkpoint (744B MoE, 256 routed experts, 8 active,
// one shared, NVFP4 on the expert MLPs only, attention left in BF16), shaped like ModelOpt's
// export: quantization_config in config.json and hf_quant_config.json beside it.
#pragma once

namespace dossier::testing {

inline constexpr const char* kGlm5Config = R"({
  "architectures": ["GlmMoeDsaForCausalLM"],
  "model_type": "glm_moe_dsa",
  "hidden_size": 6144,
  "intermediate_size": 12288,
  "moe_intermediate_size": 2048,
  "num_hidden_layers": 78,
  "num_attention_heads": 64,
  "num_key_value_heads": 64,
  "n_routed_experts": 256,
  "n_shared_experts": 1,
  "num_experts_per_tok": 8,
  "first_k_dense_replace": 3,
  "q_lora_rank": 2048,
  "kv_lora_rank": 512,
  "index_topk": 2048,
  "vocab_size": 154880,
  "torch_dtype": "bfloat16",
  "quantization_config": {
    "quant_method": "modelopt",
    "quant_algo": "NVFP4",
    "group_size": 16,
    "kv_cache_scheme": null,
    "ignore": ["lm_head", "model.embed_tokens", "model.layers.*.self_attn*",
               "model.layers.0.mlp*", "model.layers.1.mlp*", "model.layers.2.mlp*",
               "model.layers.*.mlp.gate", "model.layers.*.mlp.shared_experts*",
               "model.layers.78*"]
  }
}
)";

inline constexpr const char* kGlm5HfQuantConfig = R"({
  "producer": {"name": "modelopt", "version": "0.39.0"},
  "quantization": {
    "quant_algo": "NVFP4",
    "kv_cache_quant_algo": null,
    "group_size": 16,
    "exclude_modules": ["lm_head", "model.embed_tokens", "model.layers.*.self_attn*",
                        "model.layers.0.mlp*", "model.layers.1.mlp*", "model.layers.2.mlp*",
                        "model.layers.*.mlp.gate", "model.layers.*.mlp.shared_experts*",
                        "model.layers.78*"]
  }
}
)";

inline constexpr const char* kGlm5Index = R"({
  "metadata": {"total_size": 440942526464},
  "weight_map": {"lm_head.weight": "model-00083-of-00083.safetensors",
                 "model.layers.3.mlp.experts.0.down_proj.weight": "model-00002-of-00083.safetensors"}
}
)";

}  // namespace dossier::testing
