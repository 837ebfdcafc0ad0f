#include "measure/serve/run_metrics.h"

#include <algorithm>
#include <cmath>

#include "measure/serve/latency_stats.h"
#include "util/text.h"

namespace dossier::serve {
namespace {

constexpr double kNsPerMs = 1e6;

}  // namespace

Result<Slo> ParseSlo(std::string_view text) {
  Slo slo;
  for (std::string_view part : SplitAny(text, ", ")) {
    size_t eq = part.find_first_of("=:");
    if (eq == std::string_view::npos) {
      return Error::Invalid("--goodput: expected KEY:MS (ttft, tpot, e2el), got '" +
                            Printable(part) + "'");
    }
    std::string_view key = Trim(part.substr(0, eq));
    auto v = ParseDouble(Trim(part.substr(eq + 1)));
    if (!v || !(*v > 0) || std::isinf(*v)) {
      return Error::Invalid("--goodput: '" + Printable(part) + "' needs a positive number of ms");
    }
    if (key == "ttft_ms" || key == "ttft") {
      slo.ttft_ms = *v;
    } else if (key == "tpot_ms" || key == "tpot") {
      slo.tpot_ms = *v;
    } else if (key == "e2e_ms" || key == "e2e" || key == "e2el") {
      slo.e2e_ms = *v;
    } else {
      return Error::Invalid("--goodput: unknown metric '" + Printable(key) +
                            "' (known: ttft, tpot, e2el)");
    }
  }
  if (!slo.any()) return Error::Invalid("--goodput: no objective given");
  return slo;
}

std::string_view CountName(RequestResult::Count c) {
  switch (c) {
    case RequestResult::Count::kChunkUsage:
      return "usage-per-chunk";
    case RequestResult::Count::kUsage:
      return "usage";
    case RequestResult::Count::kTokenizer:
      return "tokenizer";
    case RequestResult::Count::kChunks:
      break;
  }
  return "chunks";
}

namespace {

// Tokens carried by each chunk of r: the differences of the running counts where the server
// sent them; one each where the final count equals the number of chunks; empty when unknown.
std::vector<int64_t> TokensPerChunk(const RequestResult& r) {
  std::vector<int64_t> out;
  if (r.has_chunk_usage()) {
    int64_t before = 0;
    for (int64_t u : r.chunk_usage) {
      out.push_back(std::max<int64_t>(u - before, 0));
      before = std::max(before, u);
    }
  } else if (r.counted_by() != RequestResult::Count::kChunks &&
             r.output_tokens() == static_cast<int64_t>(r.token_ns.size())) {
    out.assign(r.token_ns.size(), 1);
  }
  return out;
}

// Tokens each chunk of r counts for in the peak, so that the peak and the mean output throughput
// count the same tokens: the per-chunk counts where known, else the request's output tokens spread
// over its chunks as evenly as whole tokens allow (the earlier chunks take the remainder). A
// request counted by chunks counts one per chunk, as its mean does.
std::vector<int64_t> PeakTokensPerChunk(const RequestResult& r, std::vector<int64_t> per_chunk) {
  const size_t n = r.token_ns.size();
  if (per_chunk.size() == n) return per_chunk;
  std::vector<int64_t> out(n, 1);
  const int64_t total = r.output_tokens();
  if (n == 0 || r.counted_by() == RequestResult::Count::kChunks || total < 0) return out;
  const auto chunks = static_cast<int64_t>(n);
  for (int64_t i = 0; i < chunks; ++i)
    out[static_cast<size_t>(i)] = total / chunks + (i < total % chunks ? 1 : 0);
  return out;
}

}  // namespace

ServeRun Summarize(const LoadOutcome& outcome, const Slo& slo,
                   const std::vector<double>& percentiles) {
  ServeRun run;
  run.duration_s = static_cast<double>(outcome.end_ns - outcome.start_ns) / 1e9;
  run.stopped_early = outcome.stopped_early;
  std::vector<double> ttft, itl, itl_token, tpot, e2e;
  int64_t server_in = 0, server_in_known = 0, good = 0;
  double latency_sum_ms = 0;
  bool tpot_from_chunks = false;
  // For vLLM's peaks: (time, +1/-1) of each completed request, and (time, tokens) of each chunk.
  std::vector<std::pair<int64_t, int>> edges;
  std::vector<std::pair<int64_t, int64_t>> chunk_tokens;
  int64_t first_start = INT64_MAX;
  for (const RequestResult& r : outcome.results) {
    if (r.cancelled) {
      ++run.cancelled;
      continue;
    }
    if (!r.ok) {
      ++run.failed;
      if (run.failures.count(r.failure) || run.failures.size() < kMaxFailureReasons) {
        ++run.failures[r.failure];
      } else {
        ++run.failures[kOtherReasons];
      }
      continue;
    }
    ++run.completed;
    int64_t out = r.output_tokens();
    RequestResult::Count by = r.counted_by();
    ++run.output_counted_by[std::string(CountName(by))];
    run.output_tokens += out;
    run.input_tokens += r.prompt_tokens_estimate;
    if (r.usage_prompt_tokens >= 0) {
      server_in += r.usage_prompt_tokens;
      ++server_in_known;
    }
    double t_first = static_cast<double>(r.first_token_ns - r.start_ns) / kNsPerMs;
    double t_all = static_cast<double>(r.end_ns - r.start_ns) / kNsPerMs;
    ttft.push_back(t_first);
    e2e.push_back(t_all);
    latency_sum_ms += t_all;
    std::vector<int64_t> per_chunk = TokensPerChunk(r);
    std::vector<int64_t> peak_tokens = PeakTokensPerChunk(r, per_chunk);
    for (size_t i = 0; i < r.token_ns.size(); ++i) {
      chunk_tokens.emplace_back(r.token_ns[i], peak_tokens[i]);
      if (i == 0) continue;
      double gap = static_cast<double>(r.token_ns[i] - r.token_ns[i - 1]) / kNsPerMs;
      itl.push_back(gap);
      if (!per_chunk.empty() && per_chunk[i] > 0) {
        for (int64_t k = 0; k < per_chunk[i]; ++k) {
          itl_token.push_back(gap / static_cast<double>(per_chunk[i]));
        }
      }
    }
    first_start = std::min(first_start, r.start_ns);
    edges.emplace_back(r.start_ns, +1);
    edges.emplace_back(r.end_ns, -1);
    // TPOT needs a token count: chunks are not tokens, so a request counted by chunks has none.
    double per_token = 0;
    if (by == RequestResult::Count::kChunks) {
      tpot_from_chunks = true;
    } else if (out > 1) {
      per_token = (t_all - t_first) / static_cast<double>(out - 1);
      tpot.push_back(per_token);
    }
    if (slo.any() && (!slo.ttft_ms || t_first <= *slo.ttft_ms) &&
        (!slo.tpot_ms || per_token <= *slo.tpot_ms) && (!slo.e2e_ms || t_all <= *slo.e2e_ms)) {
      ++good;
    }
  }
  if (run.output_counted_by.size() == 1) {
    run.output_tokens_from = run.output_counted_by.begin()->first;
  } else if (run.output_counted_by.size() > 1) {
    run.output_tokens_from = "mixed";
  }
  run.input_tokens_from = run.completed > 0 ? "dataset" : "";
  if (run.completed > 0 && server_in_known == run.completed) {
    run.input_tokens_server.Set(server_in, "");
  } else if (run.completed > 0) {
    run.input_tokens_server.Unknown(server_in_known == 0
                                        ? "the server reported no usage.prompt_tokens"
                                        : "not every request reported usage.prompt_tokens");
  }
  if (run.duration_s > 0) {
    run.request_throughput = static_cast<double>(run.completed) / run.duration_s;
    run.input_tokens_per_s = static_cast<double>(run.input_tokens) / run.duration_s;
    run.output_tokens_per_s = static_cast<double>(run.output_tokens) / run.duration_s;
    run.total_tokens_per_s =
        static_cast<double>(run.input_tokens + run.output_tokens) / run.duration_s;
    run.mean_concurrency.Set(latency_sum_ms / 1e3 / run.duration_s, "");
  } else {
    run.mean_concurrency.Unknown("no request was sent");
  }
  // Peaks, bucketed as vLLM does: 1-second buckets counted from the earliest start, each chunk's
  // tokens in the bucket of its arrival (vLLM adds 1 per chunk; here the tokens the mean counts,
  // PeakTokensPerChunk); requests in flight over half-open [start, end), an end before a start at
  // the same instant.
  if (!edges.empty()) {
    std::vector<int64_t> buckets;
    for (auto [t, k] : chunk_tokens) {
      auto b = static_cast<size_t>((t - first_start) / 1000000000);
      if (buckets.size() <= b) buckets.resize(b + 1, 0);
      buckets[b] += k;
    }
    for (int64_t b : buckets) {
      run.peak_output_tokens_per_s = std::max(run.peak_output_tokens_per_s, static_cast<double>(b));
    }
    std::sort(edges.begin(), edges.end());
    int64_t now = 0;
    for (auto [t, d] : edges) {
      now += d;
      run.peak_concurrent_requests = std::max(run.peak_concurrent_requests, now);
    }
  }
  run.ttft_ms = StatsOf(std::move(ttft), "no completed request", percentiles);
  run.itl_ms = StatsOf(std::move(itl), "no request streamed two chunks", percentiles);
  run.itl_per_token_ms =
      StatsOf(std::move(itl_token), "the server gave no per-chunk token counts", percentiles);
  run.tpot_ms = StatsOf(std::move(tpot),
                        tpot_from_chunks ? "output counted in chunks (not tokens): no TPOT"
                                         : "no request produced two tokens",
                        percentiles);
  run.e2e_ms = StatsOf(std::move(e2e), "no completed request", percentiles);
  if (!slo.any()) {
    run.goodput.Unknown("no --goodput given");
  } else if (run.duration_s > 0) {
    run.goodput.Set(static_cast<double>(good) / run.duration_s, "");
  } else {
    run.goodput.Unknown("no request was sent");
  }
  return run;
}

}  // namespace dossier::serve
