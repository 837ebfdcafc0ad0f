#include "measure/serve/serve_records.h"

#include <gtest/gtest.h>

#include "model/json_io.h"

namespace dossier::serve {
namespace {

TEST(ServeRecords, ByMachineOldestFirstAndBadRecordsNamed) {
  ServeMeasurement a;
  a.endpoint = "http://127.0.0.1:30000/v1/completions";
  ServeRun run;
  run.concurrency.Set(64, "");
  run.completed = 10;
  run.failures["HTTP 500: x"] = 2;
  run.total_tokens_per_s = 485;
  a.runs.push_back(run);
  ServeMeasurement b = a;
  b.runs[0].total_tokens_per_s = 900;
  // Records held in memory (doc set), as a one-shot view builds them.
  auto rec = [](std::string file, int64_t seq, std::string kind, std::string time,
                std::string machine, nlohmann::json doc) {
    Record r;
    r.file = std::move(file);
    r.sequence = seq;
    r.kind = std::move(kind);
    r.time = std::move(time);
    r.machine = std::move(machine);
    r.doc = std::move(doc);
    FillHeaderFromDoc(&r);
    return r;
  };
  std::vector<Record> records;
  records.push_back(rec("r1", 1, "serve-bench", "t1", "gpu-a",
                        {{"kind", "serve-bench"}, {"serve", ServeToJson(a)}}));
  records.push_back(rec("r2", 2, "collect", "t2", "gpu-a", {{"kind", "collect"}}));
  records.push_back(rec("r3", 3, "serve-bench", "t3", "gpu-a",
                        {{"kind", "serve-bench"}, {"serve", ServeToJson(b)}}));
  records.push_back(rec("r4", 4, "serve-bench", "t4", "gpu-b", {{"kind", "serve-bench"}}));
  std::vector<std::string> warnings;
  auto by = ServeMeasurementsByMachine(records, &warnings);
  ASSERT_EQ(by["gpu-a"].size(), 2u);
  EXPECT_EQ(by["gpu-a"][0].runs[0].total_tokens_per_s, 485);
  EXPECT_EQ(by["gpu-a"][1].runs[0].total_tokens_per_s, 900);
  EXPECT_EQ(*by["gpu-a"][0].runs[0].concurrency, 64);
  EXPECT_EQ(by["gpu-a"][0].runs[0].failures["HTTP 500: x"], 2);
  EXPECT_EQ(by["gpu-a"][0].time, "t1");  // from the record when the measurement has none
  EXPECT_FALSE(by.count("gpu-b"));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("r4"), std::string::npos);
}

}  // namespace
}  // namespace dossier::serve
