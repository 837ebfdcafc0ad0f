// Parameter counts and KV bytes per token from config.json, checked against sums done by hand
// (written out below) for a DeepSeek-V3-shaped MoE with MLA and a Llama-3-8B-shaped dense model.
#include "analyze/model_size.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "probe/model_config.h"

namespace dossier {
namespace {

// DeepSeek-V3's config.json, the keys the count reads (values as published).
const char kDeepSeekV3[] = R"({
  "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
  "hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128,
  "num_key_value_heads": 128, "intermediate_size": 18432, "moe_intermediate_size": 2048,
  "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
  "first_k_dense_replace": 3, "vocab_size": 129280, "q_lora_rank": 1536, "kv_lora_rank": 512,
  "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "num_nextn_predict_layers": 1})";

// Llama-3-8B's config.json.
const char kLlama3_8B[] = R"({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
  "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
  "intermediate_size": 14336, "vocab_size": 128256, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16"})";

ModelConfig Parse(const char* text) {
  ModelConfig mc;
  ParseModelConfigText(text, "/m/config.json", &mc);
  return mc;
}

TEST(ModelSize, DeepSeekV3CountsMlaAndExperts) {
  ModelConfig mc = Parse(kDeepSeekV3);
  EXPECT_EQ(*mc.kv_lora_rank, 512);
  EXPECT_EQ(*mc.dense_layers, 3);
  ModelSize s = ComputeModelSize(mc);
  ASSERT_TRUE(s.total_params && s.active_params && s.kv_elements_per_token) << s.params_how;
  EXPECT_TRUE(s.mla);
  // Attention per layer: q_a 7168*1536 = 11,010,048; q_b 1536*128*(128+64) = 37,748,736;
  // kv_a 7168*(512+64) = 4,128,768; kv_b 512*128*(128+128) = 16,777,216; o 128*128*7168 =
  // 117,440,512; sum 187,105,280, x 61 layers = 11,413,422,080.
  // Dense MLP: 3 dense layers x 3*7168*18432 = 3 x 396,361,728 = 1,189,085,184.
  // MoE layer: (256 + 1) experts x 3*7168*2048 (44,040,192) + router 7168*256 (1,835,008) =
  // 11,320,164,352, x 58 layers = 656,569,532,416.
  // Embeddings, untied: 2 x 129280*7168 = 1,853,358,080.
  EXPECT_EQ(*s.total_params, 11413422080ull + 1189085184ull + 656569532416ull + 1853358080ull);
  EXPECT_EQ(*s.total_params, 671025397760ull);  // DeepSeek's "671B" (MTP layer not counted)
  // Active MoE layer: (8 + 1) x 44,040,192 + 1,835,008 = 398,196,736, x 58 = 23,095,410,688.
  EXPECT_EQ(*s.active_params, 11413422080ull + 1189085184ull + 23095410688ull + 1853358080ull);
  EXPECT_EQ(*s.active_params, 37551276032ull);  // DeepSeek's "37B activated"
  // MLA caches (kv_lora_rank + qk_rope_head_dim) = 576 elements per layer, x 61 = 35,136 — not
  // 2 x 128 heads x 128 x 61 = 1,998,848 as per-head K and V would be.
  EXPECT_EQ(*s.kv_elements_per_token, 35136u);
  EXPECT_EQ(ParamsText(*s.total_params), "671.0 B");
  EXPECT_EQ(ParamsText(*s.active_params), "37.55 B");
}

TEST(ModelSize, Llama3CountsGqa) {
  ModelSize s = ComputeModelSize(Parse(kLlama3_8B));
  ASSERT_TRUE(s.total_params && s.kv_elements_per_token) << s.params_how;
  EXPECT_FALSE(s.mla);
  // Attention per layer: h*d*(2H+2KV) = 4096*128*(64+16) = 41,943,040, x 32 = 1,342,177,280.
  // MLP: 3*4096*14336 = 176,160,768, x 32 = 5,637,144,576. Embeddings: 2 x 128256*4096 =
  // 1,050,673,152. Sum 8,029,995,008 (the published 8,030,261,248 adds 266,240 norm weights).
  EXPECT_EQ(*s.total_params, 8029995008ull);
  EXPECT_EQ(*s.active_params, *s.total_params);  // dense: every parameter is active
  // KV: 2 x 8 KV heads x 128 x 32 layers = 65,536 elements (128 KiB per token in bf16).
  EXPECT_EQ(*s.kv_elements_per_token, 65536u);
}

TEST(ModelSize, TiedEmbeddingsCountedOnce) {
  std::string text = kLlama3_8B;
  text.replace(text.find("\"tie_word_embeddings\": false"), 28, "\"tie_word_embeddings\": true");
  ModelSize s = ComputeModelSize(Parse(text.c_str()));
  ASSERT_TRUE(s.total_params);
  EXPECT_EQ(*s.total_params, 8029995008ull - 525336576ull);  // one 128256 x 4096 table fewer
}

TEST(ModelSize, MissingShapeSaysWhatIsMissing) {
  // No vocab_size: no count, and the reason says which key.
  std::string text = kLlama3_8B;
  text.replace(text.find("\"vocab_size\": 128256, "), 22, "");
  ModelSize s = ComputeModelSize(Parse(text.c_str()));
  EXPECT_FALSE(s.total_params);
  EXPECT_NE(s.params_how.find("vocab_size"), std::string::npos) << s.params_how;
  EXPECT_TRUE(s.kv_elements_per_token);  // the KV size does not need it
  // A q_lora_rank that is there but not a number is not taken as "no q bottleneck".
  std::string bad = kDeepSeekV3;
  bad.replace(bad.find("\"q_lora_rank\": 1536"), 19, "\"q_lora_rank\": \"x\"");
  EXPECT_FALSE(ComputeModelSize(Parse(bad.c_str())).total_params);
}

// Each ceiling of a config.json's shape (model_size.cc): at its value the field is read, one past
// it the shape is not counted and the reason names the key, the value and the ceiling.
TEST(ModelSize, EachShapeCeilingAtItsLimitAndOnePast) {
  const struct {
    const char* key;
    Fact<int64_t> ModelConfig::*f;
    int64_t most;
  } rows[] = {
      {"num_hidden_layers", &ModelConfig::layers, 10000},
      {"num_nextn_predict_layers", &ModelConfig::mtp_layers, 1000},
      {"first_k_dense_replace", &ModelConfig::dense_layers, 10000},
      {"hidden_size", &ModelConfig::hidden_size, 1 << 20},
      {"num_attention_heads", &ModelConfig::heads, 1 << 16},
      {"num_key_value_heads", &ModelConfig::kv_heads, 1 << 16},
      {"head_dim", &ModelConfig::head_dim, 1 << 16},
      {"intermediate_size", &ModelConfig::intermediate_size, 1 << 24},
      {"moe_intermediate_size", &ModelConfig::moe_intermediate_size, 1 << 24},
      {"n_routed_experts", &ModelConfig::routed_experts, 1 << 20},
      {"n_shared_experts", &ModelConfig::shared_experts, 1 << 20},
      {"num_experts_per_tok", &ModelConfig::active_experts, 1 << 20},
      {"vocab_size", &ModelConfig::vocab_size, 1 << 24},
      {"q_lora_rank", &ModelConfig::q_lora_rank, 1 << 20},
      {"kv_lora_rank", &ModelConfig::kv_lora_rank, 1 << 20},
      {"qk_nope_head_dim", &ModelConfig::qk_nope_head_dim, 1 << 16},
      {"qk_rope_head_dim", &ModelConfig::qk_rope_head_dim, 1 << 16},
      {"v_head_dim", &ModelConfig::v_head_dim, 1 << 16},
      {"index_head_dim", &ModelConfig::index_head_dim, 1 << 16},
      {"index_n_heads", &ModelConfig::index_n_heads, 1 << 16},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(r.key);
    ModelConfig at, past;
    (at.*r.f).Set(r.most, "config.json");
    (past.*r.f).Set(r.most + 1, "config.json");
    EXPECT_EQ(ComputeModelShape(at).why.find("past any model"), std::string::npos)
        << ComputeModelShape(at).why;
    EXPECT_EQ(ComputeModelShape(past).why,
              fmt::format("config.json's {} = {} is past any model (at most {}): not counted",
                          r.key, r.most + 1, r.most));
  }
}

TEST(ModelSize, DtypeBytes) {
  EXPECT_EQ(DtypeBytes("bfloat16"), 2);
  EXPECT_EQ(DtypeBytes("float32"), 4);
  EXPECT_EQ(DtypeBytes("fp8_e5m2"), 1);
  EXPECT_EQ(DtypeBytes("float8_e4m3fn"), 1);
}

}  // namespace
}  // namespace dossier
