#include "measure/serve/result_block.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace dossier::serve {
namespace {

void Line(std::string* out, std::string_view label, std::string_view value) {
  *out += fmt::format("{:<40} {:<10}\n", label, value);
}
void Line(std::string* out, std::string_view label, int64_t value) {
  Line(out, label, std::to_string(value));
}
void Line(std::string* out, std::string_view label, double value) {
  Line(out, label, fmt::format("{:.2f}", value));
}
void Line(std::string* out, std::string_view label, const Fact<double>& f) {
  Line(out, label, f.known() ? fmt::format("{:.2f}", *f) : std::string("n/a"));
}

void Rule(std::string* out, std::string_view title, char fill) {
  std::string t = title.empty() ? std::string() : std::string(title);
  size_t n = 50;
  size_t left = t.size() >= n ? 0 : (n - t.size()) / 2;
  size_t right = t.size() >= n ? 0 : n - t.size() - left;
  *out += std::string(left, fill) + t + std::string(right, fill) + "\n";
}

// vLLM's percentile label: "P99", "P99.9".
std::string PercentileWord(double p) {
  return p == std::floor(p) ? fmt::format("{}", static_cast<int64_t>(p)) : fmt::format("{}", p);
}

// A latency section as vLLM prints it (mean, median, the selected percentiles), with the
// standard deviation after the median (vLLM saves std_*_ms but does not print it).
void Stats(std::string* out, std::string_view title, std::string_view name, const LatencyStats& s) {
  Rule(out, title, '-');
  Line(out, fmt::format("Mean {} (ms):", name), s.mean);
  Line(out, fmt::format("Median {} (ms):", name), s.median);
  Line(out, fmt::format("Std {} (ms):", name), s.stddev);
  if (!s.mean.known()) {
    *out += "  (" + s.mean.unknown + ")\n";
    return;
  }
  for (const auto& [p, v] : s.selected) {
    Line(out, fmt::format("P{} {} (ms):", PercentileWord(p), name), v);
  }
}

bool Wants(const BlockOptions& o, std::string_view metric) {
  return std::find(o.metrics.begin(), o.metrics.end(), metric) != o.metrics.end();
}

}  // namespace

std::string RenderResultBlocks(const ServeMeasurement& m, const BlockOptions& o) {
  std::string out;
  for (const ServeRun& r : m.runs) {
    const bool chunks = r.output_tokens_from == "chunks";
    Rule(&out, " Serving Benchmark Result ", '=');
    Line(&out, "Successful requests:", r.completed);
    Line(&out, "Failed requests:", r.failed);
    // Closed loop at c is vLLM's --max-concurrency c at --request-rate inf.
    if (r.concurrency.known()) Line(&out, "Maximum request concurrency:", *r.concurrency);
    if (r.max_concurrency.known()) Line(&out, "Maximum request concurrency:", *r.max_concurrency);
    if (r.request_rate.known()) Line(&out, "Request rate configured (RPS):", *r.request_rate);
    Line(&out, "Benchmark duration (s):", r.duration_s);
    Line(&out, "Total input tokens:", r.input_tokens);
    Line(&out, chunks ? "Total generated chunks (not tokens):" : "Total generated tokens:",
         r.output_tokens);
    Line(&out, "Request throughput (req/s):", r.request_throughput);
    if (r.goodput.known()) Line(&out, "Request goodput (req/s):", r.goodput);
    Line(&out, chunks ? "Output chunk throughput (chunks/s):" : "Output token throughput (tok/s):",
         r.output_tokens_per_s);
    Line(&out,
         chunks ? "Peak output chunk throughput (chunks/s):"
                : "Peak output token throughput (tok/s):",
         r.peak_output_tokens_per_s);
    Line(&out, "Peak concurrent requests:", static_cast<double>(r.peak_concurrent_requests));
    Line(&out, "Total token throughput (tok/s):", r.total_tokens_per_s);
    if (Wants(o, "ttft")) Stats(&out, "Time to First Token", "TTFT", r.ttft_ms);
    if (Wants(o, "tpot")) {
      Stats(&out, "Time per Output Token (excl. 1st token)", "TPOT", r.tpot_ms);
    }
    if (Wants(o, "itl")) Stats(&out, "Inter-token Latency", "ITL", r.itl_ms);
    if (Wants(o, "e2el")) Stats(&out, "End-to-end Latency", "E2EL", r.e2e_ms);
    // Below vLLM's lines: what it does not print.
    if (Wants(o, "itl") && r.itl_per_token_ms.mean.known()) {
      Stats(&out, "Inter-token Latency per Token", "ITL per token", r.itl_per_token_ms);
    }
    Rule(&out, "dossier", '-');
    Line(&out, "Concurrency:", r.mean_concurrency);  // SGLang's: measured mean in flight
    Line(&out,
         "Output tokens counted by:", r.output_tokens_from.empty() ? "-" : r.output_tokens_from);
    if (chunks)
      out +=
          "  (chunks are not tokens: no TPOT; the server sent no usage and has no tokenizer "
          "endpoint)\n";
    if (r.input_tokens_server.known()) {
      Line(&out, "Total input tokens (server usage):", *r.input_tokens_server);
    }
    Line(&out, "TTFT from:", r.ttft_from.empty() ? "first-content" : r.ttft_from);
    Line(&out, "Endpoint:", m.endpoint);
    Line(&out, "Model:", m.model);
    if (r.cancelled > 0) Line(&out, "Cancelled at the end (not counted):", r.cancelled);
    if (!r.failures.empty() || !r.stopped_early.empty()) {
      Rule(&out, "Failures", '-');
      for (const auto& [reason, count] : r.failures) {
        out += fmt::format("{:>8}  {}\n", count, reason);
      }
      if (!r.stopped_early.empty()) out += "Note: " + r.stopped_early + "\n";
    }
    Rule(&out, "", '=');
  }
  if (m.interrupted) out += "(interrupted: the figures cover what finished before Ctrl-C)\n";
  return out;
}

}  // namespace dossier::serve
