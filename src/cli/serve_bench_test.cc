// dossier serve-bench as a user runs it: the binary against the stand-in server, its stdout,
// stderr, exit code and the record it leaves; the API key must appear in none of them.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "../../tests/temp_dir.h"
#include "measure/serve/serve_records.h"
#include "standins/openai_standin.h"
#include "store/dossier_dir.h"
#include "util/text.h"

extern char** environ;

namespace dossier::cli {
namespace {

using dossier::testing::Slurp;

const char* kKey = "sk-cli-secret-4f1e9a";

struct Ran {
  int code = -1;
  std::string out, err;
};

// Runs the dossier binary with args (and extra environment), stdout and stderr to files; when
// interrupt_when is given, sends SIGINT once it returns true (polled every 10 ms).
Ran RunDossier(const testing::TempDir& dir, std::vector<std::string> args,
               std::vector<std::string> env = {},
               const std::function<bool()>& interrupt_when = {}) {
  std::string out = dir.path() + "/stdout", err = dir.path() + "/stderr";
  // Everything the child needs is made before fork: the stand-in server's thread may hold the
  // allocator's lock at that moment, and a child that allocates then waits for ever (seen under
  // ASan). The child only opens, dups and execs.
  std::vector<char*> argv = {const_cast<char*>(DOSSIER_BINARY)};
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& kv : env) envp.push_back(kv.data());
  for (char** e = environ; *e; ++e) {
    std::string_view have(*e);
    bool replaced = false;
    for (const auto& kv : env)
      replaced = replaced || have.substr(0, have.find('=') + 1) == kv.substr(0, kv.find('=') + 1);
    if (!replaced) envp.push_back(*e);
  }
  envp.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid == 0) {
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(o, 1);
    ::dup2(e, 2);
    ::execve(DOSSIER_BINARY, argv.data(), envp.data());
    ::_exit(127);
  }
  if (interrupt_when) {
    for (int i = 0; i < 1000 && !interrupt_when(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid, SIGINT);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  Ran r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = Slurp(out);
  r.err = Slurp(err);
  return r;
}

std::string Records(const std::string& dossier) {
  std::string all;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dossier, ec)) {
    if (e.is_regular_file()) all += Slurp(e.path().string());
  }
  return all;
}

testing::StandinConfig Quick() {
  testing::StandinConfig c;
  c.ttft_ms = 3;
  c.itl_ms = 1;
  c.api_key = kKey;
  c.lifetime_s = 20;
  return c;
}

TEST(ServeBenchCli, JsonRunsAndARecordWithoutTheKey) {
  testing::StandinServer server(Quick());
  ASSERT_TRUE(server.Start());
  testing::TempDir dir;
  std::string dossier = dir.path() + "/dossier";
  Ran r =
      RunDossier(dir,
                 {"serve-bench", server.base_url() + "/v1", "--concurrency", "1,3", "--num-prompts",
                  "4", "--input-len", "16", "--output-len", "5", "--format", "json", "--dossier",
                  dossier, "--machine", "gpu-box", "--slo", "ttft_ms=2000"},
                 {std::string("DOSSIER_API_KEY=") + kKey});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"], "standin-model");
  EXPECT_EQ(j["endpoint"], server.base_url() + "/v1/completions");
  ASSERT_EQ(j["runs"].size(), 2u);
  const auto& run = j["runs"][1];
  EXPECT_EQ(run["concurrency"], 3);
  EXPECT_TRUE(run["request_rate"].is_null());
  EXPECT_EQ(run["completed"], 4);
  EXPECT_EQ(run["failed"], 0);
  EXPECT_TRUE(run["failures"].is_object());
  EXPECT_EQ(run["input_tokens"], 64);
  EXPECT_EQ(run["output_tokens"], 20);
  EXPECT_EQ(run["output_tokens_from"], "usage");
  for (const char* k : {"duration_s", "request_throughput", "output_tokens_per_s",
                        "total_tokens_per_s", "goodput"}) {
    EXPECT_TRUE(run[k].is_number()) << k;
  }
  for (const char* m : {"ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"}) {
    for (const char* s : {"mean", "median", "p90", "p99", "max"}) {
      EXPECT_TRUE(run[m][s].is_number()) << m << "." << s;
    }
  }
  EXPECT_NE(r.err.find("wrote "), std::string::npos);
  // The key went to the server, and nowhere else.
  for (const auto& s : server.Served()) EXPECT_EQ(s.authorization, std::string("Bearer ") + kKey);
  std::string records = Records(dossier);
  EXPECT_EQ(r.out.find(kKey), std::string::npos);
  EXPECT_EQ(r.err.find(kKey), std::string::npos);
  EXPECT_EQ(records.find(kKey), std::string::npos);
  // The record reads back through the loader the report uses.
  std::vector<std::string> warnings;
  auto loaded = DossierDir(dossier).Load(&warnings);
  ASSERT_TRUE(loaded);
  auto by = serve::ServeMeasurementsByMachine(*loaded, &warnings);
  ASSERT_EQ(by["gpu-box"].size(), 1u);
  EXPECT_EQ(by["gpu-box"][0].runs[1].completed, 4);
  EXPECT_EQ(by["gpu-box"][0].slo, "ttft_ms=2000");
  EXPECT_TRUE(warnings.empty());
}

TEST(ServeBenchCli, TextBlockWithTheKeyOnTheCommandLine) {
  testing::StandinServer server(Quick());
  ASSERT_TRUE(server.Start());
  testing::TempDir dir;
  std::string dossier = dir.path() + "/d";
  Ran r = RunDossier(dir, {"serve-bench", server.base_url(), "--api", "chat", "--api-key", kKey,
                           "--request-rate", "200", "--num-prompts", "6", "--input-len", "8",
                           "--output-len", "4", "--dossier", dossier});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("============ Serving Benchmark Result ============"), std::string::npos);
  EXPECT_NE(r.out.find("Request rate configured (RPS):           200.00"), std::string::npos);
  EXPECT_NE(r.out.find("Successful requests:                     6"), std::string::npos);
  EXPECT_NE(r.out.find("/v1/chat/completions"), std::string::npos);
  EXPECT_EQ(r.out.find(kKey), std::string::npos);
  EXPECT_EQ(r.err.find(kKey), std::string::npos);
  EXPECT_EQ(Records(dossier).find(kKey), std::string::npos);
  EXPECT_NE(Records(dossier).find("\"kind\": \"serve-bench\""), std::string::npos);
}

// On a stderr that is not a terminal (a log, a pipe) each progress report is a line of its own:
// no carriage returns, never two reports run together.
TEST(ServeBenchCli, ProgressIsOneLinePerReportWhenStderrIsNotATerminal) {
  testing::StandinConfig cfg = Quick();
  cfg.itl_ms = 100;  // 10 requests one at a time, ~0.3 s each: at least two reports
  testing::StandinServer server(cfg);
  ASSERT_TRUE(server.Start());
  testing::TempDir dir;
  Ran r = RunDossier(
      dir, {"serve-bench", server.base_url(), "--api-key", kKey, "--concurrency", "1",
            "--num-prompts", "10", "--input-len", "8", "--output-len", "4", "--no-store"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  int reports = 0;
  for (const auto& line : Split(r.err, '\n')) {
    size_t at = line.find(" done, ");
    if (at == std::string::npos) continue;
    ++reports;
    EXPECT_EQ(line.find(" done, ", at + 1), std::string::npos)
        << "two reports on one line: " << line;
    EXPECT_TRUE(line.ends_with(" s")) << line;
  }
  EXPECT_GE(reports, 2) << r.err;
}

TEST(ServeBenchCli, UrlCredentialsAreRedacted) {
  testing::StandinConfig cfg = Quick();
  cfg.api_key.clear();
  testing::StandinServer server(cfg);
  ASSERT_TRUE(server.Start());
  testing::TempDir dir;
  std::string url = "http://bob:hunter2pass@127.0.0.1:" + std::to_string(server.port());
  Ran r =
      RunDossier(dir, {"serve-bench", url, "--concurrency", "1", "--num-prompts", "1",
                       "--input-len", "4", "--output-len", "2", "--dossier", dir.path() + "/d"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("hunter2pass"), std::string::npos);
  EXPECT_EQ(r.err.find("hunter2pass"), std::string::npos);
  EXPECT_EQ(Records(dir.path() + "/d").find("hunter2pass"), std::string::npos);
}

TEST(ServeBenchCli, CtrlCPrintsAndStoresWhatWasMeasured) {
  testing::StandinConfig cfg = Quick();
  cfg.itl_ms = 2;
  testing::StandinServer server(cfg);
  ASSERT_TRUE(server.Start());
  testing::TempDir dir;
  std::string dossier = dir.path() + "/d";
  Ran r = RunDossier(dir,
                     {"serve-bench", server.base_url(), "--model", "standin-model", "--concurrency",
                      "4", "--num-prompts", "100000", "--input-len", "4", "--output-len", "10",
                      "--format", "json", "--dossier", dossier, "-q"},
                     {std::string("OPENAI_API_KEY=") + kKey},
                     // Once requests flow (the handler is installed before the first is sent).
                     [&] { return server.Served().size() >= 8; });
  EXPECT_EQ(r.code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["interrupted"], true);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_GT(j["runs"][0]["completed"].get<int>(), 0);
  EXPECT_EQ(j["runs"][0]["failed"], 0);
  EXPECT_NE(Records(dossier).find("\"interrupted\": true"), std::string::npos);
}

TEST(ServeBenchCli, RefusedConnectionsAreCountedAndTheRunFails) {
  testing::TempDir dir;
  std::string url = "http://127.0.0.1:" + std::to_string(testing::ClosedPort());
  Ran r = RunDossier(dir, {"serve-bench", url, "--model", "m", "--concurrency", "2",
                           "--num-prompts", "3", "--no-store"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("       3  connection refused"), std::string::npos) << r.out;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/dossier"));
  // Without --model the model question fails first, with a message that says what to do.
  Ran m = RunDossier(dir, {"serve-bench", url, "--no-store"});
  EXPECT_EQ(m.code, 1);
  EXPECT_NE(m.err.find("(or pass --model)"), std::string::npos) << m.err;
}

// --random-range-ratio, as each benchmark reads it: vLLM draws lengths from [L(1-r), L(1+r)] and
// needs r below 1 (at 1 a length of 0 can be drawn); SGLang draws from [L*r, L] and takes 1 (every
// prompt L long). Past either bound is a usage error naming the range; inside it the run goes on
// (here to a closed port: connections refused, exit 1).
TEST(ServeBenchCli, RandomRangeRatioBoundsPerStyle) {
  testing::TempDir dir;
  std::string url = "http://127.0.0.1:" + std::to_string(testing::ClosedPort());
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"serve-bench",   url, "--model",   "m", "--concurrency", "1",
                                     "--num-prompts", "1", "--no-store"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunDossier(dir, args);
  };
  const std::string range = "--random-range-ratio: from 0 to below 1 (vllm style) or to 1 (sglang)";
  for (std::vector<std::string> bad : std::vector<std::vector<std::string>>{
           {"--random-range-ratio", "1"},
           {"--random-range-ratio", "-0.1"},
           {"--random-range-ratio", "1.01", "--random-range-style", "sglang"},
           {"--random-range-ratio", "nan"}}) {
    Ran r = run(bad);
    EXPECT_EQ(r.code, 2) << bad[1] << "\n" << r.err;
    EXPECT_NE(r.err.find(range), std::string::npos) << bad[1] << "\n" << r.err;
  }
  for (std::vector<std::string> good : std::vector<std::vector<std::string>>{
           {"--random-range-ratio", "0"},
           {"--random-range-ratio", "0.999"},
           {"--random-range-ratio", "1", "--random-range-style", "sglang"}}) {
    Ran r = run(good);
    EXPECT_EQ(r.code, 1) << good[1] << "\n" << r.err;
    EXPECT_EQ(r.err.find("--random-range-ratio"), std::string::npos) << good[1] << "\n" << r.err;
  }
}

TEST(ServeBenchCli, UsageErrors) {
  testing::TempDir dir;
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"serve-bench"},
           {"serve-bench", "ftp://x"},
           {"serve-bench", "http://127.0.0.1:1", "--concurrency", "1,x"},
           {"serve-bench", "http://127.0.0.1:1", "--concurrency", "1", "--request-rate", "2"},
           {"serve-bench", "http://127.0.0.1:1", "--dataset", "/nonexistent.json", "--model", "m"},
           {"serve-bench", "https://127.0.0.1:1", "--http-client", "native"},
           {"serve-bench", "http://127.0.0.1:1", "--http-client", "h2"},
       }) {
    Ran r = RunDossier(dir, args);
    EXPECT_EQ(r.code, 2) << args.back() << "\n" << r.err;
    EXPECT_FALSE(r.err.empty());
  }
}

// A bound is a value the option takes: a 1,000,000-token prompt passes the check (and fails on
// the closed port), one token more is a usage error naming the range.
TEST(ServeBenchCli, TheInputLengthBoundIsAcceptedAndOneMoreIsNot) {
  testing::TempDir dir;
  const std::string closed = "http://127.0.0.1:" + std::to_string(testing::ClosedPort());
  Ran at = RunDossier(dir, {"serve-bench", closed, "--model", "m", "--no-store", "-q",
                            "--num-prompts", "1", "--input-len", "1000000"});
  EXPECT_EQ(at.code, 1) << at.err;
  EXPECT_EQ(at.err.find("--input-len"), std::string::npos) << at.err;
  Ran past = RunDossier(dir, {"serve-bench", closed, "--model", "m", "--no-store", "-q",
                              "--num-prompts", "1", "--input-len", "1000001"});
  EXPECT_EQ(past.code, 2) << past.err;
  EXPECT_NE(past.err.find("--input-len: 1 to 1000000"), std::string::npos) << past.err;
}

// A host without libcurl (the portable binary on a bare system): plain http still parses and
// runs natively; an https endpoint is refused with what to install, not a crash or a vague error.
TEST(ServeBenchCli, HttpsWithoutLibcurlSaysWhatItNeeds) {
  testing::TempDir dir;
  std::vector<std::string> no_curl = {"DOSSIER_CURL_LIB=/nonexistent/libcurl.so.4"};
  Ran https = RunDossier(dir, {"serve-bench", "https://127.0.0.1:1", "--model", "m", "--no-store"},
                         no_curl);
  EXPECT_NE(https.code, 0);
  EXPECT_NE(https.err.find("an https:// endpoint needs libcurl"), std::string::npos) << https.err;
  EXPECT_NE(https.err.find("apt-get install libcurl4"), std::string::npos) << https.err;
  // Without --model it asks the server for its models, which also goes through libcurl.
  Ran models = RunDossier(dir, {"serve-bench", "https://127.0.0.1:1", "--no-store"}, no_curl);
  EXPECT_NE(models.err.find("needs libcurl"), std::string::npos) << models.err;
}

}  // namespace
}  // namespace dossier::cli
