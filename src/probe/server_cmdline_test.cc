#include "probe/server_cmdline.h"

#include <gtest/gtest.h>

namespace dossier {
namespace {

using Argv = std::vector<std::string>;

TEST(ServerCmdline, DetectsEveryLaunchFormOfTheTable) {
  struct Case {
    Argv argv;
    const char* engine;
    const char* by;
  };
  const Case cases[] = {
      {{"/opt/venv/bin/python3", "-m", "sglang.launch_server", "--model-path", "/m"},
       "sglang",
       "-m sglang.launch_server"},
      {{"python3", "-u", "-X", "faulthandler", "-m", "sglang.launch_server"},
       "sglang",
       "-m sglang.launch_server"},
      {{"python", "-m", "sglang.srt.entrypoints.http_server"},
       "sglang",
       "-m sglang.srt.entrypoints.http_server"},
      {{"/opt/venv/bin/python3", "/opt/venv/bin/sglang", "serve", "--model-path", "/m"},
       "sglang",
       "sglang serve"},
      {{"/opt/venv/bin/python3", "/opt/venv/bin/vllm", "serve", "Qwen/Qwen3-8B"},
       "vllm",
       "vllm serve"},
      {{"vllm", "serve", "/m"}, "vllm", "vllm serve"},
      {{"python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "/m"},
       "vllm",
       "-m vllm.entrypoints.openai.api_server"},
      {{"python3", "-m", "vllm.entrypoints.cli.main", "serve", "/m"},
       "vllm",
       "-m vllm.entrypoints.cli.main serve"},
      {{"/usr/bin/python3", "/usr/local/bin/trtllm-serve", "/m", "--tp_size", "8"},
       "tensorrt-llm",
       "trtllm-serve"},
      {{"trtllm-serve", "serve", "/m"}, "tensorrt-llm", "trtllm-serve serve"},
      {{"python3", "/app/tensorrt_llm/commands/serve.py", "/m"}, "tensorrt-llm", "python serve.py"},
      {{"/usr/local/bin/llama-server", "-m", "/m/model.gguf", "-ngl", "99"},
       "llama.cpp",
       "llama-server"},
      {{"text-generation-launcher", "--model-id", "org/m"}, "tgi", "text-generation-launcher"},
  };
  for (const auto& c : cases) {
    auto m = DetectEngine(c.argv);
    ASSERT_TRUE(m) << c.argv[0] << " " << c.argv[1];
    EXPECT_EQ(m->engine, c.engine);
    EXPECT_EQ(m->detected_by, c.by);
  }
}

TEST(ServerCmdline, IgnoresLookalikes) {
  const Argv cases[] = {
      {"grep", "sglang.launch_server"},
      {"bash", "-c", "python -m sglang.launch_server --tp 8"},
      {"python3", "-c", "import x", "-m", "sglang.launch_server"},
      {"python3", "myscript.py", "-m", "sglang.launch_server"},
      {"less", "llama-server"},
      {"python3", "/opt/venv/bin/vllm", "bench", "serve"},  // a client, not a server
      {"vllm"},
      {"python3", "-m"},
      {},
  };
  for (const auto& a : cases) EXPECT_FALSE(DetectEngine(a)) << (a.empty() ? "" : a[0]);
}

TEST(ServerCmdline, RenamedWorkers) {
  EXPECT_EQ(RenamedWorkerEngine({"sglang::scheduler_TP3"}), "sglang");
  EXPECT_EQ(RenamedWorkerEngine({"sglang::detokenizer      "}), "sglang");
  EXPECT_EQ(RenamedWorkerEngine({"VLLM::EngineCore"}), "vllm");
  EXPECT_FALSE(RenamedWorkerEngine({"python3", "sglang::x"}));
  EXPECT_FALSE(RenamedWorkerEngine({}));
}

TEST(ServerCmdline, FlagsInEveryForm) {
  Argv a = {"--tp-size",
            "8",
            "--dp=2",
            "--trust-remote-code",
            "--cuda-graph-bs",
            "1",
            "2",
            "4",
            "--mem-fraction-static",
            "0.85",
            "--lora-paths",
            "a=x",
            "--lora-paths",
            "b=y",
            "--offset",
            "-1",
            "--disable-cuda-graph"};
  auto p = ParseServerArgs(a, 0, false);
  EXPECT_EQ(p.flags["--tp-size"], "8");
  EXPECT_EQ(p.flags["--dp"], "2");
  EXPECT_EQ(p.flags["--trust-remote-code"], "true");
  EXPECT_EQ(p.flags["--cuda-graph-bs"], "1 2 4");
  EXPECT_EQ(p.flags["--mem-fraction-static"], "0.85");
  EXPECT_EQ(p.flags["--lora-paths"], "a=x, b=y");
  EXPECT_EQ(p.flags["--offset"], "-1");  // a negative number is a value
  EXPECT_EQ(p.flags["--disable-cuda-graph"], "true");
  EXPECT_TRUE(p.positionals.empty());
}

TEST(ServerCmdline, PositionalModel) {
  Argv v = {"python3", "/v/bin/vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"};
  auto m = DetectEngine(v);
  ASSERT_TRUE(m);
  auto p = ParseServerArgs(v, m->args_begin, m->positional_model);
  auto model = ModelArgument("vllm", p);
  ASSERT_TRUE(model);
  EXPECT_EQ(model->value, "Qwen/Qwen3-8B");
  EXPECT_EQ(model->from, "positional argument");
  EXPECT_EQ(p.flags["--tensor-parallel-size"], "2");

  // The model after the options: the extra word of a one-value flag.
  Argv t = {"trtllm-serve", "--tp_size", "8", "/models/glm", "--port", "8000"};
  m = DetectEngine(t);
  p = ParseServerArgs(t, m->args_begin, m->positional_model);
  EXPECT_EQ(p.flags["--tp_size"], "8");
  EXPECT_EQ(ModelArgument("tensorrt-llm", p)->value, "/models/glm");
  // After a known bare flag.
  Argv b = {"trtllm-serve", "--trust_remote_code", "/models/glm"};
  p = ParseServerArgs(b, 1, true);
  EXPECT_EQ(p.flags["--trust_remote_code"], "true");
  EXPECT_EQ(ModelArgument("tensorrt-llm", p)->value, "/models/glm");
}

TEST(ServerCmdline, ModelFlagsPerEngine) {
  auto p = ParseServerArgs({"--model-path", "/m/a", "--model", "/m/b"}, 0, false);
  EXPECT_EQ(ModelArgument("sglang", p)->from, "--model-path");
  p = ParseServerArgs({"-m", "/m/x.gguf"}, 0, false);
  EXPECT_EQ(ModelArgument("llama.cpp", p)->value, "/m/x.gguf");
  p = ParseServerArgs({"-hf", "ggml-org/gemma-3-1b-it-GGUF"}, 0, false);
  EXPECT_EQ(ModelArgument("llama.cpp", p)->from, "-hf");
  p = ParseServerArgs({"--model-id", "org/m"}, 0, false);
  EXPECT_EQ(ModelArgument("tgi", p)->value, "org/m");
  p = ParseServerArgs({"--port", "1"}, 0, false);
  EXPECT_FALSE(ModelArgument("sglang", p));
  EXPECT_FALSE(ModelArgument("unknown-engine", p));
}

TEST(ServerCmdline, SplitNulIsBounded) {
  EXPECT_EQ(SplitNul(std::string("a\0b\0", 4)), (Argv{"a", "b"}));
  EXPECT_EQ(SplitNul(std::string("a\0\0b", 4)), (Argv{"a", "", "b"}));
  EXPECT_EQ(SplitNul("abc"), (Argv{"abc"}));
  EXPECT_TRUE(SplitNul("").empty());
  std::string many;
  for (int i = 0; i < 10000; ++i) many += std::string("x\0", 2);
  EXPECT_EQ(SplitNul(many, 100).size(), 100u);
  EXPECT_EQ(SplitNul(std::string(1000, 'y'), 10, 16)[0].size(), 16u);
}

TEST(ServerCmdline, StatParentPid) {
  EXPECT_EQ(ParseStatPpid("1234 (python3) S 77 1234 1234 0 -1"), 77);
  EXPECT_EQ(ParseStatPpid("1234 (sglang::sched (TP0)) S 100 1 1"), 100);  // ')' in comm
  EXPECT_FALSE(ParseStatPpid("1234 (python3"));
  EXPECT_FALSE(ParseStatPpid("1234 (x) S"));
  EXPECT_FALSE(ParseStatPpid("1234 (x) S abc"));
}

}  // namespace
}  // namespace dossier
