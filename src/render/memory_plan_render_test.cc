// The plan's table as a reader sees it: an unknown cell points at its reason under the table, one
// note per distinct reason, so a row without NVML is not the same long sentence five times.
#include "render/memory_plan_render.h"

#include <gtest/gtest.h>

#include <string>

namespace dossier {
namespace {

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

MemoryPlan PlanNamed(const std::string& label) {
  MemoryPlan p;
  p.label = label;
  p.layout.tp = 2;
  p.weight_bytes_per_gpu.Set(uint64_t{10} << 30, "test");
  p.kv_bytes_per_token_per_gpu.Set(2048, "test");
  return p;
}

TEST(MemoryPlanMarkdown, EachUnknownReasonIsSaidOnceUnderTheTable) {
  MemoryPlan served = PlanNamed("served");
  const std::string no_memory = "GPU memory: NVML was not read; give --gpus COUNTxMEMORY";
  served.kv_tokens_per_gpu.Unknown(no_memory, "");
  served.max_concurrency.Unknown(no_memory, "");
  served.fits.Unknown("no target concurrency in the notes", "");
  MemoryPlan alt = PlanNamed("alternative");
  alt.kv_tokens_per_gpu.Unknown(no_memory, "");
  alt.max_concurrency.Unknown(no_memory, "");
  alt.fits.Unknown(no_memory, "");

  std::string md = MemoryPlansMarkdown({served, alt}, "###");
  std::string table = md.substr(0, md.find("\n\n"));
  // Each reason once in the comparison (the per-plan lists below give each figure's own
  // inputs); the cells point at it by number.
  std::string comparison = md.substr(0, md.find("Parameters:"));
  EXPECT_EQ(Count(comparison, "NVML was not read"), 1u) << md;
  EXPECT_EQ(Count(comparison, "no target concurrency"), 1u) << md;
  EXPECT_EQ(Count(table, "unknown (note 1)"), 5u) << md;
  EXPECT_EQ(Count(table, "unknown (note 2)"), 1u) << md;
  EXPECT_NE(md.find("- note 1: GPU memory: NVML was not read; give --gpus COUNTxMEMORY\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- note 2: no target concurrency in the notes\n"), std::string::npos) << md;
  // Known figures stay in their cells, and a table with nothing unknown has no notes.
  EXPECT_NE(table.find("10.0 GiB"), std::string::npos);
  EXPECT_NE(table.find("2.0 KiB"), std::string::npos);
  MemoryPlan whole = PlanNamed("served");
  whole.kv_tokens_per_gpu.Set(1000, "test");
  whole.max_concurrency.Set(0.0, "test");
  whole.fits.Set(false, "test");
  std::string md2 = MemoryPlansMarkdown({whole}, "###");
  EXPECT_EQ(md2.find("note 1"), std::string::npos) << md2;
  EXPECT_NE(md2.find("| 1000 | 0.00 | no: test |"), std::string::npos) << md2;
  // With the context the concurrency was computed for, the cell names it.
  whole.context.Set(32768, "test");
  std::string md3 = MemoryPlansMarkdown({whole}, "###");
  EXPECT_NE(md3.find("| 1000 | 0.00 at 32768 tokens | no: test |"), std::string::npos) << md3;
}

// A check off by more than 10 % names what to look at; one off by exactly 10 %, or less, is
// within the plan's tolerance (the rule memory.plan-server-disagrees uses the same bound).
TEST(MemoryPlanMarkdown, OnlyAChecksDifferenceBeyondTenPercentNamesWhatToCheck) {
  MemoryPlan p = PlanNamed("served");
  p.checks = {{"weights per GPU", 110, 100, "GiB", "log:1", "the quantization"},
              {"KV tokens per GPU", 111, 100, "tokens", "log:2", "the KV dtype"},
              {"maximum concurrency", 89, 100, "requests", "log:3", "the context length"},
              {"KV budget", 95, 100, "GiB", "log:4", "the memory fraction"}};
  std::string md = MemoryPlansMarkdown({p}, "###");
  EXPECT_NE(md.find("| +10.0 % | `log:1` |"), std::string::npos) << md;
  EXPECT_NE(md.find("| +11.0 % (check: the KV dtype) | `log:2` |"), std::string::npos) << md;
  EXPECT_NE(md.find("| -11.0 % (check: the context length) | `log:3` |"), std::string::npos) << md;
  EXPECT_NE(md.find("| -5.0 % | `log:4` |"), std::string::npos) << md;
  EXPECT_EQ(Count(md, "(check: "), 2u) << md;
}

}  // namespace
}  // namespace dossier
