#include "measure/serve/run_metrics.h"

#include "measure/serve/latency_stats.h"
#include "util/text.h"

namespace dossier::serve {
namespace {

constexpr double kNsPerMs = 1e6;

std::string FromWhich(int64_t with, int64_t without, const char* yes, const char* no) {
  if (with > 0 && without == 0) return yes;
  if (without > 0 && with == 0) return no;
  if (with == 0 && without == 0) return "";
  return "mixed";
}

}  // namespace

Result<Slo> ParseSlo(std::string_view text) {
  Slo slo;
  for (std::string_view part : SplitAny(text, ",")) {
    size_t eq = part.find('=');
    if (eq == std::string_view::npos) {
      return Error::Invalid("--slo: expected key=milliseconds, got '" + Printable(part) + "'");
    }
    std::string_view key = Trim(part.substr(0, eq));
    auto v = ParseDouble(Trim(part.substr(eq + 1)));
    if (!v || !(*v > 0)) {
      return Error::Invalid("--slo: '" + Printable(part) + "' needs a positive number of ms");
    }
    if (key == "ttft_ms" || key == "ttft") {
      slo.ttft_ms = *v;
    } else if (key == "tpot_ms" || key == "tpot") {
      slo.tpot_ms = *v;
    } else if (key == "e2e_ms" || key == "e2e") {
      slo.e2e_ms = *v;
    } else {
      return Error::Invalid("--slo: unknown key '" + Printable(key) +
                            "' (known: ttft_ms, tpot_ms, e2e_ms)");
    }
  }
  if (!slo.any()) return Error::Invalid("--slo: no objective given");
  return slo;
}

ServeRun Summarize(const LoadOutcome& outcome, const Slo& slo) {
  ServeRun run;
  run.duration_s = static_cast<double>(outcome.end_ns - outcome.start_ns) / 1e9;
  run.stopped_early = outcome.stopped_early;
  std::vector<double> ttft, itl, tpot, e2e;
  int64_t usage_out = 0, chunk_out = 0, usage_in = 0, dataset_in = 0, good = 0;
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
    run.output_tokens += out;
    run.input_tokens += r.input_tokens();
    ++(r.usage_completion_tokens >= 0 ? usage_out : chunk_out);
    ++(r.usage_prompt_tokens >= 0 ? usage_in : dataset_in);
    double t_first = static_cast<double>(r.first_token_ns - r.start_ns) / kNsPerMs;
    double t_all = static_cast<double>(r.end_ns - r.start_ns) / kNsPerMs;
    ttft.push_back(t_first);
    e2e.push_back(t_all);
    for (size_t i = 1; i < r.token_ns.size(); ++i) {
      itl.push_back(static_cast<double>(r.token_ns[i] - r.token_ns[i - 1]) / kNsPerMs);
    }
    double per_token = 0;
    if (out > 1) {
      per_token = (t_all - t_first) / static_cast<double>(out - 1);
      tpot.push_back(per_token);
    }
    if (slo.any() && (!slo.ttft_ms || t_first <= *slo.ttft_ms) &&
        (!slo.tpot_ms || per_token <= *slo.tpot_ms) && (!slo.e2e_ms || t_all <= *slo.e2e_ms)) {
      ++good;
    }
  }
  run.output_tokens_from = FromWhich(usage_out, chunk_out, "usage", "chunks");
  run.input_tokens_from = FromWhich(usage_in, dataset_in, "usage", "dataset");
  if (run.duration_s > 0) {
    run.request_throughput = static_cast<double>(run.completed) / run.duration_s;
    run.input_tokens_per_s = static_cast<double>(run.input_tokens) / run.duration_s;
    run.output_tokens_per_s = static_cast<double>(run.output_tokens) / run.duration_s;
    run.total_tokens_per_s =
        static_cast<double>(run.input_tokens + run.output_tokens) / run.duration_s;
  }
  run.ttft_ms = StatsOf(std::move(ttft), "no completed request");
  run.itl_ms = StatsOf(std::move(itl), "no request streamed two chunks");
  run.tpot_ms = StatsOf(std::move(tpot), "no request produced two tokens");
  run.e2e_ms = StatsOf(std::move(e2e), "no completed request");
  if (!slo.any()) {
    run.goodput.Unknown("no --slo given");
  } else if (run.duration_s > 0) {
    run.goodput.Set(static_cast<double>(good) / run.duration_s, "");
  } else {
    run.goodput.Unknown("no request was sent");
  }
  return run;
}

}  // namespace dossier::serve
