// One verdict per question, checked on every fixture dossier the repository has: each machine tree
// of tests/fixtures/trees collected alone, the two guest/host pairs (libvirt, the seed story with
// its notes), the seed guest with its host known only from a pasted terminal session, and every
// pasted output of tests/fixtures/import imported alone. In each, every finding's actions and "will
// not help" lines, every plan step and the summary are walked: an action advised in one place and
// listed as not helping (or moot) in another fails, and so does a statement that disagrees with
// the machine's verdict (analyze/verdicts.h) on the same question.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "analyze/verdicts.h"
#include "tests/fixture_trees.h"
#include "tests/run_cli.h"
#include "tests/temp_dir.h"

namespace dossier {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::FixtureTree;
using testing::RunCli;
using testing::TempDir;

std::string CxSrc(const std::string& rel) {
  return std::string(DOSSIER_SOURCE_DIR) + "/" + rel;
}

void CxOk(const std::string& args) {
  auto r = RunCli(args);
  ASSERT_EQ(r.code, 0) << args << "\n" << r.out;
}

json CxReport(const std::string& d) {
  auto r = RunCli("report --format json --dossier " + d);
  EXPECT_EQ(r.code, 0) << r.out;
  // RunCli gives stdout and stderr together: the document is from its first '{' to its last '}'.
  size_t a = r.out.find('{'), b = r.out.rfind('}');
  if (a == std::string::npos || b == std::string::npos) return json();
  return json::parse(r.out.substr(a, b - a + 1), nullptr, false);
}

struct Statement {
  std::string text, where;  // what was said, and where ("finding X on M, action 2")
};

// What a "will not help" line is about: the part before ": ".
std::string WhatOf(const std::string& line) {
  return line.substr(0, line.find(": "));
}

// Every pair of statements that contradict each other in one dossier's report, in words.
std::vector<std::string> Contradictions(const json& doc) {
  std::vector<std::string> out;
  std::map<std::string, std::vector<Statement>> advised, moot;        // by advice topic
  std::map<std::string, std::map<std::string, std::string>> answers;  // machine -> question
  std::map<std::string, std::string> host_of;
  for (const auto& m : doc["machines"]) {
    const std::string name = m["name"];
    if (m.contains("host_link") && m["host_link"].is_object())
      host_of[name] = m["host_link"].value("host", "");
    if (m.contains("verdicts"))
      for (const auto& [q, v] : m["verdicts"].items()) answers[name][q] = v["answer"];
    for (const auto& f : m["findings"]) {
      const std::string id = f["id"];
      for (size_t i = 0; i < f["actions"].size(); ++i) {
        std::string step = f["actions"][i]["do"];
        for (const auto& t : TopicsOf(step))
          advised[t].push_back(
              {step, "finding " + id + " on " + name + ", action " + std::to_string(i + 1)});
      }
      for (const auto& line : f["not_helping"]) {
        for (const auto& t : TopicsOf(WhatOf(line)))
          moot[t].push_back({line, "finding " + id + " on " + name + ", will not help"});
      }
    }
  }
  for (const auto& s : doc["next_steps"]) {
    std::string step = s["do"];
    for (const auto& t : TopicsOf(step))
      advised[t].push_back({step, "plan step from " + s["from"].get<std::string>()});
  }
  for (const auto& s : doc["summary"]["now"])
    for (const auto& t : TopicsOf(s["text"].get<std::string>()))
      advised[t].push_back({s["text"], "summary, now"});
  for (const auto& s : doc["summary"]["known_not_to_help"]) {
    std::string line = s["what"].get<std::string>() + ": " + s["evidence"].get<std::string>();
    for (const auto& t : TopicsOf(s["what"].get<std::string>()))
      moot[t].push_back({line, "summary, known not to help"});
  }
  // 1. An action advised in one place and listed as not helping in another.
  for (const auto& [topic, says] : advised) {
    if (!moot.count(topic)) continue;
    out.push_back("'" + topic + "' advised in " + says.front().where + " (\"" +
                  says.front().text.substr(0, 160) + "\") and not helping in " +
                  moot[topic].front().where + " (\"" + moot[topic].front().text.substr(0, 160) +
                  "\")");
  }
  // 2. Two verdicts for one question: a guest's ACS answer is its host's.
  for (const auto& [guest, host] : host_of) {
    if (!answers.count(guest) || !answers.count(host)) continue;
    if (answers[guest]["acs"] != answers[host]["acs"])
      out.push_back("ACS: '" + answers[guest]["acs"] + "' on guest " + guest + ", '" +
                    answers[host]["acs"] + "' on its host " + host);
  }
  // 3. A statement against the verdict: ACS changes advised where ACS cannot stand in the way,
  // listed as not helping where it does; a clique advised where it cannot work.
  bool any_acs_no = false, any_acs_yes = false, any_clique_no = false, any_clique_yes = false;
  for (auto& [m, q] : answers) {
    any_acs_no = any_acs_no || q["acs"] == "no";
    any_acs_yes = any_acs_yes || q["acs"] == "yes";
    any_clique_no = any_clique_no || q["clique"] == "no";
    any_clique_yes = any_clique_yes || q["clique"] == "yes";
  }
  for (const char* t : {"acs-bios", "acs-kernel"}) {
    if (any_acs_no && !any_acs_yes && advised.count(t))
      out.push_back(std::string(t) + " advised (" + advised[t].front().where +
                    ") where the verdict says ACS does not stand in the way");
    if (any_acs_yes && !any_acs_no && moot.count(t) &&
        moot[t].front().text.find("tried") == std::string::npos)
      out.push_back(std::string(t) + " listed as not helping (" + moot[t].front().where +
                    ") where the verdict says ACS stands in the way");
  }
  if (any_clique_no && !any_clique_yes && advised.count("p2p-clique"))
    out.push_back("a clique advised (" + advised["p2p-clique"].front().where +
                  ") where the verdict says it cannot work");
  if (!any_clique_no && moot.count("p2p-clique"))
    out.push_back("a clique listed as not helping (" + moot["p2p-clique"].front().where +
                  ") where the verdict does not say it cannot work");
  return out;
}

void ExpectConsistent(const std::string& d, const std::string& what) {
  json doc = CxReport(d);
  ASSERT_TRUE(doc.is_object()) << what;
  for (const auto& c : Contradictions(doc)) ADD_FAILURE() << what << ": " << c;
}

TEST(OneVerdict, EveryFixtureTreeAlone) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(CxSrc("tests/fixtures/trees"))) {
    if (!e.is_directory()) continue;
    const std::string name = e.path().filename();
    TempDir t;
    const std::string d = t.path() + "/d";
    CxOk("collect -q --machine " + name + " --dossier " + d + " --root " + FixtureTree(name));
    ExpectConsistent(d, "tree " + name);
    ++n;
  }
  EXPECT_GE(n, 15u);
}

TEST(OneVerdict, GuestHostPairsSeedStoryAndImportedHost) {
  {
    TempDir t;
    const std::string d = t.path() + "/d";
    CxOk("collect -q --machine host --dossier " + d + " --root " + FixtureTree("libvirt-host"));
    CxOk("collect -q --machine guest --dossier " + d + " --root " + FixtureTree("libvirt-guest"));
    ExpectConsistent(d, "libvirt pair");
  }
  {
    TempDir t;
    const std::string d = t.path() + "/d";
    CxOk("collect -q --machine pve-host --dossier " + d + " --root " +
         FixtureTree("seed-host-before-acs"));
    CxOk("collect -q --machine pve-host --dossier " + d + " --root " + FixtureTree("seed-host"));
    CxOk("collect -q --machine guest --dossier " + d + " --root " + FixtureTree("seed-guest"));
    fs::copy_file(CxSrc("tests/fixtures/notes/seed-story.toml"), d + "/notes.toml");
    ExpectConsistent(d, "seed story");
    // The seed host's answers, which the contradictions were about.
    json doc = CxReport(d);
    for (const auto& m : doc["machines"]) {
      EXPECT_EQ(m["verdicts"]["acs"]["answer"], "no") << m["name"];
      EXPECT_EQ(m["verdicts"]["clique"]["answer"], "unknown") << m["name"];
    }
  }
  for (bool notes : {false, true}) {
    TempDir t;
    const std::string d = t.path() + "/d";
    CxOk("collect -q --machine guest --dossier " + d + " --root " + FixtureTree("seed-guest"));
    CxOk("import " + CxSrc("tests/fixtures/import-seed/pve-host-session.txt") +
         " --machine pve-host --dossier " + d);
    if (notes) fs::copy_file(CxSrc("tests/fixtures/notes/seed-story.toml"), d + "/notes.toml");
    ExpectConsistent(
        d, std::string("seed guest with its pasted host") + (notes ? ", with the notes" : ""));
  }
}

TEST(OneVerdict, EveryPastedOutputImportedAlone) {
  size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(CxSrc("tests/fixtures/import"))) {
    if (!e.is_regular_file() || e.path().extension() != ".txt") continue;
    TempDir t;
    const std::string d = t.path() + "/d";
    auto r = RunCli("import " + e.path().string() + " --machine box --dossier " + d);
    if (r.code != 0) continue;  // not every paste makes a machine (a benchmark alone)
    ExpectConsistent(d, e.path().filename().string());
    ++n;
  }
  EXPECT_GE(n, 20u);
}

// The check itself catches what it is for: the statements of the old report.
TEST(OneVerdict, TheCheckFindsTheContradictionsOfBefore) {
  json doc = json::parse(R"J({
    "machines": [
      {"name": "pve-host", "verdicts": {"acs": {"answer": "no"}, "clique": {"answer": "no"}},
       "findings": [
        {"id": "pcie.acs-redirect", "not_helping": [],
         "actions": [{"do": "Clear ACS redirect at boot: `pci=disable_acs_redir=ADDR`, or disable ACS in the BIOS setup"}]},
        {"id": "p2p.separate-root-complexes", "not_helping": [],
         "actions": [{"do": "For a guest: advertise the GPUs as one P2P clique (QEMU vfio-pci x-nv-gpudirect-clique)"}]}]},
      {"name": "guest", "host_link": {"host": "pve-host"},
       "verdicts": {"acs": {"answer": "unknown"}, "clique": {"answer": "no"}},
       "findings": [
        {"id": "p2p.vm-isolated", "actions": [],
         "not_helping": ["Disabling ACS in the host BIOS: only renumbers IOMMU groups",
                         "x-nv-gpudirect-clique (QEMU vfio-pci) for these GPUs: no pair"]}]}],
    "next_steps": [], "summary": {"now": [], "known_not_to_help": []}})J");
  auto c = Contradictions(doc);
  std::string all;
  for (const auto& x : c) all += x + "\n";
  EXPECT_NE(all.find("'acs-bios' advised"), std::string::npos) << all;
  EXPECT_NE(all.find("'p2p-clique' advised"), std::string::npos) << all;
  EXPECT_NE(all.find("ACS: 'unknown' on guest guest, 'no' on its host"), std::string::npos) << all;
  EXPECT_NE(all.find("acs-kernel advised"), std::string::npos) << all;
}

}  // namespace
}  // namespace dossier
