#include "probe/model_config.h"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "model/visit.h"
#include "probe/json_file.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

using nlohmann::json;

// Real config.json files are tens of KiB; a MIXED_PRECISION quantization_config lists every
// layer and reaches a few MiB. The safetensors index maps every tensor to its shard (tens of MiB
// for a 256-expert model) but only its metadata is kept while parsing.
constexpr size_t kMaxConfigBytes = 16 << 20;
constexpr size_t kMaxIndexBytes = 128 << 20;
constexpr size_t kMaxModules = 100000;  // entries kept from an exclusion list

// Sets every fact of a struct that is still unknown without a reason to unknown(reason).
// `skip` names a nested struct to leave alone.
struct FillUnknown {
  std::string reason, source;
  std::string_view skip;
  template <class T>
  void operator()(const char*, Fact<T>& f) {
    if (!f.known() && f.unknown.empty()) f.Unknown(reason, source);
  }
  template <class T>
  void operator()(const char* key, T& v) {
    if constexpr (Visitable<T>) {
      if (key != skip) v.visit(*this);
    }
  }
};

template <class S>
void Fill(S* s, const std::string& reason, const std::string& source, std::string_view skip = {}) {
  FillUnknown f{reason, source, skip};
  s->visit(f);
}

std::string Short(const json& v) {
  return Printable(v.dump(-1, ' ', true, json::error_handler_t::replace), 60);
}

bool HasAttention(std::string_view module) {
  std::string m = ToLower(module);
  return m.find("attn") != std::string::npos || m.find("attention") != std::string::npos;
}

// A key of config.json, looked up in text_config first (multimodal configs keep the language
// model's shape there) and then at the top.
class ConfigView {
 public:
  ConfigView(const json& body, std::string base) : body_(body), base_(std::move(base)) {
    auto t = body_.find("text_config");
    if (t != body_.end() && t->is_object()) text_ = &*t;
  }
  struct Hit {
    const json* v = nullptr;
    std::string src;
  };
  Hit Find(std::initializer_list<const char*> keys) const {
    for (const char* k : keys) {
      if (text_) {
        auto it = text_->find(k);
        if (it != text_->end() && !it->is_null()) return {&*it, base_ + "/text_config/" + k};
      }
      auto it = body_.find(k);
      if (it != body_.end() && !it->is_null()) return {&*it, base_ + "/" + k};
    }
    return {};
  }
  const json& body() const { return body_; }
  const std::string& base() const { return base_; }

 private:
  const json& body_;
  const json* text_ = nullptr;
  std::string base_;
};

// An integer, an integral float, or a list of equal integers (per-layer lists such as
// Hunyuan's moe_topk: [8, 8, ...]).
void SetInt(const ConfigView::Hit& h, Fact<int64_t>* out) {
  const json& v = *h.v;
  if (v.is_number_integer()) return out->Set(v.get<int64_t>(), h.src);
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (d > -9e18 && d < 9e18 && d == static_cast<double>(static_cast<int64_t>(d)))
      return out->Set(static_cast<int64_t>(d), h.src);
  }
  if (v.is_array() && !v.empty() && v[0].is_number_integer()) {
    bool same = std::all_of(v.begin(), v.end(), [&](const json& e) { return e == v[0]; });
    if (same) return out->Set(v[0].get<int64_t>(), h.src);
    return out->Unknown("varies per layer: " + Short(v), h.src);
  }
  out->Unknown("not an integer: " + Short(v), h.src);
}

bool GetInt(const ConfigView& c, std::initializer_list<const char*> keys, Fact<int64_t>* out) {
  auto h = c.Find(keys);
  if (!h.v) return false;
  SetInt(h, out);
  return true;
}

void GetString(const ConfigView& c, std::initializer_list<const char*> keys,
               Fact<std::string>* out) {
  auto h = c.Find(keys);
  if (!h.v) return;
  if (h.v->is_string()) return out->Set(Printable(h.v->get<std::string>(), 120), h.src);
  out->Unknown("not a string: " + Short(*h.v), h.src);
}

// An exclusion list: strings kept (printable, cut), other entries skipped, bounded.
std::vector<std::string> StringList(const json& a) {
  std::vector<std::string> out;
  for (const auto& e : a) {
    if (out.size() >= kMaxModules) break;
    if (e.is_string()) out.push_back(Printable(e.get<std::string>(), 200));
  }
  return out;
}

// quantization_config (config.json), "quantization" (hf_quant_config.json, TRT-LLM engines).
// kv_cache_quant_algo (ModelOpt) or kv_cache_scheme (compressed-tensors: {"type": "float",
// "num_bits": 8}, either key possibly missing or mistyped).
void ReadKvCache(const ConfigView& c, ModelQuantization* out) {
  if (auto h = c.Find({"kv_cache_quant_algo"}); h.v && h.v->is_string()) {
    out->kv_cache_algorithm.Set(Printable(h.v->get<std::string>(), 40), h.src);
  } else if (auto s = c.Find({"kv_cache_scheme"}); s.v && s.v->is_object()) {
    auto type = s.v->find("type");
    auto bits = s.v->find("num_bits");
    std::string what = type != s.v->end() && type->is_string() ? type->get<std::string>() : "?";
    if (bits != s.v->end() && bits->is_number_integer())
      what += " " + std::to_string(bits->get<int64_t>()) + "-bit";
    out->kv_cache_algorithm.Set(Printable(what, 40), s.src);
  }
}

// group_size, else compressed-tensors' config_groups.<name>.weights.group_size (first group).
void ReadGroupSize(const json& q, const ConfigView& c, const std::string& base,
                   ModelQuantization* out) {
  if (auto b = c.Find({"weight_block_size"}); b.v && b.v->is_array() && !b.v->empty()) {
    const json& first = (*b.v)[0];
    if (first.is_number_integer() && first.get<int64_t>() > 0) {
      out->weight_block_size.Set(first.get<int64_t>(), b.src + "/0");
    } else {
      out->weight_block_size.Unknown("not a positive integer: " + Short(first), b.src + "/0");
    }
  }
  if (GetInt(c, {"group_size", "q_group_size"}, &out->group_size)) return;
  auto g = q.find("config_groups");
  if (g == q.end() || !g->is_object()) return;
  for (auto it = g->begin(); it != g->end(); ++it) {
    if (!it->is_object() || !it->contains("weights") || !(*it)["weights"].is_object()) continue;
    ConfigView w((*it)["weights"], base + "/config_groups/" + it.key() + "/weights");
    if (GetInt(w, {"group_size"}, &out->group_size)) return;
  }
}

// MIXED_PRECISION: {"quantized_layers": {"model.layers.3.mlp.experts": {"quant_algo": "NVFP4"}}}
// gives the algorithms with their module counts, and whether attention is left out; otherwise
// the exclusion list says whether attention is.
void ReadLayerScope(const json& q, const std::string& base, ModelQuantization* out) {
  auto l = q.find("quantized_layers");
  if (l == q.end() || !l->is_object()) {
    if (!out->excluded_modules.known()) return;
    const auto& ex = *out->excluded_modules;
    out->attention_excluded.Set(std::any_of(ex.begin(), ex.end(), HasAttention),
                                out->excluded_modules.source);
    return;
  }
  bool attention_quantized = false;
  std::map<std::string, int64_t> count;
  for (auto it = l->begin(); it != l->end(); ++it) {
    std::string algo = "?";
    if (it->is_object() && it->contains("quant_algo") && (*it)["quant_algo"].is_string())
      algo = Printable((*it)["quant_algo"].get<std::string>(), 40);
    ++count[algo];
    if (HasAttention(it.key())) attention_quantized = true;
  }
  std::vector<std::pair<std::string, int64_t>> by(count.begin(), count.end());
  std::stable_sort(by.begin(), by.end(), [](auto& a, auto& b) { return a.second > b.second; });
  std::vector<std::string> algos;
  for (const auto& [a, n] : by) algos.push_back(a + ": " + std::to_string(n) + " modules");
  out->layer_algorithms.Set(algos, base + "/quantized_layers");
  out->attention_excluded.Set(!attention_quantized, base + "/quantized_layers");
}

// quantization_config (config.json), "quantization" (hf_quant_config.json, TRT-LLM engines).
void ParseQuantObject(const json& q, const std::string& base, ModelQuantization* out) {
  ConfigView c(q, base);
  GetString(c, {"quant_method"}, &out->method);
  if (!out->method.known() && out->method.unknown.empty())
    out->method.Unknown("no quant_method", base);
  // The algorithm: ModelOpt's quant_algo, compressed-tensors' format, DeepSeek FP8's fmt, or
  // the bit width of GPTQ/AWQ/MLX.
  if (auto h = c.Find({"quant_algo", "format", "fmt"}); h.v) {
    if (h.v->is_string()) {
      out->algorithm.Set(Printable(h.v->get<std::string>(), 80), h.src);
    } else {
      out->algorithm.Unknown("not a string: " + Short(*h.v), h.src);
    }
  } else if (auto b = c.Find({"bits", "w_bit"}); b.v && b.v->is_number_integer()) {
    out->algorithm.Set(std::to_string(b.v->get<int64_t>()) + "-bit", b.src);
  } else if (auto k = q.find("quant_algo"); k != q.end() && k->is_null()) {
    out->algorithm.Unknown("quant_algo is null", base + "/quant_algo");
  }
  if (auto h = c.Find({"ignore", "exclude_modules", "modules_to_not_convert", "ignored_layers"});
      h.v) {
    if (h.v->is_array()) {
      out->excluded_modules.Set(StringList(*h.v), h.src);
    } else {
      out->excluded_modules.Unknown("not a list: " + Short(*h.v), h.src);
    }
  }
  ReadKvCache(c, out);
  ReadGroupSize(q, c, base, out);
  ReadLayerScope(q, base, out);
}

// ModelOpt's hf_quant_config.json: {"producer": {"name": "modelopt"}, "quantization": {...}}.
void ParseHfQuantJson(const json& j, const std::string& path, ModelQuantization* q) {
  if (!j.is_object()) return Fill(q, "not a JSON object", path);
  auto qo = j.find("quantization");
  if (qo == j.end() || !qo->is_object()) return Fill(q, "no \"quantization\" object", path);
  ParseQuantObject(*qo, path + "#/quantization", q);
  if (!q->method.known()) {
    auto p = j.find("producer");
    if (p != j.end() && p->is_object() && p->contains("name") && (*p)["name"].is_string()) {
      q->method.Set(Printable((*p)["name"].get<std::string>(), 40), path + "#/producer/name");
    } else {
      q->method.Set("modelopt", path);  // the file is ModelOpt's export format
    }
  }
}

// Takes from `from` each fact `into` does not know.
void MergeQuant(const ModelQuantization& from, ModelQuantization* into) {
  auto take = [](const auto& f, auto* t) {
    if (!t->known() && f.known()) *t = f;
  };
  take(from.method, &into->method);
  take(from.algorithm, &into->algorithm);
  take(from.excluded_modules, &into->excluded_modules);
  take(from.layer_algorithms, &into->layer_algorithms);
  take(from.kv_cache_algorithm, &into->kv_cache_algorithm);
  take(from.group_size, &into->group_size);
  take(from.weight_block_size, &into->weight_block_size);
  take(from.attention_excluded, &into->attention_excluded);
}

// Routed experts (n_routed_experts, num_experts, num_local_experts), shared experts
// (n_shared_experts, or Qwen-MoE's shared_expert_intermediate_size > 0) and the experts active
// per token (num_experts_per_tok, moe_topk).
void ReadExperts(const ConfigView& c, const std::string& path, ModelConfig* out) {
  bool moe = GetInt(c, {"n_routed_experts", "num_experts", "num_local_experts", "moe_num_experts"},
                    &out->routed_experts);
  if (!moe) {
    out->routed_experts.Unknown(
        "no n_routed_experts, num_experts or num_local_experts (a dense model)", path);
  }
  if (!GetInt(c, {"n_shared_experts", "num_shared_experts"}, &out->shared_experts)) {
    // Qwen-MoE states a shared expert by its size rather than a count.
    auto h = c.Find({"shared_expert_intermediate_size"});
    if (h.v && h.v->is_number_integer()) {
      out->shared_experts.Set(h.v->get<int64_t>() > 0 ? 1 : 0, h.src);
    } else {
      out->shared_experts.Unknown(
          moe ? "not stated (no n_shared_experts or shared_expert_intermediate_size)"
              : "a dense model",
          path);
    }
  }
  if (!GetInt(c, {"num_experts_per_tok", "moe_topk", "experts_per_token", "moe_top_k"},
              &out->active_experts)) {
    out->active_experts.Unknown(moe ? "no num_experts_per_tok or moe_topk" : "a dense model", path);
  }
}

// The sizes a parameter count needs (analyze/model_size.h). Absent keys stay unknown ("not in
// config.json"): a dense model has no moe_intermediate_size, a GQA model no kv_lora_rank.
void ReadShape(const ConfigView& c, ModelConfig* out) {
  GetInt(c, {"intermediate_size", "ffn_hidden_size", "n_inner"}, &out->intermediate_size);
  GetInt(c, {"moe_intermediate_size", "expert_intermediate_size"}, &out->moe_intermediate_size);
  GetInt(c, {"vocab_size", "padded_vocab_size"}, &out->vocab_size);
  GetInt(c, {"head_dim"}, &out->head_dim);
  GetInt(c, {"first_k_dense_replace"}, &out->dense_layers);
  GetInt(c, {"q_lora_rank"}, &out->q_lora_rank);
  GetInt(c, {"kv_lora_rank"}, &out->kv_lora_rank);
  GetInt(c, {"qk_nope_head_dim"}, &out->qk_nope_head_dim);
  GetInt(c, {"qk_rope_head_dim"}, &out->qk_rope_head_dim);
  GetInt(c, {"v_head_dim"}, &out->v_head_dim);
  GetInt(c, {"num_nextn_predict_layers", "num_mtp_layers"}, &out->mtp_layers);
  GetInt(c, {"max_position_embeddings", "max_sequence_length", "seq_length"}, &out->context_length);
  GetInt(c, {"sliding_window"}, &out->sliding_window);
  GetInt(c, {"index_head_dim"}, &out->index_head_dim);
  GetInt(c, {"index_n_heads"}, &out->index_n_heads);
  // layer_types: ["sliding_attention", "full_attention", …] per layer.
  if (auto h = c.Find({"layer_types"}); h.v && h.v->is_array()) {
    int64_t n = 0;
    for (const auto& e : *h.v)
      if (e.is_string() && e.get<std::string>() == "sliding_attention") ++n;
    out->sliding_layers.Set(n, h.src);
  }
  if (auto h = c.Find({"tie_word_embeddings"}); h.v) {
    if (h.v->is_boolean()) {
      out->tie_word_embeddings.Set(h.v->get<bool>(), h.src);
    } else {
      out->tie_word_embeddings.Unknown("not true or false: " + Short(*h.v), h.src);
    }
  }
}

void ParseConfigJson(const json& j, const std::string& path, ModelConfig* out) {
  if (!j.is_object()) return Fill(out, "config.json is not a JSON object", path);
  // TensorRT-LLM engine directories keep the model's shape under "pretrained_config".
  const json* body = &j;
  std::string base = path + "#";
  if (auto p = j.find("pretrained_config"); p != j.end() && p->is_object()) {
    body = &*p;
    base += "/pretrained_config";
  }
  ConfigView c(*body, base);
  out->config_file.Set(path, path);
  if (auto a = c.Find({"architectures"}); a.v) {
    if (a.v->is_array() && !a.v->empty() && (*a.v)[0].is_string()) {
      out->architecture.Set(Printable((*a.v)[0].get<std::string>(), 120), a.src + "/0");
    } else {
      out->architecture.Unknown("architectures is not a list of names", a.src);
    }
  } else {
    GetString(c, {"architecture"}, &out->architecture);
  }
  GetString(c, {"model_type"}, &out->model_type);
  GetInt(c, {"num_hidden_layers", "num_layers", "n_layer"}, &out->layers);
  GetInt(c, {"hidden_size", "n_embd", "d_model"}, &out->hidden_size);
  GetInt(c, {"num_attention_heads", "n_head"}, &out->heads);
  if (!GetInt(c, {"num_key_value_heads", "num_kv_heads", "multi_query_group_num"},
              &out->kv_heads) &&
      out->heads.known()) {
    // Transformers' convention: no num_key_value_heads means multi-head attention.
    out->kv_heads.Set(*out->heads, out->heads.source + " (no num_key_value_heads: MHA)");
  }
  ReadExperts(c, path, out);
  ReadShape(c, out);
  GetString(c, {"torch_dtype", "dtype"}, &out->dtype);
  auto q = c.Find({"quantization_config", "quantization"});
  if (q.v && q.v->is_object()) {
    ParseQuantObject(*q.v, q.src, &out->quantization);
  } else if (q.v) {
    Fill(&out->quantization, "quantization_config is not an object", q.src);
  }
  // What a key-by-key read did not find. Without a quantization_config the quantization is left
  // to hf_quant_config.json (ReadModelDir).
  Fill(out, "not in config.json", path, q.v ? "" : "quantization");
}

// The walk checks every type it reads; this is the net under a check forgotten, so a file of an
// unexpected shape is an unknown with the reason rather than an exception through the probe.
void ParseConfigJsonSafely(const json& j, const std::string& path, ModelConfig* out) {
  try {
    ParseConfigJson(j, path, out);
  } catch (const json::exception& e) {
    Fact<std::string> keep_path = out->path;
    *out = {};
    out->path = keep_path;
    std::string why = "unexpected shape: " + Printable(e.what(), 120);
    out->config_file.Unknown(why, path);
    Fill(out, why, path);
  }
}

// metadata.total_size of model.safetensors.index.json, keeping nothing of the tensor map.
void ReadWeightsSize(const RootFs& fs, const std::string& dir, Fact<uint64_t>* out) {
  std::string path = JoinPath(dir, "model.safetensors.index.json");
  auto text = fs.Read(path, kMaxIndexBytes);
  if (!text) {
    if (text.error().kind == Error::kNotFound)
      return out->Unknown("no model.safetensors.index.json", path);
    return out->Unknown(ReasonFor(text.error()), path);
  }
  json::parser_callback_t drop_map = [](int depth, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::key && depth == 1) return parsed == "metadata";
    return depth <= kMaxJsonDepth || (event != json::parse_event_t::object_start &&
                                      event != json::parse_event_t::array_start);
  };
  json j = json::parse(text->begin(), text->end(), drop_map, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return out->Unknown("invalid JSON", path);
  auto m = j.find("metadata");
  if (m == j.end() || !m->is_object() || !m->contains("total_size"))
    return out->Unknown("no metadata.total_size", path);
  const json& t = (*m)["total_size"];
  if (t.is_number_unsigned() || (t.is_number_integer() && t.get<int64_t>() >= 0))
    return out->Set(t.get<uint64_t>(), path + "#/metadata/total_size");
  if (t.is_number_float() && t.get<double>() >= 0 && t.get<double>() < 1.8e19)
    return out->Set(static_cast<uint64_t>(t.get<double>()), path + "#/metadata/total_size");
  out->Unknown("total_size is not a size: " + Short(t), path);
}

bool LooksLikeHubId(std::string_view s) {
  if (s.empty() || s[0] == '.' || s[0] == '/' || s.size() > 200) return false;
  int slashes = 0;
  for (char c : s) {
    if (c == '/') {
      ++slashes;
    } else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return false;
    }
  }
  return slashes <= 1 && !s.ends_with('/') && s.find("..") == std::string_view::npos;
}

std::string EnvOr(const ModelLocation& loc, const char* name) {
  auto it = loc.env.find(name);
  return it == loc.env.end() ? std::string() : it->second;
}

// models--ORG--NAME/snapshots/<commit> in the first cache that has the model; "" when none.
// `tried` lists the caches looked at, for the reason.
std::string FindInHubCache(const RootFs& fs, const ModelLocation& loc, std::string* note,
                           std::vector<std::string>* tried) {
  std::vector<std::string> caches;
  auto add = [&](std::string d) {
    if (d.starts_with('/') && std::find(caches.begin(), caches.end(), d) == caches.end())
      caches.push_back(std::move(d));
  };
  add(EnvOr(loc, "HF_HUB_CACHE"));
  add(EnvOr(loc, "HUGGINGFACE_HUB_CACHE"));
  if (auto h = EnvOr(loc, "HF_HOME"); !h.empty()) add(JoinPath(h, "hub"));
  if (auto x = EnvOr(loc, "XDG_CACHE_HOME"); !x.empty()) add(JoinPath(x, "huggingface/hub"));
  if (auto h = EnvOr(loc, "HOME"); !h.empty()) add(JoinPath(h, ".cache/huggingface/hub"));
  std::string repo = "models--" + loc.given;
  for (size_t k; (k = repo.find('/')) != std::string::npos;) repo.replace(k, 1, "--");
  for (const auto& cache : caches) {
    tried->push_back(cache);
    std::string dir = JoinPath(cache, repo);
    if (!fs.IsDir(dir)) continue;
    std::string rev = loc.revision.empty() ? "main" : loc.revision;
    std::string snap = JoinPath(dir, "snapshots");
    if (fs.IsDir(JoinPath(snap, rev))) return JoinPath(snap, rev);  // a commit given
    if (auto ref = fs.ReadValue(JoinPath(dir, "refs/" + rev)); ref && !ref->empty()) {
      std::string s = JoinPath(snap, *ref);
      if (fs.IsDir(s)) {
        *note = "refs/" + rev;
        return s;
      }
    }
    auto names = fs.List(snap);
    if (!names || names->empty()) continue;
    *note = names->size() == 1 ? "the only snapshot"
                               : "the last of " + std::to_string(names->size()) +
                                     " snapshots (no refs/" + rev + ")";
    return JoinPath(snap, names->back());
  }
  return {};
}

}  // namespace

void ParseModelConfigText(std::string_view text, const std::string& path, ModelConfig* out) {
  auto j = ParseJsonText(text, path);
  if (!j) {
    out->config_file.Unknown(j.error().message, path);
    return Fill(out, j.error().message, path);
  }
  ParseConfigJsonSafely(*j, path, out);
  Fill(out, "not in config.json", path);
}

void ParseHfQuantConfigText(std::string_view text, const std::string& path, ModelQuantization* q) {
  auto j = ParseJsonText(text, path);
  if (!j) return Fill(q, j.error().message, path);
  try {
    ParseHfQuantJson(*j, path, q);
  } catch (const json::exception& e) {
    *q = {};
    Fill(q, "unexpected shape: " + Printable(e.what(), 120), path);
  }
  Fill(q, "not in hf_quant_config.json", path);
}

void ReadModelDir(const RootFs& fs, const std::string& dir, ModelConfig* out) {
  std::string cfg = JoinPath(dir, "config.json");
  auto text = fs.Read(cfg, kMaxConfigBytes);
  ModelConfig parsed;
  parsed.path = out->path;
  if (!text) {
    std::string why = text.error().kind == Error::kNotFound ? "no config.json in " + dir
                      : text.error().kind == Error::kTooLarge
                          ? "larger than " + std::to_string(kMaxConfigBytes >> 20) + " MiB"
                          : ReasonFor(text.error());
    parsed.config_file.Unknown(why, cfg);
  } else {
    auto j = ParseJsonText(*text, cfg);
    if (!j) {
      parsed.config_file.Unknown(j.error().message, cfg);
    } else {
      ParseConfigJsonSafely(*j, cfg, &parsed);
    }
  }
  // ModelOpt checkpoints: hf_quant_config.json fills what config.json did not say.
  std::string hq = JoinPath(dir, "hf_quant_config.json");
  auto hq_text = fs.Read(hq, kMaxConfigBytes);
  bool have_quant_config = parsed.quantization.method.known();
  if (hq_text) {
    ModelQuantization from_hq;
    ParseHfQuantConfigText(*hq_text, hq, &from_hq);
    MergeQuant(from_hq, &parsed.quantization);
    if (!parsed.quantization.method.known() && !from_hq.method.unknown.empty())
      parsed.quantization.method.Unknown(from_hq.method.unknown, hq);
  } else if (!have_quant_config && parsed.config_file.known() &&
             parsed.quantization.method.unknown.empty()) {
    parsed.quantization.method.Set("none",
                                   cfg + " (no quantization_config; no " + "hf_quant_config.json)");
    Fill(&parsed.quantization, "not quantized", cfg);
  } else if (hq_text.error().kind != Error::kNotFound && !have_quant_config) {
    Fill(&parsed.quantization, ReasonFor(hq_text.error()), hq);
  }
  ReadWeightsSize(fs, dir, &parsed.weights_bytes);
  std::string why = parsed.config_file.known() ? "not in config.json" : parsed.config_file.unknown;
  Fill(&parsed, why, cfg);
  *out = std::move(parsed);
}

ModelConfig ReadServedModel(const RootFs& fs, const ModelLocation& loc) {
  ModelConfig mc;
  if (loc.given.empty()) {
    mc.path.Unknown("no model argument on the command line", loc.cmdline);
    Fill(&mc, "the model is unknown", loc.cmdline);
    return mc;
  }
  mc.path.Set(loc.given, loc.cmdline + " (" + loc.from + ")");
  auto unknown_all = [&](const std::string& why, const std::string& src) {
    mc.config_file.Unknown(why, src);
    Fill(&mc, why, src);
    return mc;
  };
  if (loc.from == "-hf")
    return unknown_all("GGUF from the hub (-hf): config.json not applicable", loc.cmdline);
  std::string p = loc.given;
  std::string home = EnvOr(loc, "HOME");
  if (p.starts_with("~/") && !home.empty()) p = JoinPath(home, p.substr(2));
  std::string where;  // the machine path of the model, when found on disk
  auto normal = [](const std::string& path) {
    std::string n = std::filesystem::path(path).lexically_normal().string();
    if (n.size() > 1 && n.back() == '/') n.pop_back();
    return n;
  };
  if (p.starts_with('/')) {
    if (fs.Exists(p)) where = normal(p);
  } else if (!loc.cwd.empty() && fs.Exists(JoinPath(loc.cwd, p))) {
    where = normal(JoinPath(loc.cwd, p));
  }
  if (where.empty() && !p.starts_with('/') && LooksLikeHubId(p)) {
    std::string note;
    std::vector<std::string> tried;
    std::string snap = FindInHubCache(fs, loc, &note, &tried);
    if (snap.empty()) {
      std::string list;
      for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
      return unknown_all(
          "hub id not in the Hugging Face cache" +
              (list.empty() ? " (no HOME or HF_HOME known)" : " (looked in " + list + ")"),
          loc.cmdline);
    }
    mc.path.Set(snap, loc.cmdline + " (" + loc.from + ": " + loc.given + ", " + note + ")");
    ReadModelDir(fs, snap, &mc);
    return mc;
  }
  if (where.empty()) {
    if (!p.starts_with('/') && loc.cwd.empty())
      return unknown_all("relative path and the server's working directory is unknown",
                         loc.cmdline);
    return unknown_all("not found: " + (p.starts_with('/') ? p : JoinPath(loc.cwd, p)),
                       loc.cmdline);
  }
  if (!fs.IsDir(where)) {
    if (ToLower(where).ends_with(".gguf"))
      return unknown_all("GGUF file: config.json not applicable", where);
    return unknown_all("a file, not a model directory", where);
  }
  if (where != loc.given)
    mc.path.Set(where, loc.cmdline + " (" + loc.from + ": " + loc.given + ")");
  ReadModelDir(fs, where, &mc);
  return mc;
}

}  // namespace dossier
