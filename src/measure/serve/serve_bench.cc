#include "measure/serve/serve_bench.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "fs/root_fs.h"
#include "measure/serve/random_dataset.h"
#include "measure/serve/sharegpt_dataset.h"
#include "measure/serve/stream_client.h"
#include "store/dossier_dir.h"

namespace dossier::serve {
namespace {

constexpr double kModelsTimeoutS = 30;

std::string RunLabel(int64_t concurrency, double rate) {
  if (rate > 0) {
    if (std::isinf(rate)) return "rate=inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "rate=%g", rate);
    return buf;
  }
  return "c=" + std::to_string(concurrency);
}

// The secrets this run sends: the API key and the URL's credentials, in every form a server
// could echo them (util/redact.h).
EchoRedactor EchoFor(const BenchOptions& o) {
  EchoRedactor r;
  r.AddSecret(o.api_key);
  if (!o.endpoint.user.empty() || !o.endpoint.password.empty())
    r.AddUrlCredentials(o.endpoint.user, o.endpoint.password);
  return r;
}

Result<std::string> ResolveModel(const BenchOptions& o, const EchoRedactor& echo) {
  if (!o.model.empty()) return o.model;
  auto body = HttpGet(o.endpoint.Url("/v1/models"), o.api_key, kModelsTimeoutS);
  if (!body) {
    return Error::Io("cannot ask " + o.endpoint.RedactedUrl("/v1/models") +
                     " for the model: " + echo.Redact(body.error().message) + " (or pass --model)");
  }
  auto ids = ParseModelList(echo.Redact(*body));
  if (!ids) return Error::Io(ids.error().message + " (pass --model)");
  return ids->front();
}

LoadItem Item(const BenchOptions& o, const std::string& model, const Prompt& p) {
  RequestParams rp{model, p.text, p.output_tokens, p.exact_output};
  return {BuildRequestBody(o.api, rp), p.input_tokens};
}

// Each run gets its own prompts (seed + run): the server's prefix cache must not carry one run's
// prompts into the next. Random prompts are made as they are sent; ShareGPT ones are reshuffled.
ItemSource ItemsForRun(const BenchOptions& o, const std::string& model,
                       const std::vector<Prompt>& sharegpt, uint64_t run_seed) {
  if (o.dataset_path.empty()) {
    return [&o, model, run_seed](int64_t k) {
      RandomSpec spec{o.input_len, o.output_len, o.range_ratio, o.range_style, o.prefix_len};
      return Item(o, model, RandomPrompt(k, spec, run_seed));
    };
  }
  std::vector<Prompt> prompts = sharegpt;
  std::mt19937_64 rng(run_seed);
  std::shuffle(prompts.begin(), prompts.end(), rng);
  std::vector<LoadItem> built;
  for (const Prompt& p : prompts) built.push_back(Item(o, model, p));
  return Cycle(std::move(built));
}

LoadSpec SpecForRun(const BenchOptions& o, size_t run, int64_t concurrency, double rate,
                    int64_t n) {
  LoadSpec spec;
  spec.url = o.endpoint.Url(ApiPath(o.api));
  spec.client.api_key = o.api_key;
  spec.client.timeout_s = o.timeout_s;
  spec.client.transport = o.transport;
  spec.client.request_id_prefix = "dossier-" + std::to_string(run) + "-";
  spec.client.max_connections = std::max<int64_t>(concurrency > 0 ? concurrency : n, 16);
  spec.concurrency = concurrency;
  spec.request_rate = rate;
  spec.num_prompts = n;
  spec.duration_s = o.duration_s;
  spec.seed = o.seed + run;
  spec.burstiness = o.burstiness;
  spec.ttft_from = o.ttft_from;
  spec.max_consecutive_failures = o.max_consecutive_failures >= 0
                                      ? o.max_consecutive_failures
                                      : std::max<int64_t>(100, 2 * concurrency);
  return spec;
}

// Warm-up requests (as SGLang sends one before measuring): the first prompts of the first run's
// dataset, at most 64 in flight, not counted. Error: every one of them failed (the runs would too).
Status WarmUp(const BenchOptions& o, const std::string& model, const std::vector<Prompt>& sharegpt,
              const BenchHooks& hooks) {
  ItemSource items = ItemsForRun(o, model, sharegpt, o.seed ^ 0x7761726dull);
  int64_t c = std::min<int64_t>(o.num_warmups, 64);
  LoadSpec spec = SpecForRun(o, 0, c, 0, o.num_warmups);
  spec.client.request_id_prefix = "dossier-warmup-";
  spec.max_consecutive_failures = 0;
  auto outcome = RunLoad(spec, items, nullptr, hooks.stop);
  if (!outcome) return outcome.error();
  std::string failure;
  for (const RequestResult& r : outcome->results) {
    if (r.ok) return OkStatus();
    if (failure.empty()) failure = r.failure;
  }
  if (outcome->interrupted) return OkStatus();
  return Error::Io("every warm-up request failed: " + failure);
}

}  // namespace

std::string CountWithServerTokenizer(const BenchOptions& o, const std::string& model,
                                     std::vector<RequestResult>* results) {
  const char* paths[] = {"/tokenize", "/v1/tokenize"};
  int path = -1;  // the one that answered, once one has
  for (RequestResult& r : *results) {
    if (!r.ok || r.counted_by() != RequestResult::Count::kChunks) continue;
    std::string body = BuildTokenizeBody(model, r.text);
    Result<int64_t> count = Error::Io("not asked");
    for (int i = path < 0 ? 0 : path; i < (path < 0 ? 2 : path + 1); ++i) {
      auto answer = HttpPost(o.endpoint.Url(paths[i]), o.api_key, body, kModelsTimeoutS);
      if (!answer) {
        count = answer.error();
        continue;
      }
      count = ParseTokenizeCount(*answer);
      if (count) {
        path = i;
        break;
      }
    }
    if (!count) {
      return "the server's tokenizer could not count the output (" + count.error().message +
             "): output counted in chunks (not tokens)";
    }
    r.tokenized_tokens = *count;
    std::string().swap(r.text);
  }
  return "";
}

int64_t DefaultNumPrompts(int64_t concurrency, double rate) {
  if (rate > 0) {
    if (std::isinf(rate)) return std::max<int64_t>(100, concurrency);
    return std::clamp<int64_t>(static_cast<int64_t>(std::ceil(rate * 10)), 20, 10000);
  }
  return std::max<int64_t>(8, 4 * concurrency);
}

Result<ServeMeasurement> RunServeBench(const BenchOptions& o, const BenchHooks& hooks) {
  auto log = [&](const std::string& s) {
    if (hooks.log) hooks.log(s);
  };
  const bool open_loop = !o.request_rates.empty();
  if (open_loop == !o.concurrency.empty()) {
    return Error::Invalid("give either concurrency levels or request rates");
  }
  // One run per level or rate: (concurrency, rate) pairs.
  std::vector<std::pair<int64_t, double>> plan;
  if (open_loop) {
    for (double r : o.request_rates) plan.emplace_back(o.max_concurrency, r);
  } else {
    for (int64_t c : o.concurrency) plan.emplace_back(c, 0.0);
  }
  int64_t most_prompts = 0, most_in_flight = 0;
  for (auto [c, r] : plan) {
    most_prompts = std::max(most_prompts, o.num_prompts.value_or(DefaultNumPrompts(c, r)));
    most_in_flight = std::max(most_in_flight, c > 0 ? c : most_prompts);
  }

  ServeMeasurement m;
  m.time = NowIso8601();
  m.boot_id = RootFs("/").ReadValue("/proc/sys/kernel/random/boot_id").value_or("");
  m.hostname = RootFs("/").ReadValue("/proc/sys/kernel/hostname").value_or("");
  m.endpoint = o.endpoint.RedactedUrl(ApiPath(o.api));
  m.http_client =
      std::string(TransportName(ChooseTransport(o.transport, o.endpoint.Url(ApiPath(o.api)))));
  m.api = std::string(ApiName(o.api));
  m.seed = o.seed;
  m.slo = o.slo_text;
  m.timeout_s = o.timeout_s;

  // The dataset first: a bad file is a usage error, found before the server is bothered.
  std::vector<Prompt> sharegpt;
  if (!o.dataset_path.empty()) {
    ShareGptStats st;
    auto loaded =
        LoadShareGpt(o.dataset_path, most_prompts, o.seed,
                     o.output_len_given ? std::optional(o.output_len) : std::nullopt, &st);
    if (!loaded) return loaded.error();
    sharegpt = std::move(*loaded);
    log("dataset " + o.dataset_path + ": " + std::to_string(st.conversations) + " conversations, " +
        std::to_string(st.eligible) + " usable, " + std::to_string(sharegpt.size()) + " sampled");
    m.dataset = o.dataset_path;
    m.output_len = o.output_len_given ? o.output_len : 0;
  } else {
    m.dataset = "random";
    m.input_len = o.input_len;
    m.output_len = o.output_len;
  }

  const EchoRedactor echo = EchoFor(o);
  auto model = ResolveModel(o, echo);
  if (!model) return model.error();
  m.model = *model;

  if (o.num_warmups > 0) {
    log("warm-up: " + std::to_string(o.num_warmups) + " requests, not counted");
    if (auto w = WarmUp(o, m.model, sharegpt, hooks); !w) return w.error();
  }

  int64_t limit = RaiseFileLimit(most_in_flight + 256);
  if (limit < most_in_flight + 64) {
    log("warning: the open-file limit (" + std::to_string(limit) + ") is below " +
        std::to_string(most_in_flight) + " connections; raise it with 'ulimit -n'");
  }

  const auto started = std::chrono::steady_clock::now();
  for (size_t i = 0; i < plan.size(); ++i) {
    if (hooks.stop && hooks.stop->load()) {
      m.interrupted = true;  // stopped before this run started (a signal during the last one)
      break;
    }
    double left = o.deadline_s -
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (left <= 0) {
      log("the --deadline of " + std::to_string(static_cast<int64_t>(o.deadline_s)) +
          " s has passed; the remaining runs are not started");
      m.interrupted = true;
      break;
    }
    auto [c, rate] = plan[i];
    int64_t n = o.num_prompts.value_or(DefaultNumPrompts(c, rate));
    ItemSource items = ItemsForRun(o, m.model, sharegpt, o.seed + i);
    LoadSpec spec = SpecForRun(o, i, c, rate, n);
    spec.echo = &echo;
    // The overall deadline bounds this run: no request starts after it, none waits past it.
    spec.duration_s = spec.duration_s > 0 ? std::min(spec.duration_s, left) : left;
    spec.client.timeout_s = std::min(spec.client.timeout_s, std::max(left, 0.001));
    std::string label = RunLabel(c, rate);
    log("run " + label + ": " + std::to_string(n) + " requests");
    auto outcome = RunLoad(
        spec, items,
        [&](const LoadProgress& p) {
          if (hooks.progress) hooks.progress(label, p);
        },
        hooks.stop);
    if (!outcome) return Error{outcome.error().kind, echo.Redact(outcome.error().message)};
    if (o.tokenize) {
      std::string note = CountWithServerTokenizer(o, m.model, &outcome->results);
      if (!note.empty()) log(note);
    }
    if (hooks.on_outcome) hooks.on_outcome(i, *outcome);
    ServeRun run = Summarize(*outcome, o.slo, o.percentiles);
    run.ttft_from = o.ttft_from == TtftFrom::kFirstChunk ? "first-chunk" : "first-content";
    if (open_loop) {
      if (std::isinf(rate)) {
        run.request_rate.Unknown("inf (all requests sent at once)");  // JSON has no infinity
      } else {
        run.request_rate.Set(rate, "");
      }
      if (c > 0) run.max_concurrency.Set(c, "");
    } else {
      run.concurrency.Set(c, "");
    }
    m.runs.push_back(std::move(run));
    if (std::chrono::steady_clock::now() - started >= std::chrono::duration<double>(o.deadline_s)) {
      log("the --deadline has passed during run " + label + "; it stopped sending there");
      m.interrupted = true;
      break;
    }
    if (outcome->interrupted) {
      m.interrupted = true;
      break;
    }
  }
  // A stop that came while a run was being summarized, or before the first run started.
  if (hooks.stop && hooks.stop->load()) m.interrupted = true;
  return m;
}

}  // namespace dossier::serve
