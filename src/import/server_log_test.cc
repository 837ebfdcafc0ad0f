// The server-log importer on real start-up lines of vLLM and SGLang and on lines in the shapes
// they print (tests/corpus/import-server-log/SOURCES.md says which is which).
#include <gtest/gtest.h>

#include "import/import_test_util.h"

namespace dossier::import {
namespace {

using testing::ImportString;

constexpr double kGiBytes = 1024.0 * 1024.0 * 1024.0;

std::string CorpusFile(const std::string& name) {
  return dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) +
                                 "/tests/corpus/import-server-log/" + name);
}

const ServerMemoryLog& OnlyLog(const ImportRun& run) {
  EXPECT_EQ(run.imported.machine.server_logs.size(), 1u);
  static const ServerMemoryLog kNone;
  return run.imported.machine.server_logs.empty() ? kNone
                                                  : run.imported.machine.server_logs.front();
}

TEST(ServerLogImport, VllmWeightsAndConcurrencyAsLogged) {
  ImportRun run = ImportString(CorpusFile("vllm-v1-llama70b-w8a8.txt"));
  EXPECT_EQ(testing::Formats(run), std::vector<std::string>{"server-log"});
  const ServerMemoryLog& log = OnlyLog(run);
  EXPECT_EQ(*log.engine, "vllm");
  EXPECT_NEAR(*log.weights_bytes_per_gpu / kGiBytes, 67.7229, 1e-4);
  EXPECT_EQ(*log.concurrency_context, 2048);
  EXPECT_DOUBLE_EQ(*log.max_concurrency, 10.79);
  EXPECT_FALSE(log.kv_tokens.known());  // "# GPU blocks" is blocks, not tokens
}

TEST(ServerLogImport, ThousandsSeparatorsAndBothEngines) {
  const ServerMemoryLog v =
      OnlyLog(ImportString(CorpusFile("vllm-qwen3-235b-fp8-tp4.txt"), "server-log"));
  EXPECT_EQ(*v.kv_tokens, 178880u);
  EXPECT_NEAR(*v.kv_cache_bytes_per_gpu / kGiBytes, 8.11, 1e-6);
  const ServerMemoryLog s =
      OnlyLog(ImportString(CorpusFile("sglang-qwen3-235b-fp8-tp4.txt"), "server-log"));
  EXPECT_EQ(*s.engine, "sglang");
  EXPECT_EQ(*s.kv_tokens, 367404u);
  EXPECT_NEAR(*s.kv_cache_bytes_per_gpu / kGiBytes, 16.46, 1e-6);  // K + V
}

// vLLM with decode context parallel logs the tokens already multiplied by the DCP size: the
// same KV memory, eight times the tokens (the plan divides a rank's bytes per token the same way).
TEST(ServerLogImport, DecodeContextParallelTokensAsLogged) {
  const ServerMemoryLog tp = OnlyLog(ImportString(CorpusFile("vllm-kimi-k2-thinking-tp8.txt")));
  const ServerMemoryLog dcp =
      OnlyLog(ImportString(CorpusFile("vllm-kimi-k2-thinking-tp8-dcp8.txt")));
  EXPECT_EQ(*tp.engine, "vllm");
  EXPECT_EQ(*tp.kv_tokens, 715072u);
  EXPECT_EQ(*dcp.kv_tokens, 5721088u);
  EXPECT_NEAR(*tp.kv_cache_bytes_per_gpu / kGiBytes, 46.80, 1e-6);
  EXPECT_EQ(*dcp.kv_cache_bytes_per_gpu, *tp.kv_cache_bytes_per_gpu);
}

TEST(ServerLogImport, EveryLineShape) {
  const ServerMemoryLog s = OnlyLog(ImportString(CorpusFile("shapes-sglang.txt")));
  EXPECT_NEAR(*s.weights_bytes_per_gpu / kGiBytes, 54.76, 1e-6);   // the fuller of two ranks
  EXPECT_NEAR(*s.kv_cache_bytes_per_gpu / kGiBytes, 66.12, 1e-6);  // MLA: one "KV size"
  EXPECT_EQ(*s.kv_tokens, 1015136u);
  EXPECT_NEAR(*s.cuda_graph_bytes / kGiBytes, 1.53, 1e-6);
  const ServerMemoryLog v = OnlyLog(ImportString(CorpusFile("shapes-vllm.txt")));
  EXPECT_NEAR(*v.weights_bytes_per_gpu / kGiBytes, 78.79, 1e-6);
  EXPECT_EQ(*v.kv_tokens, 2182642u);
  EXPECT_EQ(*v.concurrency_context, 131072);
  EXPECT_DOUBLE_EQ(*v.max_concurrency, 4.07);
  EXPECT_NEAR(*v.cuda_graph_bytes / kGiBytes, 0.53, 1e-6);
  ASSERT_TRUE(v.out_of_memory.known());
  EXPECT_NE(v.out_of_memory->find("Tried to allocate 2.00 GiB"), std::string::npos);
}

TEST(ServerLogImport, GarbledNumbersAreNotFacts) {
  ImportRun run;
  run.imported.machine.name = "m";
  Status st = ImportText(CorpusFile("damaged-garbled-numbers.txt"), "x.txt",
                         FindImporter("server-log"), &run);
  // "#tokens: ,,,," and "-3 GiB" are no figures; "1e999" reads as its leading 1 at most.
  for (const auto& log : run.imported.machine.server_logs) {
    EXPECT_FALSE(log.kv_tokens.known());
    EXPECT_FALSE(log.weights_bytes_per_gpu.known());
    EXPECT_FALSE(log.max_concurrency.known());
  }
  (void)st;
}

}  // namespace
}  // namespace dossier::import
