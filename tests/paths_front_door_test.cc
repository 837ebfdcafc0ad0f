// Commands and report paths no other test ran: `note show`, the p2p summary of `report`,
// `help probes|formats|rules`, `version`, and `serve-bench --dataset` in a real run.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "analyze/rule.h"
#include "front_door.h"
#include "probe/probe.h"
#include "render/render.h"
#include "standin_paths.h"
#include "standins/openai_standin.h"

namespace dossier::pathsfrontdoor {
namespace {

using nlohmann::json;
using testing::FixtureTree;
using testing::RunDossier;
using testing::TempDir;

TEST(HelpAndVersion, EveryTableIsListedInFull) {
  auto probes = RunDossier({"help", "probes"});
  ASSERT_EQ(probes.exit_code, 0) << probes.err;
  for (const auto& p : ProbeTable()) {
    EXPECT_NE(probes.out.find(std::string(p.name) + " "), std::string::npos) << p.name;
    EXPECT_NE(probes.out.find(p.what), std::string::npos) << p.name;
  }
  auto formats = RunDossier({"help", "formats"});
  ASSERT_EQ(formats.exit_code, 0);
  for (const auto& r : RendererTable()) {
    EXPECT_NE(formats.out.find(std::string("  ") + r.format + " "), std::string::npos) << r.format;
    EXPECT_NE(formats.out.find(r.what), std::string::npos);
  }
  EXPECT_NE(formats.out.find("md"), std::string::npos);
  EXPECT_NE(formats.out.find("json"), std::string::npos);
  auto rules = RunDossier({"help", "rules"});
  ASSERT_EQ(rules.exit_code, 0);
  size_t lines = 0;
  for (char c : rules.out) lines += c == '\n';
  EXPECT_EQ(lines, RuleTable().size()) << rules.out;
  for (const auto& r : RuleTable()) {
    size_t at = rules.out.find(std::string("  ") + r.id + " ");
    ASSERT_NE(at, std::string::npos) << r.id;
    std::string line = rules.out.substr(at, rules.out.find('\n', at) - at);
    EXPECT_NE(line.find(std::string(" ") + r.severity + " "), std::string::npos) << line;
    EXPECT_NE(line.find(r.what), std::string::npos) << line;
  }
  // help with no topic lists the commands; an unknown topic is not silently the same list.
  auto plain = RunDossier({"help"});
  EXPECT_EQ(plain.exit_code, 0);
  for (const char* cmd : {"collect", "report", "serve-bench", "p2p", "note", "diff", "version"})
    EXPECT_NE(plain.out.find(std::string("  ") + cmd + " "), std::string::npos) << cmd;

  for (std::vector<std::string> v : {std::vector<std::string>{"version"}, {"--version"}}) {
    auto r = RunDossier(v);
    EXPECT_EQ(r.exit_code, 0);
    // The version, then the PCI ID database a collect would name devices from.
    EXPECT_TRUE(r.out.starts_with(std::string("dossier ") + DOSSIER_VERSION + "\npci.ids "))
        << r.out;
    if (RootFs("/").IsRegularFile("/usr/share/misc/pci.ids")) {
      EXPECT_NE(r.out.find(": /usr/share/misc/pci.ids\n"), std::string::npos) << r.out;
    }
  }
}

TEST(NoteShow, PrintsEverySectionNumberedAsDoneExpects) {
  TempDir t;
  const std::string d = t.path() + "/d";
  auto note = [&](std::vector<std::string> a) {
    a.insert(a.begin(), {"note", "--dossier", d});
    auto r = RunDossier(a);
    EXPECT_EQ(r.exit_code, 0) << r.err;
  };
  // Nothing yet: show says so instead of failing.
  auto empty = RunDossier({"note", "--dossier", d, "show"});
  EXPECT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_NE(empty.out.find("Goal: (none)"), std::string::npos) << empty.out;

  note({"goal", "Serve GLM-5 on 8 GPUs"});
  note({"target", "total_tokens_per_s >= 1000 at concurrency 64"});
  note({"target", "ttft_ms.median < 250"});
  note({"machine", "pve-host", "--role", "host", "--reachable", "no", "--instructions",
        "a person runs commands there"});
  note({"fact", "ACS", "disabled", "--status", "just-changed", "--machine", "pve-host"});
  note({"tried", "iommu=pt", "--result", "no change"});
  note({"next", "first step", "--verify", "lspci -vvv"});
  note({"next", "second step", "--blocking"});
  note({"done", "1"});
  note({"file", "/etc/pve/qemu-server/100.conf", "--machine", "pve-host", "--why", "the VM"});
  auto r = RunDossier({"note", "--dossier", d, "show"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string want = "# Notes (" + d + "/notes.toml)\n\n" +
                           "Goal: Serve GLM-5 on 8 GPUs\n"
                           "  target: total_tokens_per_s >= 1000 at concurrency 64\n"
                           "  target: ttft_ms.median < 250\n"
                           "\nMachines:\n"
                           "  pve-host (host, reachable: no): a person runs commands there\n"
                           "\nStated facts:\n"
                           "  ACS = disabled [just-changed] on pve-host\n"
                           "\nTried:\n"
                           "  iommu=pt -> no change\n"
                           "\nNext steps (number for 'dossier note done N'):\n"
                           "  1. [done] first step  (verify: lspci -vvv)\n"
                           "  2. [blocking] second step\n"
                           "\nFiles:\n"
                           "  pve-host: /etc/pve/qemu-server/100.conf the VM\n";
  EXPECT_EQ(r.out, want);
  // The JSON form holds the same notes.
  auto j = RunDossier({"note", "--dossier", d, "show", "--format", "json"});
  ASSERT_EQ(j.exit_code, 0);
  json doc = json::parse(j.out);
  EXPECT_EQ(doc["targets"][1]["op"], "<");
  EXPECT_EQ(doc["next"][0]["done"], true);
  EXPECT_EQ(doc["next"][1]["done"], false);
}

TEST(ReportP2pSummary, TheMeasurementsSectionSummarizesEveryRun) {
  TempDir t;
  const std::string d = t.path() + "/d";
  ASSERT_EQ(RunDossier({"collect", "-q", "--root", FixtureTree("baremetal-switch"), "--machine",
                        "box", "--dossier", d})
                .exit_code,
            0);
  {
    testing::StandinFixture s("faulty");
    auto r = RunDossier({"p2p", "--cuda-lib", testing::CudaStandin(), "--nvml-lib",
                         testing::NvmlStandin(), "--pairs", "0-1", "--sizes", "4K,64K", "--no-host",
                         "-q", "--machine", "box", "--dossier", d});
    EXPECT_EQ(r.exit_code, 1) << r.err;  // corrupted copies
  }
  auto js = RunDossier({"report", "--format", "json", "--dossier", d});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  json doc = json::parse(js.out);
  // The summary counts every result by verdict; the counts add up.
  const json* summary = nullptr;
  std::function<void(const json&)> find = [&](const json& j) {
    if (summary) return;
    if (j.is_object()) {
      for (const auto& [k, v] : j.items()) {
        if (k == "p2p" && v.is_array() && !v.empty() && v[0].contains("best_p2p")) summary = &v;
        find(v);
      }
    } else if (j.is_array()) {
      for (const auto& v : j) find(v);
    }
  };
  find(doc);
  ASSERT_NE(summary, nullptr) << "no p2p summary in the report";
  ASSERT_EQ(summary->size(), 1u);
  const json& s = (*summary)[0];
  int results = s["results"];
  EXPECT_GT(results, 0);
  EXPECT_EQ(s["ok"].get<int>() + s["corrupted"].get<int>() + s["hung"].get<int>() +
                s["waived"].get<int>() + s["errors"].get<int>(),
            results);
  EXPECT_GT(s["corrupted"].get<int>(), 0);  // 0 -> 1 peer copies corrupt bytes
  EXPECT_FALSE(s["interrupted"].get<bool>());
  EXPECT_NE(s["best_staged"].get<std::string>().find("GB/s GPU "), std::string::npos) << s;
  EXPECT_NE(s["small_message_latency"].get<std::string>().find(" us "), std::string::npos) << s;

  auto md = RunDossier({"report", "--dossier", d});
  ASSERT_EQ(md.exit_code, 0);
  size_t at = md.out.find("| p2p run | results | best P2P, one way | best staged, one way |");
  ASSERT_NE(at, std::string::npos) << md.out;
  EXPECT_NE(md.out.find("corrupted**", at), std::string::npos);
  EXPECT_NE(md.out.find("Latest p2p sweep in detail:", at), std::string::npos);
}

TEST(ServeBenchDataset, ARealRunSendsTheDatasetsPrompts) {
  testing::StandinConfig cfg;
  cfg.ttft_ms = 2;
  cfg.itl_ms = 1;
  cfg.lifetime_s = 30;
  testing::StandinServer server(cfg);
  ASSERT_TRUE(server.Start());
  TempDir t;
  const std::vector<std::string> prompts = {
      "What is the capital of France, and why was it chosen?",
      "Tell me a story about a dragon who learned to read books.",
      "Explain how a PCIe switch routes peer to peer traffic between GPUs.",
  };
  std::string text = "[";
  for (size_t i = 0; i < prompts.size(); ++i) {
    text += (i ? "," : "") + std::string(R"({"id":"c)") + std::to_string(i) +
            R"(","conversations":[{"from":"human","value":")" + prompts[i] +
            R"("},{"from":"gpt","value":"An answer long enough to count as one, with words."}]})";
  }
  t.Write("sharegpt.json", text + "]");
  auto r = RunDossier({"serve-bench", server.base_url(), "--dataset", t.path() + "/sharegpt.json",
                       "--num-prompts", "3", "--concurrency", "1", "--output-len", "4", "--format",
                       "json", "--dossier", t.path() + "/d", "--machine", "box"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json m = json::parse(r.out);
  EXPECT_NE(m["dataset"].get<std::string>().find("sharegpt.json"), std::string::npos) << m;
  const json& run = m["runs"][0];
  EXPECT_EQ(run["completed"], 3);
  EXPECT_EQ(run["output_tokens"], 12);
  // Every prompt the server received is one of the dataset's, each once.
  std::multiset<std::string> sent;
  int64_t words = 0;
  for (const auto& s : server.Served()) {
    json body = json::parse(s.body);
    sent.insert(body["prompt"].get<std::string>());
    EXPECT_EQ(body["max_tokens"], 4);
  }
  EXPECT_EQ(sent, std::multiset<std::string>(prompts.begin(), prompts.end()));
  for (const auto& p : prompts) {
    std::istringstream in(p);
    for (std::string w; in >> w;) ++words;
  }
  // The server's count (usage.prompt_tokens) is what it read: the stand-in counts words as
  // tokens. input_tokens is the dataset's own estimate without a tokenizer (sharegpt_dataset.cc).
  EXPECT_EQ(run["input_tokens_server"], words);
  EXPECT_GT(run["input_tokens"].get<int64_t>(), 0);
  // A dataset that cannot be used is bad input, exit 2, nothing stored.
  t.Write("bad.json", "{\"not\": \"a list\"");
  auto bad = RunDossier({"serve-bench", server.base_url(), "--dataset", t.path() + "/bad.json",
                         "--dossier", t.path() + "/d2", "--machine", "box"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("bad.json"), std::string::npos) << bad.err;
  EXPECT_FALSE(std::filesystem::exists(t.path() + "/d2/records"));
}

}  // namespace
}  // namespace dossier::pathsfrontdoor
