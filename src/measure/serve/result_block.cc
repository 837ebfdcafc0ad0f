#include "measure/serve/result_block.h"

#include <fmt/format.h>

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

void Stats(std::string* out, std::string_view title, std::string_view name, const LatencyStats& s) {
  Rule(out, title, '-');
  Line(out, fmt::format("Mean {} (ms):", name), s.mean);
  Line(out, fmt::format("Median {} (ms):", name), s.median);
  Line(out, fmt::format("P90 {} (ms):", name), s.p90);
  Line(out, fmt::format("P99 {} (ms):", name), s.p99);
  Line(out, fmt::format("Max {} (ms):", name), s.max);
}

std::string From(const std::string& how) {
  if (how == "usage") return " (server usage)";
  if (how == "chunks") return " (counted from chunks)";
  if (how == "dataset") return " (dataset estimate)";
  if (how == "mixed") return " (usage where reported)";
  return "";
}

}  // namespace

std::string RenderResultBlocks(const ServeMeasurement& m) {
  std::string out;
  for (const ServeRun& r : m.runs) {
    Rule(&out, " Serving Benchmark Result ", '=');
    Line(&out, "Endpoint:", m.endpoint);
    Line(&out, "Model:", m.model);
    if (r.concurrency.known()) Line(&out, "Concurrency:", *r.concurrency);
    if (r.request_rate.known()) {
      Line(&out, "Traffic request rate:", fmt::format("{:g}", *r.request_rate));
    } else if (r.request_rate.unknown.starts_with("inf")) {
      Line(&out, "Traffic request rate:", "inf");  // JSON has no infinity: kept as a reason
    }
    if (r.max_concurrency.known()) Line(&out, "Max concurrency:", *r.max_concurrency);
    Line(&out, "Successful requests:", r.completed);
    Line(&out, "Failed requests:", r.failed);
    if (r.cancelled > 0) Line(&out, "Cancelled at the end (not counted):", r.cancelled);
    Line(&out, "Benchmark duration (s):", r.duration_s);
    Line(&out, "Total input tokens:", std::to_string(r.input_tokens) + From(r.input_tokens_from));
    Line(&out,
         "Total generated tokens:", std::to_string(r.output_tokens) + From(r.output_tokens_from));
    Line(&out, "Request throughput (req/s):", r.request_throughput);
    if (r.goodput.known()) Line(&out, "Request goodput (req/s):", r.goodput);
    Line(&out, "Input token throughput (tok/s):", r.input_tokens_per_s);
    Line(&out, "Output token throughput (tok/s):", r.output_tokens_per_s);
    Line(&out, "Total Token throughput (tok/s):", r.total_tokens_per_s);
    Stats(&out, "End-to-End Latency", "E2E Latency", r.e2e_ms);
    Stats(&out, "Time to First Token", "TTFT", r.ttft_ms);
    Stats(&out, "Time per Output Token (excl. 1st token)", "TPOT", r.tpot_ms);
    Stats(&out, "Inter-token Latency", "ITL", r.itl_ms);
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
