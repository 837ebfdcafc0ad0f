// serve-bench against the stand-in server (tests/standins/): the figures measured must be what the
// server did, for the closed-loop sweep, the open-loop rate, both endpoints, and every fault.
#include "measure/serve/serve_bench.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "measure/serve/random_dataset.h"
#include "measure/serve/result_block.h"
#include "model/json_io.h"
#include "standins/openai_standin.h"

namespace dossier::serve {
namespace {

using testing::Fault;
using testing::StandinConfig;
using testing::StandinServer;

// How far the client's timings may trail the server's. A client cannot time bytes better than its
// thread gets scheduled, so the tolerance is 5 ms plus three times how late this process wakes
// from a 1 ms sleep right now (about 0.1 ms on a quiet machine, milliseconds on a CI machine
// running two test processes under ASan beside other builds). The benchmark
// (bench/serve_client_bench.cc) measures the real error.
double SchedulingNoiseMs() {
  std::vector<double> late;
  for (int i = 0; i < 15; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    late.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() -
        1.0);
  }
  std::sort(late.begin(), late.end());
  return std::max(0.0, late[late.size() / 2]);
}

const double kTolMs = 5 + 3 * SchedulingNoiseMs();

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

// How GoogleTest prints the parameter in test names and failures.
void PrintTo(Transport t, std::ostream* os) {
  *os << TransportName(t);
}

namespace {

// Every test runs with both HTTP clients (stream_client.h): what serve-bench measures and how it
// names failures must not depend on the transport.
Transport g_transport = Transport::kAuto;

class ServeBenchStandin : public ::testing::TestWithParam<Transport> {
 protected:
  void SetUp() override { g_transport = GetParam(); }
};

BenchOptions Options(const StandinServer& s, std::vector<int64_t> levels, int64_t n,
                     int64_t out_len) {
  BenchOptions o;
  o.transport = g_transport;
  o.endpoint = *ParseEndpoint(s.base_url());
  o.concurrency = std::move(levels);
  o.num_prompts = n;
  o.input_len = 20;
  o.output_len = out_len;
  o.timeout_s = 5;
  return o;
}

// The requests of each run of the last Bench(), for matching with the server's records.
std::vector<LoadOutcome> g_outcomes;

BenchHooks Recording() {
  g_outcomes.clear();
  BenchHooks h;
  h.on_outcome = [](size_t, const LoadOutcome& o) { g_outcomes.push_back(o); };
  return h;
}

ServeMeasurement Bench(const BenchOptions& o) {
  auto m = RunServeBench(o, Recording());
  EXPECT_TRUE(m) << m.error().message;
  return m ? *m : ServeMeasurement{};
}

StandinConfig Cfg(double ttft_ms, double itl_ms, Fault fault = Fault::kNone,
                  int64_t fault_every = 1) {
  StandinConfig c;
  c.ttft_ms = ttft_ms;
  c.itl_ms = itl_ms;
  c.fault = fault;
  c.fault_every = fault_every;
  c.lifetime_s = 20;
  return c;
}

StandinServer& Started(StandinServer& s) {
  auto st = s.Start();
  EXPECT_TRUE(st) << st.error().message;
  return s;
}

// Appends "what: got vs limit" to *why when got >= limit.
void Within(std::string* why, const char* what, double got, double limit) {
  if (got < limit) return;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s: %.3f ms, limit %.3f ms; ", what, got, limit);
  *why += buf;
}

// A timing scenario run up to three times: it returns "" when the timings matched, else what
// did not. A CI machine busy with other work can hold the client's thread off the CPU for
// milliseconds, which is the machine's doing, not the client's; a client that times tokens
// wrongly fails all three attempts. Exact checks (counts, order, causality) fail at once.
void WithRetries(const std::function<std::string()>& attempt) {
  std::string why;
  for (int i = 0; i < 3; ++i) {
    why = attempt();
    if (why.empty() || ::testing::Test::HasFatalFailure()) return;
  }
  ADD_FAILURE() << "timings did not match the server's in three attempts: " << why;
}

// The client's figures against what the server did, request by request (matched by
// X-Request-Id) on the same steady clock: the client's TTFT and E2E hold the server's (request
// read -> first / last token written) and exceed them by little; each gap between tokens is the
// server's gap, give or take a little. Medians of the differences, so one request delayed by a
// busy machine does not decide. Returns what did not match ("" when all did).
std::string TimingMismatch(const ServeRun& r, const StandinServer& server, size_t run = 0) {
  std::string why;
  if (run >= g_outcomes.size()) return "no outcome recorded";
  std::map<std::string, testing::ServedRequest> served;
  for (auto& s : server.Served()) served[s.request_id] = s;
  std::vector<double> ttft_diff, e2e_diff, itl_diff, server_itl;
  for (const RequestResult& c : g_outcomes[run].results) {
    if (!c.ok) continue;
    std::string id = "dossier-" + std::to_string(run) + "-" + std::to_string(c.index);
    if (!served.count(id) || !served[id].completed) {
      ADD_FAILURE() << id << ": the server has no completed request of that id";
      continue;
    }
    const testing::ServedRequest& s = served[id];
    if (c.token_ns.size() != s.token_sent_ns.size()) {
      ADD_FAILURE() << id << ": " << c.token_ns.size() << " tokens seen, " << s.token_sent_ns.size()
                    << " sent";
      continue;
    }
    double client_ttft = static_cast<double>(c.first_token_ns - c.start_ns) / 1e6;
    double server_ttft = static_cast<double>(s.token_sent_ns.front() - s.received_ns) / 1e6;
    double client_e2e = static_cast<double>(c.end_ns - c.start_ns) / 1e6;
    double server_e2e = static_cast<double>(s.token_sent_ns.back() - s.received_ns) / 1e6;
    EXPECT_GE(client_ttft, server_ttft) << id;  // no load excuses these
    EXPECT_GE(client_e2e, server_e2e) << id;
    ttft_diff.push_back(client_ttft - server_ttft);
    e2e_diff.push_back(client_e2e - server_e2e);
    for (size_t i = 1; i < c.token_ns.size(); ++i) {
      double gap = static_cast<double>(s.token_sent_ns[i] - s.token_sent_ns[i - 1]) / 1e6;
      server_itl.push_back(gap);
      itl_diff.push_back(
          std::abs(static_cast<double>(c.token_ns[i] - c.token_ns[i - 1]) / 1e6 - gap));
    }
  }
  EXPECT_EQ(static_cast<int64_t>(ttft_diff.size()), r.completed);
  EXPECT_TRUE(r.ttft_ms.median.known());
  if (ttft_diff.empty()) return why;
  Within(&why, "median TTFT excess", Median(ttft_diff), kTolMs);
  Within(&why, "median E2E excess", Median(e2e_diff), kTolMs);
  if (!itl_diff.empty()) {
    Within(&why, "median ITL error", Median(itl_diff), kTolMs);
    // And the reported statistics are those of these requests.
    double mean_itl = 0;
    for (double v : server_itl) mean_itl += v / static_cast<double>(server_itl.size());
    Within(&why, "mean ITL error", std::abs(*r.itl_ms.mean - mean_itl), kTolMs / 2);
    Within(&why, "mean TPOT error", std::abs(*r.tpot_ms.mean - mean_itl), kTolMs / 2);
  }
  return why;
}

TEST_P(ServeBenchStandin, ClosedLoopSweepOnCompletions) {
  WithRetries([]() -> std::string {
    StandinServer server(Cfg(15, 3));
    Started(server);
    BenchOptions o = Options(server, {1, 4}, 0, 10);
    o.num_prompts.reset();  // the default: 4 per stream, at least 8
    ServeMeasurement m = Bench(o);
    std::string why;
    EXPECT_EQ(m.model, "standin-model");  // from /v1/models
    EXPECT_EQ(m.api, "completions");
    if (m.runs.size() != 2u) return "expected 2 runs";
    for (size_t i = 0; i < 2; ++i) {
      SCOPED_TRACE("run " + std::to_string(i));
      const ServeRun& r = m.runs[i];
      EXPECT_EQ(*r.concurrency, i == 0 ? 1 : 4);
      EXPECT_FALSE(r.request_rate.known());
      const int64_t n = i == 0 ? 8 : 16;
      EXPECT_EQ(r.completed, n);
      EXPECT_EQ(r.failed, 0);
      EXPECT_TRUE(r.failures.empty());
      EXPECT_EQ(r.output_tokens, 10 * n);
      EXPECT_EQ(r.output_tokens_from, "usage");
      EXPECT_EQ(r.input_tokens, 20 * n);  // the dataset's 20 words of each prompt
      EXPECT_EQ(r.input_tokens_from, "dataset");
      EXPECT_EQ(*r.input_tokens_server, 20 * n);  // and the server counted the same
      why += TimingMismatch(r, server, i);
      EXPECT_NEAR(r.output_tokens_per_s, 10.0 * static_cast<double>(n) / r.duration_s, 1e-6);
    }
    // Four streams at a time serve about four times the requests per second of one.
    EXPECT_GT(m.runs[1].request_throughput, 2.5 * m.runs[0].request_throughput);
    // The server was asked for exactly 10 tokens, ignoring EOS, with usage in the stream.
    auto served = server.Served();
    EXPECT_EQ(served.size(), 24u);
    auto body = nlohmann::json::parse(served.at(0).body);
    EXPECT_EQ(body["max_tokens"], 10);
    EXPECT_EQ(body["min_tokens"], 10);
    EXPECT_EQ(body["ignore_eos"], true);
    EXPECT_EQ(body["stream_options"]["include_usage"], true);
    return why;
  });
}

TEST_P(ServeBenchStandin, ChatTtftFromFirstChunkCountsTheEarlyRoleChunk) {
  // The stand-in sends the role-only chunk as soon as it reads the request and the first content
  // 30 ms later: vLLM's definition (first-chunk) starts TTFT at the role chunk and adds it as a
  // chunk; dossier's and SGLang's (first-content) at the content.
  StandinServer server(Cfg(30, 2));
  Started(server);
  BenchOptions o = Options(server, {2}, 4, 5);
  o.api = Api::kChat;
  o.percentiles = {99};
  ServeMeasurement content = Bench(o);
  o.ttft_from = TtftFrom::kFirstChunk;
  ServeMeasurement chunk = Bench(o);
  ASSERT_EQ(content.runs.size(), 1u);
  ASSERT_EQ(chunk.runs.size(), 1u);
  EXPECT_EQ(content.runs[0].ttft_from, "first-content");
  EXPECT_EQ(chunk.runs[0].ttft_from, "first-chunk");
  EXPECT_GE(*content.runs[0].ttft_ms.median, 30.0);  // no earlier than the server's content
  EXPECT_LT(*chunk.runs[0].ttft_ms.median, *content.runs[0].ttft_ms.median);
  // 5 content chunks + the role chunk: 5 gaps per request in first-chunk mode, 4 otherwise.
  ASSERT_EQ(g_outcomes.size(), 1u);
  for (const RequestResult& r : g_outcomes[0].results) EXPECT_EQ(r.token_ns.size(), 6u);
  EXPECT_EQ(chunk.runs[0].output_tokens, 20);  // the usage count does not change
}

TEST_P(ServeBenchStandin, ChatEndpointSkipsTheRoleChunk) {
  WithRetries([]() -> std::string {
    StandinServer server(Cfg(12, 2));
    Started(server);
    BenchOptions o = Options(server, {3}, 12, 8);
    o.api = Api::kChat;
    ServeMeasurement m = Bench(o);
    if (m.runs.size() != 1u) return "expected 1 run";
    const ServeRun& r = m.runs[0];
    EXPECT_EQ(r.completed, 12);
    EXPECT_EQ(r.output_tokens, 96);
    EXPECT_EQ(server.Served().at(0).path, "/v1/chat/completions");
    // A TTFT shorter than the server's would mean the role chunk was counted as a token.
    return TimingMismatch(r, server);
  });
}

// Per request and per token, the client's clock against the server's (the same steady clock).
TEST_P(ServeBenchStandin, EachTokenIsTimedWhenItArrives) {
  WithRetries([]() -> std::string {
    // Gaps longer than the tolerance, so a client that stamped tokens late or all at once fails.
    StandinServer server(Cfg(10, 8));
    Started(server);
    LoadSpec spec;
    spec.url = server.base_url() + "/v1/completions";
    spec.concurrency = 8;
    spec.num_prompts = 32;  // most on kept-alive connections, as in a long run
    std::vector<LoadItem> items;
    for (const auto& p : RandomPrompts(4, 10, 8, 1)) {
      items.push_back(
          {BuildRequestBody(Api::kCompletions, {"standin-model", p.text, 8, true}), 10});
    }
    auto out = RunLoad(spec, Cycle(items), {}, nullptr);
    if (!out) return out.error().message;
    std::map<std::string, testing::ServedRequest> by_id;
    for (auto& s : server.Served()) by_id[s.request_id] = s;
    std::vector<double> delivery, ttft_error, itl_error;
    for (const auto& r : out->results) {
      EXPECT_TRUE(r.ok) << r.failure;
      const auto& s = by_id.at("dossier-" + std::to_string(r.index));  // RunLoad's default prefix
      if (s.token_sent_ns.size() != r.token_ns.size() || r.token_ns.empty()) {
        ADD_FAILURE() << "request " << r.index << ": token counts differ";
        continue;
      }
      double server_ttft = static_cast<double>(s.token_sent_ns[0] - s.received_ns) / 1e6;
      double client_ttft = static_cast<double>(r.first_token_ns - r.start_ns) / 1e6;
      EXPECT_GE(client_ttft, server_ttft);  // the client's interval holds the server's
      ttft_error.push_back(client_ttft - server_ttft);
      for (size_t i = 0; i < r.token_ns.size(); ++i) {
        EXPECT_GE(r.token_ns[i], s.token_sent_ns[i]);  // no token arrives before it was sent
        delivery.push_back(static_cast<double>(r.token_ns[i] - s.token_sent_ns[i]) / 1e6);
        if (i > 0) {
          itl_error.push_back(
              std::abs(static_cast<double>((r.token_ns[i] - r.token_ns[i - 1]) -
                                           (s.token_sent_ns[i] - s.token_sent_ns[i - 1])) /
                       1e6));
        }
      }
    }
    std::string why;
    Within(&why, "median delivery", Median(delivery), kTolMs);
    // TTFT also holds connecting and sending the request.
    Within(&why, "median TTFT excess", Median(ttft_error), 2 * kTolMs);
    Within(&why, "median ITL error", Median(itl_error), kTolMs);
    return why;
  });
}

TEST_P(ServeBenchStandin, OpenLoopSendsAtThePoissonTimes) {
  WithRetries([]() -> std::string {
    StandinServer server(Cfg(5, 1));
    Started(server);
    BenchOptions o = Options(server, {}, 20, 5);
    o.concurrency.clear();
    o.request_rates = {100};
    o.seed = 5;
    ServeMeasurement m = Bench(o);
    if (m.runs.size() != 1u) return "expected 1 run";
    const ServeRun& r = m.runs[0];
    EXPECT_EQ(*r.request_rate, 100);
    EXPECT_FALSE(r.concurrency.known());
    EXPECT_EQ(r.completed, 20);
    std::string why = TimingMismatch(r, server);
    // Each request went out at its seeded Poisson offset (run 0 uses seed + 0): never early, and
    // late by little (the loop sleeps with a nanosecond timeout until the next arrival).
    auto offsets = PoissonOffsets(20, 100, 5);
    if (g_outcomes.size() != 1u) return "no outcome recorded";
    std::vector<double> late;
    for (const RequestResult& q : g_outcomes[0].results) {
      double sent = static_cast<double>(q.start_ns - g_outcomes[0].start_ns) / 1e6;
      double due = static_cast<double>(offsets[static_cast<size_t>(q.index)]) / 1e6;
      EXPECT_GE(sent, due) << "request " << q.index;
      late.push_back(sent - due);
    }
    Within(&why, "median lateness of sending", Median(late), kTolMs);
    // The offsets are those of a Poisson process at 100/s: 20 arrivals span about 0.19 s.
    EXPECT_GT(offsets.back(), 50 * 1000000);
    EXPECT_LT(offsets.back(), 600 * 1000000);
    return why;
  });
}

TEST_P(ServeBenchStandin, OpenLoopCapOnRequestsInFlight) {
  StandinServer server(Cfg(5, 1));
  Started(server);
  LoadSpec spec;
  spec.url = server.base_url() + "/v1/completions";
  spec.request_rate = INFINITY;
  spec.concurrency = 2;
  spec.num_prompts = 8;
  std::vector<LoadItem> items = {
      {BuildRequestBody(Api::kCompletions, {"standin-model", "the of", 4, true}), 2}};
  auto out = RunLoad(spec, Cycle(items), {}, nullptr);
  ASSERT_TRUE(out);
  ASSERT_EQ(out->results.size(), 8u);
  for (const auto& a : out->results) {
    int overlapping = 0;
    for (const auto& b : out->results)
      overlapping += b.start_ns <= a.start_ns && a.start_ns < b.end_ns;
    EXPECT_LE(overlapping, 2);
  }
}

struct FaultCase {
  Fault fault;
  std::string reason;
};

TEST_P(ServeBenchStandin, EveryFaultIsCountedWithItsReasonAndTheRunGoesOn) {
  const std::vector<FaultCase> cases = {
      {Fault::kHttp500,
       R"(HTTP 500: {"error":{"message":"stand-in fault: internal error","type":"InternalServerError","code":500}})"},
      {Fault::kCutStream, "stream cut: connection closed before the end"},
      {Fault::kBadJson, "malformed JSON in an event"},
      {Fault::kStall, "timeout: no token within 0.2 s"},
      {Fault::kErrorEvent, "server error in the stream: stand-in fault: out of memory"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.reason);
    WithRetries([&c]() -> std::string {
      StandinServer server(Cfg(5, 1, c.fault, 2));
      Started(server);
      BenchOptions o = Options(server, {4}, 24, 6);
      o.timeout_s = 0.2;
      o.model = "standin-model";
      ServeMeasurement m = Bench(o);
      if (m.runs.size() != 1u) return "expected 1 run";
      const ServeRun& r = m.runs[0];
      EXPECT_EQ(r.completed, 12);
      EXPECT_EQ(r.failed, 12);
      EXPECT_EQ(r.failures.size(), 1u);
      if (r.failures.empty()) return "no failure counted";
      EXPECT_EQ(r.failures.begin()->first, c.reason);
      EXPECT_EQ(r.failures.begin()->second, 12);
      EXPECT_EQ(r.output_tokens, 72);  // the good half, in full
      EXPECT_LT(r.duration_s, 2.0);
      return TimingMismatch(r, server);
    });
  }
}

TEST_P(ServeBenchStandin, MissingUsageAndNoTokenizerCountsChunksAndGivesNoTpot) {
  StandinConfig cfg = Cfg(5, 1, Fault::kNoUsage);
  cfg.tokenize_endpoint = false;
  StandinServer server(cfg);
  Started(server);
  ServeMeasurement m = Bench(Options(server, {2}, 4, 7));
  const ServeRun& r = m.runs[0];
  EXPECT_EQ(r.completed, 4);
  EXPECT_EQ(r.output_tokens, 28);
  EXPECT_EQ(r.output_tokens_from, "chunks");
  EXPECT_FALSE(r.tpot_ms.mean.known());  // chunks are not tokens
  EXPECT_NE(r.tpot_ms.mean.unknown.find("chunks (not tokens)"), std::string::npos);
  EXPECT_EQ(r.input_tokens, 80);  // the dataset's count: 20 words each
  EXPECT_EQ(r.input_tokens_from, "dataset");
  EXPECT_FALSE(r.input_tokens_server.known());
  std::string text = RenderResultBlocks(m);
  EXPECT_NE(text.find("Total generated chunks (not tokens):     28"), std::string::npos) << text;
}

TEST_P(ServeBenchStandin, ConnectionRefused) {
  BenchOptions o;
  o.transport = g_transport;
  o.endpoint = *ParseEndpoint("http://127.0.0.1:" + std::to_string(testing::ClosedPort()));
  o.concurrency = {2};
  o.num_prompts = 6;
  o.input_len = 5;
  o.output_len = 5;
  o.model = "m";
  ServeMeasurement m = Bench(o);
  ASSERT_EQ(m.runs.size(), 1u);
  EXPECT_EQ(m.runs[0].completed, 0);
  EXPECT_EQ(m.runs[0].failed, 6);
  EXPECT_EQ(m.runs[0].failures["connection refused"], 6);
  EXPECT_FALSE(m.runs[0].ttft_ms.median.known());
  // Without --model, the model question fails with a clear error instead.
  o.model.clear();
  auto e = RunServeBench(o, {});
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().kind, Error::kIo);
  EXPECT_NE(e.error().message.find("/v1/models"), std::string::npos);
}

TEST_P(ServeBenchStandin, StopsSendingAfterFailuresInARow) {
  BenchOptions o;
  o.transport = g_transport;
  o.endpoint = *ParseEndpoint("http://127.0.0.1:" + std::to_string(testing::ClosedPort()));
  o.concurrency = {1};
  o.num_prompts = 500;
  o.model = "m";
  o.input_len = o.output_len = 3;
  o.max_consecutive_failures = 5;
  ServeMeasurement m = Bench(o);
  EXPECT_EQ(m.runs[0].failed, 5);
  EXPECT_NE(m.runs[0].stopped_early.find("5 failures in a row (last: connection refused)"),
            std::string::npos);
}

TEST_P(ServeBenchStandin, DurationBoundsTheRun) {
  StandinServer server(Cfg(2, 1));
  Started(server);
  BenchOptions o = Options(server, {2}, 100000, 5);
  o.duration_s = 0.2;
  auto t0 = std::chrono::steady_clock::now();
  ServeMeasurement m = Bench(o);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(wall, 1.5);
  EXPECT_GT(m.runs[0].completed, 5);
  EXPECT_LT(m.runs[0].completed, 100000);
  EXPECT_EQ(m.runs[0].failed, 0);
}

TEST_P(ServeBenchStandin, StopFlagEndsWithWhatWasMeasured) {
  WithRetries([]() -> std::string {
    StandinServer server(Cfg(2, 2));
    Started(server);
    BenchOptions o = Options(server, {2, 4}, 100000, 10);
    std::atomic<bool> stop{false};
    BenchHooks hooks = Recording();
    std::thread ctrl_c([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      stop = true;
    });
    hooks.stop = &stop;
    auto m = RunServeBench(o, hooks);
    ctrl_c.join();
    if (!m) return m.error().message;
    EXPECT_TRUE(m->interrupted);
    if (m->runs.size() != 1u) return "expected 1 run";  // the second level never started
    EXPECT_GT(m->runs[0].completed, 0);
    EXPECT_EQ(m->runs[0].failed, 0);  // cancelled requests are not failures
    EXPECT_LE(m->runs[0].cancelled, 2);
    return TimingMismatch(m->runs[0], server);
  });
}

TEST_P(ServeBenchStandin, ApiKeyIsSentButNeverStoredOrPrinted) {
  const std::string key = "sk-test-0123456789abcdef";
  StandinConfig cfg = Cfg(2, 1);
  cfg.api_key = key;
  StandinServer server(cfg);
  Started(server);
  BenchOptions o = Options(server, {2}, 4, 3);
  o.api_key = key;
  o.slo = *ParseSlo("ttft_ms=1000");
  o.slo_text = "ttft_ms=1000";
  ServeMeasurement m = Bench(o);
  EXPECT_EQ(m.runs[0].completed, 4);
  EXPECT_NEAR(*m.runs[0].goodput, m.runs[0].request_throughput, 1e-9);
  for (const auto& s : server.Served()) EXPECT_EQ(s.authorization, "Bearer " + key);
  EXPECT_EQ(ServeToJson(m).dump().find(key), std::string::npos);
  EXPECT_EQ(RenderResultBlocks(m).find(key), std::string::npos);
  // A wrong key: every request fails with the server's 401.
  o.api_key = "wrong";
  o.model = "standin-model";
  ServeMeasurement bad = Bench(o);
  EXPECT_EQ(bad.runs[0].failures[R"(HTTP 401: {"error":{"message":"invalid API key"}})"], 4);
}

TEST_P(ServeBenchStandin, ResultBlockLooksLikeVllm) {
  StandinServer server(Cfg(2, 1, Fault::kHttp500, 2));
  Started(server);
  ServeMeasurement m = Bench(Options(server, {1}, 2, 3));
  std::string text = RenderResultBlocks(m);
  // vLLM's labels in vLLM's order, each number alone after its label.
  size_t at = 0;
  for (const char* line : {"============ Serving Benchmark Result ============\n",
                           "Successful requests:                     1 ",
                           "Failed requests:                         1 ",
                           "Maximum request concurrency:             1 ",
                           "Benchmark duration (s):",
                           "Total input tokens:                      20 ",
                           "Total generated tokens:                  3 ",
                           "Request throughput (req/s):",
                           "Output token throughput (tok/s):",
                           "Peak output token throughput (tok/s):",
                           "Peak concurrent requests:                1.00 ",
                           "Total token throughput (tok/s):",
                           "---------------Time to First Token----------------\n",
                           "Mean TTFT (ms):",
                           "Median TTFT (ms):",
                           "Std TTFT (ms):",
                           "P90 TTFT (ms):",
                           "P95 TTFT (ms):",
                           "P99 TTFT (ms):",
                           "-----Time per Output Token (excl. 1st token)------\n",
                           "Mean TPOT (ms):",
                           "---------------Inter-token Latency----------------\n",
                           "P99 ITL (ms):",
                           "----------------End-to-end Latency----------------\n",
                           "Mean E2EL (ms):",
                           "Concurrency:",
                           "Output tokens counted by:                usage",
                           "       1  HTTP 500: "}) {
    size_t found = text.find(line, at);
    EXPECT_NE(found, std::string::npos) << line << "\n" << text;
    if (found != std::string::npos) at = found;
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, ServeBenchStandin,
                         ::testing::Values(Transport::kNative, Transport::kCurl),
                         [](const ::testing::TestParamInfo<Transport>& i) {
                           return std::string(TransportName(i.param));
                         });

}  // namespace
}  // namespace dossier::serve
