// serve-bench against a real engine: llama.cpp's llama-server, built by
// scripts/build-llama-server.sh from the llama.cpp tree the npm package node-llama-cpp ships
// (pinned there), serving a tiny random-weight model written at test time
// (tests/llama/make_tiny_gguf.py). The stand-in server was written by us; this one keeps us honest:
// dossier's token counts must be the server's (usage, and its own "timings".predicted_n), its TTFT
// must hold the server's prompt time, its TPOT must be the server's time per generated token, on
// both APIs at concurrency 1 and 4.
//
// Where the server is looked for: $DOSSIER_LLAMA_SERVER (the binary) and $DOSSIER_LLAMA_CPP (its
// source tree), else the cache the build script fills,
// ${DOSSIER_CACHE:-${XDG_CACHE_HOME:-~/.cache}/dossier}/llama-server-<version>/.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "measure/serve/openai_protocol.h"
#include "measure/serve/run_metrics.h"
#include "measure/serve/serve_bench.h"
#include "measure/serve/stream_client.h"
#include "run_process.h"
#include "standins/openai_standin.h"
#include "temp_dir.h"

extern char** environ;

namespace dossier::serve {
namespace {

namespace fs = std::filesystem;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The node-llama-cpp version the build script pins (its cache directory is keyed by it).
std::string PinnedVersion() {
  std::ifstream in(std::string(DOSSIER_SOURCE_DIR) + "/scripts/build-llama-server.sh");
  std::string line;
  std::regex version("^VERSION=([0-9.]+)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, version)) return m[1];
  }
  return "";
}

struct LlamaPaths {
  std::string server, tree;
};

LlamaPaths FindLlama() {
  LlamaPaths p{Env("DOSSIER_LLAMA_SERVER"), Env("DOSSIER_LLAMA_CPP")};
  std::string cache = Env("DOSSIER_CACHE");
  if (cache.empty()) {
    std::string xdg = Env("XDG_CACHE_HOME");
    cache = (xdg.empty() ? Env("HOME") + "/.cache" : xdg) + "/dossier";
  }
  std::string dir = cache + "/llama-server-" + PinnedVersion();
  if (p.server.empty()) p.server = dir + "/bin/llama-server";
  if (p.tree.empty()) p.tree = dir + "/llama.cpp";
  return p;
}

// llama-server on 127.0.0.1 at a free port (it has no "port 0": the port is found by binding
// first), stopped with SIGTERM at the end.
class LlamaServer {
 public:
  ~LlamaServer() { Stop(); }

  std::string Start(const std::string& binary, const std::string& model, const std::string& log) {
    port_ = testing::ClosedPort();
    std::vector<std::string> argv = {
        binary, "-m",  model, "--host", "127.0.0.1", "--port",  std::to_string(port_), "-c",
        "4096", "-np", "4",   "-t",     "2",         "--alias", "dossier-tiny"};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    int rc = posix_spawn(&pid_, binary.c_str(), &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return "cannot start " + binary + ": " + std::strerror(rc);
    // Loading answers 503 on /health; ready is 200.
    for (int i = 0; i < 1200; ++i) {
      if (HttpGet(base_url() + "/health", "", 2)) return "";
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return "llama-server exited while starting:\n" + testing::ReadWholeFile(log);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return "llama-server did not become ready in 120 s:\n" + testing::ReadWholeFile(log);
  }

  void Stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

class LlamaServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    LlamaPaths p = FindLlama();
    if (::access(p.server.c_str(), X_OK) != 0 ||
        !fs::exists(p.tree + "/models/ggml-vocab-llama-spm.gguf")) {
      skip_ = "llama-server is not built (looked for " + p.server +
              "): run scripts/build-llama-server.sh (cached outside the clone; ~10 min cold on 2 "
              "cores), or set DOSSIER_LLAMA_SERVER and DOSSIER_LLAMA_CPP";
      return;
    }
    if (::access("/usr/bin/python3", X_OK) != 0) {
      skip_ = "/usr/bin/python3 (with Debian's python3-numpy) is needed to write the test model";
      return;
    }
    dir_ = new testing::TempDir();
    std::string model = dir_->path() + "/tiny.gguf";
    auto made = testing::RunProcess(
        {"/usr/bin/python3", std::string(DOSSIER_SOURCE_DIR) + "/tests/llama/make_tiny_gguf.py",
         p.tree, model});
    if (made.exit_code != 0) {
      error_ = "make_tiny_gguf.py failed: " + made.err;
      return;
    }
    server_ = new LlamaServer();
    error_ = server_->Start(p.server, model, dir_->path() + "/server.log");
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_EQ(error_, "");
  }

  static inline std::string skip_, error_;
  static inline testing::TempDir* dir_ = nullptr;
  static inline LlamaServer* server_ = nullptr;
};

constexpr int64_t kOutputLen = 48;

// One run per level; every request is checked against the server's own account of it.
void CheckRuns(Api api, TtftFrom ttft_from, const std::string& base_url) {
  BenchOptions o;
  o.endpoint = *ParseEndpoint(base_url);
  o.api = api;
  o.concurrency = {1, 4};
  o.num_prompts = 8;
  o.input_len = 32;
  o.output_len = kOutputLen;
  o.timeout_s = 120;
  o.ttft_from = ttft_from;
  std::vector<LoadOutcome> outcomes;
  BenchHooks hooks;
  hooks.on_outcome = [&](size_t, const LoadOutcome& x) { outcomes.push_back(x); };
  auto m = RunServeBench(o, hooks);
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_EQ(m->model, "dossier-tiny");
  ASSERT_EQ(m->runs.size(), 2u);
  ASSERT_EQ(outcomes.size(), 2u);
  for (size_t run = 0; run < 2; ++run) {
    const ServeRun& r = m->runs[run];
    EXPECT_EQ(r.completed, 8) << "run " << run;
    EXPECT_EQ(r.failed, 0) << (r.failures.empty() ? "" : r.failures.begin()->first);
    EXPECT_EQ(r.output_tokens, 8 * kOutputLen);
    EXPECT_TRUE(r.output_tokens_from == "usage" || r.output_tokens_from == "usage-per-chunk")
        << r.output_tokens_from;
    EXPECT_TRUE(r.input_tokens_server.known());
    std::vector<double> tpot_error;
    for (const RequestResult& q : outcomes[run].results) {
      ASSERT_TRUE(q.ok) << q.failure;
      // Token counts: dossier's = usage = the server's own count of what it generated.
      EXPECT_EQ(q.output_tokens(), q.usage_completion_tokens);
      ASSERT_GE(q.server_predicted_n, 0) << "no \"timings\" in llama-server's stream";
      EXPECT_EQ(q.output_tokens(), q.server_predicted_n);
      // Chunks are not tokens: llama.cpp holds back bytes of an unfinished UTF-8 character, so a
      // stream can have fewer content chunks than tokens; dossier counted tokens regardless.
      // vLLM's first-chunk mode also counts the role chunk and the closing finish_reason chunk
      // (both have non-empty `choices`): up to two more than the tokens.
      int64_t extra = ttft_from == TtftFrom::kFirstChunk ? 2 : 1;
      EXPECT_LE(static_cast<int64_t>(q.token_ns.size()), q.server_predicted_n + extra);
      double ttft = static_cast<double>(q.first_token_ns - q.start_ns) / 1e6;
      double e2e = static_cast<double>(q.end_ns - q.start_ns) / 1e6;
      // The server's prompt time lies inside the client's TTFT (first-content; first-chunk on
      // chat starts at the role chunk, which llama.cpp sends before the prompt is processed).
      if (ttft_from == TtftFrom::kFirstContent) {
        EXPECT_GE(ttft + 0.5, q.server_prompt_ms);
      }
      EXPECT_GE(e2e + 0.5, q.server_prompt_ms + q.server_predicted_ms);
      // TPOT: the client's (E2E - TTFT) / (n - 1) against the server's generation time per token
      // after the first.
      double client_tpot = (e2e - ttft) / static_cast<double>(q.output_tokens() - 1);
      double server_tpot = q.server_predicted_ms /
                           static_cast<double>(std::max<int64_t>(q.server_predicted_n - 1, 1));
      tpot_error.push_back(std::abs(client_tpot - server_tpot) / std::max(server_tpot, 0.05));
    }
    std::sort(tpot_error.begin(), tpot_error.end());
    // Median relative error: the server counts from its first sampled token, the client from the
    // first byte it read; on a busy 2-core CI machine a few ms of scheduling either side.
    EXPECT_LT(tpot_error[tpot_error.size() / 2], 0.5) << "run " << run;
  }
}

TEST_F(LlamaServerTest, CompletionsCountsAndTimingsMatchTheServer) {
  CheckRuns(Api::kCompletions, TtftFrom::kFirstContent, server_->base_url());
}

TEST_F(LlamaServerTest, ChatCountsAndTimingsMatchTheServer) {
  CheckRuns(Api::kChat, TtftFrom::kFirstContent, server_->base_url());
}

TEST_F(LlamaServerTest, ChatWithVllmsFirstChunkTtftCountsTheSame) {
  CheckRuns(Api::kChat, TtftFrom::kFirstChunk, server_->base_url());
}

TEST_F(LlamaServerTest, ItsTokenizerCountsGeneratedText) {
  // The /tokenize fallback, against the real endpoint: a request with text and no usage.
  std::string text = " the quick brown fox jumps over the lazy dog";
  auto direct = HttpPost(server_->base_url() + "/tokenize", "", BuildTokenizeBody("x", text), 10);
  ASSERT_TRUE(direct) << direct.error().message;
  auto n = ParseTokenizeCount(*direct);
  ASSERT_TRUE(n) << n.error().message;
  EXPECT_GE(*n, 9);  // SentencePiece: at least a token per word, no BOS added
  EXPECT_LE(*n, 20);
  BenchOptions o;
  o.endpoint = *ParseEndpoint(server_->base_url());
  std::vector<RequestResult> rs(1);
  rs[0].ok = true;
  rs[0].text = text;
  rs[0].token_ns = {1, 2, 3};
  EXPECT_EQ(CountWithServerTokenizer(o, "dossier-tiny", &rs), "");
  EXPECT_EQ(rs[0].counted_by(), RequestResult::Count::kTokenizer);
  EXPECT_EQ(rs[0].output_tokens(), *n);
}

}  // namespace
}  // namespace dossier::serve
