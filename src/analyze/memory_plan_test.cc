// The memory plan against what real servers logged for real models (each figure with the public
// thread it comes from), and its choices on inputs built so that the wrong choice gives another
// answer.
#include "analyze/memory_plan.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analyze/model_size.h"
#include "model/machine.h"
#include "model/notes.h"
#include "probe/model_config.h"

namespace dossier {
namespace {

constexpr double kTestGiB = 1024.0 * 1024.0 * 1024.0;

ModelConfig ParseConfig(const std::string& text) {
  ModelConfig mc;
  ParseModelConfigText(text, "config.json", &mc);
  if (!mc.quantization.method.known()) mc.quantization.method.Set("none", "test");
  return mc;
}

// Llama-3.1-70B's shape (meta-llama/Llama-3.1-70B-Instruct config.json) with the
// compressed-tensors W8A8 INT8 quantization of neuralmagic/Meta-Llama-3.1-70B-Instruct-
// quantized.w8a8.
const char* kLlama70bW8a8 = R"({
  "architectures": ["LlamaForCausalLM"], "hidden_size": 8192, "num_hidden_layers": 80,
  "num_attention_heads": 64, "num_key_value_heads": 8, "intermediate_size": 28672,
  "vocab_size": 128256, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "max_position_embeddings": 131072,
  "quantization_config": {"quant_method": "compressed-tensors", "format": "int-quantized",
                          "ignore": ["lm_head"]}})";

// deepseek-ai/DeepSeek-R1 config.json (DeepSeek-V3's shape, FP8 with 128x128 block scales).
const char* kDeepSeekR1 = R"({
  "architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168, "num_hidden_layers": 61,
  "num_attention_heads": 128, "num_key_value_heads": 128, "intermediate_size": 18432,
  "moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1,
  "num_experts_per_tok": 8, "first_k_dense_replace": 3, "q_lora_rank": 1536,
  "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
  "vocab_size": 129280, "tie_word_embeddings": false, "num_nextn_predict_layers": 1,
  "torch_dtype": "bfloat16", "max_position_embeddings": 163840,
  "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                          "weight_block_size": [128, 128]}})";

// Qwen/Qwen3-235B-A22B-FP8 config.json.
const char* kQwen3_235bFp8 = R"({
  "architectures": ["Qwen3MoeForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 94,
  "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 128,
  "intermediate_size": 12288, "moe_intermediate_size": 1536, "num_experts": 128,
  "num_experts_per_tok": 8, "vocab_size": 151936, "tie_word_embeddings": false,
  "torch_dtype": "bfloat16", "max_position_embeddings": 40960,
  "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                          "weight_block_size": [128, 128]}})";

// The seed story's model: GLM-5 in ModelOpt NVFP4, attention, shared experts, the dense layers
// and the MTP layer left in BF16 (tests/fixtures/trees/seed-guest/files/models/GLM-5-NVFP4).
const char* kGlm5Nvfp4 = R"({
  "architectures": ["GlmMoeDsaForCausalLM"], "dtype": "bfloat16", "first_k_dense_replace": 3,
  "hidden_size": 6144, "intermediate_size": 12288, "kv_lora_rank": 512,
  "max_position_embeddings": 202752, "moe_intermediate_size": 2048, "n_routed_experts": 256,
  "n_shared_experts": 1, "num_attention_heads": 64, "num_experts_per_tok": 8,
  "num_hidden_layers": 78, "num_key_value_heads": 64, "num_nextn_predict_layers": 1,
  "q_lora_rank": 2048, "qk_nope_head_dim": 192, "qk_rope_head_dim": 64, "v_head_dim": 256,
  "vocab_size": 154880, "tie_word_embeddings": false, "index_head_dim": 128, "index_n_heads": 32,
  "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
    "exclude_modules": ["lm_head", "model.embed_tokens", "model.layers.*.self_attn*",
      "model.layers.*.mlp.gate", "model.layers.*.mlp.shared_experts*", "model.layers.0.mlp*",
      "model.layers.1.mlp*", "model.layers.2.mlp*", "model.layers.78*"]}})";

PlanInputs Inputs(const ModelConfig& mc, int64_t tp, double gib, double fraction,
                  double reserve_gib) {
  PlanInputs in;
  in.model = mc;
  in.layout.tp = tp;
  in.gpus.Set(tp, "test");
  in.gpu_memory_bytes.Set(static_cast<uint64_t>(gib * kTestGiB), "test");
  in.mem_fraction.Set(fraction, "test");
  in.reserve_bytes.Set(static_cast<uint64_t>(reserve_gib * kTestGiB), "test");
  in.kv_bytes_per_element = KvCacheElementBytes({}, mc, "test");
  if (mc.context_length.known()) in.context.Set(*mc.context_length, "test");
  return in;
}

double Within(double got, double want) {
  return std::fabs(got - want) / want;
}

// vLLM logged "Loading model weights took 67.7229 GB" (its GB are GiB) for the W8A8 70B on one
// GPU: vllm-project/vllm pull request #12569.
TEST(MemoryPlan, Int8DenseWeightsMatchVllmsLog) {
  MemoryPlan p = ComputeMemoryPlan(Inputs(ParseConfig(kLlama70bW8a8), 1, 79.2, 0.98, 2));
  ASSERT_TRUE(p.weight_bytes_per_gpu.known()) << p.weight_bytes_per_gpu.unknown;
  EXPECT_LT(Within(*p.weight_bytes_per_gpu / kTestGiB, 67.7229), 0.05);
  // INT8 layers and BF16 embeddings and head: far from either all-BF16 (131 GiB) or all-INT8.
  EXPECT_LT(Within(*p.weight_bytes_per_gpu / kTestGiB, 67.7229), 0.01);
}

// The Habana vLLM fork logged "Pre-loading model weights on hpu:0 took 79.41 GiB" per rank for
// DeepSeek-R1 (FP8 blocks) at tensor parallel 8: HabanaAI/vllm-fork issue #809. The MTP layer is
// not loaded without speculative decoding.
TEST(MemoryPlan, Fp8BlockMlaMoeWeightsPerRankMatchTheLog) {
  ModelConfig mc = ParseConfig(kDeepSeekR1);
  MemoryPlan p = ComputeMemoryPlan(Inputs(mc, 8, 94.62, 0.9, 2));
  ASSERT_TRUE(p.weight_bytes_per_gpu.known()) << p.weight_bytes_per_gpu.unknown;
  EXPECT_LT(Within(*p.weight_bytes_per_gpu / kTestGiB, 79.41), 0.05);
  EXPECT_LT(Within(*p.weight_bytes_per_gpu / kTestGiB, 79.41), 0.01);
  ASSERT_TRUE(p.params_total.known());
  EXPECT_EQ(ParamsText(*p.params_total), "671.0 B");
  ASSERT_TRUE(p.params_mtp.known());
  EXPECT_NE(p.params_mtp.source.find("not loaded"), std::string::npos);

  // With its MTP layer loaded for speculative decoding, the last rank holds more.
  PlanInputs spec = Inputs(mc, 8, 94.62, 0.9, 2);
  spec.mtp_loaded = true;
  MemoryPlan q = ComputeMemoryPlan(spec);
  ASSERT_TRUE(q.weight_bytes_per_gpu.known());
  EXPECT_GT(*q.weight_bytes_per_gpu, *p.weight_bytes_per_gpu + static_cast<uint64_t>(kTestGiB));
}

// Qwen3-235B-A22B-FP8 on 4 x H100 (vllm-project/vllm issue #21348): vLLM "Available KV cache
// memory: 8.11 GiB" -> "GPU KV cache size: 178,880 tokens"; SGLang "KV Cache is allocated.
// #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB". One KV head per rank (4 over TP 4).
TEST(MemoryPlan, GqaKvBytesPerTokenPerGpuMatchBothServersLogs) {
  ModelConfig mc = ParseConfig(kQwen3_235bFp8);
  MemoryPlan p = ComputeMemoryPlan(Inputs(mc, 4, 79.2, 0.9, 2));
  ASSERT_TRUE(p.kv_bytes_per_token_per_gpu.known()) << p.kv_bytes_per_token_per_gpu.unknown;
  EXPECT_EQ(*p.kv_bytes_per_token_per_gpu, 2u * 1 * 128 * 94 * 2);
  EXPECT_EQ(*p.kv_bytes_per_token, 2u * 4 * 128 * 94 * 2);
  const double per = static_cast<double>(*p.kv_bytes_per_token_per_gpu);
  EXPECT_LT(Within(8.11 * kTestGiB / per, 178880), 0.05);
  EXPECT_LT(Within(2 * 8.23 * kTestGiB / per, 367404), 0.05);
  ASSERT_TRUE(p.params_total.known() && p.params_active.known());
  EXPECT_EQ(ParamsText(*p.params_total), "235.1 B");
  EXPECT_EQ(ParamsText(*p.params_active), "22.19 B");

  // Tensor parallel 8 over 4 KV heads: each rank still holds one head (replicated), not half.
  MemoryPlan p8 = ComputeMemoryPlan(Inputs(mc, 8, 79.2, 0.9, 2));
  ASSERT_TRUE(p8.kv_bytes_per_token_per_gpu.known());
  EXPECT_EQ(*p8.kv_bytes_per_token_per_gpu, *p.kv_bytes_per_token_per_gpu);
}

// The seed's model: 744 B total, 40 B active (GLM-5's model card), routed experts in NVFP4
// (4-bit values and an FP8 scale per 16), the modules the config excludes in BF16.
TEST(MemoryPlan, Nvfp4ExpertsWithUnquantizedAttentionOnEightGpus) {
  ModelConfig mc = ParseConfig(kGlm5Nvfp4);
  PlanInputs in = Inputs(mc, 8, 95.0, 0.85, 1);
  MemoryPlan p = ComputeMemoryPlan(in);
  ASSERT_TRUE(p.params_total.known() && p.params_active.known());
  EXPECT_LT(Within(static_cast<double>(*p.params_total), 744e9), 0.01);
  EXPECT_LT(Within(static_cast<double>(*p.params_active), 40e9), 0.05);
  bool experts_fp4 = false, attention_bf16 = false, shared_bf16 = false;
  for (const auto& part : p.weight_parts) {
    if (part.starts_with("routed experts:") && part.find("NVFP4") != std::string::npos)
      experts_fp4 = true;
    if (part.starts_with("attention:") && part.find("bfloat16") != std::string::npos &&
        part.find("NVFP4") == std::string::npos)
      attention_bf16 = true;
    if (part.starts_with("shared experts:") && part.find("bfloat16") != std::string::npos)
      shared_bf16 = true;
  }
  EXPECT_TRUE(experts_fp4 && attention_bf16 && shared_bf16)
      << ::testing::PrintToString(p.weight_parts);
  // Routed experts 75 x 256 x 3 x 6144 x 2048 params at 0.5625 B, the rest at 2 B: ~444 GB whole.
  ASSERT_TRUE(p.weight_bytes_total.known());
  EXPECT_LT(Within(static_cast<double>(*p.weight_bytes_total), 444.6e9), 0.01);
  ASSERT_TRUE(p.weight_bytes_per_gpu.known());
  EXPECT_GT(*p.weight_bytes_per_gpu, *p.weight_bytes_total / 8);  // MLA down-projections whole
  EXPECT_LT(*p.weight_bytes_per_gpu,
            *p.weight_bytes_total / 8 + static_cast<uint64_t>(4 * kTestGiB));
  // MLA: (512 + 64) x 2 B per layer, and the sparse-attention indexer's keys (128 FP8 and a
  // float32 scale: 132 B) per layer, x 78 layers, the same on every rank.
  ASSERT_TRUE(p.kv_bytes_per_token_per_gpu.known());
  EXPECT_EQ(*p.kv_bytes_per_token_per_gpu, (576u * 2 + 132) * 78);
  EXPECT_EQ(*p.kv_bytes_per_token, *p.kv_bytes_per_token_per_gpu);
  ASSERT_TRUE(p.fits.known());
  EXPECT_TRUE(*p.fits);
}

// meta-llama/Llama-3.1-8B-Instruct config.json: dense, GQA (8 KV heads), BF16.
const char* kLlama8b = R"({
  "architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "num_hidden_layers": 32,
  "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
  "vocab_size": 128256, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "max_position_embeddings": 131072})";

// Llama-3.1-8B-Instruct in BF16 on one RTX 3090 (vllm-project/vllm issue #10517): "Loading model
// weights took 14.9888 GB" (GiB), "kv_cache_size=3.81GiB", "GPU blocks: 1952" of 16 tokens =
// 31,232 tokens. The dense GQA case: every KV head on the one GPU.
TEST(MemoryPlan, DenseGqaWeightsAndKvTokensMatchVllmsLog) {
  MemoryPlan p = ComputeMemoryPlan(Inputs(ParseConfig(kLlama8b), 1, 23.58, 0.9, 2));
  ASSERT_TRUE(p.weight_bytes_per_gpu.known() && p.kv_bytes_per_token_per_gpu.known());
  EXPECT_LT(Within(*p.weight_bytes_per_gpu / kTestGiB, 14.9888), 0.01);
  EXPECT_EQ(*p.kv_bytes_per_token_per_gpu, 2u * 8 * 128 * 32 * 2);
  EXPECT_LT(Within(3.81 * kTestGiB / static_cast<double>(*p.kv_bytes_per_token_per_gpu), 31232),
            0.01);
  ASSERT_TRUE(p.params_total.known());
  EXPECT_EQ(ParamsText(*p.params_total), "8.03 B");
}

// deepseek-ai/DeepSeek-V3.2 config.json (DeepSeek-V3's shape with the sparse-attention indexer)
// as nvidia/DeepSeek-V3.2-NVFP4 ships it: ModelOpt NVFP4 for the MLPs, attention (indexer
// included), router, embeddings, head and the MTP layer (model.layers.61) left in BF16.
const char* kDeepSeekV32Nvfp4 = R"({
  "architectures": ["DeepseekV32ForCausalLM"], "hidden_size": 7168, "num_hidden_layers": 61,
  "num_attention_heads": 128, "num_key_value_heads": 128, "intermediate_size": 18432,
  "moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1,
  "num_experts_per_tok": 8, "first_k_dense_replace": 3, "q_lora_rank": 1536,
  "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
  "index_head_dim": 128, "index_n_heads": 64, "index_topk": 2048,
  "vocab_size": 129280, "tie_word_embeddings": false, "num_nextn_predict_layers": 1,
  "torch_dtype": "bfloat16", "max_position_embeddings": 163840,
  "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
    "exclude_modules": ["lm_head", "model.embed_tokens", "model.layers.*.self_attn*",
                        "model.layers.*.mlp.gate", "model.layers.61*"]}})";

// nvidia/DeepSeek-V3.2-NVFP4 on 4 x B200 under SGLang, TP 4, FP8 KV cache (a public run log of
// the SGLang cookbook's command, 2026-06-19: "KV cache allocated with dtype
// torch.float8_e4m3fn, #tokens=1375168, KV size about 55.31GB per TP rank"; SGLang's GB are
// 2^30 bytes; "387G HF snapshot" on disk). The seed's shape: an MLA MoE in NVFP4 with attention
// unquantized, and the sparse-attention indexer GLM-5 has too: without the indexer's 132 B per
// layer the plan counted 14 % too many tokens.
TEST(MemoryPlan, Nvfp4SparseMlaKvTokensAndCheckpointMatchARealRun) {
  PlanInputs in = Inputs(ParseConfig(kDeepSeekV32Nvfp4), 4, 178.4, 0.85, 1);
  in.kv_bytes_per_element.Set(1, "--kv-cache-dtype fp8_e4m3");
  MemoryPlan p = ComputeMemoryPlan(in);
  ASSERT_TRUE(p.kv_bytes_per_token_per_gpu.known()) << p.kv_bytes_per_token_per_gpu.unknown;
  EXPECT_EQ(*p.kv_bytes_per_token_per_gpu, (576u + 132) * 61);
  const double tokens = 55.31 * kTestGiB / static_cast<double>(*p.kv_bytes_per_token_per_gpu);
  EXPECT_LT(Within(tokens, 1375168), 0.01);
  EXPECT_NE(p.kv_bytes_per_token.source.find("indexer keys 132 B per layer"), std::string::npos)
      << p.kv_bytes_per_token.source;

  // Weights: the checkpoint holds the main model and the MTP layer (BF16: its layer, plus its
  // own embedding, head and 2h x h projection, which the plan's MTP count leaves out).
  ASSERT_TRUE(p.weight_bytes_total.known() && p.params_mtp.known());
  const double mtp_extra = 2.0 * 129280 * 7168 + 2.0 * 7168 * 7168;
  const double on_disk =
      static_cast<double>(*p.weight_bytes_total) + 2.0 * (*p.params_mtp + mtp_extra);
  EXPECT_LT(Within(on_disk / kTestGiB, 387), 0.05) << on_disk / kTestGiB;
  // The indexer's projections are in attention, whole on every rank.
  ASSERT_TRUE(p.params_total.known());
  EXPECT_LT(Within(static_cast<double>(*p.params_total), 671.9e9), 0.002);
}

// moonshotai/Kimi-K2-Thinking config.json's attention and layer counts (MLA, 61 layers).
const char* kKimiK2 = R"({
  "architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168, "num_hidden_layers": 61,
  "num_attention_heads": 64, "num_key_value_heads": 64, "intermediate_size": 18432,
  "moe_intermediate_size": 2048, "n_routed_experts": 384, "n_shared_experts": 1,
  "num_experts_per_tok": 8, "first_k_dense_replace": 1, "q_lora_rank": 1536,
  "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
  "vocab_size": 163840, "tie_word_embeddings": false, "torch_dtype": "bfloat16",
  "max_position_embeddings": 262144})";

// Kimi-K2-Thinking on 8 x H200 under vLLM, TP 8 (vllm-project/recipes PR #115): "Available KV
// cache memory: 46.80 GiB" -> "GPU KV cache size: 715,072 tokens". The MLA latent is not split by
// tensor parallelism: a TP 8 rank holds the whole 61 x 576 x 2 B of every token.
TEST(MemoryPlan, MlaLatentWholeOnEveryRankMatchesVllmsLog) {
  MemoryPlan p = ComputeMemoryPlan(Inputs(ParseConfig(kKimiK2), 8, 139.8, 0.9, 2));
  ASSERT_TRUE(p.kv_bytes_per_token_per_gpu.known());
  EXPECT_EQ(*p.kv_bytes_per_token_per_gpu, 576u * 61 * 2);
  EXPECT_LT(Within(46.80 * kTestGiB / static_cast<double>(*p.kv_bytes_per_token_per_gpu), 715072),
            0.01);
}

// Pipeline parallel halves the layers, so the MLA latent a GPU holds per token halves too: TP 4 x
// PP 2 holds more tokens than TP 8 for this model, and the plan must say so.
// A served plan is checked against the newest start-up log of its engine (or of no stated
// engine): an older run's log and another engine's are not its figures.
TEST(MemoryPlan, TheServedPlanIsCheckedAgainstTheNewestLogOfItsEngine) {
  Machine m;
  Server s;
  s.pid = 7;
  s.engine = "vllm";
  s.flags = {{"--tensor-parallel-size", "2"}};
  s.model = ParseConfig(kLlama70bW8a8);
  m.servers.push_back(s);
  auto log = [](const char* engine, double gib, const char* source) {
    ServerMemoryLog l;
    if (engine) l.engine.Set(engine, source);
    l.weights_bytes_per_gpu.Set(static_cast<uint64_t>(gib * kTestGiB), source);
    return l;
  };
  m.server_logs = {log("vllm", 10, "old.log:3"), log(nullptr, 20, "unsaid.log:3"),
                   log("vllm", 30, "new.log:3"), log("sglang", 40, "other.log:3")};
  auto plans = MachineMemoryPlans(m, Notes{});
  ASSERT_FALSE(plans.empty());
  ASSERT_FALSE(plans[0].checks.empty());
  EXPECT_EQ(plans[0].checks[0].what, "weights per GPU");
  EXPECT_EQ(plans[0].checks[0].server_source, "new.log:3");
  EXPECT_EQ(plans[0].checks[0].server, 30);

  m.server_logs.pop_back();
  m.server_logs.pop_back();  // now the newest is the one that names no engine
  plans = MachineMemoryPlans(m, Notes{});
  ASSERT_FALSE(plans[0].checks.empty());
  EXPECT_EQ(plans[0].checks[0].server_source, "unsaid.log:3");
}

TEST(MemoryPlan, PipelineStagesHoldTheirLayersKv) {
  ModelConfig mc = ParseConfig(kGlm5Nvfp4);
  PlanInputs in = Inputs(mc, 8, 95.0, 0.85, 1);
  MemoryPlan tp8 = ComputeMemoryPlan(in);
  auto alts = AlternativeLayouts(in.layout, mc);
  ASSERT_FALSE(alts.empty());
  EXPECT_EQ(alts[0].tp, 4);
  EXPECT_EQ(alts[0].pp, 2);
  in.layout = alts[0];
  MemoryPlan pp2 = ComputeMemoryPlan(in);
  ASSERT_TRUE(tp8.kv_tokens_per_gpu.known() && pp2.kv_tokens_per_gpu.known());
  EXPECT_EQ(*pp2.kv_bytes_per_token_per_gpu, (576u * 2 + 132) * 39);
  EXPECT_GT(*pp2.kv_tokens_per_gpu, *tp8.kv_tokens_per_gpu);
  // Expert parallel is offered for the MoE model that does not use it.
  bool ep = false;
  for (const auto& a : AlternativeLayouts(PlanLayout{8, 1, 1, 1}, mc)) ep |= a.ep == 8;
  EXPECT_TRUE(ep);
}

TEST(MemoryPlan, WeightsThatDoNotFitSayWhyAndGiveNoTokens) {
  MemoryPlan p = ComputeMemoryPlan(Inputs(ParseConfig(kGlm5Nvfp4), 8, 24.0, 0.9, 1));
  ASSERT_TRUE(p.fits.known());
  EXPECT_FALSE(*p.fits);
  EXPECT_NE(p.fits.source.find("exceed"), std::string::npos) << p.fits.source;
  EXPECT_FALSE(p.kv_tokens_per_gpu.known());
  EXPECT_FALSE(p.max_concurrency.known());
}

TEST(MemoryPlan, TargetConcurrencyDecidesFits) {
  ModelConfig mc = ParseConfig(kLlama70bW8a8);
  PlanInputs in = Inputs(mc, 2, 80.0, 0.9, 2);
  in.context.Set(32768, "test");
  MemoryPlan base = ComputeMemoryPlan(in);
  ASSERT_TRUE(base.max_concurrency.known());
  const double c = *base.max_concurrency;
  ASSERT_GT(c, 2);
  in.target_concurrency = static_cast<int64_t>(std::floor(c));
  MemoryPlan under = ComputeMemoryPlan(in);
  ASSERT_TRUE(under.fits.known());
  EXPECT_TRUE(*under.fits) << under.fits.source;
  in.target_concurrency = static_cast<int64_t>(std::ceil(c)) + 1;
  MemoryPlan over = ComputeMemoryPlan(in);
  ASSERT_TRUE(over.fits.known());
  EXPECT_FALSE(*over.fits) << over.fits.source;
  EXPECT_NE(over.fits.source.find("fall short"), std::string::npos);
}

// No GPU memory known: the token pool and the verdict are unknown with the way to give it, never
// 0 or "does not fit".
TEST(MemoryPlan, UnknownGpuMemoryIsUnknownNotZero) {
  PlanInputs in = Inputs(ParseConfig(kLlama70bW8a8), 4, 80, 0.9, 2);
  in.gpu_memory_bytes.Unknown("NVML was not read; give --gpus COUNTxMEMORY", "");
  MemoryPlan p = ComputeMemoryPlan(in);
  EXPECT_TRUE(p.weight_bytes_per_gpu.known());
  EXPECT_FALSE(p.kv_tokens_per_gpu.known());
  EXPECT_NE(p.kv_tokens_per_gpu.unknown.find("--gpus"), std::string::npos);
  EXPECT_FALSE(p.fits.known());
}

TEST(MemoryPlan, LayoutNeedingMoreGpusThanTheMachineHasDoesNotFit) {
  PlanInputs in = Inputs(ParseConfig(kLlama70bW8a8), 8, 80, 0.9, 2);
  in.gpus.Set(4, "nvml");
  MemoryPlan p = ComputeMemoryPlan(in);
  ASSERT_TRUE(p.fits.known());
  EXPECT_FALSE(*p.fits);
  EXPECT_NE(p.fits.source.find("needs 8 GPUs"), std::string::npos);
}

TEST(MemoryPlan, WeightFormatsCarryTheirScales) {
  auto bytes = [](const char* quant) {
    ModelConfig mc = ParseConfig(std::string(R"({"hidden_size": 64, "torch_dtype": "bfloat16",
        "quantization_config": )") +
                                 quant + "}");
    return QuantizedWeightFormat(mc).bytes_per_param;
  };
  EXPECT_DOUBLE_EQ(
      *bytes(R"({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16})"), 0.5625);
  EXPECT_DOUBLE_EQ(*bytes(R"({"quant_method": "mxfp4"})"), 0.53125);
  EXPECT_DOUBLE_EQ(*bytes(R"({"quant_method": "fp8", "weight_block_size": [128, 128]})"),
                   1.0 + 4.0 / 16384.0);
  EXPECT_DOUBLE_EQ(*bytes(R"({"quant_method": "fp8"})"), 1.0);
  EXPECT_DOUBLE_EQ(*bytes(R"({"quant_method": "awq", "bits": 4, "group_size": 128})"),
                   0.5 + 2.5 / 128.0);
  EXPECT_DOUBLE_EQ(*bytes(R"({"quant_method": "gptq", "bits": 4, "group_size": 32})"),
                   0.5 + 2.5 / 32.0);
  EXPECT_DOUBLE_EQ(*bytes(R"({"quant_method": "compressed-tensors", "format": "int-quantized"})"),
                   1.0);
  EXPECT_FALSE(bytes(R"({"quant_method": "exotic-format"})").has_value());
  // Every name the table reads, each alone (mutants.py seed 1207: "8-bit" and "w8a8" were read
  // by no test, and GPTQ at 8 bits was taken for INT4).
  const struct {
    const char* quant;
    double want;
  } kAliases[] = {
      {R"({"quant_method": "x", "quant_algo": "int8"})", 1.0},
      {R"({"quant_method": "x", "format": "int-quantized"})", 1.0},
      {R"({"quant_method": "bitsandbytes", "bits": 8})", 1.0},
      {R"({"quant_method": "w8a8"})", 1.0},
      {R"({"quant_method": "x", "quant_algo": "w4a16", "group_size": 64})", 0.5 + 2.5 / 64},
      {R"({"quant_method": "x", "quant_algo": "w4a8", "group_size": 64})", 0.5 + 2.5 / 64},
      {R"({"quant_method": "x", "format": "pack-quantized", "group_size": 32})", 0.5 + 2.5 / 32},
      {R"({"quant_method": "x", "quant_algo": "int4", "group_size": 128})", 0.5 + 2.5 / 128},
      {R"({"quant_method": "x", "bits": 4})", 0.5 + 2.5 / 128},
      {R"({"quant_method": "gptq", "bits": 8, "group_size": 128})", 1.0 + 3.0 / 128},
      {R"({"quant_method": "gptq", "bits": 3, "group_size": 128})", 0.375 + 2.375 / 128},
      {R"({"quant_method": "x", "quant_algo": "float8", "group_size": 0})", 1.0},
      {R"({"quant_method": "x", "format": "float-quantized"})", 1.0},
      {R"({"quant_method": "x", "quant_algo": "e4m3"})", 1.0},
      {R"({"quant_method": "x", "quant_algo": "mxfp4"})", 0.53125},
  };
  for (const auto& a : kAliases) {
    auto b = bytes(a.quant);
    ASSERT_TRUE(b.has_value()) << a.quant;
    EXPECT_DOUBLE_EQ(*b, a.want) << a.quant;
  }
  ModelConfig plain = ParseConfig(R"({"hidden_size": 64, "torch_dtype": "float32"})");
  EXPECT_DOUBLE_EQ(*QuantizedWeightFormat(plain).bytes_per_param, 4.0);
}

// The three conventions of "left unquantized": ModelOpt's globs, compressed-tensors' "re:"
// expressions, and name fragments (modules_to_not_convert).
TEST(MemoryPlan, ExclusionConventionsEachExcludeTheirModules) {
  auto attention_format = [](const char* excluded) {
    ModelConfig mc =
        ParseConfig(std::string(kLlama70bW8a8)
                        .replace(std::string(kLlama70bW8a8).find(R"(["lm_head"])"), 11, excluded));
    MemoryPlan p = ComputeMemoryPlan(Inputs(mc, 1, 200, 0.9, 2));
    for (const auto& part : p.weight_parts)
      if (part.starts_with("attention:")) return part;
    return std::string();
  };
  EXPECT_NE(attention_format(R"(["lm_head"])").find("INT8"), std::string::npos);
  EXPECT_NE(attention_format(R"(["model.layers.*.self_attn*"])").find("bfloat16"),
            std::string::npos);
  EXPECT_NE(attention_format(R"(["re:.*self_attn.*"])").find("bfloat16"), std::string::npos);
  EXPECT_NE(attention_format(R"(["self_attn"])").find("bfloat16"), std::string::npos);
  EXPECT_NE(attention_format(R"(["mlp"])").find("INT8"), std::string::npos);
}

TEST(MemoryPlan, GpuSpecs) {
  auto g = ParseGpuSpec("8x96GiB");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->count, 8);
  EXPECT_EQ(g->bytes, 96ull << 30);
  g = ParseGpuSpec("4 x 80GB");
  ASSERT_TRUE(g);
  EXPECT_EQ(g->count, 4);
  EXPECT_EQ(g->bytes, 80000000000ull);
  EXPECT_FALSE(ParseGpuSpec("0x80GB"));
  EXPECT_FALSE(ParseGpuSpec("8x"));
  EXPECT_FALSE(ParseGpuSpec("8x96"));
  EXPECT_FALSE(ParseGpuSpec("x96GiB"));
  EXPECT_FALSE(ParseGpuSpec("8x-96GiB"));
}

// Kimi-K2-Thinking at TP 8 with decode context parallel 8 (vllm-project/recipes PR #115): the
// same 46.80 GiB holds "5,721,088 tokens" once vLLM is "Multiplying the GPU KV cache size by the
// dcp_world_size 8": each rank keeps every 8th token's latent. The flag becomes the layout.
TEST(MemoryPlan, DecodeContextParallelDividesTheLatentAsVllmsLogSays) {
  Machine m;
  Server s;
  s.pid = 7;
  s.engine = "vllm";
  s.model = ParseConfig(kKimiK2);
  s.flags = {{"--tensor-parallel-size", "8"}, {"--decode-context-parallel-size", "8"}};
  PlanInputs in = InputsForServer(s, m, Notes{}, {});
  EXPECT_EQ(in.layout.tp, 8);
  EXPECT_EQ(in.layout.dcp, 8);
  EXPECT_NE(in.layout_from.find("--decode-context-parallel-size 8"), std::string::npos);
  EXPECT_EQ(in.layout.Text(), "TP 8, DCP 8");
  in.gpu_memory_bytes.Set(static_cast<uint64_t>(139.8 * kTestGiB), "test");
  MemoryPlan p = ComputeMemoryPlan(in);
  ASSERT_TRUE(p.kv_bytes_per_token_per_gpu.known()) << p.kv_bytes_per_token_per_gpu.unknown;
  EXPECT_EQ(*p.kv_bytes_per_token_per_gpu, 576u * 61 * 2 / 8);
  EXPECT_LT(Within(46.80 * kTestGiB / static_cast<double>(*p.kv_bytes_per_token_per_gpu), 5721088),
            0.01);
  // Beside the log: the bytes per token agree; the same log beside a plan without DCP is eight
  // times off, and the check names what to look at.
  ServerMemoryLog log;
  log.engine.Set("vllm", "test");
  log.kv_cache_bytes_per_gpu.Set(static_cast<uint64_t>(46.80 * kTestGiB), "Available KV cache");
  log.kv_tokens.Set(5721088, "GPU KV cache size");
  auto per_token = [&](const MemoryPlan& plan, const PlanInputs& with) {
    for (const auto& c : CheckAgainstLog(plan, with, log))
      if (c.what == "KV cache bytes per token per GPU") return c;
    ADD_FAILURE() << "no bytes-per-token check";
    return PlanCheck{};
  };
  EXPECT_LT(std::fabs(per_token(p, in).Difference()), 0.01);
  PlanInputs no_dcp = in;
  no_dcp.layout.dcp = 1;
  const PlanCheck off = per_token(ComputeMemoryPlan(no_dcp), no_dcp);
  EXPECT_NEAR(off.Difference(), 7.0, 0.05);
  EXPECT_NE(off.check_inputs.find("--decode-context-parallel-size"), std::string::npos);
  // DCP must divide TP, as vLLM requires.
  in.layout.dcp = 3;
  EXPECT_FALSE(ComputeMemoryPlan(in).kv_bytes_per_token_per_gpu.known());
}

// An MLA model under TP is offered its engine's way not to hold the latent whole on every rank;
// a GQA model, whose KV heads TP already splits, is not.
TEST(MemoryPlan, MlaAlternativesFollowTheEngine) {
  const ModelConfig glm = ParseConfig(kGlm5Nvfp4);
  auto has = [](const std::vector<PlanLayout>& ls, int64_t dcp, int64_t dpa) {
    for (const auto& l : ls)
      if (l.dcp == dcp && l.dp_attention == dpa && l.pp == 1 && l.ep == 1) return true;
    return false;
  };
  const PlanLayout tp8{8, 1, 1, 1};
  EXPECT_TRUE(has(AlternativeLayouts(tp8, glm, "vllm"), 8, 1));
  EXPECT_FALSE(has(AlternativeLayouts(tp8, glm, "vllm"), 1, 8));
  EXPECT_TRUE(has(AlternativeLayouts(tp8, glm, "sglang"), 1, 8));
  EXPECT_FALSE(has(AlternativeLayouts(tp8, glm, "sglang"), 8, 1));
  EXPECT_TRUE(has(AlternativeLayouts(tp8, glm, ""), 8, 1));
  EXPECT_TRUE(has(AlternativeLayouts(tp8, glm, ""), 1, 8));
  for (const auto& l : AlternativeLayouts(tp8, ParseConfig(kQwen3_235bFp8), ""))
    EXPECT_TRUE(l.dcp == 1 && l.dp_attention == 1) << l.Text();
  // Served with DP attention already: neither again, nor PP halving it.
  PlanLayout dpa = tp8;
  dpa.dp_attention = 8;
  for (const auto& l : AlternativeLayouts(dpa, glm, "sglang"))
    EXPECT_TRUE(l.dcp == 1 && l.pp == 1) << l.Text();

  // The seed's case on 8 x 95 GiB: DP attention puts the attention whole on every GPU (more
  // weights per GPU) and gives each GPU its own requests (more at once than TP 8's shared pool).
  PlanInputs in = Inputs(glm, 8, 95.0, 0.85, 1);
  in.context.Set(65536, "test");
  MemoryPlan tp = ComputeMemoryPlan(in);
  in.layout.dp_attention = 8;
  MemoryPlan dp = ComputeMemoryPlan(in);
  ASSERT_TRUE(tp.max_concurrency.known() && dp.max_concurrency.known());
  EXPECT_GT(*dp.weight_bytes_per_gpu, *tp.weight_bytes_per_gpu + static_cast<uint64_t>(kTestGiB));
  EXPECT_GT(*dp.max_concurrency, *tp.max_concurrency);
}

// A layout flag whose value is not a whole positive number is not read as one: the layout
// keeps one GPU for it rather than a TP of -4 or of the 8 of "8x" (mutants.py seed 1207).
TEST(MemoryPlan, LayoutFlagsNotWholePositiveNumbersAreNotRead) {
  Machine m;
  Server s;
  s.pid = 9;
  s.engine = "vllm";
  s.model = ParseConfig(kLlama8b);
  for (const char* bad : {"-4", "8x", "0", "", "1e1", "99999999999999"}) {
    s.flags = {{"--tensor-parallel-size", bad}, {"--pipeline-parallel-size", bad}};
    PlanInputs in = InputsForServer(s, m, Notes{}, {});
    EXPECT_EQ(in.layout.tp, 1) << bad;
    EXPECT_EQ(in.layout.pp, 1) << bad;
  }
  s.flags = {{"--tensor-parallel-size", "4"}};
  EXPECT_EQ(InputsForServer(s, m, Notes{}, {}).layout.tp, 4);
  // A pipeline of 10^12 stages read from a command line is no layout (its stages were laid out
  // one by one: memory without end), and a config.json of 10^12 layers is no model (the plan
  // walked them one by one: `dossier report` never ended). Both are unknown at once, saying why.
  s.flags = {{"--pipeline-parallel-size", "1000000000000"}};
  MemoryPlan stages = ComputeMemoryPlan(InputsForServer(s, m, Notes{}, {}));
  EXPECT_NE(stages.weight_bytes_per_gpu.unknown.find("is not one a server runs"), std::string::npos)
      << stages.weight_bytes_per_gpu.unknown;
  std::string huge = kLlama8b;
  const std::string layers32 = "\"num_hidden_layers\": 32";
  huge.replace(huge.find(layers32), layers32.size(), "\"num_hidden_layers\": 1000000000000");
  MemoryPlan layers = ComputeMemoryPlan(Inputs(ParseConfig(huge), 1, 80, 0.9, 2));
  EXPECT_FALSE(layers.weight_bytes_per_gpu.known());
  EXPECT_NE(layers.weight_bytes_per_gpu.unknown.find("num_hidden_layers = 1000000000000 is past"),
            std::string::npos)
      << layers.weight_bytes_per_gpu.unknown;
  // One is a value too: the layout says it came from the flag, not from no flag.
  s.flags = {{"--tensor-parallel-size", "1"}};
  PlanInputs one = InputsForServer(s, m, Notes{}, {});
  EXPECT_NE(one.layout_from.find("--tensor-parallel-size 1"), std::string::npos) << one.layout_from;
  // A plan by hand without --gpus says the GPU count is not known, and why.
  MemoryPlan byhand = ComputeMemoryPlan(InputsForModel(ParseConfig(kLlama8b), Notes{}, {}));
  EXPECT_NE(::testing::PrintToString(byhand.inputs).find("GPUs: unknown (no --gpus)"),
            std::string::npos)
      << ::testing::PrintToString(byhand.inputs);
}

// From a server's flags: SGLang's names, its DP attention, the speculative MTP layers, and the
// KV dtype flag over the model's.
TEST(MemoryPlan, ServerFlagsBecomeTheLayout) {
  Machine m;
  NvmlGpu g;
  g.memory_total_bytes.Set(static_cast<uint64_t>(95 * kTestGiB), "nvml");
  for (int i = 0; i < 8; ++i) m.nvml.gpus.push_back(g);
  m.nvml.gpu_count.Set(8, "nvml");
  Server s;
  s.pid = 42;
  s.engine = "sglang";
  s.model = ParseConfig(kGlm5Nvfp4);
  s.model.config_file.Set("/models/GLM-5/config.json", "test");
  s.flags = {{"--tp-size", "8"},
             {"--dp", "8"},
             {"--enable-dp-attention", "true"},
             {"--mem-fraction-static", "0.85"},
             {"--context-length", "65536"},
             {"--kv-cache-dtype", "fp8_e4m3"},
             {"--speculative-algorithm", "NEXTN"}};
  Notes notes;
  NoteTarget t;
  t.metric = "total_tokens_per_s";
  t.op = ">=";
  t.value = 1000;
  t.concurrency = 64;
  t.line = 7;
  notes.targets.push_back(t);
  PlanInputs in = InputsForServer(s, m, notes, {});
  EXPECT_EQ(in.layout.tp, 8);
  EXPECT_EQ(in.layout.dp_attention, 8);
  EXPECT_DOUBLE_EQ(*in.mem_fraction, 0.85);
  EXPECT_EQ(*in.context, 65536);
  EXPECT_EQ(*in.kv_bytes_per_element, 1);
  EXPECT_TRUE(in.mtp_loaded);
  ASSERT_TRUE(in.target_concurrency);
  EXPECT_EQ(*in.target_concurrency, 64);
  // A target at no concurrency (a single-stream figure) asks nothing of the plan: no "fits"
  // against 0 requests (mutants.py seed 2704 survivor: `> 0` read as `>= 0`).
  Notes single;
  NoteTarget any = t;
  any.concurrency = 0;
  single.targets.push_back(any);
  EXPECT_FALSE(InputsForServer(s, m, single, {}).target_concurrency);
  EXPECT_EQ(*in.gpu_memory_bytes, static_cast<uint64_t>(95 * kTestGiB));
  MemoryPlan p = ComputeMemoryPlan(in);
  ASSERT_TRUE(p.max_concurrency.known() && p.kv_tokens_per_gpu.known());
  // Eight DP attention ranks each hold their own requests' latent.
  EXPECT_NEAR(*p.max_concurrency, *p.kv_tokens_per_gpu * 8.0 / 65536, 1e-6);

  // Overrides replace what the flags said.
  PlanOverrides o;
  o.tp = 4;
  o.pp = 2;
  o.context = 8192;
  PlanInputs changed = InputsForServer(s, m, notes, o);
  EXPECT_EQ(changed.layout.tp, 4);
  EXPECT_EQ(changed.layout.pp, 2);
  EXPECT_EQ(*changed.context, 8192);

  // No NVML: GPU memory unknown with the way to give it.
  Machine bare;
  PlanInputs none = InputsForServer(s, bare, notes, {});
  EXPECT_FALSE(none.gpu_memory_bytes.known());
  EXPECT_NE(none.gpu_memory_bytes.unknown.find("--gpus"), std::string::npos);
}

}  // namespace
}  // namespace dossier
