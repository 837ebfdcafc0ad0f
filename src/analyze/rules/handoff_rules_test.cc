// The rules and plan parts of the handoff: decode.communication-bound's arithmetic, the
// contradictions between notes and probes, severity raised by what the notes say, next steps
// merged across sources and placed on the machine where they are done, and the summary.
#include <gtest/gtest.h>

#include "../tests/model_builders.h"
#include "analyze/analysis.h"
#include "analyze/measure_stale.h"
#include "analyze/rule.h"
#include "analyze/summary.h"

namespace dossier {
namespace {

using testing::SeedGuest;
using testing::SeedHost;
using testing::ViewOf;

const Finding* FindIn(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

// The seed guest serving GLM-5 at TP 8, with a staged 12 KiB copy measured at 13.4 us.
View GuestWithModelAndLatency(double hop_us) {
  Machine g = SeedGuest();
  ModelConfig& mc = g.servers[0].model;
  mc.layers = Known(int64_t{78}, "config.json");
  mc.hidden_size = Known(int64_t{6144}, "config.json");
  mc.dtype = Known(std::string("bfloat16"), "config.json");
  View v = ViewOf({g});
  P2pMeasurement pm;
  pm.time = "2026-12-03T10:00:00Z";
  for (uint64_t size : {4096ull, 12288ull, 16777216ull}) {
    P2pResult r;
    r.src = 0;
    r.dst = 1;
    r.mode = "uni-staged";
    r.size_bytes = size;
    r.verdict = "ok";
    r.latency_us.Set(size == 12288 ? hop_us : hop_us * 10, "test");
    pm.results.push_back(r);
  }
  v.machines[0].p2p.push_back(pm);
  return v;
}

TEST(DecodeCommunicationBound, SaysTheCapWithItsInputsAndComparesWithTheTarget) {
  View v = GuestWithModelAndLatency(13.4);
  NoteTarget t;
  t.metric = "single_stream_tokens_per_s";
  t.op = ">=";
  t.value = 100;
  v.notes.targets.push_back(t);
  auto fs = RunRules({v.machines[0], v, v.notes, {}});
  const Finding* f = FindIn(fs, "decode.communication-bound");
  ASSERT_NE(f, nullptr);
  // 1 / (2 x 78 x 2(8-1) x 13.4 us) = 34.2 tokens/s, below 100: a warning.
  EXPECT_NE(f->title.find("near 34 tokens/s"), std::string::npos) << f->title;
  EXPECT_EQ(f->severity, kWarning);
  EXPECT_NE(f->explanation.find("12288 B"), std::string::npos) << f->explanation;
  EXPECT_NE(f->explanation.find("29.27 ms"), std::string::npos) << f->explanation;
  std::string verify;
  for (const auto& a : f->actions) verify += a.verify + "\n";
  EXPECT_NE(verify.find("all_reduce_perf -g 8 -b 8K -e 1M"), std::string::npos) << verify;
  EXPECT_NE(verify.find("all_reduce_perf -g 4"), std::string::npos) << "TP4 + PP2";

  // A fast hop clears the target: still said (info), not a warning.
  View fast = GuestWithModelAndLatency(1.0);
  fast.notes = v.notes;
  auto ff = RunRules({fast.machines[0], fast, fast.notes, {}});
  const Finding* f2 = FindIn(ff, "decode.communication-bound");
  ASSERT_NE(f2, nullptr);
  EXPECT_EQ(f2->severity, kInfo);

  // Without a measured latency it does not guess.
  View none = ViewOf({SeedGuest()});
  none.machines[0].machine.servers[0].model = v.machines[0].machine.servers[0].model;
  EXPECT_EQ(
      FindIn(RunRules({none.machines[0], none, none.notes, {}}), "decode.communication-bound"),
      nullptr);
}

TEST(NotesContradicted, StatedAgainstProbed) {
  Machine h = SeedHost();
  h.name = "pve-host";
  h.iommu.enabled = Known(true, "/sys/class/iommu");
  View v = ViewOf({h});
  NoteFact acs{"ACS", "disabled", "just-changed", "pve-host", "", "", 12};
  NoteFact iommu{"IOMMU", "enabled", "unknown", "pve-host", "", "", 20};
  v.notes.facts = {acs, iommu};
  auto fs = RunRules({v.machines[0], v, v.notes, {}});
  const Finding* f = FindIn(fs, "notes.contradicted");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, kWarning);
  EXPECT_NE(f->explanation.find("ACS is disabled"), std::string::npos) << f->explanation;
  EXPECT_NE(f->explanation.find("IOMMU"), std::string::npos) << f->explanation;
  bool both = false;
  for (const auto& e : f->evidence) both = both || e.source == "notes.toml:12";
  EXPECT_TRUE(both) << "the note is evidence with its line";

  // NUMA affinity stated set while the guest's GPUs read -1; CUDA_HOME against /usr/local/cuda.
  Machine g = SeedGuest();
  g.software.cuda_default = Known(std::string("/usr/local/cuda-12.8"), "/usr/local/cuda");
  g.servers[0].env["CUDA_HOME"] = "/usr/local/cuda-13.0";
  View gv = ViewOf({g});
  gv.notes.facts = {NoteFact{"NUMA affinity", "set at boot", "confirmed", "", "", "", 30}};
  auto gfs = RunRules({gv.machines[0], gv, gv.notes, {}});  // kept: the finding points into it
  const Finding* fg = FindIn(gfs, "notes.contradicted");
  ASSERT_NE(fg, nullptr);
  EXPECT_NE(fg->explanation.find("numa_node -1"), std::string::npos) << fg->explanation;
  EXPECT_NE(fg->explanation.find("CUDA_HOME names /usr/local/cuda-13.0"), std::string::npos);

  // Agreement is no finding.
  View quiet = ViewOf({SeedHost()});
  quiet.machines[0].machine.iommu.enabled = Known(true, "x");
  quiet.notes.facts = {NoteFact{"IOMMU", "enabled", "confirmed", "", "", "", 3}};
  EXPECT_EQ(FindIn(RunRules({quiet.machines[0], quiet, quiet.notes, {}}), "notes.contradicted"),
            nullptr);
}

// A note is about a fact only by the fact's name or one of its aliases (one table in
// rules/notes.cc): "IOMMU group numbers" is not "IOMMU". The caller's CUDA_HOME is not a note, nor
// the server's; a note that states the difference settles it.
TEST(NotesContradicted, NamesMatchStrictlyAndStatedDifferencesAreNoContradiction) {
  Machine h = SeedHost();
  h.iommu.enabled = Known(true, "/sys/class/iommu");
  View v = ViewOf({h});
  v.notes.facts = {NoteFact{"IOMMU group numbers", "renumbered", "unknown", "pve-host", "", "", 9}};
  EXPECT_EQ(FindIn(RunRules({v.machines[0], v, v.notes, {}}), "notes.contradicted"), nullptr);
  v.notes.facts = {NoteFact{"IOMMU enabled", "yes", "unknown", "pve-host", "", "", 9}};
  EXPECT_NE(FindIn(RunRules({v.machines[0], v, v.notes, {}}), "notes.contradicted"), nullptr);
  v.notes.facts = {NoteFact{"ACS override", "disabled", "confirmed", "pve-host", "", "", 9}};
  EXPECT_EQ(FindIn(RunRules({v.machines[0], v, v.notes, {}}), "notes.contradicted"), nullptr);
  v.notes.facts = {NoteFact{"ACS", "disabled", "confirmed", "pve-host",
                            "deliberately left on the root ports by Linux; expected", "", 9}};
  EXPECT_EQ(FindIn(RunRules({v.machines[0], v, v.notes, {}}), "notes.contradicted"), nullptr);

  // CUDA_HOME of the shell dossier ran in: no finding. The server's: one, unless a note states it.
  Machine g = SeedGuest();
  g.software.cuda_default = Known(std::string("/usr/local/cuda-13.0"), "/usr/local/cuda");
  g.software.env["CUDA_HOME"] = "/usr/local/cuda-12.8";
  View caller = ViewOf({g});
  EXPECT_EQ(FindIn(RunRules({caller.machines[0], caller, caller.notes, {}}), "notes.contradicted"),
            nullptr);
  g.servers[0].env["CUDA_HOME"] = "/usr/local/cuda-12.8";
  View server = ViewOf({g});
  EXPECT_NE(FindIn(RunRules({server.machines[0], server, server.notes, {}}), "notes.contradicted"),
            nullptr);
  server.notes.facts = {NoteFact{"CUDA_HOME", "/usr/local/cuda-12.8/", "confirmed", "", "", "", 4}};
  EXPECT_EQ(FindIn(RunRules({server.machines[0], server, server.notes, {}}), "notes.contradicted"),
            nullptr);
  // The server's CUDA_HOME with a trailing slash names the toolkit /usr/local/cuda points to:
  // the same directory, no finding; another one with a slash still is one.
  g.servers[0].env["CUDA_HOME"] = "/usr/local/cuda-13.0//";
  View slash = ViewOf({g});
  EXPECT_EQ(FindIn(RunRules({slash.machines[0], slash, slash.notes, {}}), "notes.contradicted"),
            nullptr);
  g.servers[0].env["CUDA_HOME"] = "/usr/local/cuda-12.8/";
  View other = ViewOf({g});
  EXPECT_NE(FindIn(RunRules({other.machines[0], other, other.notes, {}}), "notes.contradicted"),
            nullptr);
}

TEST(Severity, AcsCannotHelpIsAWarningOnceTheNotesSayAcsWasChanged) {
  View v = ViewOf({SeedHost()});
  auto plain = RunRules({v.machines[0], v, v.notes, {}});
  ASSERT_NE(FindIn(plain, "p2p.separate-root-complexes"), nullptr);
  EXPECT_EQ(FindIn(plain, "p2p.separate-root-complexes")->severity, kInfo);
  v.notes.tried.push_back({"Disabled ACS in the BIOS", "groups renumbered", "", "", 40});
  auto raised = RunRules({v.machines[0], v, v.notes, {}});
  EXPECT_EQ(FindIn(raised, "p2p.separate-root-complexes")->severity, kWarning);
}

TEST(Plan, OneStepForOneActionOnTheMachineWhereItIsDone) {
  Machine host = SeedHost();
  host.name = "pve-host";
  Machine guest = SeedGuest();
  guest.name = "guest";
  View v = ViewOf({guest, host});
  NoteMachine nm;
  nm.name = "guest";
  nm.guest_of = "pve-host";
  v.notes.machines.push_back(nm);
  NoteNext topo;
  topo.step = "Launch SGLang with NCCL_TOPO_FILE set";
  topo.verify = "dossier serve-bench URL";
  topo.machine = "guest";
  topo.line = 50;
  v.notes.next.push_back(topo);
  Analysis a = Analyze(v);
  int nccl = 0, clique_on_host = 0;
  for (const auto& s : a.plan.next_steps) {
    if (s.step.find("Launch SGLang") != std::string::npos) {
      ++nccl;
      EXPECT_NE(s.from.find("notes.toml:50"), std::string::npos) << s.from;
      EXPECT_NE(s.from.find("finding p2p.vm-isolated"), std::string::npos) << s.from;
    }
    if (s.step.find("x-nv-gpudirect-clique") != std::string::npos && s.machine == "pve-host")
      ++clique_on_host;
  }
  EXPECT_EQ(nccl, 1);
  EXPECT_GE(clique_on_host, 1) << "the VM's config is edited on the host";

  HandoffSummary s = Summarize(v, a);
  EXPECT_LE(s.now.size(), kSummaryNow);
  ASSERT_FALSE(s.not_helping.empty());
  EXPECT_EQ(s.not_helping.front().what.find("ACS") != std::string::npos ||
                s.not_helping.front().what.find("NCCL") != std::string::npos,
            true);
}

TEST(MeasurementStale, OnlyALaterRecordOfTheSameHostInAnotherBootAgesIt) {
  MachineView mv;
  mv.machine.boot_id = Known(std::string("aaaa1111"), "x");
  mv.machine.hostname = Known(std::string("glm-guest"), "x");
  mv.record.time = "2026-12-03T09:00:00Z";
  // After the collect, same boot: current.
  EXPECT_EQ(MeasurementStale(mv, "2026-12-03T09:10:00Z", "aaaa1111", "glm-guest"), "");
  // After the collect, another boot: the collect is old, the measurement is not.
  EXPECT_EQ(MeasurementStale(mv, "2026-12-03T09:10:00Z", "bbbb2222", "glm-guest"), "");
  // Before the collect, another boot of the same host: stale.
  EXPECT_NE(MeasurementStale(mv, "2026-12-03T08:00:00Z", "bbbb2222", "glm-guest"), "");
  // Before the collect, another host (a captured tree collected elsewhere): not comparable.
  EXPECT_EQ(MeasurementStale(mv, "2026-12-03T08:00:00Z", "cccc3333", "laptop"), "");
}

}  // namespace
}  // namespace dossier
