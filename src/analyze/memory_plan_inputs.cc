// The memory plan's inputs from what the dossier knows: the server's flags (vLLM's and SGLang's
// names for the same setting), the model's config.json, the GPUs NVML reports, the notes'
// targets; and the defaults each engine uses when a flag is absent, said as defaults.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analyze/memory_plan.h"
#include "analyze/model_size.h"
#include "model/machine.h"
#include "model/notes.h"

namespace dossier {
namespace {

constexpr double kPlanGiB = 1024.0 * 1024.0 * 1024.0;

struct FlagHit {
  std::string flag, value;
};

std::optional<FlagHit> FindFlag(const std::map<std::string, std::string>& flags,
                                std::initializer_list<const char*> names) {
  for (const char* n : names) {
    auto it = flags.find(n);
    if (it != flags.end()) return FlagHit{n, it->second};
  }
  return std::nullopt;
}

std::optional<int64_t> PositiveInt(const std::string& s) {
  try {
    size_t used = 0;
    long long v = std::stoll(s, &used);
    if (used == s.size() && v > 0 && v < (1LL << 40)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::optional<double> Fraction(const std::string& s) {
  try {
    size_t used = 0;
    double v = std::stod(s, &used);
    if (used == s.size() && v > 0 && v <= 1) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

int64_t KvDtypeBytes(const std::string& name, const ModelConfig& mc) {
  if (name == "auto") return DtypeBytes(mc.dtype.value_or("bfloat16"));
  if (name == "bf16" || name == "fp16" || name == "half") return 2;
  return DtypeBytes(name);
}

// The highest concurrency a note's target asks for (0: any run, not a concurrency).
void TargetConcurrency(const Notes& notes, PlanInputs* in) {
  for (const auto& t : notes.targets)
    if (t.concurrency > 0 && (!in->target_concurrency || t.concurrency > *in->target_concurrency)) {
      in->target_concurrency = t.concurrency;
      in->target_from = fmt::format("notes.toml:{} {} {} {:g} at concurrency {}", t.line, t.metric,
                                    t.op, t.value, t.concurrency);
    }
}

// Defaults of the reserve: vLLM's fraction covers everything, so its profile run's activations
// and the non-torch allocations (NCCL, cuBLAS workspaces) come out of it; SGLang's static
// fraction is the weights and the pool only, but the CUDA context and NCCL buffers exist before
// the pool is sized. Stated as assumptions; --reserve replaces them.
Fact<uint64_t> DefaultReserve(const std::string& engine) {
  Fact<uint64_t> r;
  if (engine == "sglang") {
    r.Set(static_cast<uint64_t>(1.0 * kPlanGiB),
          "assumed: CUDA context and NCCL buffers (SGLang's activations are outside "
          "--mem-fraction-static); --reserve to change");
  } else {
    r.Set(static_cast<uint64_t>(2.0 * kPlanGiB),
          "assumed: activations of the profile run and non-torch memory inside the fraction; "
          "--reserve to change");
  }
  return r;
}

void ApplyOverrides(const PlanOverrides& o, const ModelConfig& mc, PlanInputs* in) {
  if (o.tp) in->layout.tp = *o.tp;
  if (o.pp) in->layout.pp = *o.pp;
  if (o.ep) in->layout.ep = *o.ep;
  if (o.tp || o.pp || o.ep) in->layout_from = "given on dossier plan's command line";
  if (o.context) in->context.Set(*o.context, "--context");
  if (o.kv_dtype)
    in->kv_bytes_per_element.Set(KvDtypeBytes(*o.kv_dtype, mc), "--kv-dtype " + *o.kv_dtype);
  if (o.mem_fraction) in->mem_fraction.Set(*o.mem_fraction, "--mem-fraction");
  if (o.reserve_bytes) in->reserve_bytes.Set(*o.reserve_bytes, "--reserve");
  if (o.gpus) {
    in->gpus.Set(o.gpus->count, "--gpus");
    in->gpu_memory_bytes.Set(o.gpus->bytes, "--gpus");
  }
}

}  // namespace

Fact<int64_t> KvCacheElementBytes(const std::map<std::string, std::string>& flags,
                                  const ModelConfig& mc, const std::string& flags_source) {
  Fact<int64_t> f;
  if (auto k = FindFlag(flags, {"--kv-cache-dtype", "--kv_cache_dtype"}); k && k->value != "auto") {
    f.Set(KvDtypeBytes(k->value, mc), k->flag + " " + k->value + " (" + flags_source + ")");
    return f;
  }
  std::string kv = mc.quantization.kv_cache_algorithm.value_or("");
  if (kv == "FP8" || kv == "fp8") {
    f.Set(1, "checkpoint's KV cache quantization FP8 (" +
                 mc.quantization.kv_cache_algorithm.source + ")");
    return f;
  }
  const std::string dtype = mc.dtype.value_or("bfloat16");
  f.Set(DtypeBytes(dtype), "the model's dtype " + dtype +
                               (mc.dtype.known() ? " (" + mc.dtype.source + ")" : " (assumed)"));
  return f;
}

PlanInputs InputsForModel(const ModelConfig& mc, const Notes& notes, const PlanOverrides& o) {
  PlanInputs in;
  in.model = mc;
  in.layout_from = "given on dossier plan's command line";
  in.gpus.Unknown("no --gpus", "");
  in.gpu_memory_bytes.Unknown("no --gpus COUNTxMEMORY (for example 8x96GiB)", "");
  in.mem_fraction.Set(0.9, "default (vLLM's --gpu-memory-utilization); --mem-fraction to change");
  in.reserve_bytes = DefaultReserve("");
  in.kv_bytes_per_element = KvCacheElementBytes({}, mc, "");
  if (mc.context_length.known()) {
    in.context.Set(*mc.context_length,
                   "max_position_embeddings (" + mc.context_length.source + ")");
  } else {
    in.context.Unknown("no --context, and config.json states no max_position_embeddings", "");
  }
  TargetConcurrency(notes, &in);
  ApplyOverrides(o, mc, &in);
  if (o.gpus && !o.tp && !o.pp) in.layout.tp = o.gpus->count;  // every GPU in one TP group
  return in;
}

PlanInputs InputsForServer(const Server& s, const Machine& m, const Notes& notes,
                           const PlanOverrides& o) {
  PlanInputs in;
  in.model = s.model;
  in.engine = s.engine;
  const std::string src = s.pid > 0 ? "/proc/" + std::to_string(s.pid) + "/cmdline" : "server";
  const ModelConfig& mc = s.model;
  std::vector<std::string> from;
  if (auto t = FindFlag(s.flags, {"--tp-size", "--tp", "--tensor-parallel-size", "-tp"}))
    if (auto v = PositiveInt(t->value)) in.layout.tp = *v, from.push_back(t->flag + " " + t->value);
  if (auto t = FindFlag(s.flags, {"--pp-size", "--pp", "--pipeline-parallel-size", "-pp"}))
    if (auto v = PositiveInt(t->value)) in.layout.pp = *v, from.push_back(t->flag + " " + t->value);
  std::optional<int64_t> dp;
  if (auto t = FindFlag(s.flags, {"--dp-size", "--dp", "--data-parallel-size", "-dp"}))
    dp = PositiveInt(t->value);
  if (auto t = FindFlag(s.flags, {"--ep-size", "--ep", "--expert-parallel-size"})) {
    if (auto v = PositiveInt(t->value)) in.layout.ep = *v, from.push_back(t->flag + " " + t->value);
  } else if (FindFlag(s.flags, {"--enable-expert-parallel", "--enable-ep-moe"})) {
    // vLLM: the experts spread over TP x DP ranks.
    in.layout.ep = in.layout.tp * (s.engine == "vllm" ? dp.value_or(1) : 1);
    from.push_back("--enable-expert-parallel");
  }
  if (FindFlag(s.flags, {"--enable-dp-attention"}) && dp && *dp > 1) {
    in.layout.dp_attention = *dp;
    from.push_back(fmt::format("--enable-dp-attention with DP {}", *dp));
  }
  if (auto t = FindFlag(s.flags, {"--decode-context-parallel-size", "-dcp"}))
    if (auto v = PositiveInt(t->value))
      in.layout.dcp = *v, from.push_back(t->flag + " " + t->value);
  in.layout_from = from.empty() ? "no parallelism flag: one GPU" : "";
  for (const auto& f : from) in.layout_from += (in.layout_from.empty() ? "" : ", ") + f;
  in.layout_from += " (" + src + ")";

  // Context: the server's limit, else the model's.
  if (auto c = FindFlag(s.flags, {"--context-length", "--max-model-len", "--max_model_len"})) {
    if (auto v = PositiveInt(c->value)) in.context.Set(*v, c->flag + " (" + src + ")");
  }
  if (!in.context.known()) {
    if (mc.context_length.known()) {
      in.context.Set(*mc.context_length,
                     "max_position_embeddings (" + mc.context_length.source + ")");
    } else {
      in.context.Unknown("no --context-length/--max-model-len and no max_position_embeddings", src);
    }
  }
  in.kv_bytes_per_element = KvCacheElementBytes(s.flags, mc, src);
  if (auto f = FindFlag(s.flags, {"--mem-fraction-static", "--gpu-memory-utilization"})) {
    if (auto v = Fraction(f->value)) {
      in.mem_fraction.Set(*v, f->flag + " (" + src + ")");
    } else {
      in.mem_fraction.Unknown("not a fraction in (0, 1]: '" + f->value + "'", src);
    }
  } else if (s.engine == "sglang") {
    in.mem_fraction.Set(0.85,
                        "assumed: SGLang picks --mem-fraction-static at start-up from the GPU's "
                        "memory and TP; --mem-fraction to give it");
  } else {
    in.mem_fraction.Set(0.9, "vLLM's default --gpu-memory-utilization");
  }
  in.reserve_bytes = DefaultReserve(s.engine);
  if (auto sp = FindFlag(s.flags, {"--speculative-algorithm", "--speculative-algo",
                                   "--speculative-config", "--speculative_config"})) {
    std::string v = sp->value;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
    if (v.find("nextn") != std::string::npos || v.find("mtp") != std::string::npos ||
        v.find("eagle") != std::string::npos) {
      in.mtp_loaded = mc.mtp_layers.known() && *mc.mtp_layers > 0;
      in.mtp_from = sp->flag + " " + sp->value;
    }
  }

  // GPUs: NVML's memory (the smallest GPU's, when they differ); the count from NVML or the walk.
  std::optional<uint64_t> smallest;
  for (const auto& g : m.nvml.gpus)
    if (g.memory_total_bytes.known() && (!smallest || *g.memory_total_bytes < *smallest))
      smallest = *g.memory_total_bytes;
  if (smallest) {
    in.gpu_memory_bytes.Set(*smallest, "nvml:nvmlDeviceGetMemoryInfo");
  } else {
    in.gpu_memory_bytes.Unknown(
        m.nvml.loaded ? "NVML reported no memory size"
                      : "NVML was not read on this machine (" +
                            (m.nvml.error.empty() ? std::string("no driver") : m.nvml.error) +
                            "); give --gpus COUNTxMEMORY",
        "");
  }
  if (m.nvml.gpu_count.known()) {
    in.gpus.Set(*m.nvml.gpu_count, m.nvml.gpu_count.source);
  } else if (!m.gpus.empty()) {
    in.gpus.Set(static_cast<int64_t>(m.gpus.size()), "PCI walk (NVIDIA compute GPUs)");
  } else {
    in.gpus.Unknown("no GPU known on this machine", "");
  }
  TargetConcurrency(notes, &in);
  ApplyOverrides(o, mc, &in);
  return in;
}

std::vector<MemoryPlan> MachineMemoryPlans(const Machine& m, const Notes& notes,
                                           const PlanOverrides& o) {
  std::vector<MemoryPlan> out;
  for (const auto& s : m.servers) {
    if (!s.model.config_file.known()) continue;  // a GGUF file, or no config.json found
    PlanInputs in = InputsForServer(s, m, notes, o);
    MemoryPlan served = ComputeMemoryPlan(in);
    served.label = "served (" + s.engine + ", pid " + std::to_string(s.pid) + ")";
    // The newest log of the same engine (or of no stated engine) checks the served plan.
    for (auto it = m.server_logs.rbegin(); it != m.server_logs.rend(); ++it) {
      if (it->engine.known() && !s.engine.empty() && *it->engine != s.engine) continue;
      served.checks = CheckAgainstLog(served, in, *it);
      break;
    }
    out.push_back(served);
    for (const auto& alt : AlternativeLayouts(in.layout, s.model, s.engine)) {
      PlanInputs a = in;
      a.layout = alt;
      a.layout_from = "an alternative to the served " + in.layout.Text();
      MemoryPlan p = ComputeMemoryPlan(a);
      p.label = "alternative";
      out.push_back(p);
    }
  }
  return out;
}

std::vector<PlanCheck> CheckAgainstLog(const MemoryPlan& p, const PlanInputs& in,
                                       const ServerMemoryLog& log) {
  std::vector<PlanCheck> out;
  if (p.weight_bytes_per_gpu.known() && log.weights_bytes_per_gpu.known())
    out.push_back({"weights per GPU", *p.weight_bytes_per_gpu / kPlanGiB,
                   *log.weights_bytes_per_gpu / kPlanGiB, "GiB", log.weights_bytes_per_gpu.source,
                   "the quantization config and the modules it leaves unquantized, the "
                   "tensor/expert-parallel flags, speculative (MTP) layers"});
  // The server's own KV memory over its own token count is its bytes per token per GPU: that
  // checks the KV formula apart from the memory budget.
  if (p.kv_bytes_per_token_per_gpu.known() && log.kv_cache_bytes_per_gpu.known() &&
      log.kv_tokens.known() && *log.kv_tokens > 0)
    out.push_back(
        {"KV cache bytes per token per GPU", static_cast<double>(*p.kv_bytes_per_token_per_gpu),
         static_cast<double>(*log.kv_cache_bytes_per_gpu) / static_cast<double>(*log.kv_tokens),
         "B", log.kv_tokens.source,
         "--kv-cache-dtype, KV heads over tensor parallel, MLA, sliding-window layers, "
         "--decode-context-parallel-size, a sparse-attention indexer, the engine's page size"});
  if (p.kv_tokens_per_gpu.known() && log.kv_tokens.known())
    out.push_back({"KV tokens per GPU", static_cast<double>(*p.kv_tokens_per_gpu),
                   static_cast<double>(*log.kv_tokens), "tokens", log.kv_tokens.source,
                   "the memory fraction, the reserve for activations and CUDA graphs (" +
                       (in.reserve_bytes.known() ? in.reserve_bytes.source : std::string("?")) +
                       "), the GPU's memory"});
  if (p.kv_tokens_per_gpu.known() && log.max_concurrency.known() &&
      log.concurrency_context.known() && *log.concurrency_context > 0)
    out.push_back(
        {fmt::format("maximum concurrency at {} tokens", *log.concurrency_context),
         static_cast<double>(*p.kv_tokens_per_gpu) * static_cast<double>(p.layout.dp_attention) /
             static_cast<double>(*log.concurrency_context),
         *log.max_concurrency, "requests", log.max_concurrency.source, "the KV token pool above"});
  return out;
}

}  // namespace dossier
