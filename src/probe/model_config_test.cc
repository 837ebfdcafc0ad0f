#include "probe/model_config.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "../tests/temp_dir.h"
#include "probe/model_config_testdata.h"

namespace dossier {
namespace {

using testing::TempDir;

void ExpectGlm5Shape(const ModelConfig& mc) {
  EXPECT_EQ(*mc.architecture, "GlmMoeDsaForCausalLM");
  EXPECT_EQ(*mc.model_type, "glm_moe_dsa");
  EXPECT_EQ(*mc.layers, 78);
  EXPECT_EQ(*mc.hidden_size, 6144);
  EXPECT_EQ(*mc.heads, 64);
  EXPECT_EQ(*mc.kv_heads, 64);
  EXPECT_EQ(*mc.routed_experts, 256);
  EXPECT_EQ(*mc.shared_experts, 1);
  EXPECT_EQ(*mc.active_experts, 8);
  EXPECT_EQ(*mc.dtype, "bfloat16");
}

TEST(ModelConfig, Glm5Nvfp4ReadsAsExpertsOnlyNvfp4) {
  TempDir t;
  t.Write("models/GLM-5-NVFP4/config.json", testing::kGlm5Config);
  t.Write("models/GLM-5-NVFP4/hf_quant_config.json", testing::kGlm5HfQuantConfig);
  t.Write("models/GLM-5-NVFP4/model.safetensors.index.json", testing::kGlm5Index);
  RootFs fs(t.path());
  ModelConfig mc;
  ReadModelDir(fs, "/models/GLM-5-NVFP4", &mc);
  ExpectGlm5Shape(mc);
  EXPECT_EQ(mc.layers.source, "/models/GLM-5-NVFP4/config.json#/num_hidden_layers");
  EXPECT_EQ(*mc.config_file, "/models/GLM-5-NVFP4/config.json");
  const auto& q = mc.quantization;
  EXPECT_EQ(*q.method, "modelopt");
  EXPECT_EQ(*q.algorithm, "NVFP4");
  EXPECT_EQ(*q.group_size, 16);
  ASSERT_TRUE(q.excluded_modules.known());
  EXPECT_EQ(q.excluded_modules->size(), 9u);
  EXPECT_EQ((*q.excluded_modules)[2], "model.layers.*.self_attn*");
  EXPECT_TRUE(*q.attention_excluded);
  EXPECT_FALSE(q.kv_cache_algorithm.known());
  EXPECT_EQ(*mc.weights_bytes, 440942526464u);
}

TEST(ModelConfig, HfQuantConfigAloneGivesTheQuantization) {
  TempDir t;
  std::string cfg = testing::kGlm5Config;
  cfg = cfg.substr(0, cfg.find(",\n  \"quantization_config\"")) + "\n}\n";
  t.Write("m/config.json", cfg);
  t.Write("m/hf_quant_config.json", testing::kGlm5HfQuantConfig);
  RootFs fs(t.path());
  ModelConfig mc;
  ReadModelDir(fs, "/m", &mc);
  ExpectGlm5Shape(mc);
  EXPECT_EQ(*mc.quantization.method, "modelopt");
  EXPECT_EQ(mc.quantization.method.source, "/m/hf_quant_config.json#/producer/name");
  EXPECT_EQ(*mc.quantization.algorithm, "NVFP4");
  EXPECT_EQ(mc.quantization.excluded_modules.source,
            "/m/hf_quant_config.json#/quantization/exclude_modules");
  EXPECT_TRUE(*mc.quantization.attention_excluded);
  EXPECT_FALSE(mc.weights_bytes.known());
  EXPECT_EQ(mc.weights_bytes.unknown, "no model.safetensors.index.json");
}

TEST(ModelConfig, UnquantizedDenseModel) {
  TempDir t;
  t.Write("m/config.json",
          R"({"architectures":["LlamaForCausalLM"],"model_type":"llama","num_hidden_layers":32,
              "hidden_size":4096,"num_attention_heads":32,"torch_dtype":"bfloat16"})");
  RootFs fs(t.path());
  ModelConfig mc;
  ReadModelDir(fs, "/m", &mc);
  EXPECT_EQ(*mc.kv_heads, 32);  // no num_key_value_heads: multi-head attention
  EXPECT_FALSE(mc.routed_experts.known());
  EXPECT_NE(mc.routed_experts.unknown.find("dense"), std::string::npos);
  EXPECT_EQ(*mc.quantization.method, "none");
  EXPECT_FALSE(mc.quantization.algorithm.known());
  EXPECT_EQ(mc.quantization.algorithm.unknown, "not quantized");
}

TEST(ModelConfig, MultimodalTextConfigQwenSharedExpertAndLists) {
  ModelConfig mc;
  ParseModelConfigText(R"({"architectures":["Llama4ForConditionalGeneration"],
      "model_type":"llama4",
      "text_config":{"num_hidden_layers":48,"hidden_size":5120,"num_attention_heads":40,
                     "num_key_value_heads":8,"num_local_experts":16,"num_experts_per_tok":1},
      "vision_config":{"num_hidden_layers":34,"hidden_size":1408}})",
                       "/c.json", &mc);
  EXPECT_EQ(*mc.layers, 48);
  EXPECT_EQ(mc.layers.source, "/c.json#/text_config/num_hidden_layers");
  EXPECT_EQ(*mc.routed_experts, 16);
  EXPECT_EQ(*mc.active_experts, 1);
  EXPECT_FALSE(mc.shared_experts.known());

  ModelConfig q;
  ParseModelConfigText(R"({"architectures":["Qwen2MoeForCausalLM"],"num_experts":60,
      "num_experts_per_tok":4,"shared_expert_intermediate_size":5632})",
                       "/q.json", &q);
  EXPECT_EQ(*q.routed_experts, 60);
  EXPECT_EQ(*q.shared_experts, 1);

  ModelConfig h;
  ParseModelConfigText(R"({"num_experts":64,"moe_topk":[8,8,8],"num_hidden_layers":"32"})",
                       "/h.json", &h);
  EXPECT_EQ(*h.active_experts, 8);
  EXPECT_FALSE(h.layers.known());
  EXPECT_NE(h.layers.unknown.find("not an integer"), std::string::npos);
  ModelConfig v;
  ParseModelConfigText(R"({"num_experts":64,"moe_topk":[8,4]})", "/v.json", &v);
  EXPECT_NE(v.active_experts.unknown.find("varies per layer"), std::string::npos);
}

TEST(ModelConfig, MixedPrecisionAndCompressedTensors) {
  ModelConfig mc;
  ParseModelConfigText(R"({"quantization_config":{"quant_method":"modelopt",
      "quant_algo":"MIXED_PRECISION","kv_cache_quant_algo":"FP8",
      "quantized_layers":{
        "model.layers.3.mlp.experts":{"quant_algo":"NVFP4","group_size":16},
        "model.layers.4.mlp.experts":{"quant_algo":"NVFP4","group_size":16},
        "model.layers.3.self_attn.o_proj":{"quant_algo":"FP8"}}}})",
                       "/c.json", &mc);
  EXPECT_EQ(*mc.quantization.algorithm, "MIXED_PRECISION");
  EXPECT_EQ(*mc.quantization.layer_algorithms,
            (std::vector<std::string>{"NVFP4: 2 modules", "FP8: 1 modules"}));
  EXPECT_FALSE(*mc.quantization.attention_excluded);  // an attention projection is FP8
  EXPECT_EQ(*mc.quantization.kv_cache_algorithm, "FP8");

  ModelConfig ct;
  ParseModelConfigText(R"({"quantization_config":{"quant_method":"compressed-tensors",
      "format":"nvfp4-pack-quantized","ignore":["lm_head"],
      "config_groups":{"group_0":{"targets":["Linear"],
        "weights":{"num_bits":4,"type":"float","group_size":16}}}}})",
                       "/ct.json", &ct);
  EXPECT_EQ(*ct.quantization.algorithm, "nvfp4-pack-quantized");
  EXPECT_EQ(*ct.quantization.group_size, 16);
  EXPECT_FALSE(*ct.quantization.attention_excluded);  // only lm_head is excluded
}

TEST(ModelConfig, MalformedFilesAreUnknownWithFileAndLine) {
  TempDir t;
  std::string truncated = std::string(testing::kGlm5Config).substr(0, 300);
  t.Write("trunc/config.json", truncated);
  const char kElf[] =
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\xff\xfe";
  t.Write("bin/config.json", std::string(kElf, sizeof kElf - 1));
  t.Write("arr/config.json", "[1,2,3]");
  t.Write("big/config.json", "");
  std::filesystem::resize_file(t.path() + "/big/config.json", 100u << 20);  // sparse 100 MiB
  RootFs fs(t.path());

  ModelConfig a;
  ReadModelDir(fs, "/trunc", &a);
  EXPECT_FALSE(a.config_file.known());
  EXPECT_NE(a.config_file.unknown.find("/trunc/config.json:"), std::string::npos)
      << a.config_file.unknown;
  EXPECT_NE(a.config_file.unknown.find("invalid JSON"), std::string::npos);
  EXPECT_FALSE(a.layers.known());
  EXPECT_EQ(a.layers.unknown, a.config_file.unknown);
  // The line is the one where the text stops.
  int lines = 1 + static_cast<int>(std::count(truncated.begin(), truncated.end(), '\n'));
  EXPECT_NE(a.config_file.unknown.find(":" + std::to_string(lines) + ":"), std::string::npos)
      << a.config_file.unknown;

  ModelConfig b;
  ReadModelDir(fs, "/bin", &b);
  EXPECT_NE(b.config_file.unknown.find("/bin/config.json:1: invalid JSON"), std::string::npos)
      << b.config_file.unknown;

  ModelConfig c;
  ReadModelDir(fs, "/arr", &c);
  EXPECT_FALSE(c.architecture.known());
  EXPECT_EQ(c.architecture.unknown, "config.json is not a JSON object");

  ModelConfig d;
  ReadModelDir(fs, "/big", &d);
  EXPECT_EQ(d.config_file.unknown, "larger than 16 MiB");
  EXPECT_FALSE(d.quantization.method.known());

  ModelConfig e;
  ReadModelDir(fs, "/absent", &e);
  EXPECT_EQ(e.config_file.unknown, "no config.json in /absent");
}

TEST(ModelConfig, DeepNestingIsDroppedNotACrash) {
  std::string deep =
      "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + ",\"num_hidden_layers\":4}";
  ModelConfig mc;
  ParseModelConfigText(deep, "/deep.json", &mc);
  EXPECT_EQ(*mc.layers, 4);
}

TEST(ModelConfig, FindsTheModelFromWhatTheServerWasGiven) {
  TempDir t;
  t.Write("srv/work/local-model/config.json", R"({"num_hidden_layers": 2})");
  std::string hub = "home/bob/.cache/huggingface/hub/models--Qwen--Qwen3-8B/";
  t.Write(hub + "refs/main", "abc123\n");
  t.Write(hub + "snapshots/abc123/config.json", R"({"num_hidden_layers": 36})");
  t.Write(hub + "snapshots/old999/config.json", R"({"num_hidden_layers": 1})");
  t.Write("data/hf/hub/models--org--only/snapshots/s1/config.json", R"({"num_hidden_layers": 7})");
  t.Write("m/model-Q4_K_M.gguf", "GGUF");
  RootFs fs(t.path());

  ModelLocation rel{"./local-model/", "--model-path", "/srv/work", {}, "", "/proc/1/cmdline"};
  ModelConfig a = ReadServedModel(fs, rel);
  EXPECT_EQ(*a.path, "/srv/work/local-model");
  EXPECT_EQ(*a.layers, 2);

  ModelLocation id{"Qwen/Qwen3-8B",  "positional argument", "/", {{"HOME", "/home/bob"}}, "",
                   "/proc/1/cmdline"};
  ModelConfig b = ReadServedModel(fs, id);
  EXPECT_EQ(*b.layers, 36);
  EXPECT_EQ(*b.path, "/home/bob/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/abc123");
  EXPECT_NE(b.path.source.find("refs/main"), std::string::npos);

  ModelLocation hf_home{"org/only", "--model", "", {{"HF_HOME", "/data/hf"}}, "", "/p"};
  EXPECT_EQ(*ReadServedModel(fs, hf_home).layers, 7);

  ModelLocation missing{"org/none", "--model", "", {{"HOME", "/home/bob"}}, "", "/p"};
  ModelConfig c = ReadServedModel(fs, missing);
  EXPECT_EQ(*c.path, "org/none");
  EXPECT_NE(c.config_file.unknown.find("not in the Hugging Face cache"), std::string::npos);

  ModelLocation gguf{"/m/model-Q4_K_M.gguf", "-m", "", {}, "", "/p"};
  ModelConfig d = ReadServedModel(fs, gguf);
  EXPECT_EQ(d.config_file.unknown, "GGUF file: config.json not applicable");
  EXPECT_EQ(d.architecture.unknown, "GGUF file: config.json not applicable");

  ModelLocation none{"", "", "", {}, "", "/proc/9/cmdline"};
  EXPECT_EQ(ReadServedModel(fs, none).path.unknown, "no model argument on the command line");
  ModelLocation relnocwd{"./x", "--model-path", "", {}, "", "/p"};
  EXPECT_NE(ReadServedModel(fs, relnocwd).config_file.unknown.find("working directory"),
            std::string::npos);

  // "~/" is the server's HOME (mutants.py seed 1207: with one character less cut, the path
  // became "/models/…" at the root). A "/models/tilde" beside it would be the wrong one.
  t.Write("home/bob/models/tilde/config.json", R"({"num_hidden_layers": 5})");
  t.Write("models/tilde/config.json", R"({"num_hidden_layers": 99})");
  ModelLocation tilde{"~/models/tilde", "--model-path", "/srv", {{"HOME", "/home/bob"}}, "", "/p"};
  ModelConfig e = ReadServedModel(fs, tilde);
  EXPECT_EQ(*e.path, "/home/bob/models/tilde");
  EXPECT_EQ(*e.layers, 5);
}

TEST(ModelConfig, TensorRtEngineConfig) {
  ModelConfig mc;
  ParseModelConfigText(R"({"version":"0.20.0","pretrained_config":{"architecture":
      "LlamaForCausalLM","dtype":"float16","num_hidden_layers":80,"hidden_size":8192,
      "num_attention_heads":64,"num_key_value_heads":8,
      "quantization":{"quant_algo":"FP8","kv_cache_quant_algo":"FP8","exclude_modules":null}},
      "build_config":{"max_batch_size":64}})",
                       "/e/config.json", &mc);
  EXPECT_EQ(*mc.architecture, "LlamaForCausalLM");
  EXPECT_EQ(*mc.dtype, "float16");
  EXPECT_EQ(*mc.layers, 80);
  EXPECT_EQ(*mc.quantization.algorithm, "FP8");
  EXPECT_EQ(*mc.quantization.kv_cache_algorithm, "FP8");
}

}  // namespace
}  // namespace dossier
