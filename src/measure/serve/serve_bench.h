// RunServeBench: a whole serve-bench measurement. Resolves the model (GET /v1/models unless one
// is given), builds the prompts (random or ShareGPT), runs one load per concurrency level (closed
// loop) or per request rate (open loop), and summarizes each into a ServeRun. The CLI
// (src/cli/serve_bench.cc) adds options, output and the dossier record around it; tests and the
// benchmark call it directly against the stand-in server.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "measure/serve/endpoint.h"
#include "measure/serve/load_generator.h"
#include "measure/serve/openai_protocol.h"
#include "measure/serve/random_dataset.h"
#include "measure/serve/run_metrics.h"
#include "model/measurement.h"
#include "util/result.h"

namespace dossier::serve {

struct BenchOptions {
  Endpoint endpoint;
  Api api = Api::kCompletions;
  std::string model;                   // empty: the first model /v1/models lists
  std::string api_key;                 // never stored, never printed
  std::vector<int64_t> concurrency;    // closed loop, one run each
  std::vector<double> request_rates;   // open loop, one run each (infinity: all at once)
  int64_t max_concurrency = 0;         // open loop cap; 0: none
  std::optional<int64_t> num_prompts;  // per run; default: 4 x concurrency (at least 8), or
                                       // 10 s of arrivals (at least 20) at a rate
  double duration_s = 0;               // per run: no request starts after this; 0: no limit
  int64_t input_len = 1024, output_len = 128;
  double range_ratio = 0;  // --random-range-ratio (random_dataset.h)
  RangeStyle range_style = RangeStyle::kVllm;
  int64_t prefix_len = 0;   // --random-prefix-len
  double burstiness = 1;    // open loop: gamma shape of the arrival gaps
  int64_t num_warmups = 0;  // requests sent (and not counted) before the runs
  TtftFrom ttft_from = TtftFrom::kFirstContent;
  bool tokenize = true;  // count unreported output tokens with POST /tokenize
  std::vector<double> percentiles = {90, 95, 99};  // --metric-percentiles (LatencyStats::selected)
  bool output_len_given = false;  // for ShareGPT: fixed output length instead of the answer's
  std::string dataset_path;       // empty: random
  uint64_t seed = 0;
  Slo slo;
  std::string slo_text;
  double timeout_s = 600;
  // The whole benchmark: no request starts after it and none outlives it; what was measured by
  // then is kept and the measurement is marked interrupted.
  double deadline_s = 3600;
  Transport transport = Transport::kAuto;  // the HTTP client (stream_client.h)
  int64_t max_consecutive_failures = -1;   // -1: max(100, 2 x concurrency); 0: never stop
};

struct BenchHooks {
  // Progress of the current run ("c=64", "rate=2"), about once a second.
  std::function<void(const std::string& run, const LoadProgress&)> progress;
  std::function<void(const std::string& message)> log;  // stderr lines
  const std::atomic<bool>* stop = nullptr;              // set by Ctrl-C
  // Every request of run `run` (0-based), before it is summarized. Requests of run r carry the
  // X-Request-Id "dossier-<r>-<index>".
  std::function<void(size_t run, const LoadOutcome& outcome)> on_outcome;
};

// Errors: kInvalid for options or a dataset that cannot be used, kIo when the server cannot be
// asked for its model. Request failures are not errors: they are counted in the runs.
Result<ServeMeasurement> RunServeBench(const BenchOptions& options, const BenchHooks& hooks);

// Counts the output tokens of completed requests the server gave no usage for, with the server's
// tokenizer endpoint on their generated text (POST /tokenize: vLLM, SGLang, llama.cpp, TGI;
// then /v1/tokenize, SGLang's OpenAI-style route). Stops asking at the first request the server
// cannot count (no such endpoint) and says why in the returned note; "" when every request was
// counted or none needed it.
std::string CountWithServerTokenizer(const BenchOptions& o, const std::string& model,
                                     std::vector<RequestResult>* results);

// Requests per run when --num-prompts is not given.
int64_t DefaultNumPrompts(int64_t concurrency, double rate);

}  // namespace dossier::serve
