// Measurements kept in the dossier: GPU peer-to-peer sweeps (dossier p2p) and serving-endpoint
// benchmarks (dossier serve-bench). Each is one record on disk; the view of a machine holds all of
// its measurements, newest last. Rules (p2p.bytes-corrupted, p2p.below-expectation,
// serve.below-target) and the report's Measurements section read these structs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/fact.h"

namespace dossier {

// One (pair or GPU, mode, size) result of a p2p sweep.
struct P2pResult {
  int64_t src = -1;  // GPU index (CUDA ordinal); -1 for the host
  int64_t dst = -1;
  std::string mode;  // "uni-p2p", "bi-p2p", "uni-staged", "bi-staged", "h2d-local", "h2d-far",
                     // "d2h-local", "d2h-far", "latency-p2p", "latency-staged", "device-local"
                     // (src == dst: one GPU's memory to itself)
  uint64_t size_bytes = 0;
  Fact<double> gbps_median, gbps_min, gbps_max;  // GB = 1e9 bytes
  Fact<double> latency_us;                       // per copy, median
  Fact<double> link_limit_gbps;                  // narrowest link on the path, per direction
  Fact<double> percent_of_limit;
  std::string verdict;  // "ok", "corrupted", "hung", "waived", "error"
  std::string detail;   // why waived/error; first differing offset when corrupted
  template <class V>
  void visit(V& v) {
    v("src", src);
    v("dst", dst);
    v("mode", mode);
    v("size_bytes", size_bytes);
    v("gbps_median", gbps_median);
    v("gbps_min", gbps_min);
    v("gbps_max", gbps_max);
    v("latency_us", latency_us);
    v("link_limit_gbps", link_limit_gbps);
    v("percent_of_limit", percent_of_limit);
    v("verdict", verdict);
    v("detail", detail);
  }
};

struct P2pMeasurement {
  std::string time;      // when it ran (ISO 8601 UTC)
  std::string boot_id;   // boot it ran in: a later boot makes it stale
  std::string hostname;  // the machine it ran on: boot ids compare only on the same one
  std::vector<std::string> gpu_addresses;  // by CUDA ordinal
  // CUDA_VISIBLE_DEVICES as it was set for the run ("" when unset): the ordinals above are among
  // the GPUs it lists, in its order, so GPU 0 is not the first GPU on the bus.
  std::string cuda_visible_devices;
  std::vector<P2pResult> results;
  bool interrupted = false;  // Ctrl-C or --timeout cut it short; results are what was measured
  // The program that measured when it was not dossier ("p2pBandwidthLatencyTest", "nvbandwidth")
  // and the pasted file it was imported from; empty for dossier's own.
  std::string tool;
  std::string imported_from;
  template <class V>
  void visit(V& v) {
    v("tool", tool);
    v("imported_from", imported_from);
    v("time", time);
    v("boot_id", boot_id);
    v("hostname", hostname);
    v("gpu_addresses", gpu_addresses);
    v("cuda_visible_devices", cuda_visible_devices);
    v("results", results);
    v("interrupted", interrupted);
  }
};

// Mean, median, standard deviation (population, as numpy's np.std), p90, p95, p99, max of one
// latency metric, in milliseconds.
struct LatencyStats {
  Fact<double> mean, median, stddev, p90, p95, p99, max;
  // The percentiles asked for on the command line (--metric-percentiles), for the printed block
  // and --save-result; not part of the record, which keeps the fixed set above.
  std::vector<std::pair<double, double>> selected;
  template <class V>
  void visit(V& v) {
    v("mean", mean);
    v("median", median);
    v("std", stddev);
    v("p90", p90);
    v("p95", p95);
    v("p99", p99);
    v("max", max);
  }
};

// One concurrency level or request rate of a serve-bench run. Definitions (FIELD_NOTES, as vLLM
// bench serve and SGLang bench_serving): TTFT = request sent -> first content token; ITL = gap
// between consecutive streamed content chunks (pooled over requests); TPOT = (E2E - TTFT) /
// (output tokens - 1) per request; E2E = request sent -> end of the stream. Throughputs are over
// duration_s (first request sent -> last request ended) and count completed requests only.
struct ServeRun {
  Fact<int64_t> concurrency;      // closed loop
  Fact<double> request_rate;      // open loop, requests/s (Poisson)
  Fact<int64_t> max_concurrency;  // open loop: the cap on requests in flight, when given
  // What a person called this run when it was imported: the bare line above a pasted result
  // block ("TP8, c64") or the pasted command line; empty for dossier's own runs.
  std::string label;
  int64_t completed = 0, failed = 0;
  std::map<std::string, int64_t> failures;  // reason -> count
  int64_t cancelled = 0;      // in flight when the run ended (Ctrl-C, time bound): neither count
  std::string stopped_early;  // why fewer requests were sent than planned, if so
  double duration_s = 0;
  // input_tokens: the dataset's count of the prompts, without a chat template (as SGLang counts;
  // the throughputs use it). input_tokens_server: the sum of the server's usage.prompt_tokens
  // (template included), when every completed request reported it.
  int64_t input_tokens = 0, output_tokens = 0;
  Fact<int64_t> input_tokens_server;
  // SGLang's "Total generated tokens (retokenized)": the generated text tokenized again by the
  // client; far below output_tokens when the server's streaming split tokens oddly.
  Fact<int64_t> output_tokens_retokenized;
  std::string input_tokens_from;  // "dataset"
  // How output tokens were counted: "usage-per-chunk" (running count in every chunk), "usage"
  // (the final usage), "tokenizer" (the server's /tokenize on the generated text), "chunks" (one
  // per chunk: not tokens), or "mixed"; output_counted_by has the request count of each.
  std::string output_tokens_from;
  std::map<std::string, int64_t> output_counted_by;
  std::string ttft_from;  // "first-content" or "first-chunk"
  double request_throughput = 0, input_tokens_per_s = 0, output_tokens_per_s = 0,
         total_tokens_per_s = 0;
  // vLLM's peaks: the most output tokens in one 1-second bucket from the first request's start,
  // and the most requests in flight at one instant (completed requests only).
  double peak_output_tokens_per_s = 0;
  int64_t peak_concurrent_requests = 0;
  Fact<double> mean_concurrency;  // SGLang's "Concurrency": sum of E2E latencies / duration
  LatencyStats ttft_ms, itl_ms, tpot_ms, e2e_ms;
  // ITL per token (SGLang's way for multi-token chunks): each chunk's gap divided by its token
  // count, once per token; known where the server gave per-chunk counts (or every chunk was one
  // token by the final count).
  LatencyStats itl_per_token_ms;
  Fact<double> goodput;  // requests/s meeting the SLOs, when SLOs were given
  // Figures of this run that are not known, by the name visit gives them, with why. A figure a
  // person typed in (`dossier note measurement`) carries its load and the throughputs given;
  // the request counts, the duration and the token counts were never seen, and a plain field's
  // 0 there is not a value. Empty for a run dossier measured or a block it read whole.
  std::map<std::string, std::string> not_known;
  bool Knows(std::string_view figure) const { return !not_known.contains(std::string(figure)); }
  // Whether the run measured anything: a request completed, or the counts are not known and a
  // figure was given (a typed-in run). A run that completed nothing measured no throughput.
  bool MeasuredSomething() const { return completed > 0 || !Knows("completed"); }
  template <class V>
  void visit(V& v) {
    v("concurrency", concurrency);
    v("request_rate", request_rate);
    v("max_concurrency", max_concurrency);
    v("label", label);
    v("completed", completed);
    v("failed", failed);
    v("failures", failures);
    v("cancelled", cancelled);
    v("stopped_early", stopped_early);
    v("duration_s", duration_s);
    v("input_tokens", input_tokens);
    v("output_tokens", output_tokens);
    v("input_tokens_server", input_tokens_server);
    v("output_tokens_retokenized", output_tokens_retokenized);
    v("input_tokens_from", input_tokens_from);
    v("output_tokens_from", output_tokens_from);
    v("output_counted_by", output_counted_by);
    v("ttft_from", ttft_from);
    v("request_throughput", request_throughput);
    v("input_tokens_per_s", input_tokens_per_s);
    v("output_tokens_per_s", output_tokens_per_s);
    v("total_tokens_per_s", total_tokens_per_s);
    v("peak_output_tokens_per_s", peak_output_tokens_per_s);
    v("peak_concurrent_requests", peak_concurrent_requests);
    v("mean_concurrency", mean_concurrency);
    v("ttft_ms", ttft_ms);
    v("itl_ms", itl_ms);
    v("itl_per_token_ms", itl_per_token_ms);
    v("tpot_ms", tpot_ms);
    v("e2e_ms", e2e_ms);
    v("goodput", goodput);
    v("not_known", not_known);
  }
};

struct ServeMeasurement {
  std::string time;
  std::string boot_id;   // of the machine the client ran on
  std::string hostname;  // that machine: boot ids compare only on the same one
  std::string endpoint;  // URL, credentials redacted
  std::string api;       // "completions" or "chat"
  std::string model;
  int64_t input_len = 0, output_len = 0;
  std::string dataset;                              // "random" or a ShareGPT file path
  uint64_t seed = 0;                                // run i uses seed + i
  std::string slo;                                  // "ttft_ms=500,tpot_ms=50" when given
  double timeout_s = 0;                             // per request
  std::string http_client;                          // "native" or "curl": what measured
  std::map<std::string, std::string> server_flags;  // when the server runs on this machine
  std::string server_command;                       // its command line, secrets redacted
  std::vector<ServeRun> runs;
  bool interrupted = false;
  std::string tool;           // "vllm bench serve", "sglang bench_serving" when imported
  std::string imported_from;  // the pasted file it was imported from
  template <class V>
  void visit(V& v) {
    v("tool", tool);
    v("imported_from", imported_from);
    v("time", time);
    v("boot_id", boot_id);
    v("hostname", hostname);
    v("endpoint", endpoint);
    v("api", api);
    v("model", model);
    v("input_len", input_len);
    v("output_len", output_len);
    v("dataset", dataset);
    v("seed", seed);
    v("slo", slo);
    v("timeout_s", timeout_s);
    v("http_client", http_client);
    v("server_flags", server_flags);
    v("server_command", server_command);
    v("runs", runs);
    v("interrupted", interrupted);
  }
};

}  // namespace dossier
