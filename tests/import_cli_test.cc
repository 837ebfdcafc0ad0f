// dossier import end to end: records written (or not), exit codes, the report over a dossier
// holding a collected guest and its imported host (the seed story), collected and imported facts
// that disagree, and hostile input storing nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "fixture_trees.h"
#include "golden.h"
#include "run_process.h"
#include "temp_dir.h"

namespace dossier {
namespace {

namespace fs = std::filesystem;
using testing::FixtureTree;
using testing::ProcessResult;
using testing::ReadWholeFile;
using testing::RunProcess;
using testing::TempDir;

ProcessResult Imp(std::vector<std::string> args) {
  args.insert(args.begin(), DOSSIER_BINARY);
  return RunProcess(args);
}

std::string Fixture(const std::string& rel) {
  return std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/" + rel;
}

size_t RecordCount(const std::string& dossier) {
  if (!fs::exists(dossier + "/records")) return 0;
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dossier + "/records"))
    n += e.path().extension() == ".json";
  return n;
}

// Times and the temporary directory replaced, so the report compares across runs.
std::string ImportNormalize(std::string text, const std::string& dir) {
  for (size_t at; (at = text.find(dir)) != std::string::npos;)
    text.replace(at, dir.size(), "<dir>");
  const std::string src = DOSSIER_SOURCE_DIR;  // the checkout's place differs in CI
  for (size_t at; (at = text.find(src)) != std::string::npos;)
    text.replace(at, src.size(), "<src>");
  static const std::regex kTime(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z)");
  return std::regex_replace(text, kTime, "<time>");
}

void ImportGolden(const std::string& file, const std::string& actual) {
  testing::ExpectMatchesGolden(file, actual);
}

TEST(ImportCli, HelpFormatsListsBothFamilies) {
  ProcessResult r = Imp({"help", "formats"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("what dossier import reads"), std::string::npos);
  EXPECT_NE(r.out.find("topo-m"), std::string::npos);
  EXPECT_NE(r.out.find("iommu-groups"), std::string::npos);
  for (const char* f : {"numactl", "lscpu", "dmidecode", "vm-start-error"})
    EXPECT_NE(r.out.find(std::string("  ") + f + " "), std::string::npos) << f;
  EXPECT_NE(r.out.find("what report and collect write"), std::string::npos);
  EXPECT_NE(r.out.find("  md "), std::string::npos);
}

TEST(ImportCli, StoresOneImportRecordWithTheOriginalText) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  std::string f = Fixture("import/topo_m/stelline-puget-wrx90-2x-rtx6000ada-phb.txt");
  ProcessResult r = Imp({"import", f, "--machine", "node7", "--dossier", d});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(RecordCount(d), 1u);
  for (const auto& e : fs::directory_iterator(d + "/records")) {
    auto doc = nlohmann::json::parse(ReadWholeFile(e.path().string()));
    EXPECT_EQ(doc["kind"], "import");
    EXPECT_EQ(doc["machine"]["name"], "node7");
    EXPECT_EQ(doc["originals"][0]["text"], ReadWholeFile(f));
    // The sample's header (lines 1-4) is listed as not recognised, then the matrix.
    EXPECT_TRUE(doc["files"][0]["parts"][0]["format"].is_null());
    EXPECT_EQ(doc["files"][0]["parts"][0]["last_line"], 4);
    EXPECT_EQ(doc["files"][0]["parts"][1]["format"], "topo-m");
    EXPECT_EQ(doc["machine"]["topology"]["nvml_levels"][0][1], "PHB");
  }
  ProcessResult rep = Imp({"report", "--dossier", d, "--format", "json"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  auto j = nlohmann::json::parse(rep.out);
  EXPECT_EQ(j["machines"][0]["name"], "node7");
  EXPECT_EQ(j["machines"][0]["record"]["kind"], "import");
  EXPECT_NE(j["machines"][0]["provenance"]["/gpus/0/numa_node"]["from"].get<std::string>().find(
                "imported: "),
            std::string::npos);
}

TEST(ImportCli, FormatPrintsAndStoresNothingAndReadsStdin) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  std::string f = Fixture("import/topo_p2p/autodl-container-2x-2080ti-p2p-p-ns.txt");
  ProcessResult r = Imp({"import", f, "--machine", "box", "--dossier", d, "--format", "md"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("gpu.p2p-not-ok"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d));
}

TEST(ImportCli, HostileOrUnknownInputIsExit2AndStoresNothing) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  std::string bin = t.path() + "/bin";
  {
    std::ofstream o(bin, std::ios::binary);
    o << "GPU0\tGPU1\n";
    o.put('\0');
    o << "x\n";
  }
  ProcessResult r =
      Imp({"import", Fixture("import/topo_m/stelline-puget-wrx90-2x-rtx6000ada-phb.txt"), bin,
           "--machine", "m", "--dossier", d});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bin + ":2: a NUL byte"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was stored"), std::string::npos);
  EXPECT_FALSE(fs::exists(d));

  std::string prose = t.path() + "/prose.txt";
  std::ofstream(prose) << "just some words\nand more words\n";
  ProcessResult u = Imp({"import", prose, "--machine", "m", "--dossier", d});
  EXPECT_EQ(u.exit_code, 2);
  EXPECT_NE(u.err.find("prose.txt:1-2: not imported"), std::string::npos) << u.err;
  EXPECT_FALSE(fs::exists(d));

  ProcessResult bad_as = Imp({"import", prose, "--machine", "m", "--as", "nope"});
  EXPECT_EQ(bad_as.exit_code, 2);
  ProcessResult no_machine = Imp({"import", prose});
  EXPECT_EQ(no_machine.exit_code, 2);
}

TEST(ImportCli, CollectedAndImportedFactsThatDisagreeAreBothShown) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  ASSERT_EQ(Imp({"collect", "-q", "--machine", "pve-host", "--dossier", d, "--root",
                 FixtureTree("seed-host")})
                .exit_code,
            0);
  // A week-old paste: GPU 01:00.0 in IOMMU group 44 (the collect says 3), and a link at x8.
  std::string old = t.path() + "/old.txt";
  std::ofstream(old) << "IOMMU group 44 01:00.0 VGA compatible controller [0300]: NVIDIA "
                        "Corporation GB202GL [10de:2bb1] (rev a1)\n";
  ProcessResult r = Imp({"import", old, "--machine", "pve-host", "--dossier", d});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ProcessResult md = Imp({"report", "--dossier", d});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  size_t at = md.out.find("disagree");
  ASSERT_NE(at, std::string::npos) << md.out;
  std::string section = md.out.substr(at, 2000);
  EXPECT_NE(section.find("iommu_group"), std::string::npos) << section;
  EXPECT_NE(section.find("44"), std::string::npos) << section;
  EXPECT_NE(section.find("3"), std::string::npos) << section;
}

TEST(ImportCli, GoldenSeedGuestWithItsImportedHost) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  ASSERT_EQ(Imp({"collect", "-q", "--machine", "guest", "--dossier", d, "--root",
                 FixtureTree("seed-guest")})
                .exit_code,
            0);
  ProcessResult r = Imp({"import", Fixture("import-seed/pve-host-session.txt"), "--machine",
                         "pve-host", "--dossier", d});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The pasted pci.cfg is read (the same parser as the host probe's), and checked against the
  // pasted lspci and IOMMU groups as Proxmox checks it at VM start: the story's stale mapping.
  EXPECT_NE(r.err.find("pci-cfg (cat /etc/pve/mapping/pci.cfg)"), std::string::npos) << r.err;
  ProcessResult md = Imp({"report", "--dossier", d});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("pcie.acs-redirect"), std::string::npos);
  EXPECT_NE(md.out.find("iommu=pt"), std::string::npos);
  EXPECT_NE(md.out.find("`vm.mapping-stale` on `pve-host`"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("'iommugroup' does not match for 'gpu0' (44 != "), std::string::npos);
  // The corrected file, from the pasted one.
  ProcessResult g = Imp({"generate", "pve-mapping", "--machine", "pve-host", "--dossier", d});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  EXPECT_EQ(g.out.find("iommugroup=44"), std::string::npos) << g.out;
  // The node the pasted file states (node=pve; the machine is named pve-host, no hostname pasted).
  EXPECT_NE((g.out + g.err).find("(node 'pve')"), std::string::npos) << g.out << g.err;
  EXPECT_EQ((g.out + g.err).find("'?'"), std::string::npos) << g.out << g.err;
  ImportGolden("seed-import-report.md", ImportNormalize(md.out, t.path()));
}

}  // namespace
}  // namespace dossier

namespace dossier {
namespace {

// The seed story end to end: the goal and targets typed in, the guest's two SGLang runs pasted
// back (concurrency 1 and 64, commands shown); both targets then report the measured value
// (before #25 the total read as 0.0 and the load as empty: "not measured"), and Prometheus labels
// the runs by their load.
TEST(ImportCli, SeedStorySglangRunsMeetTheTargets) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  auto ok = [&](std::vector<std::string> args) {
    args.push_back("--dossier");
    args.push_back(d);
    ProcessResult r = Imp(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r;
  };
  ok({"note", "goal", "Serve GLM-5-NVFP4 with SGLang on 8x RTX PRO 6000 Blackwell"});
  ok({"note", "target", "total_tokens_per_s >= 1000 at concurrency 64"});
  ok({"note", "target", "single_stream_tokens_per_s >= 100"});
  ProcessResult r =
      ok({"import", Fixture("import-seed/guest-bench-session.txt"), "--machine", "guest"});
  // What each part gave, said per part.
  EXPECT_NE(r.err.find("serve-bench (python3 -m sglang.bench_serving"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(": 1 benchmark run"), std::string::npos) << r.err;
  ProcessResult md = ok({"report"});
  EXPECT_NE(md.out.find("`total_tokens_per_s >= 1000 at concurrency 64`: **485.0**, not met"),
            std::string::npos)
      << md.out.substr(0, 3000);
  EXPECT_NE(md.out.find("`single_stream_tokens_per_s >= 100`: **11.0**, not met"),
            std::string::npos)
      << md.out.substr(0, 3000);
  EXPECT_EQ(md.out.find("not measured"), std::string::npos);
  ProcessResult prom = ok({"generate", "prometheus"});
  EXPECT_NE(prom.out.find("load=\"concurrency=64\""), std::string::npos) << prom.out;
  EXPECT_NE(prom.out.find("load=\"concurrency=1\""), std::string::npos);
  EXPECT_EQ(prom.out.find("load=\"unknown\""), std::string::npos);
}

// A paste recognised but yielding nothing stores nothing and exits 2; --as on another format's
// text says so and stores nothing either.
TEST(ImportCli, NothingTakenExitsTwo) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  const std::string f = t.path() + "/bad-block.txt";
  std::ofstream(f) << "============ Serving Benchmark Result ============\n"
                      "Successful requests:                     n/a\n"
                      "==================================================\n";
  ProcessResult r = Imp({"import", f, "--machine", "guest", "--dossier", d});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("bad-block.txt:2:"), std::string::npos) << r.err;
  EXPECT_EQ(RecordCount(d), 0u);

  ProcessResult w = Imp({"import",
                         std::string(DOSSIER_SOURCE_DIR) +
                             "/tests/fixtures/import/nvidia_smi_q/thamada-2x-h100nvl.txt",
                         "--as", "pci-cfg", "--machine", "host", "--dossier", d});
  EXPECT_EQ(w.exit_code, 2) << w.err;
  EXPECT_NE(w.err.find("--as pci-cfg: not pci-cfg output (it looks like nvidia-smi-q)"),
            std::string::npos)
      << w.err;
  EXPECT_EQ(RecordCount(d), 0u);
}

// A compact `collect --format json` over 64 KiB on one line is read like an indented one.
TEST(ImportCli, CompactCollectJsonOverALineLimit) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  ProcessResult c = Imp({"collect", "-q", "--format", "json", "--root", FixtureTree("seed-host")});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  nlohmann::json j = nlohmann::json::parse(c.out);
  std::string compact = j.dump();
  while (compact.size() <= (64u << 10)) {  // a bigger machine's size, by padding a kept string
    j["padding_note"] = std::string((64u << 10) + 1, 'x');
    compact = j.dump();
  }
  const std::string f = t.path() + "/compact.json";
  std::ofstream(f) << compact << "\n";
  ProcessResult r = Imp({"import", f, "--machine", "pve-host", "--dossier", d});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(RecordCount(d), 1u);
}

}  // namespace
}  // namespace dossier

namespace dossier {
namespace {

// A figure read off a screen, typed in: stored as a measurement record marked as typed in, read
// by the targets like a pasted one.
TEST(NoteMeasurement, TypedInFiguresAreMeasurements) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  auto run = [&](std::vector<std::string> args) {
    args.push_back("--dossier");
    args.push_back(d);
    return Imp(args);
  };
  // The machine is known to the dossier (a collect); its measurements are then read with it.
  ASSERT_EQ(
      run({"collect", "-q", "--machine", "guest", "--root", FixtureTree("seed-guest")}).exit_code,
      0);
  ASSERT_EQ(run({"note", "target", "total_tokens_per_s >= 1000 at concurrency 64"}).exit_code, 0);
  ProcessResult s = run(
      {"note", "measurement", "--machine", "guest", "--concurrency", "64", "--total-tok-s", "485"});
  ASSERT_EQ(s.exit_code, 0) << s.err;
  ProcessResult p = run({"note", "measurement", "--machine", "guest", "--pair", "0-1", "--size",
                         "16M", "--gbps", "41.4", "--mode", "staged"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(RecordCount(d), 3u);
  ProcessResult md = run({"report"});
  EXPECT_NE(md.out.find("**485.0**, not met"), std::string::npos) << md.out.substr(0, 2000);
  // Only the load and the throughput were typed: the counts and the output throughput are not
  // known, in every output, never 0 (the report once said "1 / 0" and Prometheus 0 requests/s).
  size_t row = md.out.find("| concurrency 64 | 485.0 | not known |");
  ASSERT_NE(row, std::string::npos) << md.out;
  std::string line = md.out.substr(row, md.out.find('\n', row) - row);
  EXPECT_NE(line.find("not known (typed in with dossier note measurement"), std::string::npos)
      << line;
  EXPECT_EQ(line.find("1 / 0"), std::string::npos) << line;
  EXPECT_EQ(line.find("0 / 0"), std::string::npos) << line;
  nlohmann::json js = nlohmann::json::parse(run({"report", "--format", "json"}).out);
  const nlohmann::json* served = nullptr;
  for (const auto& m : js["machines"])
    if (m["name"] == "guest") served = &m["measurement_summary"]["serve"];
  ASSERT_TRUE(served && served->size() == 1u);
  EXPECT_EQ((*served)[0]["total_tokens_per_s"], 485.0);
  EXPECT_TRUE((*served)[0]["output_tokens_per_s"].is_null());
  EXPECT_TRUE((*served)[0]["completed"].is_null());
  EXPECT_TRUE((*served)[0]["failed"].is_null());
  EXPECT_NE((*served)[0]["unknown"].get<std::string>().find("typed in"), std::string::npos);
  ProcessResult prom = run({"generate", "prometheus"});
  ASSERT_EQ(prom.exit_code, 0) << prom.err;
  EXPECT_NE(prom.out.find("kind=\"total\"} 485"), std::string::npos) << prom.out;
  for (const char* absent :
       {"dossier_serve_requests_per_second{", "kind=\"output\"", "dossier_serve_failed_requests{"})
    EXPECT_EQ(prom.out.find(absent), std::string::npos) << absent << "\n" << prom.out;
  // The records say the figures were typed in.
  size_t typed = 0;
  for (const auto& e : fs::directory_iterator(d + "/records"))
    typed += ReadWholeFile(e.path().string()).find("typed in: dossier note measurement") !=
             std::string::npos;
  EXPECT_EQ(typed, 2u);
  // A figure whose peer access was not said is drawn in the page's bandwidth chart under its
  // own name: neither P2P nor staged.
  ASSERT_EQ(run({"note", "measurement", "--machine", "guest", "--pair", "1-0", "--size", "16M",
                 "--gbps", "40.9"})
                .exit_code,
            0);
  ProcessResult html = run({"report", "--format", "html"});
  ASSERT_EQ(html.exit_code, 0) << html.err;
  size_t chart = html.out.find("GPU1 → GPU0");
  ASSERT_NE(chart, std::string::npos);
  EXPECT_NE(html.out.find("peer access not said (uni-unknown)", chart), std::string::npos);
  EXPECT_EQ(html.out.find("peer access on (uni-p2p)", chart), std::string::npos);
  // Neither kind given, or both: usage.
  EXPECT_EQ(run({"note", "measurement", "--machine", "guest"}).exit_code, 2);
  EXPECT_EQ(run({"note", "measurement", "--machine", "guest", "--pair", "0-1", "--size", "x",
                 "--gbps", "1"})
                .exit_code,
            2);
}

// A machine known only from pastes is the same whether its pastes are imported in one run or one
// run each (a person pastes `numactl -H` on Monday and the VM's start error on Tuesday): every
// family of every file reaches the report, none only because it came first. Eight formats of one
// consistent host, none overlapping another.
TEST(ImportCli, OneRunOrOneRunPerFileGiveTheSameMachine) {
  TempDir t;
  const std::string c = std::string(DOSSIER_SOURCE_DIR) + "/tests/corpus/";
  const std::vector<std::string> files = {
      c + "import-numactl/four-nodes-xeon-28c.txt",
      c + "import-dmidecode/seed-host-full.txt",
      c + "import-vm-start-error/seed-qm-start-mapping-mismatch.txt",
      c + "import-topo-p2p/h100-ansi.txt",
      c + "import-qemu-server-conf/andrei-paul-win10-nvidia-gpu-100-ansi.txt",
      c + "import-server-log/sglang-qwen3-235b-fp8-tp4.txt",
      c + "import-iommu-groups/duo-ansi.txt",
      c + "import-kernel-log/dmesg-ansi.txt"};
  std::vector<std::string> one = {"import", "-q", "--machine", "m", "--dossier", t.path() + "/one"};
  one.insert(one.end(), files.begin(), files.end());
  auto r = Imp(one);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& f : files) {
    auto e = Imp({"import", "-q", "--machine", "m", "--dossier", t.path() + "/many", f});
    ASSERT_EQ(e.exit_code, 0) << f << ": " << e.err;
  }
  auto machine = [&](const std::string& d) {
    auto rep = Imp({"report", "--dossier", d, "--format", "json"});
    EXPECT_EQ(rep.exit_code, 0) << rep.err;
    nlohmann::json m = nlohmann::json::parse(rep.out)["machines"].at(0);
    for (const char* k : {"imports", "record", "coverage"}) m.erase(k);  // which runs, and when
    return m;
  };
  nlohmann::json a = machine(t.path() + "/one"), b = machine(t.path() + "/many");
  ASSERT_EQ(a["numa"]["nodes"].size(), 4u);
  ASSERT_EQ(a["hypervisor"]["start_errors"].size(), 1u);
  ASSERT_FALSE(a["dmi"]["memory_devices"].empty());
  EXPECT_EQ(b["numa"]["nodes"], a["numa"]["nodes"]);
  EXPECT_EQ(b["hypervisor"]["start_errors"], a["hypervisor"]["start_errors"]);
  EXPECT_EQ(b["dmi"]["memory_devices"], a["dmi"]["memory_devices"]);
  EXPECT_EQ(nlohmann::json::diff(a, b), nlohmann::json::array());
}

}  // namespace
}  // namespace dossier
