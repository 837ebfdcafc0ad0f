#include "generate/prometheus.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "tests/golden.h"
#include "tests/model_builders.h"
#include "tests/temp_dir.h"

namespace dossier::prometheus {
namespace {

// The seed guest with a p2p sweep and a serving run measured, a finding and a target.
struct Fixture {
  View view;
  Analysis analysis;
  Fixture() {
    view = testing::ViewOf({testing::SeedGuest()});
    MachineView& mv = view.machines[0];
    mv.record.time = "2026-12-02T16:30:00Z";
    Machine& m = mv.machine;
    m.iommu.enabled = Known(true, "/sys/class/iommu");
    IommuGroup g;
    g.id = 1;
    g.type = Known(std::string("DMA-FQ"), "/sys/kernel/iommu_groups/1/type");
    m.iommu.groups = {g, g};
    m.topology.p2p_status.read = {{"X", "NS"}, {"NS", "X"}};
    P2pMeasurement pm;
    pm.time = "2026-12-02T16:40:00Z";
    P2pResult ok;
    ok.src = 0;
    ok.dst = 1;
    ok.mode = "uni-staged";
    ok.size_bytes = 16 << 20;
    ok.verdict = "ok";
    ok.gbps_median = Known(21.5, "measurement");
    P2pResult lat = ok;
    lat.mode = "latency-staged";
    lat.size_bytes = 4;
    lat.gbps_median = {};
    lat.latency_us = Known(13.4, "measurement");
    P2pResult bad = ok;
    bad.mode = "uni-p2p";
    bad.verdict = "corrupted";
    pm.results = {ok, lat, bad};
    mv.p2p.push_back(pm);
    ServeMeasurement sm;
    sm.time = "2026-12-02T17:00:00Z";
    ServeRun r;
    r.concurrency = Known(int64_t{64}, "argv");
    r.completed = 640;
    r.failed = 2;
    r.total_tokens_per_s = 512.5;
    r.output_tokens_per_s = 256.25;
    r.request_throughput = 1.25;
    r.ttft_ms.median = Known(850.0, "m");
    r.ttft_ms.p99 = Known(2400.0, "m");
    r.tpot_ms.median = Known(45.0, "m");
    sm.runs.push_back(r);
    mv.serve.push_back(sm);
    MachineAnalysis ma;
    ma.machine = m.name;
    ma.findings.push_back(
        {"p2p.bytes-corrupted", "critical", "Copies \"arrive\" corrupted", {}, "", {}, {}, ""});
    analysis.machines.push_back(ma);
    TargetStatus t;
    t.target.metric = "total_tokens_per_s";
    t.target.op = ">=";
    t.target.value = 1000;
    t.target.concurrency = 64;
    t.measured = true;
    t.value = 512.5;
    t.verdict = "not met";
    analysis.plan.targets.push_back(t);
  }
};

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(Prometheus, FamiliesWithUnitsAndBoundedLabels) {
  Fixture f;
  std::string t = MetricsText(f.view, f.analysis);
  EXPECT_TRUE(Has(t, "# TYPE dossier_build_info gauge"));
  EXPECT_TRUE(Has(t, std::string("dossier_build_info{version=\"") + DOSSIER_VERSION + "\"} 1"));
  EXPECT_TRUE(Has(t, "dossier_last_collect_timestamp_seconds{machine=\"glm-guest\"} 1796229000"));
  EXPECT_TRUE(Has(t, "dossier_gpus{machine=\"glm-guest\"} 8"));
  EXPECT_TRUE(Has(t,
                  "dossier_gpu_pcie_link_width_lanes{machine=\"glm-guest\",gpu=\"3\","
                  "pci_address=\"0000:04:00.0\",state=\"max\"} 16"));
  EXPECT_TRUE(Has(t,
                  "dossier_gpu_numa_affinity_known{machine=\"glm-guest\",gpu=\"0\","
                  "pci_address=\"0000:01:00.0\"} 0"));
  EXPECT_TRUE(
      Has(t, "dossier_gpu_p2p_ok{machine=\"glm-guest\",pair=\"0-1\",capability=\"read\"} 0"));
  EXPECT_TRUE(Has(t,
                  "dossier_gpu_p2p_status{machine=\"glm-guest\",pair=\"0-1\",capability="
                  "\"read\",status=\"NS\"} 1"));
  EXPECT_TRUE(Has(t,
                  "dossier_p2p_bandwidth_bytes_per_second{machine=\"glm-guest\",pair=\"0-1\","
                  "mode=\"uni-staged\",size_bytes=\"16777216\"} 21500000000"));
  EXPECT_TRUE(Has(t,
                  "dossier_p2p_latency_seconds{machine=\"glm-guest\",pair=\"0-1\",mode=\"latency-"
                  "staged\",size_bytes=\"4\"} 1.34e-05"));
  EXPECT_TRUE(Has(t, "dossier_p2p_results{machine=\"glm-guest\",verdict=\"corrupted\"} 1"));
  EXPECT_TRUE(Has(t, "dossier_iommu_domain_groups{machine=\"glm-guest\",type=\"DMA-FQ\"} 2"));
  // The finding's title (free text, quotes and all) is not a label: its id and severity are.
  EXPECT_TRUE(Has(t,
                  "dossier_finding{machine=\"glm-guest\",id=\"p2p.bytes-corrupted\","
                  "severity=\"critical\"} 1"));
  EXPECT_EQ(t.find("arrive"), std::string::npos);
  EXPECT_TRUE(Has(t,
                  "dossier_serve_tokens_per_second{machine=\"glm-guest\",load=\"concurrency=64\","
                  "kind=\"total\"} 512.5"));
  EXPECT_TRUE(Has(t,
                  "dossier_serve_ttft_seconds{machine=\"glm-guest\",load=\"concurrency=64\","
                  "percentile=\"99\"} 2.4"));
  EXPECT_TRUE(Has(t,
                  "dossier_serve_target_met{metric=\"total_tokens_per_s\",op=\">=\","
                  "concurrency=\"64\"} 0"));
  EXPECT_TRUE(Has(t,
                  "dossier_serve_tokens_per_second{machine=\"glm-guest\",load=\"concurrency=64\","
                  "kind=\"output\"} 256.25"));
  // Every family once, HELP before TYPE before samples.
  EXPECT_EQ(t.find("# HELP dossier_gpu_info"), t.rfind("# HELP dossier_gpu_info"));
}

// The whole textfile of the fixture, every family and sample, as a person reviews it
// (tests/golden/prometheus-fixture.txt): a label, value or family a change moves shows as a diff.
TEST(Prometheus, TheFixturesWholeTextfileIsGolden) {
  Fixture f;
  std::string t = MetricsText(f.view, f.analysis);
  const std::string version = std::string("version=\"") + DOSSIER_VERSION + "\"";
  for (size_t at; (at = t.find(version)) != std::string::npos;)
    t.replace(at, version.size(), "version=\"VERSION\"");
  testing::ExpectMatchesGolden("prometheus-fixture.txt", t);
}

TEST(Prometheus, ZeroIsAValueBesideUnknown) {
  // NUMA node 0, GPU 0, no failed request, IOMMU off, a measured 0 GB/s: each is a sample with
  // value 0. A NUMA node the kernel does not know is no node sample and affinity 0.
  Fixture f;
  Machine& m = f.view.machines[0].machine;
  m.gpus[0].numa_node = Known<int64_t>(0, "numa_node");
  m.gpus[1].numa_node.Unknown("no numa_node file", "sysfs");
  m.iommu.enabled = Known(false, "/sys/class/iommu");
  ServeRun& r = f.view.machines[0].serve[0].runs[0];
  r.failed = 0;
  P2pResult zero = f.view.machines[0].p2p[0].results[0];
  zero.src = 1;
  zero.dst = 0;
  zero.gbps_median = Known(0.0, "measurement");
  f.view.machines[0].p2p[0].results.push_back(zero);
  std::string t = MetricsText(f.view, f.analysis);
  const std::string gpu0 = "{machine=\"glm-guest\",gpu=\"0\",pci_address=\"0000:01:00.0\"}";
  const std::string gpu1 = "{machine=\"glm-guest\",gpu=\"1\",pci_address=\"0000:02:00.0\"}";
  EXPECT_TRUE(Has(t, "dossier_gpu_numa_node" + gpu0 + " 0")) << t;
  EXPECT_TRUE(Has(t, "dossier_gpu_numa_affinity_known" + gpu0 + " 1"));
  EXPECT_EQ(t.find("dossier_gpu_numa_node" + gpu1), std::string::npos);
  EXPECT_TRUE(Has(t, "dossier_gpu_numa_affinity_known" + gpu1 + " 0"));
  EXPECT_TRUE(Has(t,
                  "dossier_gpu_numa_node{machine=\"glm-guest\",gpu=\"2\","
                  "pci_address=\"0000:03:00.0\"} -1"));
  EXPECT_TRUE(
      Has(t, "dossier_serve_failed_requests{machine=\"glm-guest\",load=\"concurrency=64\"} 0"));
  EXPECT_TRUE(Has(t, "dossier_iommu_enabled{machine=\"glm-guest\"} 0"));
  EXPECT_TRUE(Has(t, "dossier_p2p_results{machine=\"glm-guest\",verdict=\"hung\"} 0"));
  EXPECT_TRUE(Has(t,
                  "dossier_p2p_bandwidth_bytes_per_second{machine=\"glm-guest\",pair=\"1-0\","
                  "mode=\"uni-staged\",size_bytes=\"16777216\"} 0"));

  // IOMMU unknown: no sample at all, not 0.
  m.iommu.enabled.Unknown("no /sys/class/iommu", "sysfs");
  EXPECT_EQ(MetricsText(f.view, f.analysis).find("dossier_iommu_enabled{"), std::string::npos);
}

// A run that completed no request measured no throughput: its failures are a sample, its zeros
// are not. A typed-in run's counts are not known: no failure sample, its typed throughput is.
TEST(Prometheus, AFailedRunHasNoThroughputAndATypedInOneNoCounts) {
  Fixture f;
  ServeRun failed_run = f.view.machines[0].serve[0].runs[0];
  failed_run.concurrency = Known(int64_t{8}, "argv");
  failed_run.completed = 0;
  failed_run.failed = 8;
  failed_run.total_tokens_per_s = failed_run.output_tokens_per_s = 0;
  failed_run.request_throughput = 0;
  ServeRun typed;
  typed.concurrency = Known(int64_t{16}, "typed in");
  typed.total_tokens_per_s = 300;
  for (const char* k : {"completed", "failed", "request_throughput", "output_tokens_per_s"})
    typed.not_known[k] = "typed in";
  f.view.machines[0].serve[0].runs.push_back(failed_run);
  f.view.machines[0].serve[0].runs.push_back(typed);
  std::string t = MetricsText(f.view, f.analysis);
  const std::string c8 = "{machine=\"glm-guest\",load=\"concurrency=8\"";
  const std::string c16 = "{machine=\"glm-guest\",load=\"concurrency=16\"";
  EXPECT_TRUE(Has(t, "dossier_serve_failed_requests" + c8 + "} 8")) << t;
  EXPECT_EQ(t.find("dossier_serve_tokens_per_second" + c8), std::string::npos) << t;
  EXPECT_EQ(t.find("dossier_serve_requests_per_second" + c8), std::string::npos) << t;
  EXPECT_TRUE(Has(t, "dossier_serve_tokens_per_second" + c16 + ",kind=\"total\"} 300")) << t;
  EXPECT_EQ(t.find("dossier_serve_failed_requests" + c16), std::string::npos) << t;
  EXPECT_EQ(t.find("dossier_serve_requests_per_second" + c16), std::string::npos) << t;
  EXPECT_EQ(t.find("dossier_serve_tokens_per_second" + c16 + ",kind=\"output\""),
            std::string::npos);
}

TEST(Prometheus, NothingMeasuredMeansNoMeasurementFamilies) {
  View v = testing::ViewOf({testing::SeedGuest()});
  std::string t = MetricsText(v, Analysis{});
  EXPECT_EQ(t.find("dossier_p2p_"), std::string::npos);
  EXPECT_EQ(t.find("dossier_serve_"), std::string::npos);
  EXPECT_NE(t.find("dossier_gpus{"), std::string::npos);
}

int RunTool(const std::string& cmd, std::string* out) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  int st = ::pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool HavePromtool() {
  std::string out;
  return RunTool("command -v promtool", &out) == 0;
}

// promtool lints what node_exporter would read: names, HELP/TYPE, units, duplicates.
TEST(Prometheus, PromtoolAcceptsTheTextfile) {
  if (!HavePromtool()) GTEST_SKIP() << "promtool missing: apt-get install prometheus";
  Fixture f;
  testing::TempDir dir;
  auto path = WriteTextfile(dir.path(), MetricsText(f.view, f.analysis));
  ASSERT_TRUE(path) << path.error().message;
  EXPECT_EQ(*path, dir.path() + "/dossier.prom");
  std::string out;
  EXPECT_EQ(RunTool("promtool check metrics < " + *path, &out), 0) << out;
  EXPECT_EQ(out, "") << out;
  // Written whole: only the file itself is left in the directory, no temporary beside it.
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) (void)e, ++files;
  EXPECT_EQ(files, 1u);
  // A second write replaces it.
  ASSERT_TRUE(WriteTextfile(dir.path(), "# HELP x y\n# TYPE x gauge\nx 1\n"));
  std::ifstream in(*path);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "# HELP x y");
}

// No input dossier reads gives a value that is not finite today (JSON has none, notes refuse
// them), but the exporter writes any double: each is spelled as the exposition format spells it
// (+Inf, -Inf, NaN) and promtool reads the file; a fraction is written as one.
TEST(Prometheus, NonFiniteAndFractionalValuesAreSpelledAsTheFormatDoes) {
  Fixture f;
  auto& results = f.view.machines[0].p2p[0].results;
  results[0].gbps_median = Known(std::numeric_limits<double>::infinity(), "measurement");
  P2pResult neg = results[1];
  neg.src = 1;
  neg.dst = 0;
  neg.latency_us = Known(-std::numeric_limits<double>::infinity(), "measurement");
  P2pResult nan = results[0];
  nan.size_bytes = 4 << 20;
  nan.gbps_median = Known(std::nan(""), "measurement");
  results.push_back(neg);
  results.push_back(nan);
  std::string t = MetricsText(f.view, f.analysis);
  const std::string bw =
      "dossier_p2p_bandwidth_bytes_per_second{machine=\"glm-guest\",pair=\"0-1\"";
  EXPECT_TRUE(Has(t, bw + ",mode=\"uni-staged\",size_bytes=\"16777216\"} +Inf")) << t;
  EXPECT_TRUE(Has(t, bw + ",mode=\"uni-staged\",size_bytes=\"4194304\"} NaN")) << t;
  EXPECT_TRUE(Has(t,
                  "dossier_p2p_latency_seconds{machine=\"glm-guest\",pair=\"1-0\","
                  "mode=\"latency-staged\",size_bytes=\"4\"} -Inf"))
      << t;
  EXPECT_TRUE(Has(t,
                  "dossier_p2p_latency_seconds{machine=\"glm-guest\",pair=\"0-1\","
                  "mode=\"latency-staged\",size_bytes=\"4\"} 1.34e-05"))
      << t;
  EXPECT_TRUE(Has(
      t, "dossier_serve_requests_per_second{machine=\"glm-guest\",load=\"concurrency=64\"} 1.25"))
      << t;
  if (!HavePromtool()) GTEST_SKIP() << "promtool missing: apt-get install prometheus";
  testing::TempDir dir;
  auto path = WriteTextfile(dir.path(), t);
  ASSERT_TRUE(path) << path.error().message;
  std::string out;
  EXPECT_EQ(RunTool("promtool check metrics < " + *path, &out), 0) << out;
}

TEST(Prometheus, TextfileDirMustExist) {
  testing::TempDir dir;
  auto r = WriteTextfile(dir.path() + "/absent", "x 1\n");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("absent: not a directory"), std::string::npos);
}

TEST(Prometheus, AlertingRulesCheckAndPassTheirUnitTests) {
  if (!HavePromtool()) GTEST_SKIP() << "promtool missing: apt-get install prometheus";
  std::string dir = std::string(DOSSIER_SOURCE_DIR) + "/docs/prometheus";
  std::string out;
  EXPECT_EQ(RunTool("promtool check rules " + dir + "/dossier.rules.yml", &out), 0) << out;
  out.clear();
  EXPECT_EQ(RunTool("cd " + dir + " && promtool test rules dossier.rules.test.yml", &out), 0)
      << out;
}

}  // namespace
}  // namespace dossier::prometheus
