#include "measure/serve/vllm_result.h"

#include <algorithm>
#include <cmath>

#include "measure/serve/latency_stats.h"

namespace dossier::serve {
namespace {

using nlohmann::json;

// vLLM's spelling of a percentile in a key: "p99", "p99.9".
std::string PercentileKey(double p) {
  if (p == std::floor(p)) return "p" + std::to_string(static_cast<int64_t>(p));
  json j = p;
  return "p" + j.dump();
}

json Value(const Fact<double>& f) {
  return f.known() ? json(*f) : json(nullptr);  // not captured: null, never 0
}

void AddMetric(json* out, const std::string& name, const LatencyStats& s) {
  (*out)["mean_" + name + "_ms"] = Value(s.mean);
  (*out)["median_" + name + "_ms"] = Value(s.median);
  (*out)["std_" + name + "_ms"] = Value(s.stddev);
  for (const auto& [p, v] : s.selected) (*out)[PercentileKey(p) + "_" + name + "_ms"] = v;
}

}  // namespace

json VllmResultJson(const ServeMeasurement& m, const ServeRun& run, const VllmResultContext& c,
                    const LoadOutcome* outcome) {
  json out;
  out["date"] = c.date;
  out["backend"] = m.api == "chat" ? "openai-chat" : "openai";
  out["model_id"] = m.model;
  out["tokenizer_id"] = nullptr;  // dossier counts with the server, not a local tokenizer
  out["num_prompts"] = c.num_prompts;
  if (run.request_rate.known()) {
    out["request_rate"] = *run.request_rate;
  } else {
    out["request_rate"] = "inf";  // vLLM writes the string for an infinite rate
  }
  out["burstiness"] = c.burstiness;
  if (run.concurrency.known()) {
    out["max_concurrency"] = *run.concurrency;
  } else if (run.max_concurrency.known()) {
    out["max_concurrency"] = *run.max_concurrency;
  } else {
    out["max_concurrency"] = nullptr;
  }
  out["duration"] = run.duration_s;
  out["completed"] = run.completed;
  out["failed"] = run.failed;
  out["total_input_tokens"] = run.input_tokens;
  out["total_output_tokens"] = run.output_tokens;
  out["request_throughput"] = run.request_throughput;
  out["request_goodput"] = c.goodput_given ? Value(run.goodput) : json(nullptr);
  out["output_throughput"] = run.output_tokens_per_s;
  out["total_token_throughput"] = run.total_tokens_per_s;
  out["max_output_tokens_per_s"] = run.peak_output_tokens_per_s;
  out["max_concurrent_requests"] = run.peak_concurrent_requests;
  AddMetric(&out, "ttft", run.ttft_ms);
  AddMetric(&out, "tpot", run.tpot_ms);
  AddMetric(&out, "itl", run.itl_ms);
  AddMetric(&out, "e2el", run.e2e_ms);
  // dossier's own facts, under names vLLM does not use.
  out["dossier_output_tokens_from"] = run.output_tokens_from;
  out["dossier_ttft_from"] = run.ttft_from;
  if (outcome) {
    std::vector<const RequestResult*> rs;
    for (const RequestResult& r : outcome->results) {
      if (!r.cancelled) rs.push_back(&r);
    }
    std::sort(rs.begin(), rs.end(),
              [](const RequestResult* a, const RequestResult* b) { return a->index < b->index; });
    json input_lens = json::array(), output_lens = json::array(), ttfts = json::array(),
         itls = json::array(), latencies = json::array(), start_times = json::array(),
         errors = json::array();
    for (const RequestResult* r : rs) {
      input_lens.push_back(r->prompt_tokens_estimate);
      output_lens.push_back(r->ok ? r->output_tokens() : 0);  // vLLM: 0 for a failed request
      ttfts.push_back(r->ok ? static_cast<double>(r->first_token_ns - r->start_ns) / 1e9 : 0.0);
      json gaps = json::array();
      if (r->ok) {
        for (size_t i = 1; i < r->token_ns.size(); ++i) {
          gaps.push_back(static_cast<double>(r->token_ns[i] - r->token_ns[i - 1]) / 1e9);
        }
      }
      itls.push_back(std::move(gaps));
      latencies.push_back(r->ok ? static_cast<double>(r->end_ns - r->start_ns) / 1e9 : 0.0);
      // Seconds on the monotonic clock, as vLLM's perf_counter start times.
      start_times.push_back(static_cast<double>(r->start_ns) / 1e9);
      errors.push_back(r->ok ? std::string() : r->failure);
    }
    out["input_lens"] = std::move(input_lens);
    out["output_lens"] = std::move(output_lens);
    out["ttfts"] = std::move(ttfts);
    out["itls"] = std::move(itls);
    out["latencies"] = std::move(latencies);
    out["start_times"] = std::move(start_times);
    out["errors"] = std::move(errors);
  }
  return out;
}

}  // namespace dossier::serve
