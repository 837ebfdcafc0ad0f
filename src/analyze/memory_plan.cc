#include "analyze/memory_plan.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <regex>

#include "analyze/model_size.h"

namespace dossier {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string GiB(double bytes) {
  return fmt::format("{:.2f} GiB", bytes / kGiB);
}

std::string Billions(double params) {
  return fmt::format("{:.2f} B", params / 1e9);
}

// The modules the quantization config leaves at the checkpoint's dtype. Three conventions meet
// here: ModelOpt's exclude_modules are shell globs ("model.layers.*.self_attn*"),
// compressed-tensors' ignore entries are names or "re:" regular expressions, and
// modules_to_not_convert (AWQ, bitsandbytes, gpt-oss MXFP4) are name fragments. A module name is
// excluded when any entry matches it in its own convention.
class Exclusions {
 public:
  explicit Exclusions(const ModelQuantization& q) {
    if (!q.excluded_modules.known()) return;
    for (const auto& p : *q.excluded_modules) {
      if (p.starts_with("re:")) {
        try {
          regexes_.emplace_back(p.substr(3), std::regex::ECMAScript | std::regex::optimize);
        } catch (const std::regex_error&) {
          // A pattern std::regex cannot read (Python syntax it lacks) excludes nothing.
        }
      } else {
        globs_.push_back(p);
      }
    }
  }
  bool Excluded(const std::string& module) const {
    for (const auto& g : globs_) {
      if (fnmatch(g.c_str(), module.c_str(), 0) == 0) return true;
      // A plain name: the module itself, its children, or (modules_to_not_convert) a fragment.
      if (g.find_first_of("*?[") == std::string::npos && !g.empty() &&
          module.find(g) != std::string::npos)
        return true;
    }
    for (const auto& r : regexes_)
      if (std::regex_search(module, r)) return true;
    return false;
  }

 private:
  std::vector<std::string> globs_;
  std::vector<std::regex> regexes_;
};

struct Part {
  std::string what;
  double params = 0;   // whole model
  double per_gpu = 0;  // bytes on the fullest GPU
  double bytes = 0;    // whole model, bytes
  std::string format;
};

// The layers a pipeline stage holds, as vLLM's get_pp_indices splits them: L / PP each, the
// remainder to the last stages.
std::vector<std::pair<int64_t, int64_t>> StageLayers(int64_t layers, int64_t pp) {
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t base = layers / pp, extra = layers % pp, start = 0;
  for (int64_t s = 0; s < pp; ++s) {
    int64_t n = base + (s >= pp - extra ? 1 : 0);
    out.push_back({start, start + n});
    start += n;
  }
  return out;
}

}  // namespace

std::string PlanLayout::Text() const {
  std::string t = fmt::format("TP {}", tp);
  if (pp > 1) t += fmt::format(" x PP {}", pp);
  if (ep > 1) t += fmt::format(", EP {}", ep);
  if (dp_attention > 1) t += fmt::format(", DP attention {}", dp_attention);
  if (dcp > 1) t += fmt::format(", DCP {}", dcp);
  return t;
}

WeightFormat QuantizedWeightFormat(const ModelConfig& mc) {
  const ModelQuantization& q = mc.quantization;
  const std::string method = Lower(q.method.value_or(""));
  std::string algo = Lower(q.algorithm.value_or(""));
  // MIXED_PRECISION: the algorithm most modules use ("NVFP4: 225 modules" comes first).
  if (algo == "mixed_precision" && q.layer_algorithms.known() && !q.layer_algorithms->empty())
    algo = Lower(q.layer_algorithms->front().substr(0, q.layer_algorithms->front().find(':')));
  const std::string dtype = mc.dtype.value_or("bfloat16");
  WeightFormat f;
  if (method == "none") {
    f.bytes_per_param = static_cast<double>(DtypeBytes(dtype));
    f.name = dtype;
    f.how = fmt::format("not quantized: {} B per {} parameter", *f.bytes_per_param, dtype);
    return f;
  }
  if (!q.method.known() && !q.algorithm.known()) {
    f.how = "the quantization is not known (" +
            (q.method.unknown.empty() ? std::string("no quant_method") : q.method.unknown) + ")";
    return f;
  }
  const int64_t g = q.group_size.known() && *q.group_size > 0 ? *q.group_size : 0;
  auto has = [&](const char* s) {
    return algo.find(s) != std::string::npos || method.find(s) != std::string::npos;
  };
  // "bits": N in the quantization config is read as the algorithm "N-bit".
  std::optional<int64_t> bits;
  if (algo.size() > 4 && algo.ends_with("-bit")) {
    int64_t b = 0;
    const auto [end, ec] = std::from_chars(algo.data(), algo.data() + algo.size() - 4, b);
    if (ec == std::errc() && end == algo.data() + algo.size() - 4) bits = b;
  }
  if (has("nvfp4")) {
    // ModelOpt NVFP4: E2M1 values (4 bits) with one FP8 E4M3 scale per 16 values and one FP32
    // scale per tensor (negligible).
    const int64_t block = g ? g : 16;
    f.bytes_per_param = 0.5 + 1.0 / static_cast<double>(block);
    f.name = "NVFP4";
    f.how = fmt::format("NVFP4: 4-bit values + one 1-byte FP8 scale per {} = {:.4f} B", block,
                        *f.bytes_per_param);
  } else if (has("mxfp4")) {
    // OCP MX: E2M1 values with one E8M0 (1-byte) scale per 32.
    f.bytes_per_param = 0.5 + 1.0 / 32.0;
    f.name = "MXFP4";
    f.how = "MXFP4: 4-bit values + one 1-byte E8M0 scale per 32 = 0.5312 B";
  } else if (has("fp8") || has("float-quantized") || algo == "e4m3" || has("float8")) {
    if (q.weight_block_size.known() && *q.weight_block_size > 0) {
      const double b = static_cast<double>(*q.weight_block_size);
      f.bytes_per_param = 1.0 + 4.0 / (b * b);
      f.name = fmt::format("FP8 ({0}x{0} blocks)", *q.weight_block_size);
      f.how = fmt::format("FP8: 1 B + one 4-byte scale per {0}x{0} block = {1:.5f} B",
                          *q.weight_block_size, *f.bytes_per_param);
    } else {
      f.bytes_per_param = 1.0;
      f.name = "FP8";
      f.how = "FP8: 1 B (per-tensor or per-channel scales, negligible)";
    }
  } else if ((has("awq") || has("gptq") || algo == "4-bit" || has("w4a16") || has("w4a8") ||
              has("pack-quantized") || has("int4")) &&
             (!bits || *bits == 4)) {
    // 4-bit integers packed eight to an int32, with an FP16 scale and a 4-bit zero point per
    // group (AWQ, GPTQ, compressed-tensors pack-quantized); group -1 is one per output channel.
    const int64_t group = g ? g : 128;
    f.bytes_per_param = 0.5 + 2.5 / static_cast<double>(group);
    f.name = fmt::format("INT4 (group {})", group);
    f.how =
        fmt::format("INT4: 4-bit values + 2-byte scale and 4-bit zero per {} = {:.4f} B{}", group,
                    *f.bytes_per_param, g ? "" : " (group size not stated: 128 assumed)");
  } else if ((has("awq") || has("gptq")) && bits && *bits >= 2 && *bits <= 8) {
    // GPTQ (and AWQ) at another width ("bits": 2, 3 or 8): the values packed into int32s, an FP16
    // scale and a zero point of the same width per group.
    const int64_t group = g ? g : 128;
    const double v = static_cast<double>(*bits) / 8.0;
    f.bytes_per_param = v + (2.0 + v) / static_cast<double>(group);
    f.name = fmt::format("INT{} (group {})", *bits, group);
    f.how = fmt::format(
        "INT{0}: {0}-bit values + 2-byte scale and {0}-bit zero per {1} = {2:.4f} B{3}", *bits,
        group, *f.bytes_per_param, g ? "" : " (group size not stated: 128 assumed)");
  } else if (has("int8") || has("int-quantized") || algo == "8-bit" || has("w8a8")) {
    f.bytes_per_param = 1.0;
    f.name = "INT8";
    f.how = "INT8: 1 B (per-channel scales, negligible)";
  } else {
    f.how = fmt::format("quantization '{}' ('{}') is not in dossier's table of weight formats",
                        q.method.value_or("?"), q.algorithm.value_or("?"));
  }
  return f;
}

std::optional<GpuSpec> ParseGpuSpec(const std::string& text) {
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) t += c;
  size_t x = t.find_first_of("xX");
  if (x == std::string::npos || x == 0) return std::nullopt;
  GpuSpec g;
  try {
    size_t used = 0;
    long long n = std::stoll(t.substr(0, x), &used);
    if (used != x || n < 1 || n > 4096) return std::nullopt;
    g.count = n;
    std::string rest = t.substr(x + 1);
    double v = std::stod(rest, &used);
    std::string unit = Lower(rest.substr(used));
    double mult = unit == "gib" || unit == "g" ? kGiB
                  : unit == "gb"               ? 1e9
                  : unit == "tib"              ? kGiB * 1024
                  : unit == "mib"              ? 1024.0 * 1024
                                               : 0;
    if (mult == 0 || !(v > 0) || v * mult > 1e15) return std::nullopt;
    g.bytes = static_cast<uint64_t>(v * mult);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return g;
}

std::vector<PlanLayout> AlternativeLayouts(const PlanLayout& served, const ModelConfig& mc,
                                           const std::string& engine) {
  std::vector<PlanLayout> out;
  const bool plain = served.dp_attention == 1 && served.dcp == 1;
  if (served.tp >= 4 && served.tp % 2 == 0 && served.pp == 1 && plain) {
    PlanLayout l = served;
    l.tp = served.tp / 2;
    l.pp = 2;
    if (l.ep > 1) l.ep = l.tp;
    out.push_back(l);
  }
  const bool moe = mc.routed_experts.known() && *mc.routed_experts > 0;
  if (moe && served.ep == 1 && served.tp > 1 && *mc.routed_experts % served.tp == 0) {
    PlanLayout l = served;
    l.ep = served.tp;
    out.push_back(l);
  }
  // MLA under TP holds the whole latent of every token on every rank: the engines' answers are
  // decode context parallel (vLLM) and data-parallel attention (SGLang).
  const bool mla = mc.kv_lora_rank.known() && *mc.kv_lora_rank > 0;
  if (mla && served.tp > 1 && plain) {
    if (engine != "sglang") {
      PlanLayout l = served;
      l.dcp = served.tp;
      out.push_back(l);
    }
    if (engine != "vllm") {
      PlanLayout l = served;
      l.dp_attention = served.tp;
      out.push_back(l);
    }
  }
  return out;
}

MemoryPlan ComputeMemoryPlan(const PlanInputs& in) {
  MemoryPlan p;
  p.layout = in.layout;
  p.layout_from = in.layout_from;
  p.engine = in.engine;
  p.target_concurrency = in.target_concurrency;
  p.target_from = in.target_from;
  p.context = in.context;
  p.gpu_memory_bytes = in.gpu_memory_bytes;
  const ModelConfig& mc = in.model;
  const std::string cfg = mc.config_file.value_or("config.json");
  auto unknown_all = [&](const std::string& why) {
    for (auto* f : {&p.params_total, &p.params_active, &p.weight_bytes_total,
                    &p.weight_bytes_per_gpu, &p.kv_bytes_per_token, &p.kv_bytes_per_token_per_gpu,
                    &p.kv_budget_bytes_per_gpu, &p.kv_tokens_per_gpu})
      if (!f->known() && f->unknown.empty()) f->Unknown(why, cfg);
    if (!p.max_concurrency.known()) p.max_concurrency.Unknown(why, cfg);
    if (!p.fits.known()) p.fits.Unknown(why, cfg);
  };
  const PlanLayout& lay = in.layout;
  // Past 65,536 ranks a layout is a damaged flag (a server's command line can say anything, and
  // the pipeline stages are laid out one by one).
  constexpr int64_t kMostRanks = 1 << 16;
  if (lay.tp < 1 || lay.pp < 1 || lay.ep < 1 || lay.dp_attention < 1 || lay.dcp < 1 ||
      lay.tp > kMostRanks || lay.pp > kMostRanks || lay.ep > kMostRanks ||
      lay.dp_attention > kMostRanks || lay.dcp > kMostRanks || lay.tp % lay.dp_attention != 0 ||
      lay.tp % lay.dcp != 0) {
    unknown_all("the layout " + lay.Text() + " is not one a server runs");
    return p;
  }
  const ModelShape s = ComputeModelShape(mc);
  if (!s.ok) {
    unknown_all(s.why);
    return p;
  }
  const ModelSize size = ComputeModelSize(mc);
  if (size.total_params) p.params_total.Set(*size.total_params, cfg + " (" + size.params_how + ")");
  if (size.active_params) p.params_active.Set(*size.active_params, cfg);

  // --- weights: each part at its own format, on every rank as the engines split them ---
  const WeightFormat qf = QuantizedWeightFormat(mc);
  const std::string dtype = mc.dtype.value_or("bfloat16");
  const double plain = static_cast<double>(DtypeBytes(dtype));
  const Exclusions ex(mc.quantization);
  const int64_t tp = lay.tp, attn_tp = lay.tp / lay.dp_attention;
  const double expert_split = static_cast<double>(lay.ep > 1 ? lay.ep : tp);
  const int64_t L = static_cast<int64_t>(s.layers);
  const int64_t mtp = in.mtp_loaded ? static_cast<int64_t>(s.mtp_layers) : 0;
  const bool moe = s.routed > 0;
  const double h = static_cast<double>(s.hidden), d = static_cast<double>(s.head_dim);

  // Attention on one rank: MLA splits all but its down-projections; GQA splits the query and
  // output heads, and the KV heads down to one per rank (replicated when TP > KV heads).
  const double kv_heads_rank =
      std::max(1.0, static_cast<double>(s.kv_heads) / static_cast<double>(attn_tp));
  const double attn_rank =
      s.mla ? static_cast<double>(s.attn - s.attn_replicated) / static_cast<double>(attn_tp) +
                  static_cast<double>(s.attn_replicated)
            : h * d *
                  (2.0 * static_cast<double>(s.heads) / static_cast<double>(attn_tp) +
                   2.0 * kv_heads_rank);
  const double attn_share = attn_rank / static_cast<double>(s.attn);  // of one layer's attention

  std::map<std::string, Part> parts;  // by what, in a fixed order below
  bool unknown_format = false;
  // Adds `params` (whole model) of module `name` to part `what`; `share` is one rank's fraction.
  auto add = [&](const std::string& what, const std::string& module, double params, double share,
                 bool on_worst_gpu, bool quantizable = true) {
    const bool q = quantizable && !ex.Excluded(module) && qf.bytes_per_param.has_value() &&
                   Lower(mc.quantization.method.value_or("")) != "none";
    if (quantizable && !ex.Excluded(module) && !qf.bytes_per_param) unknown_format = true;
    const double b = q ? *qf.bytes_per_param : plain;
    Part& pt = parts[what];
    pt.what = what;
    pt.params += params;
    pt.bytes += params * b;
    if (on_worst_gpu) pt.per_gpu += params * b * share;
    std::string fmt_name = q ? qf.name : dtype;
    if (pt.format.empty()) {
      pt.format = fmt_name;
    } else if (pt.format.find(fmt_name) == std::string::npos) {
      pt.format += " / " + fmt_name;
    }
  };
  // One stage's layers into `parts`; `on` counts them on the GPU the plan reports.
  const auto stages = StageLayers(L, lay.pp);
  auto stage = [&](size_t st, bool on) {
    const auto [from, to] = stages[st];
    const bool last = st + 1 == stages.size();
    const int64_t upto = last ? to + mtp : to;
    for (int64_t i = from; i < upto; ++i) {
      const std::string base = fmt::format("model.layers.{}.", i);
      const bool is_mtp = i >= L;
      const std::string tag = is_mtp ? "MTP layers: " : "";
      add(tag + "attention", base + "self_attn.o_proj", static_cast<double>(s.attn), attn_share,
          on);
      const bool dense = !moe || (!is_mtp && static_cast<uint64_t>(i) < s.dense_layers);
      if (dense) {
        add(tag + "dense MLP", base + "mlp.down_proj", static_cast<double>(s.dense_mlp),
            1.0 / static_cast<double>(tp), on);
      } else {
        add(tag + "router", base + "mlp.gate", static_cast<double>(s.router), 1.0, on, false);
        add(tag + "routed experts", base + "mlp.experts.0.down_proj",
            static_cast<double>(s.routed * s.expert), 1.0 / expert_split, on);
        if (s.shared)
          add(tag + "shared experts", base + "mlp.shared_experts.down_proj",
              static_cast<double>(s.shared * s.expert), 1.0 / static_cast<double>(tp), on);
      }
    }
    // Embeddings on the first stage, the output head on the last; both split over TP
    // (vocabulary-parallel) and kept at the checkpoint's dtype.
    if (st == 0)
      add("embeddings", "model.embed_tokens", static_cast<double>(s.embed),
          1.0 / static_cast<double>(tp), on, false);
    if (last && !(s.tied && lay.pp == 1))
      add("output head", "lm_head", static_cast<double>(s.embed), 1.0 / static_cast<double>(tp), on,
          false);
  };
  // The fullest stage first, then every stage with only that one counted per GPU.
  double worst = -1;
  size_t worst_stage = 0;
  for (size_t st = 0; st < stages.size(); ++st) {
    parts.clear();
    stage(st, true);
    double sum = 0;
    for (const auto& [k, v] : parts) sum += v.per_gpu;
    if (sum > worst) worst = sum, worst_stage = st;
  }
  parts.clear();
  for (size_t st = 0; st < stages.size(); ++st) stage(st, st == worst_stage);
  double total_bytes = 0, per_gpu = 0;
  for (const auto& [k, v] : parts) {
    total_bytes += v.bytes;
    per_gpu += v.per_gpu;
    if (v.params > 0)
      p.weight_parts.push_back(fmt::format("{}: {} params as {} = {} whole, {} on the fullest GPU",
                                           v.what, Billions(v.params), v.format, GiB(v.bytes),
                                           GiB(v.per_gpu)));
  }
  if (s.mtp_layers) {
    // The MTP layers' own size, not in the totals above.
    const double one = static_cast<double>(s.attn) +
                       (moe ? static_cast<double>((s.routed + s.shared) * s.expert + s.router)
                            : static_cast<double>(s.dense_mlp));
    p.params_mtp.Set(
        static_cast<uint64_t>(one * static_cast<double>(s.mtp_layers)),
        fmt::format("{} ({} num_nextn_predict_layers x {}){}", cfg, s.mtp_layers, Billions(one),
                    in.mtp_loaded ? "; loaded: " + in.mtp_from
                                  : "; not loaded (no speculative decoding with them)"));
  }
  if (unknown_format) {
    p.weight_bytes_total.Unknown(qf.how, cfg);
    p.weight_bytes_per_gpu.Unknown(qf.how, cfg);
  } else {
    p.weight_bytes_total.Set(
        static_cast<uint64_t>(total_bytes),
        fmt::format("sum of the parts ({}; others {} B per parameter)", qf.how, plain));
    p.weight_bytes_per_gpu.Set(
        static_cast<uint64_t>(per_gpu),
        fmt::format("{} on the fullest GPU (pipeline stage {} of {}): attention / {}{}, "
                    "experts / {}, dense MLP, shared experts, embeddings and head / {}",
                    lay.Text(), worst_stage + 1, lay.pp, attn_tp,
                    s.mla ? " (MLA down-projections whole on every rank)" : "",
                    static_cast<int64_t>(expert_split), tp));
  }

  // --- KV cache: one token's bytes, whole model and on one GPU ---
  std::string kv_bytes_how;
  if (!in.kv_bytes_per_element.known()) {
    p.kv_bytes_per_token.Unknown(in.kv_bytes_per_element.unknown, in.kv_bytes_per_element.source);
  } else {
    const double kvb = static_cast<double>(*in.kv_bytes_per_element);
    const double layers_total = static_cast<double>(L);
    // Sliding-window layers keep at most the window: for a request of `context` tokens, their
    // share of a token is window / context.
    double effective_layers = layers_total;
    std::string sliding;
    if (mc.sliding_layers.known() && *mc.sliding_layers > 0 && mc.sliding_window.known() &&
        *mc.sliding_window > 0 && in.context.known() && *in.context > *mc.sliding_window) {
      const double sl = static_cast<double>(*mc.sliding_layers);
      const double ratio =
          static_cast<double>(*mc.sliding_window) / static_cast<double>(*in.context);
      effective_layers = layers_total - sl + sl * ratio;
      sliding = fmt::format(
          "; {} sliding-window layers count {:.3f} of a token each (window {} "
          "of {} tokens)",
          *mc.sliding_layers, ratio, *mc.sliding_window, *in.context);
    }
    const double per_layer = static_cast<double>(s.kv_elements_per_token) / layers_total;
    // A sparse-attention indexer caches its own keys per layer at a fixed width (FP8 plus
    // scales), whatever --kv-cache-dtype says, and every rank holds all of them.
    const double index_bytes = static_cast<double>(s.index_cache_bytes_per_layer);
    const std::string indexer =
        s.index_cache_bytes_per_layer
            ? fmt::format(
                  " + indexer keys {} B per layer (index_head_dim {} as FP8 and a "
                  "float32 scale per 128)",
                  s.index_cache_bytes_per_layer, *mc.index_head_dim)
            : "";
    const double whole = (per_layer * kvb + index_bytes) * effective_layers;
    p.kv_bytes_per_token.Set(static_cast<uint64_t>(std::llround(whole)),
                             fmt::format("{} x {} B ({}){}{}", s.kv_how, *in.kv_bytes_per_element,
                                         in.kv_bytes_per_element.source, indexer, sliding));
    const int64_t stage_layers = stages[worst_stage].second - stages[worst_stage].first;
    const double stage_share = effective_layers * static_cast<double>(stage_layers) / layers_total;
    double rank = 0;
    std::string how;
    if (s.mla) {
      rank = per_layer * stage_share * kvb;
      how = fmt::format("MLA latent, not split by tensor parallelism: {} layers on the stage",
                        stage_layers);
    } else {
      rank = 2.0 * kv_heads_rank * d * stage_share * kvb;
      how = fmt::format(
          "2 x {:g} KV heads per rank (of {} over attention TP {}) x head_dim {} x "
          "{} layers on the stage",
          kv_heads_rank, s.kv_heads, attn_tp, s.head_dim, stage_layers);
    }
    how += fmt::format(" x {} B", *in.kv_bytes_per_element);
    if (s.index_cache_bytes_per_layer) {
      rank += index_bytes * stage_share;
      how += fmt::format(", + {} B of indexer keys per layer", s.index_cache_bytes_per_layer);
    }
    if (lay.dcp > 1) {
      rank /= static_cast<double>(lay.dcp);
      how += fmt::format("; / DCP {} (each rank of the group holds every {}th token)", lay.dcp,
                         lay.dcp);
    }
    p.kv_bytes_per_token_per_gpu.Set(static_cast<uint64_t>(std::llround(rank)), how);
  }

  // --- the pool: memory x fraction - weights - reserve, in tokens ---
  p.inputs.push_back("layout: " + lay.Text() +
                     (in.layout_from.empty() ? "" : " (" + in.layout_from + ")"));
  auto say = [&](const std::string& what, const auto& f, const std::string& text) {
    p.inputs.push_back(what + ": " +
                       (f.known() ? text + " (" + f.source + ")" : "unknown (" + f.unknown + ")"));
  };
  say("GPUs", in.gpus, in.gpus.known() ? fmt::format("{}", *in.gpus) : "");
  say("GPU memory", in.gpu_memory_bytes,
      in.gpu_memory_bytes.known() ? GiB(static_cast<double>(*in.gpu_memory_bytes)) : "");
  say("memory fraction", in.mem_fraction,
      in.mem_fraction.known() ? fmt::format("{:g}", *in.mem_fraction) : "");
  say("reserve per GPU", in.reserve_bytes,
      in.reserve_bytes.known() ? GiB(static_cast<double>(*in.reserve_bytes)) : "");
  say("KV cache element", in.kv_bytes_per_element,
      in.kv_bytes_per_element.known() ? fmt::format("{} B", *in.kv_bytes_per_element) : "");
  say("context per request", in.context,
      in.context.known() ? fmt::format("{} tokens", *in.context) : "");
  if (in.gpus.known() && *in.gpus < lay.Gpus()) {
    const std::string why =
        fmt::format("{} needs {} GPUs; the machine has {}", lay.Text(), lay.Gpus(), *in.gpus);
    p.kv_budget_bytes_per_gpu.Unknown(why, in.gpus.source);
    p.kv_tokens_per_gpu.Unknown(why, in.gpus.source);
    p.max_concurrency.Unknown(why, in.gpus.source);
    p.fits.Set(false, why);
    return p;
  }
  std::string missing;
  if (!in.gpu_memory_bytes.known())
    missing = "GPU memory: " + in.gpu_memory_bytes.unknown;
  else if (!in.mem_fraction.known())
    missing = "memory fraction: " + in.mem_fraction.unknown;
  else if (!in.reserve_bytes.known())
    missing = "reserve: " + in.reserve_bytes.unknown;
  else if (!p.weight_bytes_per_gpu.known())
    missing = "weights: " + p.weight_bytes_per_gpu.unknown;
  if (!missing.empty()) {
    for (auto* f : {&p.kv_budget_bytes_per_gpu, &p.kv_tokens_per_gpu}) f->Unknown(missing, "");
    p.max_concurrency.Unknown(missing, "");
    p.fits.Unknown(missing, "");
    return p;
  }
  const double mem = static_cast<double>(*in.gpu_memory_bytes);
  const double usable = mem * *in.mem_fraction;
  const double budget = usable - per_gpu - static_cast<double>(*in.reserve_bytes);
  if (budget <= 0) {
    const std::string why = fmt::format(
        "the weights ({}) and the reserve ({}) exceed {} x {:g} = {} per GPU", GiB(per_gpu),
        GiB(static_cast<double>(*in.reserve_bytes)), GiB(mem), *in.mem_fraction, GiB(usable));
    p.kv_budget_bytes_per_gpu.Unknown(why, "");
    p.kv_tokens_per_gpu.Unknown(why, "");
    p.max_concurrency.Unknown(why, "");
    p.fits.Set(false, why);
    return p;
  }
  p.kv_budget_bytes_per_gpu.Set(
      static_cast<uint64_t>(budget),
      fmt::format("{} x {:g} - weights {} - reserve {}", GiB(mem), *in.mem_fraction, GiB(per_gpu),
                  GiB(static_cast<double>(*in.reserve_bytes))));
  if (!p.kv_bytes_per_token_per_gpu.known() || *p.kv_bytes_per_token_per_gpu == 0) {
    const std::string why = "the KV cache bytes per token are not known";
    p.kv_tokens_per_gpu.Unknown(why, "");
    p.max_concurrency.Unknown(why, "");
    p.fits.Unknown(why, "");
    return p;
  }
  const double tokens = std::floor(budget / static_cast<double>(*p.kv_bytes_per_token_per_gpu));
  p.kv_tokens_per_gpu.Set(
      static_cast<uint64_t>(tokens),
      fmt::format("{} / {} B per token", GiB(budget), *p.kv_bytes_per_token_per_gpu));
  if (!in.context.known() || *in.context <= 0) {
    p.max_concurrency.Unknown("no context length: " + in.context.unknown, in.context.source);
  } else {
    const double conc =
        tokens * static_cast<double>(lay.dp_attention) / static_cast<double>(*in.context);
    p.max_concurrency.Set(
        conc,
        fmt::format(
            "{:.0f} tokens{} / {} tokens per request", tokens,
            lay.dp_attention > 1 ? fmt::format(" x {} DP attention ranks", lay.dp_attention) : "",
            *in.context));
  }
  if (in.target_concurrency && p.max_concurrency.known()) {
    const bool ok = *p.max_concurrency >= static_cast<double>(*in.target_concurrency);
    p.fits.Set(ok, fmt::format("{:.1f} requests of {} tokens at once {} the target's {} ({})",
                               *p.max_concurrency, *in.context, ok ? "cover" : "fall short of",
                               *in.target_concurrency, in.target_from));
  } else {
    p.fits.Set(true, fmt::format("the weights ({}) leave {} per GPU for {:.0f} KV tokens",
                                 GiB(per_gpu), GiB(budget), tokens));
  }
  return p;
}

}  // namespace dossier
