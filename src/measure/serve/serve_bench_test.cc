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
#include "util/text.h"

namespace dossier::serve {
namespace {

using testing::Fault;
using testing::StandinConfig;
using testing::StandinServer;

// No test here bounds a time from above: a loaded machine (a CI runner under a CPU quota) may
// hold the client's thread off the CPU for any time. What holds however late the client runs is
// checked: counts, order, causality (no token seen before the server wrote it), and that the
// reported statistics are those of the recorded requests. How close the client's timings come
// to the server's is measured in bench/serve_client_bench.cc.
double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / static_cast<double>(v.size());
}

double Max(const std::vector<double>& v) {
  return v.empty() ? NAN : *std::max_element(v.begin(), v.end());
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

// A scenario run once: it returns "" when it could go on to its end, else why not.
void Check(const std::function<std::string()>& scenario) {
  std::string why = scenario();
  if (!why.empty()) ADD_FAILURE() << why;
}

// The client's figures against what the server did, request by request (matched by
// X-Request-Id) on the same steady clock: every request the client completed, the server
// completed, with as many tokens; the client's TTFT and E2E hold the server's (request read ->
// first / last token written); each token arrives after the server wrote it, in order. And the
// run's statistics are those of these requests: means and maxima recomputed here from the
// per-request times. Returns what kept the check from running ("" when it ran).
std::string TimingMismatch(const ServeRun& r, const StandinServer& server, size_t run = 0) {
  std::string why;
  if (run >= g_outcomes.size()) return "no outcome recorded";
  std::map<std::string, testing::ServedRequest> served;
  for (auto& s : server.Served()) served[s.request_id] = s;
  std::vector<double> ttft, e2e, itl, tpot;
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
    ttft.push_back(client_ttft);
    e2e.push_back(client_e2e);
    for (size_t i = 0; i < c.token_ns.size(); ++i) {
      EXPECT_GE(c.token_ns[i], s.token_sent_ns[i]) << id << " token " << i;
      if (i == 0) continue;
      EXPECT_GE(c.token_ns[i], c.token_ns[i - 1]) << id << " token " << i;
      itl.push_back(static_cast<double>(c.token_ns[i] - c.token_ns[i - 1]) / 1e6);
    }
    if (c.token_ns.size() > 1) {
      tpot.push_back((client_e2e - client_ttft) / static_cast<double>(c.token_ns.size() - 1));
    }
  }
  EXPECT_EQ(static_cast<int64_t>(ttft.size()), r.completed);
  EXPECT_TRUE(r.ttft_ms.median.known());
  if (ttft.empty()) return why;
  EXPECT_NEAR(*r.ttft_ms.mean, Mean(ttft), 1e-6);
  EXPECT_NEAR(*r.ttft_ms.max, Max(ttft), 1e-6);
  EXPECT_NEAR(*r.e2e_ms.mean, Mean(e2e), 1e-6);
  EXPECT_NEAR(*r.e2e_ms.max, Max(e2e), 1e-6);
  if (!itl.empty()) {
    EXPECT_NEAR(*r.itl_ms.mean, Mean(itl), 1e-6);
    EXPECT_NEAR(*r.itl_ms.max, Max(itl), 1e-6);
    EXPECT_NEAR(*r.tpot_ms.mean, Mean(tpot), 1e-6);
    EXPECT_NEAR(*r.tpot_ms.max, Max(tpot), 1e-6);
  }
  return why;
}

TEST_P(ServeBenchStandin, ClosedLoopSweepOnCompletions) {
  Check([]() -> std::string {
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
    // One stream at a time: each request starts after the previous one ended. Four at a time:
    // the first four all start before any of them ends.
    if (g_outcomes.size() != 2u) return "no outcomes recorded";
    auto by_index = [](const LoadOutcome& o) {
      std::vector<RequestResult> v = o.results;
      std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
      return v;
    };
    auto one = by_index(g_outcomes[0]), four = by_index(g_outcomes[1]);
    for (size_t k = 1; k < one.size(); ++k) EXPECT_GE(one[k].start_ns, one[k - 1].end_ns) << k;
    if (four.size() < 4u) return "fewer than 4 requests at concurrency 4";
    int64_t first_end = INT64_MAX;
    for (const auto& q : four) first_end = std::min(first_end, q.end_ns);
    for (size_t k = 0; k < 4; ++k) EXPECT_LT(four[k].start_ns, first_end) << k;
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
  Check([]() -> std::string {
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
  Check([]() -> std::string {
    // Gaps of 8 ms; how close each stamp comes to the write is measured in the benchmark.
    StandinServer server(Cfg(10, 8));
    Started(server);
    LoadSpec spec;
    spec.url = server.base_url() + "/v1/completions";
    spec.client.transport = g_transport;  // the instance's transport, not the default
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
    size_t matched = 0;
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
      EXPECT_EQ(r.first_token_ns, r.token_ns[0]);
      for (size_t i = 0; i < r.token_ns.size(); ++i) {
        EXPECT_GE(r.token_ns[i], s.token_sent_ns[i]);  // no token arrives before it was sent
        if (i > 0) {
          EXPECT_GE(r.token_ns[i], r.token_ns[i - 1]);
        }
        ++matched;
      }
      EXPECT_LE(r.token_ns.back(), r.end_ns);
    }
    EXPECT_EQ(matched, 32u * 8u);  // every token of every request, matched
    return "";
  });
}

// The progress line's rate is over the last interval, not since the start: the rates times
// their intervals add up to the content events seen by the last call, however late the client
// runs (mutants.py seed 1206: with the interval's start never moved, the rates summed to a
// fraction of the events). One request at a time, 40 tokens 12 ms apart: three calls or more.
TEST_P(ServeBenchStandin, ProgressRateIsOverTheLastInterval) {
  StandinServer server(Cfg(1, 12));
  Started(server);
  LoadSpec spec;
  spec.url = server.base_url() + "/v1/completions";
  spec.client.transport = GetParam();  // the instance's transport, not the default
  spec.concurrency = 1;
  spec.num_prompts = 5;
  std::vector<LoadItem> items;
  for (const auto& p : RandomPrompts(1, 10, 40, 3))
    items.push_back({BuildRequestBody(Api::kCompletions, {"standin-model", p.text, 40, true}), 10});
  std::vector<LoadProgress> calls;
  auto out = RunLoad(
      spec, Cycle(items), [&](const LoadProgress& p) { calls.push_back(p); }, nullptr);
  ASSERT_TRUE(out) << out.error().message;
  ASSERT_GE(calls.size(), 2u);  // 5 x 40 x 12 ms of server time alone is 2.4 s
  double events = 0, before = 0;
  for (const auto& c : calls) {
    EXPECT_GE(c.output_events_per_s, 0);
    events += c.output_events_per_s * (c.elapsed_s - before);
    before = c.elapsed_s;
  }
  const LoadProgress& last = calls.back();
  // Each completed request's 40 tokens were seen; an unfinished one's at most 40 more.
  EXPECT_GE(events, static_cast<double>(last.completed) * 40 - 0.5) << calls.size();
  EXPECT_LE(events, static_cast<double>(last.completed + last.in_flight) * 40 + 0.5);
  EXPECT_GT(events, 0);
}

TEST_P(ServeBenchStandin, OpenLoopPacesRequestsAtTheRate) {
  Check([]() -> std::string {
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
    // Requests go out in index order, paced: 20 arrivals of a Poisson process at 100/s span
    // 19 gaps of 10 ms on average, so the last leaves well after the first (a lower bound, which
    // no load on the machine can break; the seeded draw puts it near 190 ms).
    if (g_outcomes.size() != 1u) return "no outcome recorded";
    std::vector<RequestResult> sent = g_outcomes[0].results;
    std::sort(sent.begin(), sent.end(),
              [](const auto& a, const auto& b) { return a.index < b.index; });
    if (sent.size() != 20u) return "expected 20 requests";
    for (size_t k = 1; k < sent.size(); ++k) EXPECT_GE(sent[k].start_ns, sent[k - 1].start_ns) << k;
    EXPECT_GE(sent.back().start_ns - sent.front().start_ns, 50 * 1000000);
    // Not sent in lockstep: an open loop does not wait for answers (at 5 ms + 4 x 1 ms each,
    // closed-loop sending would be strictly sequential; here some overlap).
    bool overlap = false;
    for (size_t k = 1; k < sent.size(); ++k) overlap |= sent[k].start_ns < sent[k - 1].end_ns;
    EXPECT_TRUE(overlap);
    return why;
  });
}

TEST_P(ServeBenchStandin, OpenLoopCapOnRequestsInFlight) {
  StandinServer server(Cfg(5, 1));
  Started(server);
  LoadSpec spec;
  spec.url = server.base_url() + "/v1/completions";
  spec.client.transport = GetParam();  // the instance's transport, not the default
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
    Check([&c]() -> std::string {
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
  // The block says what was measured: the endpoint and the model, each on its line.
  auto value_of = [&text](const std::string& label) {
    size_t at = text.find("\n" + label);
    if (at == std::string::npos) return std::string("(no line)");
    size_t end = text.find('\n', at + 1);
    return std::string(Trim(text.substr(at + 1 + label.size(), end - at - 1 - label.size())));
  };
  EXPECT_EQ(value_of("Endpoint:"), m.endpoint) << text;
  EXPECT_EQ(value_of("Model:"), m.model) << text;
  EXPECT_FALSE(m.model.empty());
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
  ServeMeasurement m = Bench(o);
  ASSERT_EQ(g_outcomes.size(), 1u);
  // The deadline fired: far fewer requests than asked for, none sent after it, none failed.
  EXPECT_GT(m.runs[0].completed, 0);
  EXPECT_LT(m.runs[0].completed + m.runs[0].failed + m.runs[0].cancelled, 100000);
  for (const auto& q : g_outcomes[0].results)
    EXPECT_LT(q.start_ns - g_outcomes[0].start_ns, 200 * 1000000) << q.index;
  EXPECT_EQ(m.runs[0].failed, 0);
}

TEST_P(ServeBenchStandin, StopFlagEndsWithWhatWasMeasured) {
  Check([]() -> std::string {
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
