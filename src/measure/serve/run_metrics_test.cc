#include "measure/serve/run_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

#include "measure/serve/latency_stats.h"

namespace dossier::serve {
namespace {

constexpr int64_t kMs = 1000000;

TEST(Percentile, LinearInterpolationLikeNumpy) {
  std::vector<double> v = {1, 2, 3, 4, 10};
  EXPECT_DOUBLE_EQ(Percentile(v, 50), 3);
  EXPECT_DOUBLE_EQ(Percentile(v, 90), 7.6);   // numpy.percentile([1,2,3,4,10], 90)
  EXPECT_DOUBLE_EQ(Percentile(v, 99), 9.76);  // numpy.percentile([1,2,3,4,10], 99)
  EXPECT_DOUBLE_EQ(Percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(Percentile(v, 100), 10);
  EXPECT_DOUBLE_EQ(Percentile({5}, 99), 5);
  EXPECT_TRUE(std::isnan(Percentile({}, 50)));
}

TEST(StatsOf, UnknownWithReasonWhenEmpty) {
  auto s = StatsOf({}, "no completed request");
  EXPECT_FALSE(s.mean.known());
  EXPECT_EQ(s.p99.unknown, "no completed request");
  auto t = StatsOf({4, 1, 3, 2}, "");
  EXPECT_DOUBLE_EQ(*t.mean, 2.5);
  EXPECT_DOUBLE_EQ(*t.median, 2.5);
  EXPECT_DOUBLE_EQ(*t.max, 4);
}

TEST(ParseSlo, KeysAndErrors) {
  auto s = ParseSlo("ttft_ms=500,tpot_ms=50");
  ASSERT_TRUE(s);
  EXPECT_EQ(*s->ttft_ms, 500);
  EXPECT_EQ(*s->tpot_ms, 50);
  EXPECT_FALSE(s->e2e_ms);
  EXPECT_TRUE(ParseSlo("e2e_ms=1000"));
  EXPECT_FALSE(ParseSlo("ttft_ms=abc"));
  EXPECT_FALSE(ParseSlo("ttft_ms=-1"));
  EXPECT_FALSE(ParseSlo("latency=5"));
  EXPECT_FALSE(ParseSlo("ttft_ms"));
  EXPECT_FALSE(ParseSlo(""));
}

// A request sent at `start` ms whose tokens arrived at the given ms.
RequestResult Ok(int64_t start, std::vector<int64_t> tokens_ms, int64_t end,
                 int64_t usage_out = -1) {
  RequestResult r;
  r.ok = true;
  r.start_ns = start * kMs;
  for (int64_t t : tokens_ms) r.token_ns.push_back(t * kMs);
  r.first_token_ns = r.token_ns.front();
  r.end_ns = end * kMs;
  r.usage_completion_tokens = usage_out;
  r.usage_prompt_tokens = usage_out >= 0 ? 100 : -1;
  r.prompt_tokens_estimate = 90;
  return r;
}

RequestResult Failed(const std::string& why) {
  RequestResult r;
  r.failure = why;
  return r;
}

TEST(Summarize, DefinitionsOfTheFieldNotes) {
  LoadOutcome o;
  o.start_ns = 0;
  o.end_ns = 2000 * kMs;
  // TTFT 100, tokens every 10 ms, ends at 140: E2E 140, TPOT (140-100)/(5-1) = 10.
  o.results.push_back(Ok(0, {100, 110, 120, 130, 140}, 140, 5));
  // TTFT 200, gaps 20, 40: TPOT (300-200)/2 = 50.
  o.results.push_back(Ok(0, {200, 220, 260}, 300, 3));
  o.results.push_back(Failed("HTTP 500: boom"));
  o.results.push_back(Failed("HTTP 500: boom"));
  o.results.push_back(Failed("connection refused"));
  RequestResult cancelled = Failed("cancelled when the run ended");
  cancelled.cancelled = true;
  o.results.push_back(cancelled);
  Slo slo;
  slo.ttft_ms = 150;
  ServeRun r = Summarize(o, slo);
  EXPECT_EQ(r.completed, 2);
  EXPECT_EQ(r.failed, 3);
  EXPECT_EQ(r.cancelled, 1);
  EXPECT_EQ(r.failures["HTTP 500: boom"], 2);
  EXPECT_EQ(r.failures["connection refused"], 1);
  EXPECT_DOUBLE_EQ(r.duration_s, 2.0);
  EXPECT_EQ(r.output_tokens, 8);
  // Input: the dataset's count (90 each, no template), as SGLang counts; the server's beside it.
  EXPECT_EQ(r.input_tokens, 180);
  EXPECT_EQ(*r.input_tokens_server, 200);
  EXPECT_EQ(r.output_tokens_from, "usage");
  EXPECT_EQ(r.output_counted_by["usage"], 2);
  EXPECT_EQ(r.input_tokens_from, "dataset");
  EXPECT_DOUBLE_EQ(r.request_throughput, 1.0);
  EXPECT_DOUBLE_EQ(r.output_tokens_per_s, 4.0);
  EXPECT_DOUBLE_EQ(r.total_tokens_per_s, 94.0);
  // vLLM's peaks: both requests in flight from 0 ms; all 8 tokens in the first second.
  EXPECT_EQ(r.peak_concurrent_requests, 2);
  EXPECT_DOUBLE_EQ(r.peak_output_tokens_per_s, 8);
  // SGLang's Concurrency: (140 + 300) ms of requests over 2 s.
  EXPECT_DOUBLE_EQ(*r.mean_concurrency, 0.22);
  EXPECT_DOUBLE_EQ(*r.ttft_ms.stddev, 50);  // TTFTs 100, 200: np.std
  // Every chunk one token by the usage counts: ITL per token is ITL per chunk.
  EXPECT_DOUBLE_EQ(*r.itl_per_token_ms.mean, *r.itl_ms.mean);
  EXPECT_DOUBLE_EQ(*r.ttft_ms.mean, 150);
  EXPECT_DOUBLE_EQ(*r.e2e_ms.max, 300);
  EXPECT_DOUBLE_EQ(*r.tpot_ms.mean, 30);
  // ITL pooled: 10,10,10,10,20,40.
  EXPECT_DOUBLE_EQ(*r.itl_ms.mean, 100.0 / 6);
  EXPECT_DOUBLE_EQ(*r.itl_ms.median, 10);
  EXPECT_DOUBLE_EQ(*r.itl_ms.max, 40);
  EXPECT_DOUBLE_EQ(*r.goodput, 0.5);  // one of two meets TTFT <= 150 ms, over 2 s
}

// Issue 26: with multi-token chunks the peak was counted in chunks (100.00) while the mean was
// counted in tokens (194.83), so the peak read lower than the mean. Both now count tokens.
TEST(Summarize, PeakCountsTheSameTokensAsTheMean) {
  LoadOutcome o;
  o.end_ns = 1600 * kMs;
  // 20 tokens by the final usage over 5 chunks: 4 a chunk, four chunks in the first second.
  o.results.push_back(Ok(0, {100, 200, 300, 400, 1500}, 1600, 20));
  ServeRun r = Summarize(o, {});
  EXPECT_DOUBLE_EQ(r.output_tokens_per_s, 12.5);
  EXPECT_DOUBLE_EQ(r.peak_output_tokens_per_s, 16);  // was 4: chunks, not tokens
  EXPECT_GE(r.peak_output_tokens_per_s, r.output_tokens_per_s);

  // Uneven: 7 tokens over 3 chunks are 3, 2, 2 (the earlier chunks take the remainder).
  LoadOutcome u;
  u.end_ns = 2500 * kMs;
  u.results.push_back(Ok(0, {100, 1100, 2100}, 2500, 7));
  EXPECT_DOUBLE_EQ(Summarize(u, {}).peak_output_tokens_per_s, 3);

  // Per-chunk usage counts are used as they are: 1, 5, 2 -> buckets 6 and 2.
  LoadOutcome c;
  c.end_ns = 1500 * kMs;
  RequestResult pc = Ok(0, {100, 900, 1200}, 1500, 8);
  pc.chunk_usage = {1, 6, 8};
  c.results.push_back(pc);
  EXPECT_DOUBLE_EQ(Summarize(c, {}).peak_output_tokens_per_s, 6);

  // Counted by chunks (no usage, no tokenizer): one per chunk, as the mean.
  LoadOutcome k;
  k.end_ns = 1000 * kMs;
  k.results.push_back(Ok(0, {10, 20, 30}, 30));
  ServeRun kr = Summarize(k, {});
  EXPECT_DOUBLE_EQ(kr.peak_output_tokens_per_s, 3);
  EXPECT_DOUBLE_EQ(kr.output_tokens_per_s, 3);
}

TEST(Summarize, TokensCountedFromChunksWithoutUsage) {
  LoadOutcome o;
  o.end_ns = 1000 * kMs;
  o.results.push_back(Ok(0, {10, 20, 30}, 30));
  ServeRun r = Summarize(o, {});
  EXPECT_EQ(r.output_tokens, 3);
  EXPECT_EQ(r.output_tokens_from, "chunks");
  EXPECT_EQ(r.input_tokens, 90);
  EXPECT_EQ(r.input_tokens_from, "dataset");
  EXPECT_FALSE(r.goodput.known());
  EXPECT_EQ(r.goodput.unknown, "no --goodput given");
  // Chunks are not tokens: no TPOT, and the reason says so.
  EXPECT_FALSE(r.tpot_ms.mean.known());
  EXPECT_EQ(r.tpot_ms.mean.unknown, "output counted in chunks (not tokens): no TPOT");
  EXPECT_FALSE(r.itl_per_token_ms.mean.known());
  o.results.push_back(Ok(0, {10, 20}, 20, 2));
  EXPECT_EQ(Summarize(o, {}).output_tokens_from, "mixed");
}

TEST(Summarize, NothingCompleted) {
  LoadOutcome o;
  o.results.push_back(Failed("connection refused"));
  ServeRun r = Summarize(o, {});
  EXPECT_EQ(r.completed, 0);
  EXPECT_FALSE(r.ttft_ms.median.known());
  EXPECT_EQ(r.output_tokens_from, "");
}

TEST(Summarize, DistinctReasonsAreBounded) {
  LoadOutcome o;
  for (int i = 0; i < 100; ++i)
    o.results.push_back(Failed("HTTP 500: request " + std::to_string(i)));
  ServeRun r = Summarize(o, {});
  EXPECT_EQ(r.failures.size(), kMaxFailureReasons + 1);
  EXPECT_EQ(r.failures[kOtherReasons], 100 - static_cast<int64_t>(kMaxFailureReasons));
  EXPECT_EQ(r.failed, 100);
}

}  // namespace
}  // namespace dossier::serve
