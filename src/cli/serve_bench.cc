// dossier serve-bench URL: measure an OpenAI-compatible serving endpoint (closed-loop concurrency
// sweep or Poisson request rates), print the result blocks (or JSON), and append a serve-bench
// record to the dossier. Ctrl-C stops the run in progress; what was measured is still printed and
// stored. The API key is read from --api-key, $DOSSIER_API_KEY or $OPENAI_API_KEY and goes only
// into the Authorization header: never into output, logs or records.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>

#include "cli/parse.h"
#include "measure/serve/local_server.h"
#include "measure/serve/result_block.h"
#include "measure/serve/serve_bench.h"
#include "measure/serve/vllm_result.h"
#include "model/json_io.h"
#include "store/dossier_dir.h"
#include "store/output_file.h"
#include "util/redact.h"
#include "util/stop_signals.h"
#include "util/text.h"

namespace dossier::cli {
namespace {

Result<std::vector<int64_t>> ParseLevels(const std::string& text) {
  std::vector<int64_t> out;
  for (std::string_view w : SplitAny(text, ", ")) {
    auto v = ParseInt(w);
    if (!v || *v < 1 || *v > 100000) {
      return Error::Invalid("--concurrency: '" + Printable(w) +
                            "' is not a count from 1 to 100000");
    }
    out.push_back(*v);
  }
  if (out.empty()) return Error::Invalid("--concurrency: no level given");
  return out;
}

Result<std::vector<double>> ParseRates(const std::string& text) {
  std::vector<double> out;
  for (std::string_view w : SplitAny(text, ", ")) {
    if (w == "inf") {
      out.push_back(INFINITY);
      continue;
    }
    auto v = ParseDouble(w);
    // Bounded: a rate of 1e-300 puts the second arrival past the end of int64 nanoseconds.
    if (!v || !(*v >= 0.001 && *v <= 1e6)) {
      return Error::Invalid("--request-rate: '" + Printable(w) +
                            "' is not a rate from 0.001 to 1000000 requests/s, or 'inf'");
    }
    out.push_back(*v);
  }
  if (out.empty()) return Error::Invalid("--request-rate: no rate given");
  return out;
}

std::string ApiKeyFromEnv() {
  for (const char* name : {"DOSSIER_API_KEY", "OPENAI_API_KEY"}) {
    if (const char* v = std::getenv(name); v && *v) return v;
  }
  return "";
}

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || !name[0]) return "localhost";
  return name;
}

void PrintProgress(const std::string& run, const serve::LoadProgress& p) {
  bool tty = ::isatty(2);
  std::fprintf(stderr, "%s  %s: %lld done, %lld failed, %lld in flight, %.0f tok/s, %.0f s%s",
               tty ? "\r\033[K" : "", run.c_str(), static_cast<long long>(p.completed),
               static_cast<long long>(p.failed), static_cast<long long>(p.in_flight),
               p.output_events_per_s, p.elapsed_s, tty ? "" : "\n");
  std::fflush(stderr);
}

}  // namespace

namespace {

// The command line as given, before it is checked.
struct Flags {
  std::string url, api = "completions", model, api_key, levels, rates, dataset, slo, format;
  std::string dossier_dir = "dossier", machine, http_client = "auto";
  int64_t max_concurrency = 0, num_prompts = 0, input_len = 1024, output_len = 128;
  int64_t max_failures = -1;
  double duration = 0, timeout = 600, deadline = 3600;
  uint64_t seed = 0;
  bool no_store = false, quiet = false;
  std::string ttft_from = "first-content", range_style = "vllm";
  double range_ratio = 0, burstiness = 1;
  int64_t prefix_len = 0, num_warmups = 0;
  std::string percentile_metrics = "ttft,tpot,itl,e2el", metric_percentiles = "90,95,99";
  std::vector<std::string> goodput;
  std::string save_result;
  bool save_detailed = false, no_tokenize = false;
};

void Declare(CLI::App& app, Flags* f) {
  app.add_option("url", f->url, "server address, e.g. http://127.0.0.1:30000 (with or without /v1)")
      ->required()
      ->check(NonEmpty());
  app.add_option("--api", f->api, "completions (/v1/completions) or chat (/v1/chat/completions)")
      ->check(CLI::IsMember({"completions", "chat"}))
      ->capture_default_str();
  app.add_option("--model", f->model, "model name to request (default: the first of /v1/models)")
      ->check(NonEmpty());
  app.add_option("--api-key", f->api_key,
                 "API key sent as a Bearer token (prefer $DOSSIER_API_KEY or $OPENAI_API_KEY: "
                 "a command line is visible to other users)")
      ->check(NonEmpty());
  auto* c_opt = app.add_option("--concurrency", f->levels,
                               "closed loop: requests in flight, one run per level (e.g. 1,8,64; "
                               "default 1,8,64)");
  auto* r_opt = app.add_option("--request-rate", f->rates,
                               "open loop: Poisson arrivals at these rates (requests/s, or inf), "
                               "one run per rate");
  c_opt->excludes(r_opt)->check(NonEmpty());
  r_opt->check(NonEmpty());
  app.add_option("--max-concurrency", f->max_concurrency,
                 "open loop: cap on requests in flight (default none)");
  app.add_option("--num-prompts", f->num_prompts,
                 "requests per run (default 4 x concurrency, at least 8; at a rate, 10 s of "
                 "arrivals, at least 20)");
  app.add_option("--duration", f->duration, "per run: start no request after this many seconds");
  app.add_option("--input-len", f->input_len, "random dataset: prompt tokens")
      ->capture_default_str();
  app.add_option("--output-len", f->output_len,
                 "tokens to generate, exactly (ignore_eos, min_tokens); with --dataset, replaces "
                 "the answers' lengths")
      ->capture_default_str();
  app.add_option("--dataset", f->dataset, "ShareGPT-format JSON file (default: random prompts)")
      ->check(NonEmptyPath());
  app.add_option("--seed", f->seed, "seed for prompts and arrival times (run i uses seed + i)")
      ->capture_default_str();
  app.add_option("--slo", f->slo, "goodput objectives, e.g. ttft_ms=500,tpot_ms=50,e2e_ms=…")
      ->check(NonEmpty());
  app.add_option("--timeout,--request-timeout", f->timeout,
                 "per request, in seconds (0.001 to 86400): a request still streaming then fails")
      ->capture_default_str();
  app.add_option("--deadline", f->deadline,
                 "for the whole benchmark, in seconds: no request starts after it, and what was "
                 "measured by then is kept, marked interrupted")
      ->capture_default_str();
  app.add_option("--goodput", f->goodput,
                 "goodput objectives as vLLM spells them: ttft:MS tpot:MS e2el:MS (a request "
                 "counts when it meets all; TPOT of a one-token answer is 0)");
  app.add_option("--ttft-from", f->ttft_from,
                 "where TTFT starts and which events are chunks: first-content (SGLang: the "
                 "first event with generated text) or first-chunk (vLLM: the first event with a "
                 "non-empty choices array, a chat stream's role-only chunk included; empty "
                 "chunks add ITL gaps)")
      ->check(CLI::IsMember({"first-content", "first-chunk"}))
      ->capture_default_str();
  app.add_option("--random-range-ratio", f->range_ratio,
                 "random dataset: vary input and output lengths (see --random-range-style)")
      ->capture_default_str();
  app.add_option("--random-range-style", f->range_style,
                 "vllm: lengths uniform in [L(1-R), L(1+R)], R < 1; sglang: uniform in "
                 "[max(L R, 1), L] (SGLang's default R 0 gives [1, L], about half the tokens)")
      ->check(CLI::IsMember({"vllm", "sglang"}))
      ->capture_default_str();
  app.add_option("--random-prefix-len", f->prefix_len,
                 "random dataset: words shared by every prompt, before the random part (vLLM)")
      ->capture_default_str();
  app.add_option("--burstiness", f->burstiness,
                 "open loop: gamma shape of the arrival gaps (1 Poisson, < 1 burstier, > 1 "
                 "steadier); the last arrival is rescaled to N/rate as vLLM does")
      ->capture_default_str();
  app.add_option("--num-warmups", f->num_warmups,
                 "requests sent before the runs and not counted (SGLang sends 1, vLLM 0)")
      ->capture_default_str();
  app.add_option("--percentile-metrics", f->percentile_metrics,
                 "latency sections to print, from ttft,tpot,itl,e2el (vLLM's default: "
                 "ttft,tpot,itl)")
      ->capture_default_str();
  app.add_option("--metric-percentiles", f->metric_percentiles,
                 "percentiles printed and saved per metric (vLLM's default: 99)")
      ->capture_default_str();
  app.add_option("--save-result", f->save_result,
                 "also write vLLM's flat result JSON to FILE (one object per run, one per line)");
  app.add_flag("--save-detailed", f->save_detailed,
               "with --save-result: vLLM's per-request arrays (input_lens, output_lens, ttfts, "
               "itls, latencies, start_times, errors)");
  app.add_flag("--no-tokenize", f->no_tokenize,
               "do not ask the server's /tokenize to count output the server sent no usage for");
  app.add_option("--max-failures", f->max_failures,
                 "stop sending after this many failures in a row (default max(100, 2 x "
                 "concurrency); 0: never)");
  app.add_option("--format", f->format, "text (default) or json, on stdout")
      ->check(CLI::IsMember({"text", "json"}));
  app.add_option("--dossier", f->dossier_dir, "dossier directory to append to")
      ->check(NonEmptyPath())
      ->capture_default_str();
  app.add_option("--machine", f->machine, "machine name for the record (default: the hostname)")
      ->check(MachineName());
  app.add_option("--http-client", f->http_client,
                 "auto: native for plain http://, libcurl for https, credentials in the URL or a "
                 "proxy; native; curl")
      ->check(CLI::IsMember({"auto", "native", "curl"}))
      ->capture_default_str();
  app.add_flag("--no-store", f->no_store, "print only; write no record");
  app.add_flag("-q,--quiet", f->quiet, "no progress on stderr");
}

// The checked options; an error message says which flag is wrong.
Result<serve::BenchOptions> Check(const Flags& f, const CLI::App& app) {
  serve::BenchOptions o;
  auto endpoint = serve::ParseEndpoint(f.url);
  if (!endpoint) return endpoint.error();
  o.endpoint = *endpoint;
  o.api = f.api == "chat" ? serve::Api::kChat : serve::Api::kCompletions;
  o.model = f.model;
  o.api_key = !f.api_key.empty() ? f.api_key : ApiKeyFromEnv();
  if (!f.rates.empty()) {
    auto r = ParseRates(f.rates);
    if (!r) return r.error();
    o.request_rates = *r;
    if (f.max_concurrency < 0) return Error::Invalid("--max-concurrency must be positive");
    o.max_concurrency = f.max_concurrency;
  } else {
    auto l = ParseLevels(f.levels.empty() ? "1,8,64" : f.levels);
    if (!l) return l.error();
    o.concurrency = *l;
    if (f.max_concurrency != 0) return Error::Invalid("--max-concurrency goes with --request-rate");
  }
  if (f.num_prompts < 0 || (app.count("--num-prompts") && f.num_prompts == 0)) {
    return Error::Invalid("--num-prompts must be positive");
  }
  if (f.num_prompts > 0) o.num_prompts = f.num_prompts;
  if (f.input_len < 1 || f.input_len > 1000000) return Error::Invalid("--input-len: 1 to 1000000");
  if (f.output_len < 1 || f.output_len > 1000000) {
    return Error::Invalid("--output-len: 1 to 1000000");
  }
  // Written as "not within" so NaN fails too; inf and 1e-300 would overflow the clocks.
  if (!(f.timeout >= 0.001 && f.timeout <= 86400))
    return Error::Invalid("--timeout: 0.001 to 86400 seconds");
  if (!(f.duration >= 0 && f.duration <= 1e6)) return Error::Invalid("--duration: 0 to 1000000 s");
  if (!(f.deadline >= 0.001 && f.deadline <= 1e6))
    return Error::Invalid("--deadline: 0.001 to 1000000 seconds");
  o.deadline_s = f.deadline;
  o.duration_s = f.duration;
  o.input_len = f.input_len;
  o.output_len = f.output_len;
  o.output_len_given = app.count("--output-len") > 0;
  o.dataset_path = f.dataset;
  o.seed = f.seed;
  o.timeout_s = f.timeout;
  o.max_consecutive_failures = f.max_failures;
  auto transport = serve::ParseTransport(f.http_client);
  if (!transport) return transport.error();
  o.transport = *transport;
  const std::string url = o.endpoint.Url(serve::ApiPath(o.api));
  if (o.transport == serve::Transport::kNative) {
    if (std::string why = serve::WhyNotNative(url); !why.empty()) {
      return Error::Invalid("--http-client native cannot serve this endpoint: " + why +
                            "; use --http-client curl (or auto)");
    }
  }
  if (!f.slo.empty() && !f.goodput.empty()) {
    return Error::Invalid("give --goodput or --slo, not both");
  }
  std::string slo_text = f.slo;
  for (const std::string& g : f.goodput) slo_text += (slo_text.empty() ? "" : " ") + g;
  if (!slo_text.empty()) {
    auto slo = serve::ParseSlo(slo_text);
    if (!slo) return slo.error();
    o.slo = *slo;
    o.slo_text = slo_text;
  }
  o.ttft_from =
      f.ttft_from == "first-chunk" ? serve::TtftFrom::kFirstChunk : serve::TtftFrom::kFirstContent;
  o.range_style = f.range_style == "sglang" ? serve::RangeStyle::kSglang : serve::RangeStyle::kVllm;
  if (!(f.range_ratio >= 0) || f.range_ratio > 1 ||
      (o.range_style == serve::RangeStyle::kVllm && f.range_ratio >= 1)) {
    return Error::Invalid("--random-range-ratio: from 0 to below 1 (vllm style) or to 1 (sglang)");
  }
  o.range_ratio = f.range_ratio;
  if (f.prefix_len < 0 || f.prefix_len > 1000000) {
    return Error::Invalid("--random-prefix-len: 0 to 1000000");
  }
  o.prefix_len = f.prefix_len;
  if (!(f.burstiness > 0)) return Error::Invalid("--burstiness must be > 0 (1: Poisson)");
  o.burstiness = f.burstiness;
  if (f.num_warmups < 0 || f.num_warmups > 100000) {
    return Error::Invalid("--num-warmups: 0 to 100000");
  }
  o.num_warmups = f.num_warmups;
  o.tokenize = !f.no_tokenize;
  o.percentiles.clear();  // the flag's list replaces the default
  for (std::string_view w : SplitAny(f.metric_percentiles, ", ")) {
    auto p = ParseDouble(w);
    if (!p || !(*p > 0) || !(*p < 100)) {
      return Error::Invalid("--metric-percentiles: '" + Printable(w) +
                            "' is not a percentile above 0 and below 100");
    }
    o.percentiles.push_back(*p);
  }
  for (std::string_view w : SplitAny(f.percentile_metrics, ", ")) {
    if (w != "ttft" && w != "tpot" && w != "itl" && w != "e2el") {
      return Error::Invalid("--percentile-metrics: unknown metric '" + Printable(w) +
                            "' (known: ttft, tpot, itl, e2el)");
    }
  }
  if (f.save_detailed && f.save_result.empty()) {
    return Error::Invalid("--save-detailed goes with --save-result FILE");
  }
  return o;
}

// The server's flags when it runs here (see local_server.h: the hook for the servers probe).
void AddLocalServer(const serve::Endpoint& e, bool quiet, ServeMeasurement* m) {
  std::string why;
  if (auto s = serve::ServerOfEndpoint(RootFs("/"), e, &why)) {
    m->server_flags = s->flags;
    m->server_command = s->command;
  } else if (!why.empty() && !quiet) {
    std::fprintf(stderr, "%s\n", why.c_str());
  }
}

// Appends the serve-bench record; false when it could not be written.
bool Store(const Flags& f, const nlohmann::json& doc) {
  DossierDir dir(f.dossier_dir);
  std::string name = f.machine.empty() ? HostName() : f.machine;
  nlohmann::json record = {{"kind", "serve-bench"}, {"machine", name}, {"serve", doc}};
  auto path = dir.Append(std::move(record), name);
  if (!path) {
    std::fprintf(stderr, "dossier serve-bench: cannot write the record: %s\n",
                 path.error().message.c_str());
    return false;
  }
  if (!f.quiet) std::fprintf(stderr, "wrote %s\n", path->c_str());
  return true;
}

}  // namespace

int RunServeBench(const std::vector<std::string>& args) {
  CLI::App app(
      "Measure an OpenAI-compatible serving endpoint (SGLang, vLLM, TensorRT-LLM, TGI, llama.cpp) "
      "from one stream to a thousand: TTFT, ITL, TPOT, E2E latency and throughput, printed with "
      "vLLM's bench serve labels. Definitions (docs/serve-bench.md): TTFT = request sent to the "
      "first content event (--ttft-from first-chunk: vLLM's first chunk with choices); ITL = gap "
      "between chunks, and per token where the server gives per-chunk counts; TPOT = (E2E - "
      "TTFT) / (output tokens - 1), output tokens counted from per-chunk usage, the final usage, "
      "the server's /tokenize, else reported as chunks (not tokens) with no TPOT; E2E = request "
      "sent to the end of the stream. Stores a serve-bench record in the dossier.",
      "dossier serve-bench");
  Flags f;
  Declare(app, &f);
  if (int rc = Parse(app, args); rc >= 0) return rc;
  auto o = Check(f, app);
  if (!o) {
    std::fprintf(stderr, "dossier serve-bench: %s\n", o.error().message.c_str());
    return kExitUsage;
  }

  // The result file's directory is checked before the run: a path that cannot be written is bad
  // input, found before the server is bothered. The file itself is written at the end, atomically
  // and only once a request has completed, so a run that fails (a server that is down, an
  // interruption before any answer) leaves a FILE of an earlier run as it was.
  if (!f.save_result.empty()) {
    if (std::string why = OutputTargetProblem(f.save_result); !why.empty()) {
      std::fprintf(stderr, "dossier serve-bench: --save-result %s: %s\n", f.save_result.c_str(),
                   why.c_str());
      return kExitUsage;
    }
  }

  // Ctrl-C, SIGTERM and SIGHUP stop the runs; what was measured is printed and stored, marked
  // interrupted. Held until the function returns: a repeated signal (timeout and systemd signal
  // twice) must not end the process before the record is stored (util/stop_signals.h).
  StopSignals stop("dossier serve-bench");
  serve::BenchHooks hooks;
  hooks.stop = &StopSignals::flag();
  std::vector<serve::LoadOutcome> outcomes;  // for --save-detailed
  if (f.save_detailed) {
    hooks.on_outcome = [&outcomes](size_t run, const serve::LoadOutcome& outcome) {
      if (outcomes.size() <= run) outcomes.resize(run + 1);
      outcomes[run] = outcome;
    };
  }
  if (!f.quiet) {
    hooks.progress = PrintProgress;
    hooks.log = [](const std::string& s) {
      if (::isatty(2)) std::fprintf(stderr, "\r\033[K");
      std::fprintf(stderr, "%s\n", s.c_str());
    };
    std::fprintf(stderr, "serve-bench %s\n", o->endpoint.RedactedUrl("").c_str());
  }
  auto result = serve::RunServeBench(*o, hooks);
  if (!f.quiet && ::isatty(2)) std::fprintf(stderr, "\r\033[K");
  if (!result) {
    std::fprintf(stderr, "dossier serve-bench: %s\n", result.error().message.c_str());
    // Options or a dataset that cannot be used are bad input; a server that does not answer is a
    // failed run.
    Error::Kind k = result.error().kind;
    return k == Error::kInvalid || k == Error::kNotFound ? kExitUsage : kExitFailure;
  }
  ServeMeasurement& m = *result;
  AddLocalServer(o->endpoint, f.quiet, &m);

  nlohmann::json doc = ServeToJson(m);
  if (f.format == "json") {
    std::printf("%s\n", DumpJson(doc, 2).c_str());
  } else {
    serve::BlockOptions block;
    block.metrics.clear();
    for (std::string_view w : SplitAny(f.percentile_metrics, ", ")) block.metrics.emplace_back(w);
    std::string text = serve::RenderResultBlocks(m, block);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  std::fflush(stdout);

  int rc = kExitOk;
  // A file of runs where no request completed would replace an earlier file with nothing: the
  // command fails then (exit 1) and FILE is left as it was. Runs that failed beside one that
  // measured are written, as vLLM writes them.
  const bool measured =
      std::any_of(m.runs.begin(), m.runs.end(), [](const ServeRun& r) { return r.completed > 0; });
  if (!f.save_result.empty() && !measured) {
    std::fprintf(stderr, "dossier serve-bench: no request completed: %s left as it was\n",
                 f.save_result.c_str());
  } else if (!f.save_result.empty()) {
    char date[32] = {};
    std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    std::strftime(date, sizeof date, "%Y%m%d-%H%M%S", &local);
    std::string lines;
    for (size_t i = 0; i < m.runs.size(); ++i) {
      const ServeRun& r = m.runs[i];
      serve::VllmResultContext ctx;
      ctx.date = date;
      ctx.num_prompts = o->num_prompts.value_or(serve::DefaultNumPrompts(
          r.concurrency.known() ? *r.concurrency : o->max_concurrency,
          r.request_rate.known() ? *r.request_rate : (o->request_rates.empty() ? 0 : INFINITY)));
      ctx.burstiness = o->burstiness;
      ctx.goodput_given = o->slo.any();
      const serve::LoadOutcome* detail = i < outcomes.size() ? &outcomes[i] : nullptr;
      lines += serve::VllmResultJson(m, r, ctx, detail).dump() + "\n";
    }
    if (auto s = WriteOutputFile(f.save_result, lines); !s) {
      std::fprintf(stderr, "dossier serve-bench: --save-result: %s\n", s.error().message.c_str());
      rc = kExitFailure;
    } else if (!f.quiet) {
      std::fprintf(stderr, "wrote %s (vLLM's result format)\n", f.save_result.c_str());
    }
  }
  if (!f.no_store && !Store(f, doc)) rc = kExitFailure;
  for (const ServeRun& r : m.runs) {
    if (r.completed == 0) rc = kExitFailure;  // a run with nothing measured
  }
  if (m.interrupted || m.runs.empty()) rc = kExitFailure;
  return rc;
}

}  // namespace dossier::cli
