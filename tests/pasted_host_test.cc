// A host known only from what a person pasted (the product's central story), end to end: the
// host's whole terminal transcript written from a fixture tree (tests/pasted_transcript.h: the
// real lspci on the tree, dossier's own collect of it for the other commands), imported beside a
// collected guest with notes, and the report's STATEMENTS checked: nothing the pastes did not
// cover is said to be none, the GPUs every paste names are the host's GPUs, and the topology
// rules answer as they do on the collected host. Then `diff --machine` over two pasted states,
// and `report --machine` / `--summary`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "fixture_trees.h"
#include "pasted_transcript.h"
#include "run_process.h"
#include "temp_dir.h"

namespace dossier {
namespace {

namespace fs = std::filesystem;
using testing::FixtureTree;
using testing::ProcessResult;
using testing::RunProcess;
using testing::TempDir;

ProcessResult PastedRun(std::vector<std::string> args) {
  args.insert(args.begin(), DOSSIER_BINARY);
  return RunProcess(args);
}

// dossier's own collect of a tree: its machine object.
nlohmann::json CollectedMachine(const std::string& tree) {
  ProcessResult r = PastedRun({"collect", "--root", tree, "--format", "json", "-q"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  if (j.is_discarded() || !j.contains("machines") || j["machines"].empty()) {
    ADD_FAILURE() << "collect of " << tree << " gave no machine";
    return nlohmann::json::object();
  }
  return j["machines"][0];
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The Markdown of one machine's discoveries: from its heading to the next machine or section.
std::string MachineSection(const std::string& md, const std::string& name) {
  size_t at = md.find("### Machine `" + name + "`");
  if (at == std::string::npos) return "";
  size_t end = std::min(md.find("### Machine `", at + 10), md.find("\n## ", at));
  return md.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

const nlohmann::json* MachineIn(const nlohmann::json& doc, const std::string& name) {
  for (const auto& m : doc["machines"])
    if (m["name"] == name) return &m;
  return nullptr;
}

std::set<std::string> FindingIdsOf(const nlohmann::json& m) {
  std::set<std::string> ids;
  for (const auto& f : m.value("findings", nlohmann::json::array())) ids.insert(f.value("id", ""));
  return ids;
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

class PastedHost : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::OnPath("lspci")) GTEST_SKIP() << "lspci (pciutils) is not installed";
  }
};

// The statements the issue names as false on a pasted host never appear; the true ones do.
TEST_F(PastedHost, SeedStoryReportStatesOnlyWhatWasPasted) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  const std::string host_tree = FixtureTree("seed-host");
  const nlohmann::json host = CollectedMachine(host_tree);
  const nlohmann::json guest = CollectedMachine(FixtureTree("seed-guest"));
  ASSERT_EQ(PastedRun({"collect", "-q", "--machine", "guest", "--dossier", d, "--root",
                       FixtureTree("seed-guest")})
                .exit_code,
            0);
  const std::string host_txt = t.path() + "/pve-host-session.txt";
  const std::string transcript = testing::HostTranscript(host_tree, host);
  WriteText(host_txt, transcript);
  ProcessResult ih = PastedRun({"import", host_txt, "--machine", "pve-host", "--dossier", d});
  ASSERT_EQ(ih.exit_code, 0) << ih.err;
  const std::string guest_txt = t.path() + "/guest-session.txt";
  WriteText(guest_txt, testing::GuestTranscript(guest));
  ProcessResult ig = PastedRun({"import", guest_txt, "--machine", "guest", "--dossier", d});
  ASSERT_EQ(ig.exit_code, 0) << ig.err;
  fs::copy_file(std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/notes/seed-story.toml",
                d + "/notes.toml");

  ProcessResult md = PastedRun({"report", "--dossier", d});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  const std::string sec = MachineSection(md.out, "pve-host");
  ASSERT_FALSE(sec.empty()) << md.out;
  // False on a pasted host: what no paste covered is not "none".
  for (const char* never :
       {"No NUMA nodes listed", "No CUDA toolkit found", "No inference server process found",
        "No NVIDIA compute GPU", "No compute GPU", "control unknown", "NVML not loaded",
        "No environment variables of the caller recorded", "No Python environment read",
        "not in the imported outputs", "/sys/devices/system/node/node*",
        "/sys/kernel/iommu_groups/*/{type", "/sys/bus/pci/devices/*` (link files"})
    EXPECT_EQ(sec.find(never), std::string::npos) << never << "\n" << sec;
  // Anywhere in the report: no GPU the pastes name is said to be missing, and a capability no
  // paste showed is not claimed.
  for (const char* never : {"facts list no GPU", "write NS", "write: NS"})
    EXPECT_EQ(md.out.find(never), std::string::npos) << never;
  // The guest's pasted `topo -p2p r` is evidence for read alone.
  EXPECT_NE(md.out.find("read NS (the other capabilities are not in the pasted outputs)"),
            std::string::npos);
  // True: what was not pasted says so, with what to paste.
  EXPECT_NE(sec.find("not in the pasted outputs"), std::string::npos) << sec;
  EXPECT_NE(sec.find("CUDA toolkits: not in the pasted outputs"), std::string::npos) << sec;
  EXPECT_NE(sec.find("Inference server processes: not in the pasted outputs"), std::string::npos);
  EXPECT_NE(sec.find("P2P write status: not in the pasted outputs"), std::string::npos) << sec;
  // Every GPU of the collected host, by address, in the host's GPU table; the ACSCtl lines.
  ASSERT_EQ(host["gpus"].size(), 8u);
  for (const auto& g : host["gpus"])
    EXPECT_NE(sec.find("| `" + g["address"].get<std::string>() + "` |"), std::string::npos)
        << g["address"] << "\n"
        << sec;
  size_t acs_lines = Count(transcript, "ACSCtl:");
  ASSERT_GT(acs_lines, 0u);
  EXPECT_NE(sec.find("pasted as " + std::to_string(acs_lines) + " `ACSCtl` line(s)"),
            std::string::npos)
      << sec;
  // The topology rule fires on the pasted host as on the collected one.
  EXPECT_NE(md.out.find("`p2p.separate-root-complexes` on `pve-host`"), std::string::npos);
  EXPECT_NE(md.out.find("`vm.mapping-stale` on `pve-host`"), std::string::npos);

  // JSON: the pasted host's GPUs and levels are the collected host's; a family no paste covered
  // is null with its reason, never [].
  ProcessResult js = PastedRun({"report", "--format", "json", "--dossier", d});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  nlohmann::json doc = nlohmann::json::parse(js.out);
  const nlohmann::json* ph = MachineIn(doc, "pve-host");
  ASSERT_NE(ph, nullptr);
  ASSERT_EQ((*ph)["gpus"].size(), host["gpus"].size());
  for (size_t i = 0; i < host["gpus"].size(); ++i)
    EXPECT_EQ((*ph)["gpus"][i]["address"], host["gpus"][i]["address"]) << i;
  EXPECT_EQ((*ph)["topology"]["gpu_levels"], host["topology"]["gpu_levels"]);
  ASSERT_TRUE(ph->contains("coverage"));
  const auto& cov = (*ph)["coverage"];
  EXPECT_FALSE(cov["gpus"].is_null());
  EXPECT_FALSE(cov["iommu"].is_null());
  for (const char* ptr : {"/software/cuda_toolkits", "/servers", "/software/python_envs"}) {
    nlohmann::json::json_pointer p(ptr);
    EXPECT_TRUE((*ph)[p].is_null()) << ptr;
    EXPECT_NE((*ph)["provenance"][ptr].value("unknown", "").find("not in the pasted outputs"),
              std::string::npos)
        << ptr;
  }
  // NUMA: known when an importer read the pasted `numactl -H`, else null with the reason.
  if (cov["numa"].is_null()) {
    EXPECT_TRUE((*ph)["numa"]["nodes"].is_null());
  } else {
    EXPECT_EQ((*ph)["numa"]["nodes"].size(), host["numa"]["nodes"].size());
  }
  // The rules that read the PCI tree answer on the pasted host as on the collected host.
  const nlohmann::json* cg = nullptr;
  {
    TempDir t2;
    const std::string d2 = t2.path() + "/dossier";
    ASSERT_EQ(
        PastedRun({"collect", "-q", "--machine", "pve-host", "--dossier", d2, "--root", host_tree})
            .exit_code,
        0);
    ProcessResult cj = PastedRun({"report", "--format", "json", "--dossier", d2});
    nlohmann::json cdoc = nlohmann::json::parse(cj.out);
    cg = MachineIn(cdoc, "pve-host");
    ASSERT_NE(cg, nullptr);
    auto collected_ids = FindingIdsOf(*cg), pasted_ids = FindingIdsOf(*ph);
    for (const char* id : {"p2p.separate-root-complexes", "vm.mapping-stale"}) {
      EXPECT_TRUE(collected_ids.count(id)) << id;
      EXPECT_TRUE(pasted_ids.count(id)) << id;
    }
  }

  // Prometheus: the GPU count is the pasted one, never a 0 for "not pasted".
  const std::string prom_dir = t.path() + "/prom";
  fs::create_directories(prom_dir);
  ProcessResult pr = PastedRun({"generate", "prometheus", "--dossier", d});
  ASSERT_EQ(pr.exit_code, 0) << pr.err;
  EXPECT_EQ(pr.out.find("dossier_gpus{machine=\"pve-host\"} 0"), std::string::npos) << pr.out;
  EXPECT_NE(pr.out.find("dossier_gpus{machine=\"pve-host\"} 8"), std::string::npos) << pr.out;

  // The generators work from the pasted GPUs: qemu-args places every guest GPU on its host GPU
  // (and, the host having given no P2P status, refuses a clique with that reason, exit 2).
  ProcessResult qa = PastedRun({"generate", "qemu-args", "--machine", "guest", "--dossier", d});
  EXPECT_TRUE(qa.exit_code == 0 || qa.exit_code == 2) << qa.err << qa.out;
  EXPECT_EQ((qa.out + qa.err).find("facts list no GPU"), std::string::npos) << qa.err;
  EXPECT_EQ((qa.out + qa.err).find("is not known"), std::string::npos) << qa.err;
  EXPECT_NE((qa.out + qa.err).find(host["gpus"][3]["address"].get<std::string>()),
            std::string::npos)
      << qa.err;

  // One machine, and the first screen alone.
  ProcessResult one = PastedRun({"report", "--machine", "pve-host", "--dossier", d});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("### Machine `pve-host`"), std::string::npos);
  EXPECT_EQ(one.out.find("### Machine `guest`"), std::string::npos);
  EXPECT_EQ(one.out.find("on `guest`"), std::string::npos) << one.out;
  ProcessResult sum = PastedRun({"report", "--summary", "--dossier", d});
  ASSERT_EQ(sum.exit_code, 0) << sum.err;
  EXPECT_EQ(sum.out.rfind("# Dossier summary", 0), 0u) << sum.out;
  EXPECT_NE(sum.out.find("**Blocked by:**"), std::string::npos) << sum.out;
  EXPECT_EQ(sum.out.find("## Discoveries"), std::string::npos) << sum.out;
  ProcessResult sj = PastedRun({"report", "--summary", "--format", "json", "--dossier", d});
  ASSERT_EQ(sj.exit_code, 0) << sj.err;
  nlohmann::json sdoc = nlohmann::json::parse(sj.out);
  EXPECT_TRUE(sdoc.contains("summary"));
  EXPECT_FALSE(sdoc.contains("machines"));
  ProcessResult bad = PastedRun({"report", "--machine", "nope", "--dossier", d});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("no machine 'nope'"), std::string::npos) << bad.err;
  EXPECT_EQ(PastedRun({"report", "--summary", "--format", "html", "--dossier", d}).exit_code, 2);
}

// Any host tree: its pasted transcript alone gives the GPUs and pair levels its collect gives,
// and the PCI-tree rules the collect fires.
TEST_F(PastedHost, EveryHostTreeGivesItsCollectedGpusAndLevels) {
  for (const char* name : {"seed-host", "libvirt-host", "baremetal-switch"}) {
    SCOPED_TRACE(name);
    TempDir t;
    const std::string d = t.path() + "/dossier";
    const std::string tree = FixtureTree(name);
    const nlohmann::json host = CollectedMachine(tree);
    testing::HostTranscriptOptions o;
    o.prompt = "admin@host:~$ ";
    const std::string txt = t.path() + "/session.txt";
    WriteText(txt, testing::HostTranscript(tree, host, o));
    ProcessResult im = PastedRun({"import", txt, "--machine", "h", "--dossier", d});
    ASSERT_EQ(im.exit_code, 0) << im.err;
    ProcessResult js = PastedRun({"report", "--format", "json", "--dossier", d});
    ASSERT_EQ(js.exit_code, 0) << js.err;
    nlohmann::json doc = nlohmann::json::parse(js.out);
    const nlohmann::json* m = MachineIn(doc, "h");
    ASSERT_NE(m, nullptr);
    ASSERT_EQ((*m)["gpus"].size(), host["gpus"].size()) << js.out.substr(0, 2000);
    for (size_t i = 0; i < host["gpus"].size(); ++i)
      EXPECT_EQ((*m)["gpus"][i]["address"], host["gpus"][i]["address"]);
    // Levels as collected; but `lspci -tv` does not show port types, so a switch's ports count as
    // bridges each and a PIX pair reads PXB (analyze/topology.h): never another level.
    auto pxb = [](nlohmann::json lv) {
      for (auto& row : lv)
        for (auto& c : row)
          if (c == "PIX") c = "PXB";
      return lv;
    };
    EXPECT_EQ(pxb((*m)["topology"]["gpu_levels"]), pxb(host["topology"]["gpu_levels"]));
    ProcessResult cj = PastedRun({"collect", "--root", tree, "--format", "json", "-q"});
    nlohmann::json cdoc = nlohmann::json::parse(cj.out);
    auto collected = FindingIdsOf(cdoc["machines"][0]), pasted = FindingIdsOf(*m);
    for (const char* id : {"p2p.separate-root-complexes"})
      EXPECT_EQ(collected.count(id), pasted.count(id)) << id;
    ProcessResult md = PastedRun({"report", "--dossier", d});
    for (const char* never : {"No NUMA nodes listed", "No CUDA toolkit found",
                              "No inference server process found", "No NVIDIA compute GPU"})
      EXPECT_EQ(md.out.find(never), std::string::npos) << never;
  }
}

// Two pasted IOMMU listings of one host (before and after the BIOS ACS change): `diff --machine`
// compares them as two states; a collect and a later paste compare too, on what both show.
TEST_F(PastedHost, DiffComparesPastedStates) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  const std::string before = t.path() + "/before.txt", after = t.path() + "/after.txt";
  WriteText(before, testing::IommuLoop(FixtureTree("seed-host-before-acs"), "root@pve:~# "));
  WriteText(after, testing::IommuLoop(FixtureTree("seed-host"), "root@pve:~# "));
  ASSERT_EQ(PastedRun({"import", before, "--machine", "pve-host", "--dossier", d}).exit_code, 0);
  ASSERT_EQ(PastedRun({"import", after, "--machine", "pve-host", "--dossier", d}).exit_code, 0);
  ProcessResult diff = PastedRun({"diff", "--machine", "pve-host", "--dossier", d});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_NE(diff.out.find("iommu-renumbered"), std::string::npos) << diff.out;
  EXPECT_NE(diff.out.find("group 44"), std::string::npos) << diff.out;  // f1:00.0 was in 44
  EXPECT_NE(diff.out.find("import of pasted outputs"), std::string::npos) << diff.out;
  EXPECT_EQ(diff.out.find("device-removed"), std::string::npos) << diff.out;

  // A collect, then a paste of the IOMMU loop: only the groups are compared.
  TempDir t2;
  const std::string d2 = t2.path() + "/dossier";
  ASSERT_EQ(PastedRun({"collect", "-q", "--machine", "pve-host", "--dossier", d2, "--root",
                       FixtureTree("seed-host-before-acs")})
                .exit_code,
            0);
  ASSERT_EQ(PastedRun({"import", after, "--machine", "pve-host", "--dossier", d2}).exit_code, 0);
  ProcessResult mixed = PastedRun({"diff", "--machine", "pve-host", "--dossier", d2});
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
  EXPECT_NE(mixed.out.find("iommu-renumbered"), std::string::npos) << mixed.out;
  for (const char* never : {"device-removed", "device-added", "finding-cleared", "| link |"})
    EXPECT_EQ(mixed.out.find(never), std::string::npos) << never << "\n" << mixed.out;
  ProcessResult mj =
      PastedRun({"diff", "--machine", "pve-host", "--format", "json", "--dossier", d2});
  ASSERT_EQ(mj.exit_code, 0);
  nlohmann::json j = nlohmann::json::parse(mj.out);
  EXPECT_EQ(j["from"]["kind"], "collect");
  EXPECT_EQ(j["to"]["kind"], "import");
  EXPECT_FALSE(j["not_compared"].empty());
}

}  // namespace
}  // namespace dossier
