// Output tokens counted as tokens, not chunks: multi-token chunks (speculative decoding,
// llama.cpp's batching) against the stand-in server, with per-chunk usage, the final usage, the
// server's /tokenize, and nothing; and the definitions around them (arrivals, random lengths,
// vLLM's result file).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "measure/serve/latency_stats.h"
#include "measure/serve/load_generator.h"
#include "measure/serve/openai_protocol.h"
#include "measure/serve/random_dataset.h"
#include "measure/serve/result_block.h"
#include "measure/serve/serve_bench.h"
#include "measure/serve/vllm_result.h"
#include "standins/openai_standin.h"

namespace dossier::serve {
namespace {

using testing::Fault;
using testing::StandinConfig;
using testing::StandinServer;

struct CountingRun {
  ServeMeasurement m;
  std::vector<LoadOutcome> outcomes;
};

// 384 tokens in chunks of `per_chunk`, as in the report that found the bug (384 sent, 208
// counted): the server's own record says how many tokens it sent.
CountingRun RunAgainst(StandinConfig cfg, int64_t n = 3, int64_t out_len = 384,
                       bool tokenize = true) {
  cfg.ttft_ms = 5;
  cfg.itl_ms = 0.2;
  cfg.lifetime_s = 30;
  StandinServer server(cfg);
  EXPECT_TRUE(server.Start());
  BenchOptions o;
  o.endpoint = *ParseEndpoint(server.base_url());
  o.concurrency = {n};
  o.num_prompts = n;
  o.input_len = 10;
  o.output_len = out_len;
  o.timeout_s = 10;
  o.tokenize = tokenize;
  o.percentiles = {50, 99};
  CountingRun run;
  BenchHooks hooks;
  hooks.on_outcome = [&run](size_t, const LoadOutcome& x) { run.outcomes.push_back(x); };
  auto m = RunServeBench(o, hooks);
  EXPECT_TRUE(m) << m.error().message;
  if (m) run.m = *m;
  int64_t sent = 0;
  for (const auto& s : server.Served()) sent += s.tokens;
  EXPECT_EQ(sent, n * out_len) << "the stand-in did not send what was asked";
  return run;
}

TEST(TokenCounting, MultiTokenChunksWithOnlyFinalUsageCountTokens) {
  StandinConfig cfg;
  cfg.tokens_per_chunk = 3;
  CountingRun r = RunAgainst(cfg);
  ASSERT_EQ(r.m.runs.size(), 1u);
  const ServeRun& run = r.m.runs[0];
  EXPECT_EQ(run.output_tokens, 3 * 384);
  EXPECT_EQ(run.output_tokens_from, "usage");
  // 128 chunks of 3: ITL per chunk is over 127 gaps per request, TPOT over 383 tokens.
  ASSERT_EQ(r.outcomes.size(), 1u);
  for (const RequestResult& q : r.outcomes[0].results) EXPECT_EQ(q.token_ns.size(), 128u);
  double e2e_minus_ttft = 0;
  for (const RequestResult& q : r.outcomes[0].results) {
    e2e_minus_ttft += static_cast<double>(q.end_ns - q.first_token_ns) / 1e6 / 383.0 / 3.0;
  }
  EXPECT_NEAR(*run.tpot_ms.mean, e2e_minus_ttft, 1e-6);
  // No per-chunk counts and chunks != tokens: ITL per token is not known.
  EXPECT_FALSE(run.itl_per_token_ms.mean.known());
}

TEST(TokenCounting, PerChunkUsageGivesItlPerToken) {
  StandinConfig cfg;
  cfg.tokens_per_chunk = 4;
  cfg.continuous_usage = true;
  CountingRun r = RunAgainst(cfg);
  ASSERT_EQ(r.m.runs.size(), 1u);
  const ServeRun& run = r.m.runs[0];
  EXPECT_EQ(run.output_tokens, 3 * 384);
  EXPECT_EQ(run.output_tokens_from, "usage-per-chunk");
  ASSERT_TRUE(run.itl_per_token_ms.mean.known());
  // Each gap split over its chunk's 4 tokens: the mean per token is the mean per chunk / 4.
  EXPECT_NEAR(*run.itl_per_token_ms.mean, *run.itl_ms.mean / 4, 1e-6);
  std::string text = RenderResultBlocks(r.m);
  EXPECT_NE(text.find("Mean ITL per token (ms):"), std::string::npos) << text;
  EXPECT_NE(text.find("Output tokens counted by:                usage-per-chunk"),
            std::string::npos);
}

TEST(TokenCounting, NoUsageFallsBackToTheServersTokenizer) {
  StandinConfig cfg;
  cfg.tokens_per_chunk = 2;
  cfg.fault = Fault::kNoUsage;
  CountingRun r = RunAgainst(cfg);
  ASSERT_EQ(r.m.runs.size(), 1u);
  EXPECT_EQ(r.m.runs[0].output_tokens, 3 * 384);  // not 3 x 192 chunks
  EXPECT_EQ(r.m.runs[0].output_tokens_from, "tokenizer");
  EXPECT_TRUE(r.m.runs[0].tpot_ms.mean.known());
}

TEST(TokenCounting, NothingToCountWithSaysChunksNotTokens) {
  StandinConfig cfg;
  cfg.tokens_per_chunk = 2;
  cfg.fault = Fault::kNoUsage;
  cfg.tokenize_endpoint = false;
  CountingRun r = RunAgainst(cfg);
  ASSERT_EQ(r.m.runs.size(), 1u);
  const ServeRun& run = r.m.runs[0];
  EXPECT_EQ(run.output_tokens, 3 * 192);  // what it is: chunks
  EXPECT_EQ(run.output_tokens_from, "chunks");
  EXPECT_FALSE(run.tpot_ms.mean.known());
  std::string text = RenderResultBlocks(r.m);
  EXPECT_NE(text.find("Total generated chunks (not tokens):     576"), std::string::npos) << text;
  EXPECT_EQ(text.find("Total generated tokens:"), std::string::npos);
}

TEST(TokenCounting, TokenizeAnswersOfEachEngine) {
  EXPECT_EQ(*ParseTokenizeCount(R"({"count":5,"max_model_len":4096,"tokens":[1,2,3,4,5]})"), 5);
  EXPECT_EQ(*ParseTokenizeCount(R"({"tokens":[1,2,3]})"), 3);              // llama.cpp
  EXPECT_EQ(*ParseTokenizeCount(R"([{"id":1,"text":"a"},{"id":2}])"), 2);  // TGI
  EXPECT_FALSE(ParseTokenizeCount(R"({"error":"no"})"));
  EXPECT_FALSE(ParseTokenizeCount("not json"));
  EXPECT_FALSE(ParseTokenizeCount(R"({"count":-1})"));
}

TEST(Arrivals, GammaGapsRescaledSoTheLastArrivalIsAtNOverRate) {
  for (double b : {0.3, 1.0, 4.0}) {
    auto off = ArrivalOffsets(200, 50, b, 7);
    ASSERT_EQ(off.size(), 200u);
    EXPECT_NEAR(static_cast<double>(off.back()) / 1e9, 200.0 / 50, 1e-6) << b;
    EXPECT_TRUE(std::is_sorted(off.begin(), off.end()));
  }
  // Burstier gaps vary more: coefficient of variation ~ 1/sqrt(burstiness).
  auto cv = [](double b) {
    auto off = ArrivalOffsets(4000, 100, b, 11);
    std::vector<double> gaps;
    for (size_t i = 1; i < off.size(); ++i)
      gaps.push_back(static_cast<double>(off[i] - off[i - 1]));
    double mean = 0, sq = 0;
    for (double g : gaps) mean += g / static_cast<double>(gaps.size());
    for (double g : gaps) sq += (g - mean) * (g - mean) / static_cast<double>(gaps.size());
    return std::sqrt(sq) / mean;
  };
  EXPECT_NEAR(cv(1.0), 1.0, 0.1);
  EXPECT_NEAR(cv(0.25), 2.0, 0.3);
  EXPECT_NEAR(cv(4.0), 0.5, 0.08);
  auto inf = ArrivalOffsets(4, 2, INFINITY, 1);  // constant gaps of 1/rate
  EXPECT_EQ(inf, (std::vector<int64_t>{500000000, 1000000000, 1500000000, 2000000000}));
}

TEST(RandomLengths, VllmAndSglangRanges) {
  EXPECT_EQ(LengthRange(100, 0, RangeStyle::kVllm), (std::pair<int64_t, int64_t>{100, 100}));
  EXPECT_EQ(LengthRange(100, 0.5, RangeStyle::kVllm), (std::pair<int64_t, int64_t>{50, 150}));
  EXPECT_EQ(LengthRange(100, 0, RangeStyle::kSglang), (std::pair<int64_t, int64_t>{1, 100}));
  EXPECT_EQ(LengthRange(100, 0.5, RangeStyle::kSglang), (std::pair<int64_t, int64_t>{50, 100}));
  EXPECT_EQ(LengthRange(100, 1, RangeStyle::kSglang), (std::pair<int64_t, int64_t>{100, 100}));
  RandomSpec spec{100, 40, 0, RangeStyle::kSglang, 8};
  double in_sum = 0;
  std::set<std::string> prefixes;
  for (int i = 0; i < 400; ++i) {
    Prompt p = RandomPrompt(i, spec, 3);
    EXPECT_GE(p.input_tokens, 8 + 1);
    EXPECT_LE(p.input_tokens, 8 + 100);
    EXPECT_GE(p.output_tokens, 1);
    EXPECT_LE(p.output_tokens, 40);
    in_sum += static_cast<double>(p.input_tokens - 8);
    // One word per token: the text has as many words as the count says.
    EXPECT_EQ(std::count(p.text.begin(), p.text.end(), ' ') + 1, p.input_tokens);
    size_t cut = 0;
    for (int w = 0; w < 8; ++w) cut = p.text.find(' ', cut + 1);
    prefixes.insert(p.text.substr(0, cut));
  }
  EXPECT_EQ(prefixes.size(), 1u);      // the prefix is shared
  EXPECT_NEAR(in_sum / 400, 50.5, 5);  // SGLang's default: about half of L
  // Ratio 0 in vLLM's style is exactly L: the prompts of before.
  Prompt fixed = RandomPrompt(3, RandomSpec{20, 5, 0, RangeStyle::kVllm, 0}, 9);
  EXPECT_EQ(fixed.text, RandomPrompt(3, 20, 5, 9).text);
  EXPECT_EQ(fixed.input_tokens, 20);
}

TEST(LatencyStats, StdIsNumpysAndPercentilesAsAsked) {
  LatencyStats s = StatsOf({1, 2, 3, 4}, "none", {25, 99.9});
  EXPECT_NEAR(*s.stddev, std::sqrt(1.25), 1e-12);  // np.std: ddof 0
  ASSERT_EQ(s.selected.size(), 2u);
  EXPECT_NEAR(s.selected[0].second, 1.75, 1e-12);
  EXPECT_NEAR(*s.p95, 3.85, 1e-12);
}

TEST(VllmResult, FlatKeysAndDetailedArrays) {
  StandinConfig cfg;
  CountingRun r = RunAgainst(cfg, 2, 6);
  ASSERT_EQ(r.m.runs.size(), 1u);
  VllmResultContext ctx{"20260101-000000", 2, 1.0, false};
  auto j = VllmResultJson(r.m, r.m.runs[0], ctx, &r.outcomes[0]);
  for (const char* k : {"date",
                        "backend",
                        "model_id",
                        "num_prompts",
                        "request_rate",
                        "burstiness",
                        "max_concurrency",
                        "duration",
                        "completed",
                        "failed",
                        "total_input_tokens",
                        "total_output_tokens",
                        "request_throughput",
                        "request_goodput",
                        "output_throughput",
                        "total_token_throughput",
                        "max_output_tokens_per_s",
                        "max_concurrent_requests",
                        "mean_ttft_ms",
                        "median_ttft_ms",
                        "std_ttft_ms",
                        "p99_ttft_ms",
                        "p50_tpot_ms",
                        "mean_itl_ms",
                        "p99_e2el_ms",
                        "input_lens",
                        "output_lens",
                        "ttfts",
                        "itls",
                        "latencies",
                        "start_times",
                        "errors"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }
  EXPECT_EQ(j["backend"], "openai");
  EXPECT_EQ(j["request_rate"], "inf");
  EXPECT_EQ(j["max_concurrency"], 2);
  EXPECT_TRUE(j["request_goodput"].is_null());
  EXPECT_EQ(j["total_output_tokens"], 12);
  EXPECT_EQ(j["output_lens"], nlohmann::json::array({6, 6}));
  EXPECT_EQ(j["itls"][0].size(), 5u);
  EXPECT_FALSE(VllmResultJson(r.m, r.m.runs[0], ctx, nullptr).contains("itls"));
}

TEST(ParseSlo, VllmGoodputSpelling) {
  auto s = ParseSlo("ttft:500 tpot:50 e2el:2000");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s->ttft_ms, 500);
  EXPECT_EQ(*s->tpot_ms, 50);
  EXPECT_EQ(*s->e2e_ms, 2000);
  EXPECT_FALSE(ParseSlo("ttft:0"));
  EXPECT_FALSE(ParseSlo("queue:5"));
}

}  // namespace
}  // namespace dossier::serve
