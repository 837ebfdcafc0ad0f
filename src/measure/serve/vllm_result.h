// vLLM's result file (`vllm bench serve --save-result`): one flat JSON object per run with the
// keys vLLM writes (date, backend, model_id, num_prompts, request_rate, burstiness,
// max_concurrency, duration, completed, failed, total_input_tokens, total_output_tokens,
// request_throughput, request_goodput, output_throughput, total_token_throughput,
// max_output_tokens_per_s, max_concurrent_requests, {mean,median,std,pNN}_{ttft,tpot,itl,e2el}_ms),
// and with `detailed` vLLM's per-request arrays (input_lens, output_lens, ttfts, itls, latencies,
// start_times, errors; seconds, as vLLM stores them), so scripts and plots written for vLLM's
// files read dossier's. dossier's own record keeps its own form; this is an export.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "measure/serve/load_generator.h"
#include "model/measurement.h"

namespace dossier::serve {

struct VllmResultContext {
  std::string date;         // vLLM's "%Y%m%d-%H%M%S", local time
  int64_t num_prompts = 0;  // requests planned for the run
  double burstiness = 1;
  bool goodput_given = false;
};

// `outcome`: the run's requests, for the per-request arrays; null: no arrays.
nlohmann::json VllmResultJson(const ServeMeasurement& m, const ServeRun& run,
                              const VllmResultContext& context, const LoadOutcome* outcome);

}  // namespace dossier::serve
