// decode.communication-bound: how fast one stream can decode when every token waits on tensor-
// parallel all-reduces over the GPU-to-GPU path the dossier measured. At batch 1 each layer does
// about two all-reduces (after attention and after the MLP) of one token's hidden state,
// hidden_size x dtype bytes; a ring all-reduce over N GPUs takes 2(N-1) steps, each at least one
// hop's latency for a message that small. So communication alone caps single-stream decoding at
// about 1 / (2 x layers x 2(N-1) x hop latency). docs/decode-budget.md has the model and its
// limits.
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "analyze/evidence.h"
#include "analyze/memory_plan.h"
#include "analyze/model_size.h"
#include "analyze/rule.h"

namespace dossier {
namespace {

struct DecodeHop {
  double us = 0;
  std::string what;  // "uni-staged GPU 0 -> 1 at 12288 B"
  std::string when;
};

// The measured latency of one GPU-to-GPU copy nearest the all-reduce message size: peer access
// when the sweep has it working, else staged; the latency modes when no size fits.
std::optional<DecodeHop> DecodeHopLatency(const MachineView& mv, uint64_t message) {
  if (mv.p2p.empty()) return std::nullopt;
  const P2pMeasurement& pm = mv.p2p.back();
  // uni-unknown: a pasted or typed-in table that did not say whether peer access was on.
  for (const char* mode :
       {"uni-p2p", "uni-staged", "latency-p2p", "latency-staged", "uni-unknown"}) {
    const P2pResult* best = nullptr;
    for (const auto& r : pm.results) {
      if (r.mode != mode || r.verdict != "ok" || !r.latency_us.known() || r.src < 0 || r.dst < 0)
        continue;
      auto dist = [&](const P2pResult& x) {
        return std::fabs(std::log2(static_cast<double>(std::max<uint64_t>(x.size_bytes, 1))) -
                         std::log2(static_cast<double>(message)));
      };
      if (!best || dist(r) < dist(*best)) best = &r;
    }
    if (best)
      return DecodeHop{
          *best->latency_us,
          fmt::format("{} GPU {} -> {} at {} B", mode, best->src, best->dst, best->size_bytes),
          pm.time};
  }
  return std::nullopt;
}

// Tokens/s that communication alone allows.
double DecodeCap(int64_t layers, int64_t n, double hop_us) {
  return 1e6 / (2.0 * static_cast<double>(layers) * 2.0 * static_cast<double>(n - 1) * hop_us);
}

}  // namespace

std::optional<Finding> RuleDecodeCommunicationBound(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  for (const auto& s : m.servers) {
    std::string flag, tp_text;
    for (const char* f : {"--tp-size", "--tp", "--tensor-parallel-size"}) {
      auto it = s.flags.find(f);
      if (it != s.flags.end()) flag = f, tp_text = it->second;
    }
    int64_t n = 0;
    try {
      n = tp_text.empty() ? 0 : std::stoll(tp_text);
    } catch (...) {
      n = 0;
    }
    const ModelConfig& mc = s.model;
    if (n < 2 || !mc.layers.known() || !mc.hidden_size.known() || *mc.layers <= 0 ||
        *mc.hidden_size <= 0)
      continue;
    int64_t bytes = DtypeBytes(mc.dtype.value_or("bfloat16"));
    uint64_t message = static_cast<uint64_t>(*mc.hidden_size * bytes);
    auto hop = DecodeHopLatency(ctx.mv, message);
    if (!hop) continue;
    double cap = DecodeCap(*mc.layers, n, hop->us);
    double per_token_ms = 1e3 / cap;

    Finding f;
    std::string src = "/proc/" + std::to_string(s.pid) + "/cmdline";
    f.evidence.push_back(Ev(s.engine + " tensor parallel (" + flag + ")", tp_text, src));
    f.evidence.push_back(Ev("model layers", mc.layers));
    f.evidence.push_back(Ev("model hidden_size", mc.hidden_size));
    f.evidence.push_back(Ev("model dtype", mc.dtype));
    f.evidence.push_back(Ev("GPU-to-GPU latency nearest " + std::to_string(message) + " B",
                            fmt::format("{:.2f} us ({})", hop->us, hop->what),
                            "p2p measurement " + hop->when));
    if (mc.weights_bytes.known())
      f.evidence.push_back(Ev("model weights (safetensors total)", mc.weights_bytes));
    // The model's size, where config.json's shape gives it (analyze/model_size.h).
    ModelSize size = ComputeModelSize(mc);
    const std::string cfg = mc.config_file.value_or("config.json");
    if (size.total_params)
      f.evidence.push_back(
          Ev("model parameters, total / active per token",
             size.active_params && *size.active_params != *size.total_params
                 ? ParamsText(*size.total_params) + " / " + ParamsText(*size.active_params)
                 : ParamsText(*size.total_params),
             cfg + " (" + size.params_how + ")"));
    if (size.kv_elements_per_token) {
      const int64_t kvb = KvCacheElementBytes(s.flags, mc, "").value_or(2);
      const uint64_t per_token = *size.kv_elements_per_token * static_cast<uint64_t>(kvb);
      f.evidence.push_back(Ev(std::string("KV cache per token") + (size.mla ? " (MLA latent)" : ""),
                              fmt::format("{} B ({:.1f} KiB)", per_token, per_token / 1024.0),
                              cfg + " (" + size.kv_how + " x " + std::to_string(kvb) + " B)"));
    }
    if (mc.routed_experts.known() && mc.active_experts.known())
      f.evidence.push_back(Ev("experts routed / active per token",
                              fmt::format("{} / {}", *mc.routed_experts, *mc.active_experts),
                              mc.config_file.value_or("config.json")));
    if (mc.quantization.excluded_modules.known())
      f.evidence.push_back(
          Ev("modules the quantization leaves unquantized", mc.quantization.excluded_modules));

    // The single-stream target, when the notes have one.
    std::optional<double> target;
    for (const auto& t : ctx.notes.targets)
      if (t.metric == "single_stream_tokens_per_s") target = t.value;

    f.title = fmt::format(
        "Communication alone caps single-stream decoding near {:.0f} tokens/s (TP {}, {} layers, "
        "{:.1f} us per hop){}",
        cap, n, *mc.layers, hop->us,
        target ? fmt::format(": {} the target of {:g}", cap < *target ? "below" : "above", *target)
               : "");
    if (target && cap < *target) f.severity = kWarning;
    f.explanation = fmt::format(
        "At batch 1 each decoded token runs about two all-reduces per layer (after attention and "
        "after the MLP) of one token's hidden state: {} x {} B = {} B. A ring all-reduce over {} "
        "GPUs takes 2(N-1) = {} steps, and a message this small costs about one hop's latency per "
        "step. So each token spends at least 2 x {} layers x {} steps x {:.2f} us = {:.2f} ms "
        "waiting on communication: at most {:.1f} tokens/s for one stream, before any compute. "
        "This is an estimate from the measured copy latency, not a measurement of NCCL: NCCL's "
        "LL protocol can beat a cudaMemcpy hop, tree algorithms take fewer steps on many GPUs, "
        "and compute overlaps nothing at batch 1.",
        *mc.hidden_size, bytes, message, n, 2 * (n - 1), *mc.layers, 2 * (n - 1), hop->us,
        per_token_ms, cap);
    if (target)
      f.explanation += fmt::format(
          " The notes' target is {:g} tokens/s; reaching it needs a hop of at most {:.2f} us at "
          "TP {}.",
          *target, 1e6 / (2.0 * *mc.layers * 2.0 * (n - 1) * *target), n);
    std::string verify = fmt::format("all_reduce_perf -g {} -b 8K -e 1M -f 2   # nccl-tests", n);
    f.actions.push_back(
        {fmt::format("Make the hop shorter: GPU peer-to-peer (a P2P clique in the guest, or bare "
                     "metal) turns a staged copy into a direct one; at 2 us per hop the cap would "
                     "be {:.0f} tokens/s.",
                     DecodeCap(*mc.layers, n, 2.0)),
         verify, ""});
    if (n >= 4 && n % 2 == 0)
      f.actions.push_back(
          {fmt::format("Fewer GPUs per all-reduce: tensor parallel {} with pipeline parallel 2 "
                       "has 2(N-1) = {} steps instead of {} (cap {:.0f} tokens/s at the same hop), "
                       "at the cost of a pipeline bubble.",
                       n / 2, 2 * (n / 2 - 1), 2 * (n - 1), DecodeCap(*mc.layers, n / 2, hop->us)),
           fmt::format("all_reduce_perf -g {} -b 8K -e 1M -f 2   # nccl-tests; then "
                       "dossier serve-bench URL --concurrency 1",
                       n / 2),
           ""});
    f.actions.push_back(
        {"Let NCCL use its low-latency protocol for small messages "
         "(NCCL_PROTO=LL,LL128,Simple is the default set; make sure LL is not "
         "excluded) and compare the 8K-64K rows.",
         "NCCL_DEBUG=INFO NCCL_PROTO=LL " + verify, ""});
    f.not_helping = {
        "More concurrency for the single stream: batching raises total throughput, not one "
        "stream's tokens/s, which waits on the same all-reduces every token."};
    return f;
  }
  return std::nullopt;
}

}  // namespace dossier
