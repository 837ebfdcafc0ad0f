#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyze/analysis.h"
#include "fleet/fleet_compare.h"
#include "fleet/fleet_reader.h"
#include "fleet/fleet_render.h"
#include "model/json_io.h"
#include "tests/golden.h"
#include "tests/model_builders.h"
#include "tests/run_cli.h"
#include "tests/temp_dir.h"

namespace dossier::fleet {
namespace {

using testing::SeedGuest;

MachineView Node(const std::string& name) {
  MachineView mv;
  mv.machine = SeedGuest();
  mv.machine.name = name;
  mv.machine.software.nvidia_driver =
      Known(std::string("580.95.05"), "/proc/driver/nvidia/version");
  mv.record.time = "2026-12-01T00:00:00Z";
  return mv;
}

PciDevice* GpuPci(Machine* m, int gpu) {
  for (auto& d : m->pci.devices)
    if (d.address == m->gpus[gpu].address) return &d;
  return nullptr;
}

void AddP2p(MachineView* mv, double gbps) {
  P2pMeasurement pm;
  for (int s = 0; s < 2; ++s)
    for (int d = 0; d < 2; ++d) {
      if (s == d) continue;
      P2pResult r;
      r.src = s;
      r.dst = d;
      r.mode = "uni-p2p";
      r.size_bytes = 16 << 20;
      r.verdict = "ok";
      // The weakest pair is what the fleet compares: the other direction is faster.
      r.gbps_median = Known(s == 0 ? gbps : gbps + 5, "measurement");
      pm.results.push_back(r);
    }
  mv->p2p.push_back(pm);
}

const Difference* FindDiff(const GroupReport& g, const std::string& fact) {
  for (const auto& d : g.differences)
    if (d.fact == fact) return &d;
  return nullptr;
}

TEST(Fleet, UniformFleetHasNoDifferences) {
  FleetComparer c;
  for (int i = 0; i < 6; ++i) c.Add(FromMachineView(Node("n" + std::to_string(i)), {}));
  FleetReport r = c.Finish();
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.nodes, 6u);
  EXPECT_TRUE(r.uniform());
  EXPECT_TRUE(r.groups[0].differences.empty());
  EXPECT_EQ(r.groups[0].gpu_count, 8);
  EXPECT_NE(FleetMarkdown(r).find("**Uniform**"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(FleetJson(r))["uniform"].get<bool>());
}

// A fleet report names nodes up to a limit (20 in a group's list and the never-collected list, 10
// beside a differing value) and then says how many more: at the limit no "more", one past it
// "and 1 more" with the last name left out.
TEST(FleetMarkdown, NamesUpToTheLimitThenHowManyMore) {
  auto names = [](size_t n, const std::string& prefix) {
    std::vector<std::string> v;
    for (size_t i = 0; i < n; ++i) v.push_back(prefix + std::to_string(100 + i));
    return v;
  };
  for (size_t extra : {0u, 1u}) {
    SCOPED_TRACE(extra);
    FleetReport r;
    GroupReport g;
    g.board = "board";
    g.gpu_model = "RTX";
    g.gpu_count = 8;
    g.nodes = names(20 + extra, "n");
    Difference d;
    d.fact = "driver";
    d.common = {"580", 9, {}};
    d.others = {{"575", 10 + extra, names(10 + extra, "d")}};
    g.differences = {d};
    r.groups = {g};
    r.nodes = g.nodes.size();
    r.not_collected = names(20 + extra, "m");
    std::string md = FleetMarkdown(r);
    EXPECT_NE(md.find("n119"), std::string::npos) << md;  // the 20th name
    EXPECT_NE(md.find("m119"), std::string::npos) << md;
    EXPECT_NE(md.find("d109"), std::string::npos) << md;  // the 10th beside its value
    EXPECT_EQ(md.find("n120"), std::string::npos) << md;  // the 21st is counted, not named
    EXPECT_EQ(md.find("m120"), std::string::npos) << md;
    EXPECT_EQ(md.find("d110"), std::string::npos) << md;
    if (extra == 0) {
      EXPECT_EQ(md.find(" more"), std::string::npos) << md;
    } else {
      EXPECT_NE(md.find("Nodes: n100, n101"), std::string::npos) << md;
      EXPECT_NE(md.find("n119 and 1 more"), std::string::npos) << md;
      EXPECT_NE(md.find("m119 and 1 more"), std::string::npos) << md;
      EXPECT_NE(md.find("d109 and 1 more"), std::string::npos) << md;
    }
  }
}

TEST(Fleet, NamesTheNodeWithANarrowLinkAndOtherDrift) {
  FleetComparer c;
  for (int i = 0; i < 10; ++i) {
    MachineView mv = Node("n" + std::to_string(i));
    if (i == 7) testing::SetLink(GpuPci(&mv.machine, 3), 5, 8, 5, 16);
    if (i == 2) mv.machine.software.nvidia_driver = Known(std::string("575.57.08"), "x");
    if (i == 4) mv.machine.dmi.bios_version.Unknown("needs root", "/sys/class/dmi/id/bios_version");
    c.Add(FromMachineView(mv, {}));
  }
  FleetReport r = c.Finish();
  ASSERT_EQ(r.groups.size(), 1u);
  const auto& g = r.groups[0];
  const Difference* link = FindDiff(g, "GPU 3 PCIe link");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->common.value, "Gen5 x16 (max Gen5 x16)");
  EXPECT_EQ(link->common.count, 9u);
  ASSERT_EQ(link->others.size(), 1u);
  EXPECT_EQ(link->others[0].value, "Gen5 x8 (max Gen5 x16)");
  EXPECT_EQ(link->others[0].nodes, std::vector<std::string>{"n7"});
  const Difference* drv = FindDiff(g, "NVIDIA driver");
  ASSERT_NE(drv, nullptr);
  EXPECT_EQ(drv->others[0].nodes, std::vector<std::string>{"n2"});
  const Difference* bios = FindDiff(g, "BIOS version");
  ASSERT_NE(bios, nullptr);  // unknown is a value: it differs from the peers' unknown reason
  EXPECT_EQ(FindDiff(g, "GPU 2 PCIe link"), nullptr);
  EXPECT_EQ(r.outliers.count("n7"), 1u);
  EXPECT_EQ(r.outliers.count("n2"), 1u);
  EXPECT_EQ(r.outliers.count("n0"), 0u);
  std::string md = FleetMarkdown(r);
  EXPECT_NE(md.find("GPU 3 PCIe link"), std::string::npos);
  EXPECT_NE(md.find("n7"), std::string::npos);
}

// A node that differs for several reasons has one row, its reasons on lines of that cell (a
// Markdown table cell holds no newline), each escaped; a node with one reason has no break.
TEST(FleetMarkdown, ANodeThatDiffersTwiceHasOneRowWithBothReasons) {
  FleetReport r;
  r.outliers["n7"] = {"GPU 3 PCIe link: Gen5 x8", "NVIDIA driver: 575|57"};
  r.outliers["n2"] = {"BIOS version: 1.2"};
  std::string md = FleetMarkdown(r);
  EXPECT_NE(md.find("## Nodes that differ"), std::string::npos);
  EXPECT_NE(md.find("| n7 | GPU 3 PCIe link: Gen5 x8<br>NVIDIA driver: 575\\|57 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| n2 | BIOS version: 1.2 |"), std::string::npos) << md;
}

// Node "nI" of one group (board "b", GPUs "g") with nothing else known.
NodeFacts OneGroupNode(int i) {
  NodeFacts n;
  n.name = "n" + std::to_string(i);
  n.board = "b";
  n.gpu_model = "g";
  return n;
}

TEST(Fleet, FactMissingOnANodeIsNotCaptured) {
  FleetComparer c;
  for (int i = 0; i < 4; ++i) {
    NodeFacts n = OneGroupNode(i);
    if (i != 1) n.attributes.emplace_back("python package torch", "2.8.0");
    c.Add(n);
  }
  FleetReport r = c.Finish();
  const Difference* d = FindDiff(r.groups[0], "python package torch");
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->others.size(), 1u);
  EXPECT_EQ(d->others[0].value, "not captured");
  EXPECT_EQ(d->others[0].nodes, std::vector<std::string>{"n1"});
}

// A node can name one fact twice (two serving runs of one load that both failed requests): it
// still counts once towards "every node has it", so the node without the fact is named.
TEST(Fleet, AFactTwiceOnOneNodeDoesNotHideTheNodeWithoutIt) {
  FleetComparer c;
  for (int i = 0; i < 4; ++i) {
    NodeFacts n = OneGroupNode(i);
    if (i == 0) n.attributes.emplace_back("serve rate 1/s failed requests", "3");
    if (i != 1) n.attributes.emplace_back("serve rate 1/s failed requests", "5");
    c.Add(n);
  }
  FleetReport r = c.Finish();
  const Difference* d = FindDiff(r.groups[0], "serve rate 1/s failed requests");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->common.value, "5");
  EXPECT_EQ(d->common.count, 3u);
  ASSERT_EQ(d->others.size(), 2u);
  EXPECT_EQ(d->others[0].value, "3");
  EXPECT_EQ(d->others[0].nodes, std::vector<std::string>{"n0"});
  EXPECT_EQ(d->others[1].value, "not captured");
  EXPECT_EQ(d->others[1].nodes, std::vector<std::string>{"n1"});
}

TEST(Fleet, MeasuredBandwidthFarFromTheMedianByMad) {
  FleetComparer c;
  const double noise[] = {50.1, 49.8, 50.3, 49.9, 50.0, 50.2, 49.7, 50.1};
  for (int i = 0; i < 8; ++i) {
    MachineView mv = Node("n" + std::to_string(i));
    AddP2p(&mv, i == 5 ? 24.0 : noise[i]);
    c.Add(FromMachineView(mv, {}));
  }
  FleetReport r = c.Finish();
  const auto& g = r.groups[0];
  ASSERT_EQ(g.metric_outliers.size(), 1u);
  const auto& o = g.metric_outliers[0];
  EXPECT_EQ(o.node, "n5");
  EXPECT_DOUBLE_EQ(o.value, 24.0);
  EXPECT_EQ(o.where, "GPU 0 -> GPU 1");
  EXPECT_NEAR(o.median, 49.95, 1e-9);  // (49.9 + 50.0) / 2 of the eight
  EXPECT_LT(o.deviation_percent.value_or(0), -50);
  EXPECT_EQ(o.metric, "p2p uni-p2p 16777216 B, weakest pair (GB/s)");
  EXPECT_EQ(r.outliers.size(), 1u);
}

// A median of 0 has no percentage: the outlier is said with its value and the median, never as
// "+0.0%" (which reads as "on the median") — in the flag, the table and the JSON (null).
TEST(Fleet, AnOutlierFromAZeroMedianHasNoPercentage) {
  FleetComparer c;
  for (int i = 0; i < 8; ++i) {
    MachineView mv = Node("n" + std::to_string(i));
    AddP2p(&mv, i == 5 ? 5.0 : 0.0);
    c.Add(FromMachineView(mv, {}));
  }
  FleetReport r = c.Finish();
  ASSERT_EQ(r.groups[0].metric_outliers.size(), 1u);
  const auto& o = r.groups[0].metric_outliers[0];
  EXPECT_EQ(o.node, "n5");
  EXPECT_DOUBLE_EQ(o.median, 0.0);
  EXPECT_FALSE(o.deviation_percent.has_value());
  ASSERT_EQ(r.outliers.at("n5").size(), 1u);
  EXPECT_EQ(r.outliers.at("n5")[0],
            "p2p uni-p2p 16777216 B, weakest pair (GB/s): 5 (GPU 0 -> GPU 1) where the group's "
            "median is 0 (MAD 0)");
  EXPECT_NE(FleetMarkdown(r).find("| no % of a 0 median |"), std::string::npos);
  auto j = nlohmann::json::parse(FleetJson(r));
  EXPECT_TRUE(j["groups"][0]["metric_outliers"][0]["deviation_percent"].is_null());
  EXPECT_DOUBLE_EQ(j["groups"][0]["metric_outliers"][0]["median"].get<double>(), 0.0);
}

// A fleet of every kind of finding, its whole Markdown and JSON reports golden (reviewed): the
// drift table, a measured outlier, a measure on too few nodes, a GPU set that differs, two
// machines under one name (each with its board, UUID when known, and boot), a node only measured,
// the files read and a file that could not be, a finding on every node and one on two.
TEST(FleetGolden, EverySectionOfTheReport) {
  FleetComparer c;
  for (int i = 0; i < 8; ++i) {
    MachineView mv = Node("n" + std::to_string(i));
    mv.machine.boot_id = Known("boot-n" + std::to_string(i), "/proc/sys/kernel/random/boot_id");
    if (i == 2) mv.machine.software.nvidia_driver = Known(std::string("575.57.08"), "x");
    AddP2p(&mv, i == 5 ? 24.0 : 50.0 + 0.1 * i);
    std::vector<Finding> found = {{"p2p.disabled", "warning", "", {}, "", {}, {}, ""}};
    if (i == 3 || i == 6) found.push_back({"gpu.ecc-errors", "critical", "", {}, "", {}, {}, ""});
    NodeFacts n = FromMachineView(mv, found);
    if (i < 2) n.metrics.push_back({"serve total tok/s", 1000.0 + i, "c=64"});
    c.Add(std::move(n));
  }
  MachineView seven = Node("n8");
  seven.machine = SeedGuest(7);
  seven.machine.name = "n8";
  c.Add(FromMachineView(seven, {}));
  // "box" twice: two different machines (boards and boots differ), one with a UUID.
  NodeFacts a = FromMachineView(Node("box"), {});
  a.file = "a/records/1.json";
  a.board = "Board A";
  a.boot_id = "boot-a";
  a.uuid = "4c4c4544-0000";
  NodeFacts b = FromMachineView(Node("box"), {});
  b.file = "b/records/1.json";
  b.board = "Board B";
  b.boot_id = "boot-b";
  c.Add(std::move(a));
  c.Add(std::move(b));
  NodeFacts measured;
  measured.name = "only-measured";
  measured.file = "bench/records/2.json";
  measured.collected = false;
  c.Add(std::move(measured));
  for (int i = 0; i < 13; ++i) c.AddFile();
  c.Warn("slurm/c.json:3: not valid JSON (truncated or damaged)");
  FleetReport r = c.Finish();
  testing::ExpectMatchesGolden("fleet-every-section.md", FleetMarkdown(r));
  // Figures to 9 significant digits: the last bits of a MAD may differ between compilers.
  std::function<void(nlohmann::json&)> round = [&](nlohmann::json& j) {
    if (j.is_number_float()) j = std::stod(fmt::format("{:.9g}", j.get<double>()));
    if (j.is_structured())
      for (auto& e : j) round(e);
  };
  nlohmann::json j = nlohmann::json::parse(FleetJson(r));
  round(j);
  testing::ExpectMatchesGolden("fleet-every-section.json", j.dump(1) + "\n");
}

// A collect --format json output carries serving figures as a summary: per load the latest run
// that completed a request (or whose count is not known: a typed-in figure); a run that completed
// none measured nothing, and rows that are not runs are passed over.
TEST(FleetOutput, ServingFiguresFromTheSummaryRunsThatCompletedOrWhoseCountIsUnknown) {
  nlohmann::json m = MachineToJson(SeedGuest());
  m["measurement_summary"]["serve"] = nlohmann::json::array(
      {{{"load", "c=1"}, {"completed", 10}, {"total_tokens_per_s", 100.0}},
       {{"load", "c=1"}, {"completed", 12}, {"total_tokens_per_s", 110.0}},  // later: it stands
       {{"load", "c=8"}, {"completed", 0}, {"total_tokens_per_s", 999.0}},   // completed none
       {{"load", "c=16"}, {"completed", nullptr}, {"total_tokens_per_s", 640.0}},
       {{"load", "c=32"}, {"completed", -1}, {"total_tokens_per_s", 5.0}},
       {{"load", "c=64"}, {"total_tokens_per_s", 7.0}},  // no count at all: not a run
       {{"load", "c=128"}, {"completed", 3}, {"total_tokens_per_s", "fast"}},
       "not a row"});
  std::vector<std::string> w;
  NodeFacts n = FromOutputMachine(m, "out.json", &w);
  std::map<std::string, double> serve;
  for (const auto& x : n.metrics)
    if (x.name.starts_with("serve ")) serve[x.name] = x.value;
  EXPECT_EQ(serve, (std::map<std::string, double>{{"serve c=1 total tokens/s", 110.0},
                                                  {"serve c=16 total tokens/s", 640.0}}));
}

// A finding a node reports twice (two records merged, apart in its list) counts once: on one node
// of two it is a difference, never "everywhere".
TEST(Fleet, AFindingReportedTwiceByOneNodeCountsOnce) {
  FleetComparer c;
  NodeFacts a = FromMachineView(Node("a"), {});
  a.findings = {"warning p2p.x", "info numa.y", "warning p2p.x"};
  NodeFacts b = FromMachineView(Node("b"), {});
  b.findings = {"info numa.y"};
  c.Add(a);
  c.Add(b);
  FleetReport r = c.Finish();
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].findings_everywhere, std::vector<std::string>{"info numa.y"});
  const Difference* d = FindDiff(r.groups[0], "finding warning p2p.x");
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(d->others.size(), 2u);  // one node each side of two: neither is most
  EXPECT_EQ(d->common.count, 0u);
}

// "Most nodes" is more than half: three drivers over seven nodes (3, 2, 2) have none, and every
// node is named with its value; four of seven is the common value, the other three differ.
TEST(Fleet, TheCommonValueIsHeldByMoreThanHalfTheGroup) {
  for (int most : {3, 4}) {
    SCOPED_TRACE(most);
    FleetComparer c;
    for (int i = 0; i < 7; ++i) {
      MachineView mv = Node("n" + std::to_string(i));
      const char* drv = i < most ? "580" : (i - most) % 2 ? "575" : "570";
      mv.machine.software.nvidia_driver = Known(std::string(drv), "x");
      c.Add(FromMachineView(mv, {}));
    }
    FleetReport r = c.Finish();
    const Difference* d = FindDiff(r.groups[0], "NVIDIA driver");
    ASSERT_NE(d, nullptr);
    if (most == 3) {
      EXPECT_EQ(d->common.count, 0u);
      // Fewest nodes first; values held by as many nodes keep their order (570 before 575).
      ASSERT_EQ(d->others.size(), 3u);
      EXPECT_EQ(d->others[0].value, "570");
      EXPECT_EQ(d->others[1].value, "575");
      EXPECT_EQ(d->others[2].value, "580");
      EXPECT_EQ(r.outliers.size(), 7u);
      EXPECT_EQ(r.outliers.at("n0")[0],
                "NVIDIA driver: 580 (no value on more than half the group)");
    } else {
      EXPECT_EQ(d->common.value, "580");
      EXPECT_EQ(d->common.count, 4u);
      EXPECT_EQ(r.outliers.size(), 3u);
      EXPECT_EQ(r.outliers.at("n4")[0], "NVIDIA driver: 570 where 4 of 7 have 580");
    }
  }
}

// Two machines under one name, then a later record of the second from the same file: it replaces
// the second ("box (b.json)"), never the first.
TEST(Fleet, ALaterRecordOfTheSecondMachineUnderOneNameReplacesTheSecond) {
  FleetComparer c;
  NodeFacts a = FromMachineView(Node("box"), {});
  a.file = "a.json";
  a.board = "Board A";
  a.boot_id = "boot-a";
  NodeFacts b = a;
  b.file = "b.json";
  b.board = "Board B";
  b.boot_id = "boot-b";
  NodeFacts later = b;
  later.time = "2026-12-02T00:00:00Z";
  c.Add(a);
  c.Add(b);
  c.Add(later);
  FleetReport r = c.Finish();
  EXPECT_EQ(r.nodes, 2u);
  EXPECT_EQ(r.replaced, 1u);
  std::map<std::string, std::vector<std::string>> by_board;
  for (const auto& g : r.groups) by_board[g.board] = g.nodes;
  EXPECT_EQ(by_board, (std::map<std::string, std::vector<std::string>>{
                          {"Board A", {"box"}}, {"Board B", {"box (b.json)"}}}));
}

TEST(Fleet, TooFewMeasurementsAreNotJudged) {
  FleetComparer c;
  for (int i = 0; i < 3; ++i) {
    MachineView mv = Node("n" + std::to_string(i));
    AddP2p(&mv, i == 0 ? 10.0 : 50.0);
    c.Add(FromMachineView(mv, {}));
  }
  FleetReport r = c.Finish();
  EXPECT_TRUE(r.groups[0].metric_outliers.empty());
  EXPECT_EQ(r.groups[0].metrics_too_few.size(), 1u);
  EXPECT_TRUE(r.uniform());
}

TEST(Fleet, FindingOnSomeNodesOnlyAndFindingsEverywhere) {
  FleetComparer c;
  for (int i = 0; i < 5; ++i) {
    Finding a{"p2p.disabled", "warning", "", {}, "", {}, {}, ""};
    Finding b{"pcie.link-degraded", "warning", "", {}, "", {}, {}, ""};
    std::vector<Finding> f = {a};
    if (i == 3) f.push_back(b);
    c.Add(FromMachineView(Node("n" + std::to_string(i)), f));
  }
  FleetReport r = c.Finish();
  const auto& g = r.groups[0];
  EXPECT_EQ(g.findings_everywhere, std::vector<std::string>{"warning p2p.disabled"});
  const Difference* d = FindDiff(g, "finding warning pcie.link-degraded");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->common.value, "absent");
  EXPECT_EQ(d->others[0].nodes, std::vector<std::string>{"n3"});
}

TEST(Fleet, ANodeMissingAGpuIsNamedAgainstItsBoardMates) {
  FleetComparer c;
  for (int i = 0; i < 4; ++i) {
    MachineView mv = Node("n" + std::to_string(i));
    if (i == 1) mv.machine = SeedGuest(7), mv.machine.name = "n1";
    c.Add(FromMachineView(mv, {}));
  }
  FleetReport r = c.Finish();
  ASSERT_EQ(r.groups.size(), 2u);
  EXPECT_EQ(r.groups[0].nodes.size(), 3u);
  EXPECT_EQ(r.groups[1].gpu_count, 7);
  EXPECT_NE(r.groups[1].gpu_set_differs_from.find("3 node(s)"), std::string::npos);
  EXPECT_EQ(r.outliers.count("n1"), 1u);
  EXPECT_EQ(r.outliers.size(), 1u);
}

TEST(Fleet, ALaterRecordOfTheSameNodeReplacesTheEarlier) {
  FleetComparer c;
  for (int i = 0; i < 3; ++i) c.Add(FromMachineView(Node("n" + std::to_string(i)), {}));
  MachineView old = Node("n1");
  old.record.time = "2026-11-01T00:00:00Z";
  old.machine.software.nvidia_driver = Known(std::string("1.0"), "x");
  c.Add(FromMachineView(old, {}));  // older: ignored
  FleetReport r = c.Finish();
  EXPECT_EQ(r.nodes, 3u);
  EXPECT_EQ(r.replaced, 1u);
  EXPECT_TRUE(r.uniform());
}

// Files on disk: a collect record, a collect --format json output, a damaged file, a dossier.
TEST(FleetReader, ReadsRecordsOutputsAndDossiersAndNamesDamagedFiles) {
  testing::TempDir t;
  nlohmann::json rec = {{"schema", kSchema}, {"kind", "collect"}, {"time", "2026-12-01T00:00:00Z"}};
  Machine a = SeedGuest();
  a.name = "a";
  rec["machine"] = MachineToJson(a);
  t.Write("slurm/a.json", rec.dump());
  Machine b = SeedGuest();
  b.name = "b";
  nlohmann::json out = {{"schema", kSchema}, {"machines", nlohmann::json::array()}};
  nlohmann::json bm = MachineToJson(b);
  bm["findings"] = {{{"id", "x.y"}, {"severity", "info"}}};
  out["machines"].push_back(bm);
  t.Write("slurm/sub/b.json", out.dump(1));
  t.Write("slurm/c.json", "{\n\"schema\": \"dossier/1\",\n\"kind\": ");
  t.Write("slurm/notes.txt", "not json, not read");
  // A number past a double's range: nlohmann throws out_of_range, not parse_error (it ended the
  // whole fleet run with std::terminate; found by fuzz_soak).
  t.Write("slurm/d.json", "{\"schema\": \"dossier/1\", \"kind\": \"collect\", \"x\": 11e309}");
  // Damaged in the middle (a colon lost on line 3 of 6): the line is where it broke, not the end.
  t.Write("slurm/f.json",
          "{\n\"schema\": \"dossier/1\",\n\"kind\" \"collect\",\n\"x\": 1,\n\"y\": 2\n}\n");
  // A record whose time is not a string, and one without a time: read all the same (no time).
  for (const char* name : {"g", "h"}) {
    nlohmann::json r = rec;
    Machine m = SeedGuest();
    m.name = name;
    r["machine"] = MachineToJson(m);
    if (std::string(name) == "g") {
      r["time"] = 20261201;
    } else {
      r.erase("time");
    }
    t.Write(std::string("slurm/") + name + ".json", r.dump());
  }
  std::vector<std::string> names, warnings;
  auto counts = ReadFleet(
      {t.path() + "/slurm"}, [&](const NodeFacts& n) { names.push_back(n.name); },
      [&](std::string w) { warnings.push_back(std::move(w)); });
  ASSERT_TRUE(counts.ok());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "g", "h"}));
  EXPECT_EQ(counts->files, 4u);
  EXPECT_EQ(counts->skipped, 3u);
  ASSERT_EQ(warnings.size(), 3u) << ::testing::PrintToString(warnings);
  std::sort(warnings.begin(), warnings.end());
  EXPECT_NE(warnings[0].find("c.json:3: not valid JSON"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("d.json: not valid JSON ("), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[1].find("number overflow"), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[2].find("f.json:3: not valid JSON"), std::string::npos) << warnings[2];
  // The parser's message quotes the number: a long one is cut at 120 characters, marked.
  testing::TempDir l;
  l.Write("e.json", "{\"x\": 1" + std::string(200, '0') + "e309}");
  std::vector<std::string> long_warnings;
  ASSERT_TRUE(ReadFleet(
                  {l.path()}, [](const NodeFacts&) {},
                  [&](std::string w) { long_warnings.push_back(std::move(w)); })
                  .ok());
  ASSERT_EQ(long_warnings.size(), 1u);
  const std::string what = "[json.exception.out_of_range.406] number overflow parsing '1" +
                           std::string(200, '0') + "e309'";
  EXPECT_NE(long_warnings[0].find("e.json: not valid JSON (" + what.substr(0, 120) + "…)"),
            std::string::npos)
      << long_warnings[0];

  auto missing = ReadFleet(
      {t.path() + "/nope"}, [](const NodeFacts&) {}, [](std::string) {});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/nope"), std::string::npos);
}

TEST(FleetCli, ExitCodes) {
  testing::TempDir t;
  for (int i = 0; i < 3; ++i) {
    nlohmann::json rec = {
        {"schema", kSchema}, {"kind", "collect"}, {"time", "2026-12-01T00:00:00Z"}};
    Machine m = SeedGuest();
    m.name = "node" + std::to_string(i);
    rec["machine"] = MachineToJson(m);
    t.Write("same/" + m.name + ".json", rec.dump());
    if (i == 2) m.kernel.cmdline = Known(std::string("quiet iommu=pt"), "/proc/cmdline");
    rec["machine"] = MachineToJson(m);
    t.Write("drift/" + m.name + ".json", rec.dump());
  }
  auto same = testing::RunCli("fleet -q " + t.path() + "/same");
  EXPECT_EQ(same.code, 0) << same.out;
  auto drift = testing::RunCli("fleet -q --format json " + t.path() + "/drift");
  EXPECT_EQ(drift.code, 1) << drift.out;
  auto j = nlohmann::json::parse(drift.out);
  EXPECT_TRUE(j["outliers"].contains("node2"));
  auto none = testing::RunCli("fleet -q " + t.path() + "/absent");
  EXPECT_EQ(none.code, 2);
  t.Write("empty/readme.json", "[1,2]");
  auto empty = testing::RunCli("fleet -q " + t.path() + "/empty");
  EXPECT_EQ(empty.code, 2) << empty.out;
  EXPECT_NE(empty.out.find("no node found"), std::string::npos);
}

}  // namespace
}  // namespace dossier::fleet
