// From the requests of one run to its figures (ServeRun): counts, failure reasons, token totals
// and throughputs, TTFT / ITL / TPOT / E2E statistics, and goodput against optional SLOs. The
// definitions are those of vLLM's bench serve and SGLang's bench_serving (see ServeRun).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "measure/serve/load_generator.h"
#include "model/measurement.h"
#include "util/result.h"

namespace dossier::serve {

// Service-level objectives for goodput: a request counts when it meets every one given.
struct Slo {
  std::optional<double> ttft_ms, tpot_ms, e2e_ms;
  bool any() const { return ttft_ms || tpot_ms || e2e_ms; }
};

// vLLM's --goodput spelling "ttft:500 tpot:50 e2el:2000" (space- or comma-separated), and the
// older "ttft_ms=500,tpot_ms=50,e2e_ms=…"; an unknown key or a bad number is an error.
Result<Slo> ParseSlo(std::string_view text);

// Reasons beyond this many distinct ones are counted together (a server that puts a request id in
// every error message would otherwise grow the map without bound).
inline constexpr size_t kMaxFailureReasons = 32;
inline constexpr const char* kOtherReasons = "other reasons";

// Fills everything but concurrency / request_rate / max_concurrency / ttft_from, which the caller
// knows. `percentiles` are the extra ones asked for (LatencyStats::selected).
ServeRun Summarize(const LoadOutcome& outcome, const Slo& slo,
                   const std::vector<double>& percentiles = {});

// The name of a RequestResult::Count in records and output.
std::string_view CountName(RequestResult::Count c);

}  // namespace dossier::serve
