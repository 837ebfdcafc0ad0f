#include <gtest/gtest.h>

#include "../tests/temp_dir.h"
#include "probe/inference_env.h"
#include "probe/probe.h"

namespace dossier {
namespace {

using testing::TempDir;

Machine RunSoftware(const TempDir& t, CollectOptions o = {}) {
  RootFs fs(t.path());
  std::vector<std::string> log;
  ProbeContext ctx{fs, o, &log};
  Machine m;
  ProbeSoftware(ctx, &m);
  return m;
}

TEST(Software, CudaToolkitsAndWhichOneCudaNames) {
  TempDir t;
  t.Write("usr/local/cuda-12.8/version.json",
          R"({"cuda": {"name": "CUDA SDK", "version": "12.8.1"}, "cuda_cudart": {}})");
  t.Write("usr/local/cuda-11.8/version.txt", "CUDA Version 11.8.89\n");
  t.Write("usr/local/cuda-13.0/include/cuda.h", "/* x */\n#define CUDA_VERSION 13000\n");
  t.Write("usr/local/cuda-bad/version.json", "{\"cuda\": ");
  t.Write("usr/local/cuda-file", "not a dir");
  t.Link("/etc/alternatives/cuda", "usr/local/cuda");
  t.Link("/usr/local/cuda-12.8", "etc/alternatives/cuda");
  t.Link("cuda-12.8", "usr/local/cuda-12");
  Machine m = RunSoftware(t);
  const auto& tk = m.software.cuda_toolkits;
  ASSERT_EQ(tk.size(), 4u);
  EXPECT_EQ(tk[0].path, "/usr/local/cuda-11.8");
  EXPECT_EQ(*tk[0].version, "11.8.89");
  EXPECT_EQ(tk[0].version.source, "/usr/local/cuda-11.8/version.txt:1");
  EXPECT_EQ(tk[1].path, "/usr/local/cuda-12.8");
  EXPECT_EQ(*tk[1].version, "12.8.1");
  EXPECT_EQ(tk[1].aliases, (std::vector<std::string>{"/usr/local/cuda", "/usr/local/cuda-12"}));
  EXPECT_EQ(*tk[2].version, "13.0");
  EXPECT_EQ(tk[2].version.source, "/usr/local/cuda-13.0/include/cuda.h:2");
  EXPECT_FALSE(tk[3].version.known());
  EXPECT_NE(tk[3].version.unknown.find("/usr/local/cuda-bad/version.json:1: invalid JSON"),
            std::string::npos)
      << tk[3].version.unknown;
  EXPECT_EQ(*m.software.cuda_default, "/usr/local/cuda-12.8");
}

// cuda.h's CUDA_VERSION is major * 1000 + minor * 10: 1000 (CUDA 1.0) to 1000000 is a version,
// anything outside is a damaged header and gives none.
TEST(Software, CudaHeaderVersionWithinItsBounds) {
  TempDir t;
  const std::pair<const char*, const char*> headers[] = {
      {"cuda-a", "999"},     {"cuda-b", "1000"}, {"cuda-c", "12080"}, {"cuda-d", "1000000"},
      {"cuda-e", "1000001"}, {"cuda-f", "12.8"}, {"cuda-g", "-12080"}};
  for (auto [dir, v] : headers)
    t.Write(std::string("usr/local/") + dir + "/include/cuda.h",
            std::string("#ifndef CUDA_H\n#define CUDA_VERSION ") + v + "\n");
  Machine m = RunSoftware(t);
  const auto& tk = m.software.cuda_toolkits;
  ASSERT_EQ(tk.size(), 7u);
  std::vector<std::string> got;
  for (const auto& k : tk) got.push_back(k.path + " " + k.version.value_or("-"));
  EXPECT_EQ(got, (std::vector<std::string>{"/usr/local/cuda-a -", "/usr/local/cuda-b 1.0",
                                           "/usr/local/cuda-c 12.8", "/usr/local/cuda-d 1000.0",
                                           "/usr/local/cuda-e -", "/usr/local/cuda-f -",
                                           "/usr/local/cuda-g -"}));
  EXPECT_EQ(tk[2].version.source, "/usr/local/cuda-c/include/cuda.h:2");
}

TEST(Software, NoToolkitAndDanglingLink) {
  TempDir t;
  t.Link("/usr/local/cuda-12.4", "usr/local/cuda");
  Machine m = RunSoftware(t);
  EXPECT_TRUE(m.software.cuda_toolkits.empty());
  EXPECT_EQ(m.software.cuda_default.unknown, "link to /usr/local/cuda-12.4, which is absent");
}

TEST(Software, CallerEnvironmentFilteredAndRedacted) {
  TempDir t;
  CollectOptions o;
  o.caller_env = {{"NCCL_P2P_DISABLE", "0"},
                  {"TORCH_CUDA_ARCH_LIST", "10.0"},
                  {"MAX_JOBS", "20"},
                  {"HF_TOKEN", "hf_x"},
                  {"HUGGING_FACE_HUB_TOKEN", "hf_y"},
                  {"AWS_SECRET_ACCESS_KEY", "z"},
                  {"HOME", "/root"},
                  {"SGL_ENABLE_JIT_DEEPGEMM", "1"},
                  {"TLLM_LOG_LEVEL", "INFO"},
                  {"CUDA_HOME", "/usr/local/cuda"},
                  {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}};
  Machine m = RunSoftware(t, o);
  std::map<std::string, std::string> want = {
      {"NCCL_P2P_DISABLE", "0"},
      {"TORCH_CUDA_ARCH_LIST", "10.0"},
      {"MAX_JOBS", "20"},
      {"HF_TOKEN", "<redacted>"},
      {"HUGGING_FACE_HUB_TOKEN", "<redacted>"},
      {"SGL_ENABLE_JIT_DEEPGEMM", "1"},
      {"TLLM_LOG_LEVEL", "INFO"},
      {"CUDA_HOME", "/usr/local/cuda"},
      {"PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"}};
  EXPECT_EQ(m.software.env, want);
}

TEST(InferenceEnv, EnvironRecordsAndBounds) {
  const char kRecords[] = "A=1\0B=x=y\0NOEQ\0=v\0A=2\0\0C=";
  auto env = ParseEnviron(std::string(kRecords, sizeof kRecords - 1));
  EXPECT_EQ(env.at("A"), "1");  // the first definition wins
  EXPECT_EQ(env.at("B"), "x=y");
  EXPECT_EQ(env.at("C"), "");
  EXPECT_FALSE(env.count("NOEQ"));
  EXPECT_EQ(env.size(), 3u);
  // The bound counts records, well-formed or not; empty records (a double NUL) are not records.
  const char kFour[] = "A=1\0\0NOEQ\0B=2\0C=3";
  auto first_three = ParseEnviron(std::string(kFour, sizeof kFour - 1), 3);
  EXPECT_EQ(first_three, (std::map<std::string, std::string>{{"A", "1"}, {"B", "2"}}));
  auto big = InferenceEnv({{"LD_LIBRARY_PATH", std::string(100000, 'p')}});
  EXPECT_LT(big.at("LD_LIBRARY_PATH").size(), kMaxEnvValue + 16);
  EXPECT_TRUE(IsInferenceEnvName("FLASHINFER_WORKSPACE_BASE"));
  EXPECT_FALSE(IsInferenceEnvName("PATH"));
}

}  // namespace
}  // namespace dossier
