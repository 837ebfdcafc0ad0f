// The report: sections in the handoff document's order, targets with measured values, findings
// by severity, next steps blocking first, the same content in JSON.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../tests/model_builders.h"
#include "analyze/analysis.h"
#include "render/render.h"

namespace dossier {
namespace {

// The seed story as a view: guest and host, notes, one serving measurement.
View SeedView() {
  View v = testing::ViewOf({testing::SeedGuest(), testing::SeedHost()});
  v.dossier_path = "dossier";
  v.generated_at = "2026-12-02T00:00:00Z";
  Notes& n = v.notes;
  n.path = "dossier/notes.toml";
  n.goal = "Serve GLM-5-NVFP4 with SGLang on 8x RTX PRO 6000 Blackwell";
  n.targets = {{"total_tokens_per_s", ">=", 1000, 64, "", 5},
               {"single_stream_tokens_per_s", ">=", 100, 0, "", 11}};
  n.machines = {{"glm-guest", "guest", "yes", "ssh root@guest", "pve-host", 16, ""},
                {"pve-host", "host", "no",
                 "commands on the host are run by a person and pasted back", "", 22, ""}};
  n.facts = {{"ACS", "disabled", "just-changed", "pve-host", "BIOS", "", 28},
             {"Above 4G decoding", "enabled", "confirmed", "pve-host", "", "", 34}};
  n.tried = {{"moved the VM from i440FX to Q35", "GPUs got PCIe capabilities", "glm-guest",
              "2026-11-29", 40}};
  n.next = {{"tune NCCL buffers", "dossier serve-bench URL", "glm-guest", false, false, "", "", 46},
            {"update /etc/pve/mapping/pci.cfg with the new groups", "qm start 100", "pve-host",
             true, false, "", "", 52},
            {"install CUDA 12.8", "nvcc --version", "glm-guest", false, true, "", "", 58}};
  n.files = {{"~/nccl_topo.xml", "glm-guest", "NCCL topology file", 64},
             {"/etc/pve/mapping/pci.cfg", "pve-host", "PCI resource mapping", 68}};
  ServeMeasurement sm;
  sm.time = "2026-12-01T12:00:00Z";
  sm.boot_id = "11111111-guest-boot";
  sm.endpoint = "http://127.0.0.1:30000";
  ServeRun one, many;
  one.concurrency = Known(int64_t{1}, "serve-bench");
  one.output_tokens_per_s = 11;
  one.total_tokens_per_s = 40;
  one.completed = 4;
  many.concurrency = Known(int64_t{64}, "serve-bench");
  many.output_tokens_per_s = 300;
  many.total_tokens_per_s = 485;
  many.completed = 64;
  sm.runs = {one, many};
  v.machines[0].serve.push_back(sm);
  return v;
}

// The renderers read a view and its analysis.
std::string Md(const View& v) {
  return RenderMarkdown(v, Analyze(v));
}
std::string Json(const View& v) {
  return RenderJson(v, Analyze(v));
}

size_t At(const std::string& s, const std::string& what) {
  size_t p = s.find(what);
  EXPECT_NE(p, std::string::npos) << "missing: " << what;
  return p;
}

TEST(Report, SectionsComeInTheHandoffOrder) {
  std::string md = Md(SeedView());
  std::vector<size_t> pos = {At(md, "\n## Goal\n"),
                             At(md, "\n## Instructions\n"),
                             At(md, "\n## Discoveries, from the hardware up\n"),
                             At(md, "\n## Measurements\n"),
                             At(md, "\n## Findings\n"),
                             At(md, "\n## Accomplished\n"),
                             At(md, "\n## Next steps\n"),
                             At(md, "\n## Relevant files\n")};
  for (size_t i = 1; i < pos.size(); ++i) EXPECT_LT(pos[i - 1], pos[i]) << i;
  // Findings by severity: warnings before infos (when any finding stays at info).
  size_t info = md.find("### Info");
  if (info != std::string::npos) {
    EXPECT_LT(At(md, "### Warning"), info);
  }
  // The summary comes first.
  EXPECT_LT(At(md, "\n## Summary\n"), pos.front());
}

TEST(Report, GoalShowsEachTargetWithTheLatestMeasuredValue) {
  View v = SeedView();
  Analysis a = Analyze(v);
  ASSERT_EQ(a.plan.targets.size(), 2u);
  EXPECT_EQ(a.plan.targets[0].value, 485);
  EXPECT_EQ(a.plan.targets[0].verdict, "not met");
  EXPECT_EQ(a.plan.targets[1].value, 11);
  std::string md = RenderMarkdown(v, a);
  EXPECT_NE(md.find("| `total_tokens_per_s >= 1000 at concurrency 64` | 485.0 | `glm-guest`, "
                    "2026-12-01T12:00:00Z | **not met** |"),
            std::string::npos);
}

TEST(Report, InstructionsStatedFactsAccomplishedAndFiles) {
  std::string md = Md(SeedView());
  EXPECT_NE(md.find("commands on the host are run by a person and pasted back"), std::string::npos);
  EXPECT_NE(md.find("| ACS | disabled | **just changed** | BIOS | `dossier/notes.toml:28` |"),
            std::string::npos);
  EXPECT_NE(md.find("- [x] moved the VM from i440FX to Q35 → GPUs got PCIe capabilities"),
            std::string::npos);
  EXPECT_NE(md.find("- [x] install CUDA 12.8"), std::string::npos);
  EXPECT_NE(md.find("### `pve-host`\n\n- `/etc/pve/mapping/pci.cfg` — PCI resource mapping"),
            std::string::npos);
}

// Each entry's context is its machine and its date, whichever are known, joined by ", ".
TEST(Report, AccomplishedEntriesSayTheirMachineAndWhen) {
  Analysis a;
  auto item = [](std::string machine, std::string when, bool failed) {
    DoneItem d;
    d.what = "install CUDA 12.8";
    d.result = "done";
    d.machine = std::move(machine);
    d.when = std::move(when);
    d.from = "notes.toml:9";
    d.failed = failed;
    return d;
  };
  a.plan.accomplished = {item("guest", "2026-12-01", false), item("", "2026-12-02", false),
                         item("host", "", true), item("", "", false)};
  std::string out;
  MdAccomplished(View{}, a, &out);
  EXPECT_EQ(out,
            "- [x] install CUDA 12.8 (`guest`, 2026-12-01) `notes.toml:9`\n"
            "- [x] install CUDA 12.8 (2026-12-02) `notes.toml:9`\n"
            "- [ ] install CUDA 12.8 (did not work) (`host`) `notes.toml:9`\n"
            "- [x] install CUDA 12.8 `notes.toml:9`\n\n");
}

TEST(Report, NextStepsBlockingFirstNotesAndFindingsSideBySide) {
  View v = SeedView();
  Analysis a = Analyze(v);
  const auto& steps = a.plan.next_steps;
  ASSERT_GE(steps.size(), 3u);
  EXPECT_TRUE(steps[0].blocking);
  EXPECT_EQ(steps[0].from, "dossier/notes.toml:52");
  bool note = false, rule = false;
  for (const auto& s : steps) {
    note = note || s.from == "dossier/notes.toml:46";
    rule = rule || s.from == "finding p2p.vm-isolated";
    EXPECT_NE(s.step, "install CUDA 12.8");  // done: it is under Accomplished
  }
  EXPECT_TRUE(note);
  EXPECT_TRUE(rule);
  std::string md = RenderMarkdown(v, a);
  EXPECT_NE(md.find("| 1 | **blocking** update /etc/pve/mapping/pci.cfg with the new groups | "
                    "`qm start 100` |"),
            std::string::npos);
}

TEST(Report, JsonCarriesFindingsPerMachineAndTheSameParts) {
  auto j = nlohmann::json::parse(Json(SeedView()));
  EXPECT_EQ(j["schema"], "dossier/1");
  const auto& guest = j["machines"][0];
  ASSERT_TRUE(guest["findings"].is_array());
  ASSERT_FALSE(guest["findings"].empty());
  const auto& f = guest["findings"][0];
  for (const char* k :
       {"id", "severity", "title", "evidence", "explanation", "not_helping", "actions"})
    EXPECT_TRUE(f.contains(k)) << k;
  EXPECT_TRUE(f["actions"][0].contains("do"));
  EXPECT_TRUE(f["actions"][0].contains("verify"));
  EXPECT_TRUE(f["evidence"][0].contains("source"));
  std::set<std::string> ids;
  for (const auto& x : guest["findings"]) ids.insert(x["id"]);
  EXPECT_TRUE(ids.count("p2p.vm-isolated"));
  EXPECT_TRUE(ids.count("numa.gpu-affinity-unknown"));
  EXPECT_TRUE(ids.count("build.cuda-arch-mismatch"));
  EXPECT_TRUE(ids.count("serve.below-target"));
  EXPECT_EQ(j["goal"]["targets"][0]["value"], 485);
  EXPECT_EQ(j["goal"]["targets"][0]["verdict"], "not met");
  EXPECT_EQ(j["next_steps"][0]["blocking"], true);
  EXPECT_EQ(j["instructions"][1]["reachable"], "no");
  EXPECT_EQ(j["stated_facts"][0]["status"], "just-changed");
  EXPECT_EQ(j["accomplished"].size(), 2u);
  EXPECT_EQ(j["files"].size(), 2u);
  EXPECT_TRUE(j["machines"][0]["changes_since_previous_boot"].is_null());
  EXPECT_EQ(j["machines"][0]["measurement_summary"]["serve"][1]["total_tokens_per_s"], 485);
}

// Zero is a value and unknown is not: NUMA node 0 and GPU 0, no failed request, beside a NUMA
// node the kernel did not give and a failure count nobody saw, in Markdown, JSON and HTML.
TEST(Report, ZeroIsAValueBesideUnknownInEveryFormat) {
  View v = SeedView();
  Machine& g = v.machines[0].machine;
  ASSERT_GE(g.gpus.size(), 2u);
  g.gpus[0].numa_node = Known<int64_t>(0, "/sys/bus/pci/devices/0000:01:00.0/numa_node");
  g.gpus[1].numa_node.Unknown("no numa_node file", "/sys/bus/pci/devices/0000:02:00.0");
  ServeRun& one = v.machines[0].serve[0].runs[0];
  ServeRun& many = v.machines[0].serve[0].runs[1];
  many.failed = 0;
  one.not_known["failed"] = "typed in: not given";
  Analysis a = Analyze(v);

  std::string md = RenderMarkdown(v, a);
  size_t gpu0 = At(md, "| 0 | `0000:01:00.0` |");
  std::string row0 = md.substr(gpu0, md.find('\n', gpu0) - gpu0);
  EXPECT_NE(row0.find("| 0 |", 5), std::string::npos) << row0;  // NUMA node 0, not unknown
  size_t gpu1 = At(md, "| 1 | `0000:02:00.0` |");
  std::string row1 = md.substr(gpu1, md.find('\n', gpu1) - gpu1);
  EXPECT_NE(row1.find("unknown"), std::string::npos) << row1;
  EXPECT_NE(md.find("| 64 / 0 |"), std::string::npos);
  EXPECT_NE(md.find("| 4 / not known |"), std::string::npos);

  auto j = nlohmann::json::parse(RenderJson(v, a));
  const auto& m = j["machines"][0];
  EXPECT_EQ(m["gpus"][0]["numa_node"], 0);
  EXPECT_TRUE(m["gpus"][1]["numa_node"].is_null());
  EXPECT_EQ(m["provenance"]["/gpus/1/numa_node"]["unknown"], "no numa_node file");
  EXPECT_EQ(m["measurement_summary"]["serve"][1]["failed"], 0);
  EXPECT_TRUE(m["measurement_summary"]["serve"][0]["failed"].is_null());
  EXPECT_EQ(m["measurement_summary"]["serve"][0]["unknown"], "typed in: not given");

  std::string html = RenderHtml(v, a);
  EXPECT_NE(html.find("64 / 0"), std::string::npos);
  EXPECT_NE(html.find("4 / not known"), std::string::npos);
}

TEST(Report, OneShotCollectHasNoNotesSections) {
  View v = testing::ViewOf({testing::SeedGuest(2)});
  std::string md = Md(v);
  EXPECT_EQ(md.find("## Goal"), std::string::npos);
  EXPECT_EQ(md.find("## Relevant files"), std::string::npos);
  EXPECT_NE(md.find("## Findings"), std::string::npos);
  EXPECT_NE(md.find("`p2p.vm-isolated` on `glm-guest`"), std::string::npos);
  EXPECT_NE(md.find("## Next steps"), std::string::npos);
  auto j = nlohmann::json::parse(Json(v));
  EXPECT_FALSE(j["machines"][0]["findings"].empty());
}

}  // namespace
}  // namespace dossier
