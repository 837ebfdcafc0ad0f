// Corpus-driven robustness: the parsers of foreign text in the software and servers probes are
// fed truncated, mutated and garbage variants of real-shaped inputs (config.json,
// hf_quant_config.json, METADATA, /proc/PID/cmdline, environ, stat). None may crash or hang, and
// the invariants a user relies on must hold for every variant: every model fact is a value or an
// unknown with a reason, header values are short printable text, a secret option's value is
// never kept.
#include <gtest/gtest.h>

#include <random>

#include "../tests/temp_dir.h"
#include "model/visit.h"
#include "probe/inference_env.h"
#include "probe/model_config.h"
#include "probe/model_config_testdata.h"
#include "probe/python_envs.h"
#include "probe/server_cmdline.h"
#include "util/redact.h"

namespace dossier {
namespace {

std::string RobustNul(std::initializer_list<std::string> words) {
  std::string out;
  for (const auto& w : words) out += w + '\0';
  return out;
}

// Every prefix (stepping through long inputs), seeded mutations, and pure garbage.
std::vector<std::string> Variants(const std::string& base, unsigned seed) {
  std::vector<std::string> out;
  size_t step = std::max<size_t>(1, base.size() / 600);
  for (size_t n = 0; n < base.size(); n += step) out.push_back(base.substr(0, n));
  std::mt19937 rng(seed);
  auto pos = [&](size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng);
  };
  const std::string specials[] = {"\0",
                                  "\xff",
                                  "{",
                                  "[",
                                  "\"",
                                  "\\",
                                  "\n",
                                  ":",
                                  "-",
                                  "=",
                                  "1e999",
                                  "\\ud800",
                                  std::string(10000, '['),
                                  std::string(5000, 'x')};
  for (int i = 0; i < 400 && !base.empty(); ++i) {
    std::string v = base;
    switch (i % 5) {
      case 0:
        v[pos(v.size())] = static_cast<char>(rng());
        break;
      case 1:
        v.insert(pos(v.size()), specials[pos(std::size(specials))]);
        break;
      case 2: {
        size_t a = pos(v.size());
        v.erase(a, pos(v.size() - a + 1));
        break;
      }
      case 3: {
        size_t a = pos(v.size());
        v.insert(pos(v.size()), v.substr(a, 64));
        break;
      }
      case 4:
        for (int k = 0; k < 8; ++k) v[pos(v.size())] = static_cast<char>(rng());
        break;
    }
    out.push_back(std::move(v));
  }
  for (size_t n : {1, 7, 100, 4096}) {
    std::string g(n, '\0');
    for (char& c : g) c = static_cast<char>(rng());
    out.push_back(std::move(g));
  }
  return out;
}

// Every fact known, or unknown with a reason.
struct AllFactsAccounted {
  std::vector<std::string> bad;
  template <class T>
  void operator()(const char* key, Fact<T>& f) {
    if (!f.known() && f.unknown.empty()) bad.push_back(key);
  }
  template <class T>
  void operator()(const char*, T& v) {
    if constexpr (Visitable<T>) v.visit(*this);
  }
};

const std::string kMixedPrecision = R"({"architectures":["X"],"text_config":{"num_experts":8},
  "quantization_config":{"quant_method":"modelopt","quant_algo":"MIXED_PRECISION",
  "kv_cache_scheme":{"type":"float","num_bits":8},"config_groups":{"g":{"weights":{"group_size":32}}},
  "quantized_layers":{"a.self_attn.q":{"quant_algo":"FP8"},"b.mlp.experts":{"quant_algo":"NVFP4"}}}})";

TEST(ParsersRobustness, ConfigJsonVariants) {
  int n = 0;
  for (const std::string& base :
       {std::string(testing::kGlm5Config), kMixedPrecision,
        std::string(
            R"({"pretrained_config":{"architecture":"A","quantization":{"quant_algo":null}}})")}) {
    for (const auto& v : Variants(base, 1 + n)) {
      ModelConfig mc;
      ParseModelConfigText(v, "/m/config.json", &mc);
      AllFactsAccounted check;
      mc.visit(check);
      ASSERT_TRUE(check.bad.empty()) << check.bad[0] << " for variant " << n;
      // The exception net of model_config.cc is not what handles these: every read is checked.
      ASSERT_EQ(mc.config_file.unknown.find("unexpected shape"), std::string::npos)
          << mc.config_file.unknown;
      if (!mc.config_file.known() &&
          mc.config_file.unknown.find("invalid JSON") != std::string::npos) {
        ASSERT_TRUE(mc.config_file.unknown.starts_with("/m/config.json:"))
            << mc.config_file.unknown;
      }
      ++n;
    }
  }
  EXPECT_GT(n, 1000);
}

TEST(ParsersRobustness, HfQuantConfigVariants) {
  for (const auto& v : Variants(testing::kGlm5HfQuantConfig, 7)) {
    ModelQuantization q;
    ParseHfQuantConfigText(v, "/m/hf_quant_config.json", &q);
    ASSERT_EQ(q.method.unknown.find("unexpected shape"), std::string::npos) << q.method.unknown;
    AllFactsAccounted check;
    q.visit(check);
    ASSERT_TRUE(check.bad.empty()) << check.bad[0];
    if (q.excluded_modules.known()) {
      for (const auto& m : *q.excluded_modules) ASSERT_LE(m.size(), 200u * 4);
    }
  }
}

TEST(ParsersRobustness, ModelDirectoryWithDamagedSideFiles) {
  // The whole directory read, with hf_quant_config.json and the safetensors index damaged.
  testing::TempDir t;
  t.Write("m/config.json", testing::kGlm5Config);
  RootFs fs(t.path());
  auto hq = Variants(testing::kGlm5HfQuantConfig, 11);
  auto ix = Variants(testing::kGlm5Index, 13);
  for (size_t i = 0; i < 150; ++i) {
    t.Write("m/hf_quant_config.json", hq[(i * 7) % hq.size()]);
    t.Write("m/model.safetensors.index.json", ix[(i * 5) % ix.size()]);
    ModelConfig mc;
    ReadModelDir(fs, "/m", &mc);
    AllFactsAccounted check;
    mc.visit(check);
    ASSERT_TRUE(check.bad.empty()) << check.bad[0];
    ASSERT_EQ(*mc.routed_experts, 256);  // config.json itself is intact
  }
}

// Every key the parsers read, given every JSON type, at the top, in text_config and in the
// quantization objects: a wrong type is an unknown, never an exception.
TEST(ParsersRobustness, ConfigKeysOfEveryType) {
  const char* keys[] = {"architectures",
                        "architecture",
                        "model_type",
                        "num_hidden_layers",
                        "hidden_size",
                        "num_attention_heads",
                        "num_key_value_heads",
                        "n_routed_experts",
                        "num_experts",
                        "n_shared_experts",
                        "shared_expert_intermediate_size",
                        "num_experts_per_tok",
                        "moe_topk",
                        "torch_dtype",
                        "quantization_config",
                        "quantization",
                        "quant_method",
                        "quant_algo",
                        "format",
                        "bits",
                        "ignore",
                        "exclude_modules",
                        "kv_cache_quant_algo",
                        "kv_cache_scheme",
                        "group_size",
                        "config_groups",
                        "quantized_layers",
                        "text_config",
                        "pretrained_config",
                        "producer",
                        "weights",
                        "name",
                        "type",
                        "num_bits"};
  const char* values[] = {
      "null", "true",           "-1", "1.5",          "1e308", "18446744073709551615", "\"s\"",
      "[]",   "[1,\"a\",null]", "{}", "{\"a\":[{}]}", "[[8]]", "{\"quant_algo\":7}"};
  int n = 0;
  for (const char* k : keys) {
    for (const char* v : values) {
      std::string kv = std::string("\"") + k + "\": " + v;
      std::string docs[] = {
          "{" + kv + "}", "{\"text_config\": {" + kv + "}}",
          "{\"quantization_config\": {" + kv + "}}",
          "{\"quantization_config\": {\"config_groups\": {\"g\": {\"weights\": {" + kv +
              "}}}, \"quantized_layers\": {\"l\": {" + kv + "}}}}",
          "{\"pretrained_config\": {\"quantization\": {" + kv + "}}}"};
      for (const auto& d : docs) {
        ModelConfig mc;
        ParseModelConfigText(d, "/c.json", &mc);
        ASSERT_EQ(mc.config_file.unknown.find("unexpected shape"), std::string::npos)
            << d << ": " << mc.config_file.unknown;
        ModelQuantization q;
        ParseHfQuantConfigText("{\"producer\": {" + kv + "}, \"quantization\": {" + kv + "}}",
                               "/h.json", &q);
        ASSERT_EQ(q.method.unknown.find("unexpected shape"), std::string::npos) << d;
        ++n;
      }
    }
  }
  EXPECT_GT(n, 2000);
}

TEST(ParsersRobustness, MetadataVariants) {
  const std::string bases[] = {
      "Metadata-Version: 2.1\nName: torch\nVersion: 2.9.1+cu128\nSummary: Tensors\n"
      "Requires-Dist: triton==3.5.1\n\n# PyTorch\nVersion: not-this\n",
      "Metadata-Version: 1.0\r\nName: numpy\r\nVersion: 1.26.4\r\n\r\n",
      "Name: a\n  continuation: Version: 9\nVersion:\n"};
  unsigned seed = 3;
  for (const auto& base : bases) {
    for (const auto& v : Variants(base, seed++)) {
      PackageHeader h = ParsePackageHeader(v);
      for (const auto* val : {h.name ? &*h.name : nullptr, h.version ? &*h.version : nullptr}) {
        if (!val) continue;
        ASSERT_FALSE(val->empty());
        ASSERT_LE(val->size(), 200u);
        for (unsigned char c : *val) ASSERT_TRUE(c >= 0x20 && c < 0x7f);
      }
      PackageHeader d = ParseDistDirName(v + ".dist-info");
      if (d.name) {
        ASSERT_FALSE(d.name->empty());
      }
    }
  }
}

TEST(ParsersRobustness, CmdlineEnvironStatVariants) {
  const std::string bases[] = {
      RobustNul({"/opt/venv/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m",
                 "--api-key", "sk-SECRET", "--tp=8", "--cuda-graph-bs", "1", "2", "--", "x"}),
      RobustNul(
          {"/usr/bin/python3", "/usr/local/bin/vllm", "serve", "org/m", "--api-key=sk-SECRET"}),
      RobustNul({"trtllm-serve", "serve", "--tp_size", "8", "/m", "--token", "sk-SECRET"}),
      RobustNul({"sglang::scheduler_TP0"}),
  };
  unsigned seed = 21;
  for (const auto& base : bases) {
    for (const auto& v : Variants(base, seed++)) {
      auto raw = SplitNul(v);
      auto argv = RedactArgv(raw);
      for (size_t i = 0; i + 1 < argv.size(); ++i) {
        if (argv[i] == "--api-key" || argv[i] == "--token") {
          ASSERT_TRUE(argv[i + 1] == kRedacted || argv[i + 1].starts_with("--")) << argv[i + 1];
        }
      }
      auto m = DetectEngine(argv);
      auto p = ParseServerArgs(argv, m ? m->args_begin : 0, m && m->positional_model);
      for (const auto& [k, val] : p.flags) {
        // The option's value is the first word; later words are other (unredacted) arguments.
        // "--api-key=" (a variant cut there) has an empty value: nothing to hide, and the next
        // word is not taken for it (#30).
        if (k == "--api-key" || k == "--token") {
          ASSERT_TRUE(val.starts_with(kRedacted) || val == "true" || val.empty()) << val;
        }
      }
      if (m) ModelArgument(m->engine, p);
      RenamedWorkerEngine(raw);
      auto env = InferenceEnv(ParseEnviron(v));
      for (const auto& [k, val] : env) {
        if (IsSecretName(k)) {
          ASSERT_EQ(val, kRedacted);
        }
      }
      ParseStatPpid(v);
    }
  }
}

}  // namespace
}  // namespace dossier
