// dossier plan end to end: a plan for a config.json on hardware given by hand, the served model of
// a collected machine, a vLLM/SGLang start-up log imported beside it, the finding when they
// disagree, and the usage errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fixture_trees.h"
#include "run_process.h"
#include "standin_paths.h"
#include "temp_dir.h"

namespace dossier {
namespace {

using testing::FixtureTree;
using testing::ProcessResult;
using testing::RunProcess;
using testing::TempDir;

ProcessResult Plan(std::vector<std::string> args) {
  args.insert(args.begin(), DOSSIER_BINARY);
  return RunProcess(args);
}

const std::string& Glm5Dir() {
  static const std::string d =
      std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/trees/seed-guest/files/models/GLM-5-NVFP4";
  return d;
}

nlohmann::json Json(const ProcessResult& r) {
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

TEST(PlanCli, ModelOnGivenGpusWithAlternatives) {
  ProcessResult r = Plan({"plan", "--model", Glm5Dir(), "--gpus", "8x96GiB", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  nlohmann::json j = Json(r);
  ASSERT_EQ(j["schema"], "dossier/1");
  ASSERT_GE(j["plans"].size(), 2u);
  const auto& p = j["plans"][0];
  EXPECT_EQ(p["label"], "planned");
  EXPECT_EQ(p["layout"]["tp"], 8);
  EXPECT_TRUE(p["machine"].is_null());
  for (const char* k :
       {"params_total", "params_active", "weight_bytes_per_gpu", "kv_bytes_per_token",
        "kv_bytes_per_token_per_gpu", "kv_tokens_per_gpu", "max_concurrency", "fits"})
    EXPECT_FALSE(p[k].is_null()) << k << ": " << p["unknown"].dump();
  // The MLA latent in BF16 and the sparse-attention indexer's FP8 keys with their scale.
  EXPECT_EQ(p["kv_bytes_per_token_per_gpu"], (576 * 2 + 132) * 78);
  EXPECT_EQ(p["fits"], true);
  EXPECT_TRUE(p["how"].contains("weight_bytes_per_gpu"));
  bool pp2 = false;
  for (const auto& q : j["plans"]) pp2 |= q["layout"]["tp"] == 4 && q["layout"]["pp"] == 2;
  EXPECT_TRUE(pp2);

  // Markdown: the parameters people quote, and the table.
  ProcessResult md = Plan({"plan", "--model", Glm5Dir() + "/config.json", "--gpus", "8x96GiB"});
  ASSERT_EQ(md.exit_code, 0) << md.out;
  EXPECT_NE(md.out.find("Parameters: 743."), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("| planned | TP 8 |"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("routed experts:"), std::string::npos);
}

// --model takes a model directory, its config.json (the same: the directory is read, with the
// quantization file beside it), or any other JSON file, read alone. Here the NVFP4 scheme is only
// in hf_quant_config.json (ModelOpt's file), so what was read shows in the weights.
TEST(PlanCli, AConfigJsonIsItsDirectoryAndAnyOtherFileIsReadAlone) {
  TempDir t;
  const std::string dir = t.path() + "/GLM-5-NVFP4";
  std::filesystem::create_directories(dir);
  nlohmann::json cfg = nlohmann::json::parse(std::ifstream(Glm5Dir() + "/config.json"));
  cfg.erase("quantization_config");
  std::ofstream(dir + "/config.json") << cfg.dump(2);
  std::ofstream(dir + "/glm5-copy.json") << cfg.dump(2);
  std::filesystem::copy_file(Glm5Dir() + "/hf_quant_config.json", dir + "/hf_quant_config.json");
  auto weights = [](const std::string& model) {
    ProcessResult r = Plan({"plan", "--model", model, "--gpus", "8x96GiB", "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << model << ": " << r.err;
    nlohmann::json j = Json(r);
    return j["plans"].empty() ? -1.0 : j["plans"][0]["weight_bytes_per_gpu"].get<double>();
  };
  const double nvfp4 = weights(dir);
  EXPECT_EQ(nvfp4, weights(Glm5Dir()));  // the scheme read from either file is the same
  EXPECT_EQ(weights(dir + "/config.json"), nvfp4);
  // The copy is read alone: no quantization, BF16 weights, more than three times larger.
  EXPECT_GT(weights(dir + "/glm5-copy.json"), 3 * nvfp4);
}

TEST(PlanCli, OverridesChangeTheAnswer) {
  ProcessResult small =
      Plan({"plan", "--model", Glm5Dir(), "--gpus", "8x24GiB", "--format", "json"});
  ASSERT_EQ(small.exit_code, 0) << small.out;
  EXPECT_EQ(Json(small)["plans"][0]["fits"], false);
  ProcessResult fp8 = Plan({"plan", "--model", Glm5Dir(), "--gpus", "8x96GiB", "--kv-dtype", "fp8",
                            "--context", "8192", "--format", "json"});
  ASSERT_EQ(fp8.exit_code, 0);
  auto p = Json(fp8)["plans"][0];
  EXPECT_EQ(p["kv_bytes_per_token_per_gpu"], (576 + 132) * 78);  // the indexer's keys stay FP8
  EXPECT_EQ(p["context"], 8192);
}

TEST(PlanCli, UsageErrorsAreExit2) {
  TempDir t;
  ProcessResult r = Plan({"plan", "--model", Glm5Dir(), "--gpus", "eight"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("COUNTxMEMORY"), std::string::npos) << r.err;
  r = Plan({"plan", "--model", t.path() + "/nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
  std::filesystem::create_directories(t.path() + "/d");
  r = Plan({"plan", "--dossier", t.path() + "/d"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--model DIR --gpus"), std::string::npos) << r.err;
}

// The seed guest serves GLM-5 with SGLang at TP 8; an SGLang start-up log imported for it is
// shown beside the plan, and a log that disagrees by more than 10 % is a finding.
TEST(PlanCli, ServedModelBesideItsImportedLog) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  ASSERT_EQ(Plan({"collect", "-q", "--machine", "guest", "--dossier", d, "--root",
                  FixtureTree("seed-guest")})
                .exit_code,
            0);
  // No NVML in the tree: the weights are planned, the pool is unknown without --gpus.
  ProcessResult bare = Plan({"plan", "--dossier", d, "--format", "json"});
  ASSERT_EQ(bare.exit_code, 0) << bare.out;
  auto b = Json(bare)["plans"][0];
  EXPECT_EQ(b["machine"], "guest");
  EXPECT_EQ(b["layout"]["tp"], 8);
  EXPECT_FALSE(b["weight_bytes_per_gpu"].is_null());
  EXPECT_TRUE(b["kv_tokens_per_gpu"].is_null());
  EXPECT_NE(b["unknown"]["kv_tokens_per_gpu"].get<std::string>().find("--gpus"), std::string::npos);
  EXPECT_TRUE(b["fits"].is_null());

  const double planned_gib = b["weight_bytes_per_gpu"].get<double>() / (1024.0 * 1024 * 1024);
  // A log whose weights are 40 % above the plan.
  const std::string log = t.path() + "/sglang.log";
  std::ofstream(log) << "[2026-12-01 10:00:00 TP0] Load weight end. type=GlmMoeDsaForCausalLM, "
                        "dtype=torch.bfloat16, avail mem=20.00 GB, mem usage="
                     << planned_gib * 1.4
                     << " GB.\n"
                        "[2026-12-01 10:00:05 TP0] KV Cache is allocated. #tokens: 200000, KV "
                        "size: 18.65 GB\n";
  ProcessResult imp = Plan({"import", log, "--machine", "guest", "--dossier", d});
  ASSERT_EQ(imp.exit_code, 0) << imp.err;
  ProcessResult with = Plan({"plan", "--dossier", d, "--gpus", "8x96GiB", "--format", "json"});
  ASSERT_EQ(with.exit_code, 0) << with.out;
  auto p = Json(with)["plans"][0];
  ASSERT_FALSE(p["checks"].empty()) << p.dump(2);
  bool weights = false, per_token = false;
  for (const auto& c : p["checks"]) {
    if (c["what"] == "weights per GPU") {
      weights = true;
      EXPECT_NEAR(c["difference"].get<double>(), 1 / 1.4 - 1, 0.01);
    }
    if (c["what"] == "KV cache bytes per token per GPU") {
      per_token = true;  // 18.65 GiB / 200000 = 100,128 B; the plan's 100,152 B
      EXPECT_NEAR(c["difference"].get<double>(), 0, 0.01);
    }
  }
  EXPECT_TRUE(weights && per_token);
  ProcessResult rep = Plan({"report", "--dossier", d, "--format", "json"});
  ASSERT_EQ(rep.exit_code, 0);
  bool finding = false;
  std::string ids;
  const nlohmann::json report = Json(rep);  // kept: a range over a temporary's member dangles
  for (const auto& m : report["machines"])
    for (const auto& f : m["findings"]) {
      finding |= f["id"] == "plan.server-disagrees";
      ids += f["id"].get<std::string>() + " ";
    }
  EXPECT_TRUE(finding) << ids;
  ProcessResult md = Plan({"report", "--dossier", d});
  EXPECT_NE(md.out.find("## Memory plan"), std::string::npos);
  EXPECT_NE(md.out.find("Beside what the server logged"), std::string::npos);
  // The difference in per cent as the reader reads it (mutants.py seed 1207: 99 x the
  // difference went unseen): the plan's weights are 1/1.4 of the log's, -28.6 %.
  EXPECT_NE(md.out.find("| -28.6 % (check: "), std::string::npos) << md.out;
}

TEST(PlanCli, AgreeingLogIsNoFinding) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  ASSERT_EQ(Plan({"collect", "-q", "--machine", "guest", "--dossier", d, "--root",
                  FixtureTree("seed-guest")})
                .exit_code,
            0);
  const nlohmann::json bare = Json(Plan({"plan", "--dossier", d, "--format", "json"}));
  const nlohmann::json& b = bare["plans"][0];
  const double gib = b["weight_bytes_per_gpu"].get<double>() / (1024.0 * 1024 * 1024);
  const std::string log = t.path() + "/sglang.log";
  std::ofstream(log) << "[2026-12-01 10:00:00 TP3] Load weight end. type=GlmMoeDsaForCausalLM, "
                        "avail mem=30.00 GB, mem usage="
                     << gib * 1.02 << " GB.\n";
  ASSERT_EQ(Plan({"import", log, "--machine", "guest", "--dossier", d}).exit_code, 0);
  const nlohmann::json planned = Json(Plan({"plan", "--dossier", d, "--format", "json"}));
  const nlohmann::json& p = planned["plans"][0];
  ASSERT_EQ(p["checks"].size(), 1u) << p.dump(2);
  EXPECT_NEAR(p["checks"][0]["difference"].get<double>(), 1 / 1.02 - 1, 0.005);
  ProcessResult rep = Plan({"report", "--dossier", d, "--format", "json"});
  const nlohmann::json report = Json(rep);
  ASSERT_FALSE(report["machines"].empty());
  size_t findings = 0;
  for (const auto& m : report["machines"])
    for (const auto& f : m["findings"]) {
      ++findings;
      EXPECT_NE(f["id"], "plan.server-disagrees");
    }
  EXPECT_GT(findings, 0u);  // the report's other findings are there: the check is not vacuous
}

// The seed guest with its GPUs' memory (the NVML stand-in: 8 x 95.6 GiB) and a target at a
// concurrency: the served TP 8 plan falls short, and the finding says which of the plan's other
// layouts would hold the target (with the engine's flags) and which would not.
TEST(PlanCli, TargetConcurrencyShortSaysWhichLayoutsWouldHoldIt) {
  testing::StandinFixture nvml("seed-guest");
  auto findings_for = [](const std::string& target) {
    TempDir t;
    const std::string d = t.path() + "/dossier";
    EXPECT_EQ(Plan({"collect", "-q", "--machine", "guest", "--dossier", d, "--root",
                    FixtureTree("seed-guest"), "--nvml-lib", testing::NvmlStandin()})
                  .exit_code,
              0);
    EXPECT_EQ(Plan({"note", "--dossier", d, "target", target}).exit_code, 0);
    ProcessResult plan = Plan({"plan", "--dossier", d, "--format", "json"});
    EXPECT_EQ(plan.exit_code, 0) << plan.err;
    ProcessResult rep = Plan({"report", "--dossier", d, "--format", "json"});
    EXPECT_EQ(rep.exit_code, 0) << rep.err;
    const nlohmann::json report = Json(rep);
    nlohmann::json out = nlohmann::json::array();
    for (const auto& m : report["machines"])
      for (const auto& f : m["findings"])
        if (f["id"] == "plan.target-short") out.push_back(f);
    return std::make_pair(out, Json(plan));
  };
  // What the plan says of each layout at the served context, to build the two targets from.
  auto [none, plans] = findings_for("total_tokens_per_s > 1 at concurrency 1");
  ASSERT_GE(plans["plans"].size(), 3u) << plans.dump(2);
  const double served = plans["plans"][0]["max_concurrency"].get<double>();
  double best = 0;
  std::string best_layout;
  for (size_t i = 1; i < plans["plans"].size(); ++i) {
    const auto& p = plans["plans"][i];
    if (p["max_concurrency"].is_number() && p["max_concurrency"].get<double>() > best) {
      best = p["max_concurrency"].get<double>();
      best_layout = p["layout"]["tp"].dump() + "/" + p["layout"]["pp"].dump();
    }
  }
  ASSERT_GT(best, served + 0.5) << plans.dump(2);
  EXPECT_TRUE(none.empty() || served >= 1) << none.dump(2);

  // A target between the served layout and the best alternative: the alternative is the action.
  const int between = static_cast<int>(served) + 1;
  ASSERT_LT(between, best);
  auto [reach, p1] =
      findings_for("total_tokens_per_s > 1 at concurrency " + std::to_string(between));
  ASSERT_EQ(reach.size(), 1u);
  const std::string actions = reach[0]["actions"].dump();
  EXPECT_NE(actions.find("Restart the server as"), std::string::npos) << actions;
  EXPECT_NE(actions.find("--tp "), std::string::npos) << actions;  // SGLang's flag names
  EXPECT_EQ(actions.find("--tensor-parallel-size"), std::string::npos) << actions;
  EXPECT_NE(
      reach[0]["title"].get<std::string>().find("the target asks for " + std::to_string(between)),
      std::string::npos);

  // A target no layout reaches: every alternative is said not to help, and the action says so.
  auto [beyond, p2] = findings_for("total_tokens_per_s > 1 at concurrency 10000");
  ASSERT_EQ(beyond.size(), 1u);
  EXPECT_EQ(beyond[0]["not_helping"].size(), p2["plans"].size() - 1) << beyond[0].dump(2);
  EXPECT_NE(beyond[0]["actions"].dump().find("No layout the plan computed reaches"),
            std::string::npos);
}

}  // namespace
}  // namespace dossier
