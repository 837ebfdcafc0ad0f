// `dossier serve-bench` as a user runs it, against the stand-in server (tests/standins/) whose
// timing is set: every metric of a run checked against what follows from the server's settings
// (time to first token, gap between tokens, tokens per answer) and from the run's own counts,
// never from the product's functions. Timing is only ever checked from below (a client cannot
// see a token before the server wrote it); how close it comes is measured in bench/, because a
// loaded machine may hold the client off the CPU for any time.
//
// Then serve.below-target with targets written as users write them (`dossier note target`), for
// each comparison, at the boundary and on both sides of it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "front_door.h"
#include "standins/openai_standin.h"
#include "util/text.h"

namespace dossier::servefrontdoor {
namespace {

using nlohmann::json;
using testing::FindingIn;
using testing::FixtureTree;
using testing::RunDossier;
using testing::TempDir;

// The server's settings, and what the run asks for.
constexpr double kTtftMs = 20, kItlMs = 5;
constexpr int kOutLen = 6, kInLen = 16, kPrompts = 6, kConcurrency = 2;

testing::StandinConfig Settings() {
  testing::StandinConfig c;
  c.ttft_ms = kTtftMs;
  c.itl_ms = kItlMs;
  c.lifetime_s = 60;
  return c;
}

json Bench(const testing::StandinServer& s, const std::string& dossier,
           std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"serve-bench",   s.base_url(),
                                   "--concurrency", std::to_string(kConcurrency),
                                   "--num-prompts", std::to_string(kPrompts),
                                   "--input-len",   std::to_string(kInLen),
                                   "--output-len",  std::to_string(kOutLen),
                                   "--format",      "json",
                                   "--dossier",     dossier,
                                   "--machine",     "box"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = RunDossier(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
  // Printed as every command prints --format json (collect, diff, note show): two-space indent,
  // so outputs of different commands diff and grep alike.
  if (!j.is_discarded()) {
    EXPECT_EQ(r.out, j.dump(2) + "\n");
  }
  return j;
}

double Num(const json& run, const std::string& key) {
  EXPECT_TRUE(run.contains(key) && run[key].is_number()) << key << " in " << run.dump();
  return run.value(key, std::nan(""));
}

TEST(ServeMetricsFrontDoor, EveryMetricFollowsFromTheServersSettings) {
  testing::StandinServer server(Settings());
  ASSERT_TRUE(server.Start());
  TempDir t;
  json m = Bench(server, t.path() + "/d");
  ASSERT_EQ(m["runs"].size(), 1u) << m.dump();
  const json& run = m["runs"][0];
  EXPECT_EQ(m["model"], "standin-model");
  EXPECT_EQ(m["api"], "completions");
  EXPECT_EQ(run["concurrency"], kConcurrency);
  EXPECT_TRUE(run["request_rate"].is_null());
  EXPECT_EQ(run["completed"], kPrompts);
  EXPECT_EQ(run["failed"], 0);
  EXPECT_EQ(run["failures"], json::object());
  EXPECT_EQ(run["output_tokens"], kPrompts * kOutLen);
  EXPECT_EQ(run["input_tokens"], kPrompts * kInLen);  // the server's usage: words of the prompt
  EXPECT_EQ(run["output_tokens_from"], "usage");
  EXPECT_EQ(server.tokens_sent(), kPrompts * kOutLen);

  // One answer takes at least TTFT + (n-1) gaps; kPrompts/kConcurrency rounds of them.
  const double one_ms = kTtftMs + (kOutLen - 1) * kItlMs;
  const double d = Num(run, "duration_s");
  EXPECT_GE(d * 1e3, one_ms * kPrompts / kConcurrency);
  // Rates are the counts over the duration, exactly.
  EXPECT_NEAR(Num(run, "request_throughput"), kPrompts / d, 1e-9 * kPrompts / d);
  EXPECT_NEAR(Num(run, "output_tokens_per_s"), kPrompts * kOutLen / d, 1e-6);
  EXPECT_NEAR(Num(run, "total_tokens_per_s"), kPrompts * (kOutLen + kInLen) / d, 1e-6);
  EXPECT_TRUE(run["goodput"].is_null());  // no --slo: not "zero"

  // Latency statistics: never below what the server took, and ordered.
  const std::map<std::string, double> floor_ms = {
      {"ttft_ms", kTtftMs}, {"e2e_ms", one_ms}, {"itl_ms", 0}, {"tpot_ms", 0}};
  for (const auto& [metric, low] : floor_ms) {
    SCOPED_TRACE(metric);
    const json& s = run[metric];
    for (const char* k : {"mean", "median", "p90", "p99", "max"}) {
      ASSERT_TRUE(s[k].is_number()) << k << " " << s.dump();
      EXPECT_GE(s[k].get<double>(), low) << k;
    }
    EXPECT_LE(s["median"].get<double>(), s["p90"].get<double>());
    EXPECT_LE(s["p90"].get<double>(), s["p99"].get<double>());
    EXPECT_LE(s["p99"].get<double>(), s["max"].get<double>());
    EXPECT_LE(s["mean"].get<double>(), s["max"].get<double>());
  }
  // The first token ends no later than the last: E2E holds TTFT, request by request.
  EXPECT_GE(run["e2e_ms"]["max"].get<double>(), run["ttft_ms"]["max"].get<double>());
  EXPECT_GE(run["e2e_ms"]["mean"].get<double>(),
            run["ttft_ms"]["mean"].get<double>() +
                (kOutLen - 1) * run["tpot_ms"]["mean"].get<double>() - 1e-6);
  // Every answer has the same number of tokens, one per chunk: a request's TPOT is the mean of
  // its gaps, so the mean TPOT over requests is the mean ITL over all gaps.
  EXPECT_NEAR(run["tpot_ms"]["mean"].get<double>(), run["itl_ms"]["mean"].get<double>(), 1e-6);
}

TEST(ServeMetricsFrontDoor, GoodputCountsRequestsMeetingEveryObjective) {
  testing::StandinServer server(Settings());
  ASSERT_TRUE(server.Start());
  TempDir t;
  // Objectives a hundred times what the server takes: every request meets them.
  for (const char* slo : {"tpot_ms=500", "ttft_ms=2000,tpot_ms=500", "e2e_ms=20000",
                          "ttft_ms=2000,tpot_ms=500,e2e_ms=20000"}) {
    SCOPED_TRACE(slo);
    json m = Bench(server, t.path() + "/d", {"--slo", slo});
    ASSERT_EQ(m["runs"].size(), 1u);
    const json& run = m["runs"][0];
    EXPECT_NEAR(Num(run, "goodput"), Num(run, "request_throughput"), 1e-9);
  }
  // Objectives below what the server takes: no request can meet them (a client never sees a
  // token before the server wrote it). One missed objective is enough.
  for (const char* slo : {"ttft_ms=1", "e2e_ms=10", "ttft_ms=1,tpot_ms=500",
                          "tpot_ms=500,e2e_ms=10", "ttft_ms=2000,e2e_ms=10"}) {
    SCOPED_TRACE(slo);
    json m = Bench(server, t.path() + "/d", {"--slo", slo});
    ASSERT_EQ(m["runs"].size(), 1u);
    EXPECT_EQ(Num(m["runs"][0], "goodput"), 0.0);
  }
}

// Several runs, no --num-prompts and no --save-detailed: each line of the file says the number of
// prompts the run really sent (vLLM's default for a concurrency: 4 per slot, at least 8), and no
// run borrows per-request arrays it does not have.
TEST(ServeMetricsFrontDoor, SaveResultOfSeveralRunsSaysWhatEachSent) {
  testing::StandinServer server(Settings());
  ASSERT_TRUE(server.Start());
  TempDir t;
  const std::string file = t.path() + "/result.json";
  auto r = RunDossier({"serve-bench", server.base_url(), "--concurrency", "1,3", "--input-len",
                       std::to_string(kInLen), "--output-len", std::to_string(kOutLen),
                       "--no-store", "--save-result", file, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = testing::Slurp(file);
  std::vector<json> lines;
  for (std::string_view l : SplitAny(text, "\n")) {
    lines.push_back(json::parse(l, nullptr, false));
    ASSERT_FALSE(lines.back().is_discarded()) << l;
  }
  ASSERT_EQ(lines.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const int sent = i == 0 ? 8 : 12;
    EXPECT_EQ(lines[i]["max_concurrency"], i == 0 ? 1 : 3);
    EXPECT_EQ(lines[i]["num_prompts"], sent);
    EXPECT_EQ(lines[i]["completed"], sent);
    EXPECT_FALSE(lines[i].contains("ttfts"));
    EXPECT_FALSE(lines[i].contains("errors"));
  }
}

// --save-result writes vLLM's result file: one object per run, counts equal to the run's own,
// and with --save-detailed one entry per request in each array, every answer as the server sent
// it (kOutLen tokens, kOutLen - 1 gaps, none shorter than the server's settings).
TEST(ServeMetricsFrontDoor, SaveResultWritesVllmsFileWithPerRequestArrays) {
  testing::StandinServer server(Settings());
  ASSERT_TRUE(server.Start());
  TempDir t;
  const std::string file = t.path() + "/result.json";
  for (bool detailed : {false, true}) {
    SCOPED_TRACE(detailed ? "detailed" : "flat");
    std::vector<std::string> extra = {"--save-result", file};
    if (detailed) extra.push_back("--save-detailed");
    json m = Bench(server, t.path() + "/d", extra);
    ASSERT_EQ(m["runs"].size(), 1u);
    std::string text = testing::Slurp(file);
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n');
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;  // one line per run
    json r = json::parse(text, nullptr, false);
    ASSERT_FALSE(r.is_discarded()) << text;
    EXPECT_EQ(r["backend"], "openai");
    EXPECT_EQ(r["model_id"], "standin-model");
    EXPECT_EQ(r["num_prompts"], kPrompts);
    EXPECT_EQ(r["max_concurrency"], kConcurrency);
    EXPECT_EQ(r["request_rate"], "inf");
    EXPECT_EQ(r["completed"], kPrompts);
    EXPECT_EQ(r["failed"], 0);
    EXPECT_EQ(r["total_output_tokens"], kPrompts * kOutLen);
    EXPECT_EQ(r["total_input_tokens"], kPrompts * kInLen);
    EXPECT_EQ(r["duration"], m["runs"][0]["duration_s"]);
    EXPECT_GE(Num(r, "median_ttft_ms"), kTtftMs);
    EXPECT_EQ(r["mean_ttft_ms"], m["runs"][0]["ttft_ms"]["mean"]);
    for (const char* k : {"p90_ttft_ms", "p95_tpot_ms", "p99_itl_ms", "std_e2el_ms"}) {
      EXPECT_TRUE(r[k].is_number()) << k;
    }
    if (!detailed) {
      for (const char* k :
           {"input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "errors"}) {
        EXPECT_FALSE(r.contains(k)) << k;
      }
      continue;
    }
    for (const char* k :
         {"input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "errors"}) {
      ASSERT_TRUE(r[k].is_array()) << k;
      EXPECT_EQ(r[k].size(), static_cast<size_t>(kPrompts)) << k;
    }
    for (int i = 0; i < kPrompts; ++i) {
      SCOPED_TRACE(i);
      EXPECT_EQ(r["output_lens"][i], kOutLen);
      EXPECT_EQ(r["errors"][i], "");
      // Seconds, as vLLM stores them; never sooner than the server sent.
      EXPECT_GE(r["ttfts"][i].get<double>(), kTtftMs / 1e3);
      EXPECT_GE(r["latencies"][i].get<double>(), (kTtftMs + (kOutLen - 1) * kItlMs) / 1e3);
      ASSERT_EQ(r["itls"][i].size(), static_cast<size_t>(kOutLen - 1));
      for (const json& gap : r["itls"][i]) EXPECT_GE(gap.get<double>(), 0.0);
    }
  }

  // A run that measures nothing (no server there) leaves the earlier file as it was, and no
  // temporary file beside it.
  const std::string before = testing::Slurp(file);
  testing::StandinServer gone(Settings());
  ASSERT_TRUE(gone.Start());
  const std::string url = gone.base_url();
  gone.Stop();
  auto r = RunDossier({"serve-bench", url, "--model", "m", "--num-prompts", "2", "--no-store",
                       "--save-result", file, "--save-detailed", "-q"});
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_EQ(testing::Slurp(file), before);
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(t.path())) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 2u);  // result.json and the dossier d, nothing else

  // A FILE whose directory is not there is bad input, found before the server is asked anything.
  const int64_t sent = server.tokens_sent();
  auto bad = RunDossier({"serve-bench", server.base_url(), "--no-store", "-q", "--save-result",
                         t.path() + "/no-such-dir/result.json"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("no-such-dir"), std::string::npos) << bad.err;
  EXPECT_EQ(server.tokens_sent(), sent);

  // --save-detailed alone is a usage error.
  auto u = RunDossier({"serve-bench", url, "--save-detailed", "--no-store"});
  EXPECT_EQ(u.exit_code, 2);
  EXPECT_NE(u.err.find("--save-result"), std::string::npos) << u.err;
}

// --- targets, as users write them ---------------------------------------------------------------

std::string Shortest(double v) {
  return json(v).dump();  // round-trips: the target holds exactly the measured value
}

TEST(ServeTargetsFrontDoor, EveryComparisonAtAndAroundTheBoundary) {
  testing::StandinServer server(Settings());
  ASSERT_TRUE(server.Start());
  TempDir t;
  const std::string d = t.path() + "/d";
  auto c = RunDossier(
      {"collect", "-q", "--root", FixtureTree("seed-guest"), "--machine", "box", "--dossier", d});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  json m = Bench(server, d);
  ASSERT_EQ(m["runs"].size(), 1u);
  const double x = Num(m["runs"][0], "output_tokens_per_s");
  const double ttft = m["runs"][0]["ttft_ms"]["median"].get<double>();
  ASSERT_GT(x, 0);

  struct Case {
    std::string expr;
    bool met;
  };
  const std::vector<Case> cases = {
      {"output_tokens_per_s >= " + Shortest(x), true},
      {"output_tokens_per_s > " + Shortest(x), false},
      {"output_tokens_per_s <= " + Shortest(x), true},
      {"output_tokens_per_s < " + Shortest(x), false},
      {"output_tokens_per_s>" + Shortest(x / 2), true},  // no spaces, as people also type
      {"output_tokens_per_s >= " + Shortest(2 * x), false},
      {"output_tokens_per_s < " + Shortest(2 * x), true},
      {"output_tokens_per_s <= " + Shortest(x / 2), false},
      {"ttft_ms.median < " + Shortest(ttft + 1000), true},
      {"ttft_ms.median <= " + Shortest(kTtftMs / 2), false},
      {"output_tokens_per_s >= 1 at concurrency " + std::to_string(kConcurrency), true},
      // No run at that concurrency: nothing measured, so nothing missed.
      {"output_tokens_per_s >= 1e12 at concurrency 64", true},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(k.expr);
    // One target at a time: the finding names exactly the missed one.
    std::filesystem::remove(d + "/notes.toml");
    auto n = RunDossier({"note", "--dossier", d, "target", k.expr});
    ASSERT_EQ(n.exit_code, 0) << n.err;
    auto r = RunDossier({"report", "--format", "json", "--dossier", d});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json doc = json::parse(r.out);
    const json* f = FindingIn(doc, "serve.below-target");
    EXPECT_EQ(f == nullptr, k.met) << (f ? f->dump(2) : "no finding");
    if (f) {
      EXPECT_NE(f->value("title", "").find("misses 1 target(s)"), std::string::npos);
    }
  }
  // All of them together: the missed ones, counted.
  std::filesystem::remove(d + "/notes.toml");
  int missed = 0;
  for (const auto& k : cases) {
    ASSERT_EQ(RunDossier({"note", "--dossier", d, "target", k.expr}).exit_code, 0);
    missed += !k.met;
  }
  json doc = json::parse(RunDossier({"report", "--format", "json", "--dossier", d}).out);
  const json* f = FindingIn(doc, "serve.below-target");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->value("title", "").find("misses " + std::to_string(missed) + " target(s)"),
            std::string::npos)
      << f->value("title", "");
  // The Markdown report shows each target with the latest measured value.
  auto md = RunDossier({"report", "--dossier", d});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("output_tokens_per_s > "), std::string::npos);
  EXPECT_NE(md.out.find("output_tokens_per_s <= "), std::string::npos);
}

}  // namespace
}  // namespace dossier::servefrontdoor
