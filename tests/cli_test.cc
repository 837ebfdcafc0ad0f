// End-to-end tests of the real `dossier` binary (DOSSIER_BINARY) on the fixture machine trees:
// golden reports, exit codes and messages, the dossier store, and the JSON contract.
//
// Golden files: tests/golden/<tree>.md and <tree>.json hold `dossier collect --root <tree>
// --format md|json` with the generation time replaced by <time> and the tree's path by <root>.
// When a change to the output is intended, rewrite them and review the diff:
//   DOSSIER_UPDATE_GOLDEN=1 build/tests/dossier_tests --gtest_filter='*Golden*'
//   git diff tests/golden
// On a mismatch the actual output is written to <build>/golden-actual/ for `diff -u`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "fixture_trees.h"
#include "golden.h"
#include "probe/probe.h"
#include "run_process.h"
#include "temp_dir.h"

namespace dossier {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::ExpectMatchesGolden;
using testing::FixtureTree;
using testing::ProcessResult;
using testing::ReadWholeFile;
using testing::RunProcess;
using testing::TempDir;

ProcessResult Dossier(std::vector<std::string> args) {
  args.insert(args.begin(), DOSSIER_BINARY);
  return RunProcess(args);
}

// Length of an ISO 8601 UTC time ("2026-12-02T16:30:00Z", optional fraction) at text[i], or 0.
size_t TimeAt(const std::string& text, size_t i) {
  static const char kShape[] = "dddd-dd-ddTdd:dd:dd";
  for (size_t k = 0; kShape[k]; ++k) {
    if (i + k >= text.size()) return 0;
    char c = text[i + k];
    if (kShape[k] == 'd' ? !std::isdigit(static_cast<unsigned char>(c)) : c != kShape[k]) return 0;
  }
  size_t j = i + sizeof(kShape) - 1;
  if (j < text.size() && text[j] == '.')
    while (++j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
    }
  return j < text.size() && text[j] == 'Z' ? j + 1 - i : 0;
}

// Output made comparable across runs and machines: times and the tree's location replaced.
std::string Normalize(const std::string& text, const std::string& root) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (!root.empty() && text.compare(i, root.size(), root) == 0) {
      out += "<root>";
      i += root.size();
    } else if (size_t n = TimeAt(text, i)) {
      out += "<time>";
      i += n;
    } else {
      out += text[i++];
    }
  }
  return out;
}

// --- golden reports of every tree
// -----------------------------------------------------------------

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, MarkdownReport) {
  const std::string& root = FixtureTree(GetParam());
  auto r = Dossier({"collect", "--root", root, "--format", "md"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectMatchesGolden(GetParam() + ".md", Normalize(r.out, root));
}

TEST_P(Golden, JsonReport) {
  const std::string& root = FixtureTree(GetParam());
  auto r = Dossier({"collect", "--root", root, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectMatchesGolden(GetParam() + ".json", Normalize(r.out, root));
}

INSTANTIATE_TEST_SUITE_P(Trees, Golden, ::testing::ValuesIn(testing::FixtureTreeNames()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

// --- exit codes and messages
// -----------------------------------------------------------------------

TEST(Cli, CollectsTheLiveMachine) {
  auto r = Dossier({"collect", "--root", "/", "--format", "json", "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(json::accept(r.out));
}

TEST(Cli, MissingRootIsAUsageError) {
  auto r = Dossier({"collect", "--root", "/nonexistent/machine-tree", "--format", "md"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--root"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/machine-tree"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "") << "nothing on stdout when the input is unusable";
}

TEST(Cli, UnknownCommandSuggestsTheClosest) {
  auto r = Dossier({"colect", "--root", "/"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'colect'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'collect'?"), std::string::npos) << r.err;
  // Within two edits (a letter left out, added, or changed), the closest; three or more: none.
  const std::pair<const char*, const char*> typed[] = {
      {"colet", "collect"}, {"reprot", "report"},
      {"fleets", "fleet"},  {"serve-bnch", "serve-bench"},
      {"dif", "diff"},      {"impotr", "import"},
      {"p2", "p2p"},        {"gen", nullptr},
      {"xyz", nullptr}};
  for (auto [name, want] : typed) {
    auto t = Dossier(std::vector<std::string>{name});
    EXPECT_EQ(t.exit_code, 2) << name;
    if (want)
      EXPECT_NE(t.err.find(std::string("did you mean '") + want + "'?"), std::string::npos)
          << name << ": " << t.err;
    else
      EXPECT_EQ(t.err.find("did you mean"), std::string::npos) << name << ": " << t.err;
  }
}

// --- the dossier store --------------------------------------------------------------------------

std::vector<std::string> RecordFiles(const std::string& dossier) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dossier + "/records"))
    out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Cli, TwoCollectsMakeTwoRecordsAndOneReport) {
  TempDir tmp;
  const std::string dossier = tmp.path() + "/dossier";
  for (const char* tree : {"seed-guest", "seed-host"}) {
    auto r = Dossier({"collect", "--root", FixtureTree(tree), "--dossier", dossier});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "") << "collect into a dossier prints no data";
  }
  EXPECT_EQ(RecordFiles(dossier).size(), 2u);
  auto r = Dossier({"report", "--dossier", dossier});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("## Machine `gpu-vm`"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("## Machine `pve`"), std::string::npos) << r.out;
  r = Dossier({"report", "--dossier", dossier, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["machines"].size(), 2u);

  // Each format whole, and the summary for the two it is for; html has no summary.
  r = Dossier({"report", "--dossier", dossier, "--format", "html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u) << r.out.substr(0, 200);
  for (const char* format : {"md", "json"}) {
    r = Dossier({"report", "--dossier", dossier, "--summary", "--format", format});
    EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
    EXPECT_FALSE(r.out.empty()) << format;
  }
  r = Dossier({"report", "--dossier", dossier, "--summary", "--format", "html"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "dossier report: --summary is for --format md or json\n");
  EXPECT_EQ(r.out, "");
}

TEST(Cli, DamagedRecordsAreNamedSkippedAndLeftAlone) {
  TempDir tmp;
  const std::string dossier = tmp.path() + "/dossier";
  auto r = Dossier({"collect", "--root", FixtureTree("i440fx-guest"), "--dossier", dossier});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string good = ReadWholeFile(RecordFiles(dossier).at(0));
  // A record cut off mid-write, and one that is binary garbage.
  const std::string truncated = dossier + "/records/000090-collect-cut.json";
  const std::string binary = dossier + "/records/000091-collect-noise.json";
  std::string cut = good.substr(0, good.size() / 2);
  std::string noise(
      "\x7f"
      "ELF\x02\x01\x01\0\0\0\xff\xfe\x00\x13",
      15);
  std::ofstream(truncated, std::ios::binary) << cut;
  std::ofstream(binary, std::ios::binary) << noise;

  r = Dossier({"report", "--dossier", dossier});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("## Machine `gpu-vm`"), std::string::npos) << "the good record renders";
  EXPECT_NE(r.err.find(truncated), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(binary), std::string::npos) << r.err;
  EXPECT_EQ(ReadWholeFile(truncated), cut) << "a damaged record is never rewritten";
  EXPECT_EQ(ReadWholeFile(binary), noise);
  EXPECT_EQ(RecordFiles(dossier).size(), 3u) << "and never removed";
}

// --- the JSON contract (docs/json.md) ------------------------------------------------------------

// Calls f(pointer, value) for every value of the machine (provenance and record excluded).
template <class F>
void Walk(const json& j, const std::string& pointer, F f) {
  f(pointer, j);
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (pointer.empty() && (it.key() == "provenance" || it.key() == "record")) continue;
      Walk(it.value(), pointer + "/" + it.key(), f);
    }
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) Walk(j[i], pointer + "/" + std::to_string(i), f);
  }
}

class JsonContract : public ::testing::TestWithParam<std::string> {};

TEST_P(JsonContract, SchemaAddressesAndUnknowns) {
  const std::string& root = FixtureTree(GetParam());
  auto r = Dossier({"collect", "--root", root, "--format", "json", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["schema"], "dossier/1");
  ASSERT_EQ(doc["machines"].size(), 1u);
  const json& m = doc["machines"][0];
  const json& prov = m.at("provenance");

  // PCI addresses always in full DDDD:BB:DD.F form, wherever they appear.
  static const std::regex kAddress("[0-9a-f]{4}:[0-9a-f]{2}:[0-1][0-9a-f]\\.[0-7]");
  static const std::set<std::string> kAddressKeys = {"address", "parent"};
  int addresses = 0;
  Walk(m, "", [&](const std::string& p, const json& v) {
    std::string key = p.substr(p.rfind('/') + 1);
    bool in_device_list =
        p.find("/iommu/groups/") != std::string::npos && p.find("/devices/") != std::string::npos;
    if (v.is_string() && (kAddressKeys.count(key) || in_device_list)) {
      ++addresses;
      EXPECT_TRUE(std::regex_match(v.get<std::string>(), kAddress))
          << p << " = " << v << " is not DDDD:BB:DD.F";
    }
  });
  // The trees made for a CPU probe's edge have no PCI devices; every other tree has.
  if (!m["pci"]["devices"].empty()) {
    EXPECT_GT(addresses, 0) << "PCI devices without addresses";
  }

  // Unknown values are null, and each null says why in the provenance, in every section. The
  // one null that is not a probed fact: a one-shot collect has no earlier boot to compare with
  // (docs/report.md), so changes_since_previous_boot is null by definition.
  Walk(m, "", [&](const std::string& p, const json& v) {
    if (!v.is_null() || p == "/changes_since_previous_boot") return;
    auto e = prov.find(p);
    ASSERT_NE(e, prov.end()) << p << " is null with no provenance entry";
    EXPECT_TRUE(e->contains("unknown") && !(*e)["unknown"].get<std::string>().empty())
        << p << " is null without a reason: " << *e;
  });

  // Secrets never leave the machine.
  EXPECT_EQ(r.out.find("hf_qWmZ"), std::string::npos) << "HF_TOKEN value leaked";
  EXPECT_EQ(r.out.find("sk-glm5-7f3e"), std::string::npos) << "--api-key value leaked";
  EXPECT_EQ(r.out.find("sk-vllm-0d4c"), std::string::npos) << "--api-key= value leaked";
}

INSTANTIATE_TEST_SUITE_P(Trees, JsonContract, ::testing::ValuesIn(testing::FixtureTreeNames()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace dossier

// --- the seed story end to end: host before and after the ACS change, the guest, the notes
// -----------------------------------------------------------------------------------------

namespace dossier {
namespace {

// Runs dossier with the words of `args` split on spaces (no word here holds one).
ProcessResult Dossier(const std::string& args) {
  std::vector<std::string> argv = {DOSSIER_BINARY};
  std::istringstream in(args);
  for (std::string w; in >> w;) argv.push_back(w);
  return RunProcess(argv);
}

TEST(GoldenSeedStory, ReportWithNotesAndTheDiffAfterTheAcsChange) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  ASSERT_EQ(Dossier("collect -q --machine pve-host --dossier " + d + " --root " +
                    FixtureTree("seed-host-before-acs"))
                .exit_code,
            0);
  ASSERT_EQ(Dossier("collect -q --machine pve-host --dossier " + d + " --root " +
                    FixtureTree("seed-host"))
                .exit_code,
            0);
  ASSERT_EQ(
      Dossier("collect -q --machine guest --dossier " + d + " --root " + FixtureTree("seed-guest"))
          .exit_code,
      0);
  fs::copy_file(std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/notes/seed-story.toml",
                d + "/notes.toml");

  // The diff names every GPU whose IOMMU group moved, from which group to which.
  ProcessResult diff = Dossier("diff --machine pve-host --dossier " + d);
  ASSERT_EQ(diff.exit_code, 0) << diff.out;
  for (const char* gpu : {"0000:01:00.0", "0000:11:00.0", "0000:81:00.0", "0000:f1:00.0"})
    EXPECT_NE(diff.out.find(gpu), std::string::npos) << gpu << "\n" << diff.out;
  EXPECT_NE(diff.out.find("44"), std::string::npos) << diff.out;  // f1:00.0 was in group 44
  ExpectMatchesGolden("seed-story-diff.md", Normalize(diff.out, d));

  ProcessResult md = Dossier("report --dossier " + d);
  ASSERT_EQ(md.exit_code, 0) << md.out + md.err;
  // The handoff order, the targets, the stated facts and the findings the story needed.
  size_t last = 0;
  for (const char* h : {"## Goal", "## Instructions", "## Discoveries", "## Measurements",
                        "## Findings", "## Accomplished", "## Next steps", "## Relevant files"}) {
    size_t at = md.out.find(h);
    ASSERT_NE(at, std::string::npos) << h;
    EXPECT_GT(at, last) << h << " out of order";
    last = at;
  }
  EXPECT_NE(md.out.find("1000"), std::string::npos);
  EXPECT_NE(md.out.find("pasted back"), std::string::npos);
  EXPECT_NE(md.out.find("**just changed**"), std::string::npos);
  EXPECT_NE(md.out.find("p2p.vm-isolated"), std::string::npos);
  EXPECT_NE(md.out.find("p2p.separate-root-complexes"), std::string::npos);
  ExpectMatchesGolden("seed-story-report.md", Normalize(md.out, d));

  ProcessResult js = Dossier("report --format json --dossier " + d);
  ASSERT_EQ(js.exit_code, 0) << js.err;
  ExpectMatchesGolden("seed-story-report.json", Normalize(js.out, d));
}

}  // namespace
}  // namespace dossier
