// Per-machine parts of the report that a reader counts on being exact: the numbered notes that
// stale cells point at, the table of facts a collect and an import disagree on (every row up to
// its limit, then how many more), `report --machine` keeping only that machine's links, notes and
// steps, and a measured zero on the log-scale P2P chart.
#include <gtest/gtest.h>

#include "../tests/model_builders.h"
#include "analyze/analysis.h"
#include "render/focus.h"
#include "render/html_svg.h"
#include "render/markdown.h"
#include "render/measure_summary.h"
#include "render/render.h"

namespace dossier {
namespace {

size_t Occurrences(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

TEST(MdStaleNotes, EachReasonIsNumberedFromOneAndItsCellsPointAtIt) {
  View v = testing::ViewOf({testing::SeedGuest()});
  Machine& m = v.machines[0].machine;
  m.kernel.release.stale = "from the older record 000001-collect-guest.json (needs root)";
  m.kernel.cmdline.stale = "seen in the boot before this one";
  std::string md = RenderMarkdown(v, Analyze(v));
  // Numbered in the order the facts are walked: the release before the command line.
  EXPECT_NE(md.find("Facts marked stale below:\n\n"
                    "- note 1: from the older record 000001-collect-guest.json (needs root)\n"
                    "- note 2: seen in the boot before this one\n\n"),
            std::string::npos)
      << md.substr(0, 3000);
  EXPECT_NE(md.find("(stale: note 1)"), std::string::npos);
  EXPECT_NE(md.find("(stale: note 2)"), std::string::npos);
  EXPECT_EQ(md.find("note 3"), std::string::npos);

  // The whole record stale: its reason is said once above the machine, and the facts that hold
  // the most common reason say nothing more; the others keep their numbers.
  v.machines[0].stale = "collected in an earlier boot";
  m.cpu.model.stale = m.kernel.cmdline.stale;
  md = RenderMarkdown(v, Analyze(v));
  EXPECT_NE(md.find("Facts marked stale below:\n\n"
                    "- note 1: from the older record 000001-collect-guest.json (needs root)\n\n"),
            std::string::npos);
  EXPECT_EQ(md.find("seen in the boot before this one"), std::string::npos);
  EXPECT_NE(md.find("(stale: note 1)"), std::string::npos);
  EXPECT_EQ(md.find("(stale: note 2)"), std::string::npos);
}

FactDisagreement Disagreement(int i) {
  return {"/gpus/" + std::to_string(i) + "/link",
          "Gen5 x16",
          "sysfs",
          "000003-collect.json",
          "Gen4 x8",
          "lspci:" + std::to_string(i + 10),
          "000002-import.json"};
}

TEST(MdImports, EveryDisagreementIsARowUpToFortyThenHowManyMore) {
  MachineView mv;
  mv.machine.name = "h";
  mv.imports = {{"000002-import.json", "import", "2026-12-01T00:00:00Z", "dossier"}};
  for (int i = 0; i < 2; ++i) mv.disagreements.push_back(Disagreement(i));
  std::string out;
  MdImports(mv, &out);
  EXPECT_NE(out.find("#### Collected and imported facts that disagree (2)"), std::string::npos)
      << out;
  for (int i = 0; i < 2; ++i) {
    std::string row = "| `/gpus/" + std::to_string(i) +
                      "/link` | Gen5 x16 | 000003-collect.json: sysfs | Gen4 x8 | "
                      "000002-import.json: lspci:" +
                      std::to_string(i + 10) + " |";
    EXPECT_NE(out.find(row), std::string::npos) << row << "\n" << out;
  }
  EXPECT_EQ(out.find("more (dossier report"), std::string::npos);

  for (size_t n : {40u, 41u, 45u}) {
    SCOPED_TRACE(n);
    mv.disagreements.clear();
    for (size_t i = 0; i < n; ++i) mv.disagreements.push_back(Disagreement(static_cast<int>(i)));
    out.clear();
    MdImports(mv, &out);
    EXPECT_EQ(Occurrences(out, "| Gen5 x16 |"), 40u);
    EXPECT_NE(out.find("`/gpus/39/link`"), std::string::npos);
    EXPECT_EQ(out.find("`/gpus/40/link`"), std::string::npos);
    if (n == 40)
      EXPECT_EQ(out.find("more (dossier report"), std::string::npos);
    else
      EXPECT_NE(out.find("… and " + std::to_string(n - 40) +
                         " more (dossier report --format json lists them all)."),
                std::string::npos)
          << out.substr(out.size() - 300);
  }
}

// Four machines: two guests of host h, and x, linked to a host y the view does not hold; notes
// and steps on each.
View Fleet(Analysis* a) {
  View v = testing::ViewOf({});
  for (const char* n : {"g1", "g2", "h", "x"}) {
    MachineView mv;
    mv.machine.name = n;
    v.machines.push_back(mv);
    MachineAnalysis ma;
    ma.machine = n;
    a->machines.push_back(ma);
    NoteMachine nm;
    nm.name = n;
    v.notes.machines.push_back(nm);
    NoteFact f;
    f.name = std::string("fact of ") + n;
    f.machine = n;
    v.notes.facts.push_back(f);
    NoteFile file;
    file.path = std::string("/etc/") + n;
    file.machine = n;
    v.notes.files.push_back(file);
    NextStep s;
    s.step = std::string("step on ") + n;
    s.machine = n;
    a->plan.next_steps.push_back(s);
    DoneItem d;
    d.what = std::string("done on ") + n;
    d.machine = n;
    a->plan.accomplished.push_back(d);
  }
  // Notes and steps that name no machine are the dossier's: they stay.
  NoteFact any;
  any.name = "fact of the dossier";
  v.notes.facts.push_back(any);
  NextStep everywhere;
  everywhere.step = "step of the dossier";
  a->plan.next_steps.push_back(everywhere);
  for (const auto& [g, h] :
       std::vector<std::pair<std::string, std::string>>{{"g1", "h"}, {"g2", "h"}, {"x", "y"}}) {
    MachineLink l;
    l.guest = g;
    l.host = h;
    v.links.push_back(l);
  }
  return v;
}

template <class T, class F>
std::vector<std::string> Names(const std::vector<T>& v, F f) {
  std::vector<std::string> out;
  for (const auto& x : v) out.push_back(f(x));
  return out;
}

TEST(FocusOnMachine, KeepsTheMachinesLinksNotesAndStepsAndTheDossiersOwn) {
  using V = std::vector<std::string>;
  {
    Analysis a;
    View v = Fleet(&a);
    ASSERT_TRUE(FocusOnMachine("g1", &v, &a));
    EXPECT_EQ(Names(v.machines, [](const auto& m) { return m.machine.name; }), V{"g1"});
    // A guest keeps its link to its host (the passthrough map names it), not its sibling's.
    EXPECT_EQ(Names(v.links, [](const auto& l) { return l.guest + ">" + l.host; }), V{"g1>h"});
    EXPECT_EQ(Names(v.notes.machines, [](const auto& m) { return m.name; }), V{"g1"});
    EXPECT_EQ(Names(v.notes.facts, [](const auto& f) { return f.name; }),
              (V{"fact of g1", "fact of the dossier"}));
    EXPECT_EQ(Names(v.notes.files, [](const auto& f) { return f.path; }), V{"/etc/g1"});
    EXPECT_EQ(Names(a.machines, [](const auto& m) { return m.machine; }), V{"g1"});
    EXPECT_EQ(Names(a.plan.next_steps, [](const auto& s) { return s.step; }),
              (V{"step on g1", "step of the dossier"}));
    EXPECT_EQ(Names(a.plan.accomplished, [](const auto& d) { return d.what; }), V{"done on g1"});
  }
  {
    // The host keeps both of its guests' links; the unrelated pair goes.
    Analysis a;
    View v = Fleet(&a);
    ASSERT_TRUE(FocusOnMachine("h", &v, &a));
    EXPECT_EQ(Names(v.links, [](const auto& l) { return l.guest + ">" + l.host; }),
              (V{"g1>h", "g2>h"}));
  }
  {
    Analysis a;
    View v = Fleet(&a);
    EXPECT_FALSE(FocusOnMachine("nobody", &v, &a));
    EXPECT_EQ(v.machines.size(), 4u);  // untouched
    EXPECT_EQ(v.links.size(), 3u);
  }
}

P2pResult OkResult(uint64_t size, double gbps) {
  P2pResult r;
  r.src = 0;
  r.dst = 1;
  r.mode = "uni-p2p";
  r.size_bytes = size;
  r.verdict = "ok";
  r.gbps_median = Known(gbps, "p2p");
  return r;
}

TEST(P2pChart, AZeroFigureIsLeftOffTheLogScaleNotDrawnAtItsEdge) {
  MachineView mv;
  P2pMeasurement pm;
  pm.results = {OkResult(4096, 0.0), OkResult(65536, 5.0), OkResult(1 << 24, 50.0)};
  mv.p2p.push_back(pm);
  std::string svg = html::P2pCharts(mv);
  ASSERT_NE(svg.find("GPU0 → GPU1"), std::string::npos) << svg;
  EXPECT_EQ(Occurrences(svg, "<circle"), 2u) << svg;
  size_t pts = svg.find("points=\"");
  ASSERT_NE(pts, std::string::npos);
  std::string points = svg.substr(pts + 8, svg.find('"', pts + 8) - pts - 8);
  EXPECT_EQ(Occurrences(points, ","), 2u) << points;
  // All measured: three points.
  mv.p2p[0].results[0] = OkResult(4096, 0.5);
  EXPECT_EQ(Occurrences(html::P2pCharts(mv), "<circle"), 3u);
}

// Zero is a figure: a pair measured at 0.00 GB/s (its only result) is the best of its kind, not
// "nothing measured".
TEST(P2pSummaryBest, AMeasuredZeroIsShownWhenItIsTheOnlyFigure) {
  for (const char* mode : {"uni-p2p", "uni-staged", "bi-p2p"}) {
    SCOPED_TRACE(mode);
    MachineView mv;
    P2pMeasurement pm;
    P2pResult r = OkResult(4096, 0.0);
    r.mode = mode;
    pm.results = {r};
    mv.p2p.push_back(pm);
    std::vector<P2pSummary> s = SummarizeP2p(mv);
    ASSERT_EQ(s.size(), 1u);
    const std::string& best = std::string(mode) == "uni-p2p"      ? s[0].best_p2p
                              : std::string(mode) == "uni-staged" ? s[0].best_staged
                                                                  : s[0].best_bidir;
    EXPECT_TRUE(best.starts_with("0.00 GB/s")) << best;
    EXPECT_EQ(s[0].ok, 1u);
  }
}

// The run's row: each best figure in its own column, "-" (escaped: "\-") where the run measured
// none of that kind.
TEST(MdMeasurementsRow, EachBestFigureInItsColumnAndADashWhereNone) {
  View v = testing::ViewOf({});
  MachineView mv;
  mv.machine.name = "g";
  P2pMeasurement pm;
  pm.time = "2026-12-01T00:00:00Z";
  P2pResult one = OkResult(4096, 40.0), both = OkResult(4096, 70.0);
  both.mode = "bi-p2p";
  pm.results = {one, both};
  mv.p2p.push_back(pm);
  v.machines.push_back(mv);
  std::string out;
  MdMeasurements(v, Analysis{}, &out);
  EXPECT_NE(
      out.find("| 2026-12-01T00:00:00Z | 2 ok | 40.00 GB/s GPU 0 -> GPU 1 uni-p2p at 4096 B | "
               "\\- | 70.00 GB/s GPU 0 \\<-> GPU 1 bi-p2p at 4096 B, both directions summed "
               "| \\- |"),
      std::string::npos)
      << out;
  // Only staged: the P2P and both-ways columns are dashes.
  one.mode = "uni-staged";
  v.machines[0].p2p[0].results = {one};
  out.clear();
  MdMeasurements(v, Analysis{}, &out);
  EXPECT_NE(out.find("| 1 ok | \\- | 40.00 GB/s GPU 0 -> GPU 1 uni-staged at 4096 B | \\- | \\- |"),
            std::string::npos)
      << out;
}

// Each table ends with a blank line, so what follows it (the next machine, the next section) is
// never read as one more row by a Markdown reader that wants the break.
TEST(MdMeasurementsRow, EveryTableIsFollowedByABlankLine) {
  View v = testing::ViewOf({});
  for (const char* name : {"a", "b"}) {
    MachineView mv;
    mv.machine.name = name;
    ServeMeasurement sm;
    sm.time = "2026-12-01T00:00:00Z";
    sm.endpoint = "http://127.0.0.1:8000";
    ServeRun r;
    r.concurrency.Set(8, "serve-bench");
    r.completed = 10;
    r.total_tokens_per_s = 485;
    r.output_tokens_per_s = 400;
    sm.runs.push_back(r);
    mv.serve.push_back(sm);
    v.machines.push_back(mv);
  }
  std::string out;
  MdMeasurements(v, Analysis{}, &out);
  size_t b = out.find("### `b`");
  ASSERT_NE(b, std::string::npos) << out;
  EXPECT_EQ(out.substr(b - 3, 3), "|\n\n") << out;
  EXPECT_TRUE(out.ends_with("|\n\n")) << out;
}

}  // namespace
}  // namespace dossier
