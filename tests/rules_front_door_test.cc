// Every rule of the rule table as `collect` and `report` run it: the dossier binary on machine
// trees generated from the fixture descriptions (or variants of them with one setting changed),
// once where the rule must fire and once on a near miss where it must not. The table at the end
// checks that no registered rule is left without both.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "analyze/rule.h"
#include "front_door.h"
#include "standin_paths.h"

namespace dossier::frontdoor {
namespace {

using nlohmann::json;
using testing::CollectJson;
using testing::EvidenceText;
using testing::FindingIds;
using testing::FindingIn;
using testing::FindingOn;
using testing::FixtureDescriptionDir;
using testing::FixtureTree;
using testing::PciDeviceIn;
using testing::ReadWholeFile;
using testing::Replace;
using testing::RunDossier;
using testing::TempDir;
using testing::VariantTree;

// The rules the tests below make fire and miss, each named where it is tested;
// RuleTableFrontDoor checks this list against the registered table, so a new rule needs a test.
const std::set<std::string> kCovered = {
    "pcie.acs-redirect",
    "p2p.separate-root-complexes",
    "p2p.vm-isolated",
    "vm.legacy-chipset",
    "numa.gpu-affinity-unknown",
    "iommu.translated-p2p",
    "pcie.link-speed-low",
    "pcie.link-width-degraded",
    "pcie.bar-allocation-failed",
    "build.cuda-arch-mismatch",
    "gpu.p2p-not-ok",
    "gpu.health",
    "iommu.groups-changed",
    "p2p.bytes-corrupted",
    "p2p.below-expectation",
    "serve.below-target",  // tests/serve_front_door_test.cc, with every comparison
    "numa.overlapping-nodes",
    "nccl.p2p-fallback",
    "nccl.topo-file-mismatch",
    "notes.contradicted",
    "decode.communication-bound",
    "vm.mapping-stale",
    "plan.server-disagrees",  // tests/plan_cli_test.cc: a log 40 % off fires, one 2 % off is silent
    "plan.target-short",      // tests/plan_cli_test.cc: a target between layouts, one beyond all
};

void Fires(const json& doc, const std::string& id, size_t machine = 0) {
  EXPECT_NE(FindingIn(doc, id, machine), nullptr)
      << id << " did not fire; fired: " << ::testing::PrintToString(FindingIds(doc, machine));
}
void Silent(const json& doc, const std::string& id, size_t machine = 0) {
  const json* f = FindingIn(doc, id, machine);
  EXPECT_EQ(f, nullptr) << id << " fired on a near miss: " << (f ? f->dump(2) : "");
}

// --- pcie.acs-redirect: one bit is enough; Source Validation alone redirects nothing ----------

const char kSwitchAcs[] = R"(ctl = ["SV", "RR", "CR", "UF"])";
const std::vector<std::string> kSwitchPorts = {"0000:02:00.0", "0000:02:01.0", "0000:02:02.0"};

json SwitchWithAcsControl(const TempDir& t, const std::string& ctl) {
  std::string tree =
      VariantTree(t, "baremetal-switch", {{kSwitchAcs, "ctl = [" + ctl + "]", true}});
  if (tree.empty()) return json();
  return CollectJson(tree);
}

TEST(AcsRedirectFrontDoor, RequestRedirectAloneFires) {
  TempDir t;
  json doc = SwitchWithAcsControl(t, R"("RR")");
  const json* f = FindingIn(doc, "pcie.acs-redirect");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
  // The bits went through config space and back: the evidence shows what the port has.
  std::string ev = EvidenceText(*f);
  for (const auto& port : kSwitchPorts) {
    EXPECT_NE(ev.find(port + " (downstream) ACS control: RR\n"), std::string::npos) << ev;
    const json* d = PciDeviceIn(doc, port);
    ASSERT_NE(d, nullptr) << port;
    EXPECT_EQ((*d)["acs"]["control"], json::array({"RR"})) << port;
  }
  EXPECT_NE(f->value("title", "").find("for 3 bridge(s)"), std::string::npos) << f->dump();
}

TEST(AcsRedirectFrontDoor, CompletionRedirectAloneFires) {
  TempDir t;
  json doc = SwitchWithAcsControl(t, R"("CR")");
  const json* f = FindingIn(doc, "pcie.acs-redirect");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
  std::string ev = EvidenceText(*f);
  for (const auto& port : kSwitchPorts) {
    EXPECT_NE(ev.find(port + " (downstream) ACS control: CR\n"), std::string::npos) << ev;
    EXPECT_EQ((*PciDeviceIn(doc, port))["acs"]["control"], json::array({"CR"})) << port;
  }
}

TEST(AcsRedirectFrontDoor, OneRedirectingPortOfThreeIsNamedAlone) {
  TempDir t;
  // Only the port above the NIC (02:02.0) redirects: GPU<->NIC pairs are affected, GPU<->GPU not.
  std::string tree = VariantTree(
      t, "baremetal-switch",
      {{kSwitchAcs, R"(ctl = ["SV", "UF"])", true},
       {"slot = 13\nacs = { cap = [\"SV\", \"TB\", \"RR\", \"CR\", \"UF\", \"DT\"], ctl = [\"SV\", "
        "\"UF\"] }",
        "slot = 13\nacs = { cap = [\"SV\", \"TB\", \"RR\", \"CR\", \"UF\", \"DT\"], ctl = [\"RR\"] "
        "}",
        false}});
  ASSERT_FALSE(tree.empty());
  json doc = CollectJson(tree);
  const json* f = FindingIn(doc, "pcie.acs-redirect");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
  EXPECT_NE(f->value("title", "").find("for 1 bridge(s)"), std::string::npos) << f->dump();
  std::string ev = EvidenceText(*f);
  EXPECT_NE(ev.find("0000:02:02.0 redirects P2P of: GPU 0000:03:00.0 <-> NIC 0000:05:00.0"),
            std::string::npos)
      << ev;
  EXPECT_EQ(ev.find("0000:02:00.0 (downstream)"), std::string::npos) << ev;
  EXPECT_EQ(ev.find("GPU 0000:03:00.0 <-> GPU 0000:04:00.0"), std::string::npos) << ev;
}

TEST(AcsRedirectFrontDoor, NearMissesDoNotFire) {
  const std::vector<std::pair<std::string, json>> kNearMisses = {
      {R"("SV")", json::array({"SV"})},
      {R"("SV", "UF")", json::array({"SV", "UF"})},
      {R"("SV", "UF", "DT")", json::array({"SV", "UF", "DT"})},
      {"", json::array()},
  };
  for (const auto& [ctl, want] : kNearMisses) {
    SCOPED_TRACE(ctl);
    TempDir t;
    json doc = SwitchWithAcsControl(t, ctl);
    Silent(doc, "pcie.acs-redirect");
    // The ports do have the capability, with the controls given: nothing was lost on the way.
    const json* d = PciDeviceIn(doc, "0000:02:00.0");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ((*d)["acs"]["control"], want);
  }
  // Redirect bits on the root port above the switch do not matter: the GPUs meet below it.
  TempDir t;
  std::string tree = VariantTree(t, "baremetal-switch",
                                 {{kSwitchAcs, R"(ctl = ["SV"])", true},
                                  // the first occurrence: the root port template
                                  {R"(ctl = ["SV"])", R"(ctl = ["SV", "RR", "CR"])", false}});
  ASSERT_FALSE(tree.empty());
  Silent(CollectJson(tree), "pcie.acs-redirect");
  // In a guest the bridges are emulated; the seed guest's ports may say anything.
  Silent(CollectJson(FixtureTree("seed-guest")), "pcie.acs-redirect");
  // And the fixture as described (every bit set) fires.
  Fires(CollectJson(FixtureTree("baremetal-switch")), "pcie.acs-redirect");
}

// --- machine rules, one fixture that fires and one near miss each -----------------------------

TEST(MachineRulesFrontDoor, TopologyRules) {
  json host = CollectJson(FixtureTree("seed-host"));
  json guest = CollectJson(FixtureTree("seed-guest"));
  json sw = CollectJson(FixtureTree("baremetal-switch"));
  json i440 = CollectJson(FixtureTree("i440fx-guest"));
  Fires(host, "p2p.separate-root-complexes");
  Silent(sw, "p2p.separate-root-complexes");  // both GPUs behind one switch
  Silent(guest, "p2p.separate-root-complexes");
  Fires(guest, "p2p.vm-isolated");
  Silent(host, "p2p.vm-isolated");  // bare metal
  Silent(i440, "p2p.vm-isolated");  // a guest with one GPU
  Fires(i440, "vm.legacy-chipset");
  Silent(guest, "vm.legacy-chipset");  // Q35
  Fires(guest, "numa.gpu-affinity-unknown");
  Silent(host, "numa.gpu-affinity-unknown");
  TempDir t;
  std::string placed = VariantTree(t, "seed-guest",
                                   {{"[[root]]\nbus = \"0000:00\"\nnuma_node = -1",
                                     "[[root]]\nbus = \"0000:00\"\nnuma_node = 0", false}});
  ASSERT_FALSE(placed.empty());
  Silent(CollectJson(placed), "numa.gpu-affinity-unknown");  // the GPUs' node is known
}

TEST(MachineRulesFrontDoor, IommuTranslatedP2p) {
  Fires(CollectJson(FixtureTree("baremetal-switch")), "iommu.translated-p2p");
  TempDir t;
  std::string pt =
      VariantTree(t, "baremetal-switch", {{"domain = \"DMA-FQ\"", "domain = \"identity\"", false}});
  ASSERT_FALSE(pt.empty());
  Silent(CollectJson(pt), "iommu.translated-p2p");
  TempDir t2;
  std::string dma =
      VariantTree(t2, "baremetal-switch", {{"domain = \"DMA-FQ\"", "domain = \"DMA\"", false}});
  ASSERT_FALSE(dma.empty());
  Fires(CollectJson(dma), "iommu.translated-p2p");
}

TEST(MachineRulesFrontDoor, LinkRules) {
  json sw = CollectJson(FixtureTree("baremetal-switch"));
  Fires(sw, "pcie.link-speed-low");
  Silent(sw, "pcie.link-width-degraded");  // slow but full width
  TempDir t;
  std::string narrow = VariantTree(
      t, "baremetal-switch",
      {{"link_now = { speed = 2.5, width = 16 }", "link_now = { speed = 2.5, width = 8 }"}});
  ASSERT_FALSE(narrow.empty());
  json n = CollectJson(narrow);
  const json* f = FindingIn(n, "pcie.link-width-degraded");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(n));
  EXPECT_NE(EvidenceText(*f).find("0000:04:00.0"), std::string::npos) << f->dump(2);
  TempDir t2;
  std::string full = VariantTree(t2, "baremetal-switch",
                                 {{"link_now = { speed = 2.5, width = 16 }\n", ""},
                                  {"link_now = { speed = 16, width = 16 }\n", ""}});
  ASSERT_FALSE(full.empty());
  json ok = CollectJson(full);
  Silent(ok, "pcie.link-speed-low");
  Silent(ok, "pcie.link-width-degraded");
}

TEST(MachineRulesFrontDoor, BarAllocationFailed) {
  json i440 = CollectJson(FixtureTree("i440fx-guest"));
  const json* f = FindingIn(i440, "pcie.bar-allocation-failed");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(EvidenceText(*f).find("BAR 1: no space"), std::string::npos) << f->dump(2);
  TempDir t;
  std::string quiet = VariantTree(
      t, "i440fx-guest", {},
      {{"var/log/dmesg",
        "[    0.398211] PCI host bridge to bus 0000:00\n"
        "[    0.401502] pci 0000:00:10.0: [10de:2bb1] type 00 class 0x030000\n"
        "[    0.434170] pci 0000:00:03.0: BAR 6: no space for [mem size 0x00040000 pref]\n"}});
  ASSERT_FALSE(quiet.empty());
  Silent(CollectJson(quiet), "pcie.bar-allocation-failed");  // a non-GPU device's BAR
}

TEST(MachineRulesFrontDoor, CudaArchMismatch) {
  Fires(CollectJson(FixtureTree("seed-guest")), "build.cuda-arch-mismatch");
  TempDir t;
  std::string fixed = VariantTree(
      t, "seed-guest", {{"\"TORCH_CUDA_ARCH_LIST=10.0\"", "\"TORCH_CUDA_ARCH_LIST=10.0;12.0\""}});
  ASSERT_FALSE(fixed.empty());
  Silent(CollectJson(fixed), "build.cuda-arch-mismatch");
}

// gpu.p2p-not-ok as registered, from what the (stand-in) NVIDIA driver says on the seed guest.
TEST(MachineRulesFrontDoor, GpuP2pNotOkFromNvml) {
  const std::string& tree = FixtureTree("seed-guest");
  {
    testing::StandinFixture s("seed-guest");  // every pair NS
    json doc = CollectJson(tree, {"--nvml-lib", testing::NvmlStandin()});
    const json* f = FindingIn(doc, "gpu.p2p-not-ok");
    ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
    // 8 GPUs: 56 ordered pairs, each read NS, write NS.
    EXPECT_NE(f->value("title", "").find("for 56 GPU pair(s) (NS)"), std::string::npos)
        << f->dump(2);
    EXPECT_NE(EvidenceText(*f).find("GPU 0 -> 1 P2P: read NS, write NS"), std::string::npos);
  }
  {
    testing::StandinFixture s("bare-pair");  // P2P OK
    Silent(CollectJson(tree, {"--nvml-lib", testing::NvmlStandin()}), "gpu.p2p-not-ok");
  }
  // Without NVML the driver's view is not captured: no finding either way.
  Silent(CollectJson(tree), "gpu.p2p-not-ok");
}

// gpu.health as registered, from the (stand-in) driver's health facts: the sick pair fires (GPU 0
// in a hardware slowdown at idle, GPU 1 with uncorrected ECC errors, a pending remap, a reset
// asked for); the healthy pair (gpu_idle alone) and NOT_SUPPORTED everywhere do not.
TEST(MachineRulesFrontDoor, GpuHealthFromNvml) {
  const std::string& tree = FixtureTree("seed-guest");
  {
    testing::StandinFixture s("sick-pair");
    json doc = CollectJson(tree, {"--nvml-lib", testing::NvmlStandin()});
    const json* f = FindingIn(doc, "gpu.health");
    ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
    EXPECT_EQ(f->value("severity", ""), "critical");
    EXPECT_NE(f->value("title", "").find("GPU 0 (0000:01:00.0) throttles while idle"),
              std::string::npos)
        << f->dump(2);
    EXPECT_NE(EvidenceText(*f).find("gpu_idle, hw_slowdown"), std::string::npos);
  }
  {
    testing::StandinFixture s("bare-pair");
    Silent(CollectJson(tree, {"--nvml-lib", testing::NvmlStandin()}), "gpu.health");
  }
  {
    testing::StandinFixture s("no-health");
    Silent(CollectJson(tree, {"--nvml-lib", testing::NvmlStandin()}), "gpu.health");
  }
}

// --- rules over the dossier's history and measurements: `report` ------------------------------

json ReportJson(const std::string& dossier) {
  auto r = RunDossier({"report", "--format", "json", "--dossier", dossier});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out.substr(0, 300) << r.err;
  return j;
}

void Collect(const std::string& dossier, const std::string& tree, const std::string& machine) {
  auto r =
      RunDossier({"collect", "-q", "--root", tree, "--machine", machine, "--dossier", dossier});
  ASSERT_EQ(r.exit_code, 0) << r.err;
}

TEST(HistoryRulesFrontDoor, IommuGroupsChanged) {
  TempDir t;
  std::string d = t.path() + "/d";
  Collect(d, FixtureTree("seed-host-before-acs"), "pve-host");
  Collect(d, FixtureTree("seed-host"), "pve-host");
  Fires(ReportJson(d), "iommu.groups-changed");
  // Near miss: a reboot (another boot id) with the same groups.
  TempDir t2;
  std::string rebooted =
      VariantTree(t2, "seed-host", {},
                  {{"proc/sys/kernel/random/boot_id", "0f6c7e1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b\n"}});
  ASSERT_FALSE(rebooted.empty());
  std::string d2 = t.path() + "/d2";
  Collect(d2, FixtureTree("seed-host"), "pve-host");
  Collect(d2, rebooted, "pve-host");
  Silent(ReportJson(d2), "iommu.groups-changed");
}

// `dossier p2p` over the stand-in CUDA library into a dossier that holds the machine's collect.
void P2p(const std::string& dossier, const char* fixture, const std::string& pairs,
         const std::string& sizes, int want_rc) {
  testing::StandinFixture s(fixture);
  auto r = RunDossier({"p2p", "--cuda-lib", testing::CudaStandin(), "--nvml-lib",
                       testing::NvmlStandin(), "--pairs", pairs, "--sizes", sizes, "--no-host",
                       "-q", "--machine", "box", "--dossier", dossier});
  EXPECT_EQ(r.exit_code, want_rc) << r.out << r.err;
}

TEST(MeasurementRulesFrontDoor, P2pBytesCorrupted) {
  TempDir t;
  std::string d = t.path() + "/d";
  Collect(d, FixtureTree("baremetal-switch"), "box");
  P2p(d, "faulty", "0-1", "64K", 1);
  json doc = ReportJson(d);
  const json* f = FindingIn(doc, "p2p.bytes-corrupted");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
  EXPECT_EQ(f->value("severity", ""), "critical");
  EXPECT_NE(EvidenceText(*f).find("offset 4096 of 64 KiB"), std::string::npos) << f->dump(2);
  // A later clean run is what counts: the newest measurement decides.
  P2p(d, "bare-pair", "0-1", "64K", 0);
  Silent(ReportJson(d), "p2p.bytes-corrupted");
}

TEST(MeasurementRulesFrontDoor, P2pBelowExpectation) {
  TempDir t;
  std::string d = t.path() + "/d";
  Collect(d, FixtureTree("baremetal-switch"), "box");
  // 26 GB/s of a Gen 5 x16 link's 63 GB/s: 41 %.
  P2p(d, "slow-pair", "0-1", "16M", 0);
  json doc = ReportJson(d);
  const json* f = FindingIn(doc, "p2p.below-expectation");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
  EXPECT_NE(EvidenceText(*f).find("GPU 0 -> GPU 1 uni-p2p"), std::string::npos) << f->dump(2);
  // 52 GB/s: 82 %, healthy.
  P2p(d, "bare-pair", "0-1", "16M", 0);
  Silent(ReportJson(d), "p2p.below-expectation");
  // Below the limit at small sizes only is latency, not bandwidth.
  TempDir t2;
  std::string d2 = t2.path() + "/d";
  Collect(d2, FixtureTree("baremetal-switch"), "box");
  P2p(d2, "slow-pair", "0-1", "64K", 0);
  Silent(ReportJson(d2), "p2p.below-expectation");
}

// --- decode.communication-bound: SGLang serving GLM-5 at TP 8 with a measured GPU-to-GPU
// latency; the same machine before any GPU-to-GPU copy was measured (no hop to price) ----------

TEST(MeasurementRulesFrontDoor, DecodeCommunicationBound) {
  TempDir t;
  std::string d = t.path() + "/d";
  Collect(d, FixtureTree("seed-guest"), "box");
  P2p(d, "bare-pair", "0-1", "4K,16K", 0);
  json doc = ReportJson(d);
  const json* f = FindingIn(doc, "decode.communication-bound");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
  EXPECT_NE(f->value("title", "").find("tokens/s"), std::string::npos) << f->dump(2);
  TempDir t2;
  std::string d2 = t2.path() + "/d";
  Collect(d2, FixtureTree("seed-guest"), "box");
  Silent(ReportJson(d2), "decode.communication-bound");
}

// The model's size beside the estimate: GLM-5's shape from its config.json, MLA's KV by hand:
// (kv_lora_rank 512 + qk_rope_head_dim 64) x 78 layers x 2 B (bf16, no KV quantization stated).
TEST(MeasurementRulesFrontDoor, DecodeBudgetStatesModelSize) {
  TempDir t;
  std::string d = t.path() + "/d";
  Collect(d, FixtureTree("seed-guest"), "box");
  P2p(d, "bare-pair", "0-1", "4K,16K", 0);
  const json doc = ReportJson(d);
  const json* f = FindingIn(doc, "decode.communication-bound");
  ASSERT_NE(f, nullptr);
  std::string ev = EvidenceText(*f);
  EXPECT_NE(ev.find("KV cache per token (MLA latent): 89856 B (87.8 KiB)"), std::string::npos)
      << ev;
  EXPECT_NE(ev.find("model parameters, total / active per token: "), std::string::npos) << ev;
}

// --- nccl.topo-file-mismatch: the seed guest's server names /root/nccl_topo.xml, written for
// its eight GPUs and two NUMA nodes (agrees: a cross-check, no finding); the same file with one
// bus id of another machine and a NUMA node the guest lacks -----------------------------------

TEST(MachineRulesFrontDoor, NcclTopoFileMismatch) {
  json good = CollectJson(FixtureTree("seed-guest"));
  Silent(good, "nccl.topo-file-mismatch");
  ASSERT_TRUE(good["machines"][0].contains("cross_checks"))
      << good["machines"][0].dump().substr(0, 200);
  const json& x = good["machines"][0]["cross_checks"][0];
  EXPECT_TRUE(x.value("agrees", false)) << x.dump(2);
  EXPECT_EQ(x.value("source", ""), "/root/nccl_topo.xml");
  // The advice to write a topology file gives way to the one already there.
  const json* iso = FindingIn(good, "p2p.vm-isolated");
  ASSERT_NE(iso, nullptr);
  EXPECT_EQ(iso->dump().find("NCCL_TOPO_FILE=/etc/nccl-topo.xml"), std::string::npos);
  EXPECT_NE(iso->dump().find("/root/nccl_topo.xml, which agrees"), std::string::npos);

  std::string xml =
      ReadWholeFile(FixtureDescriptionDir("seed-guest") + "/files/root/nccl_topo.xml");
  xml.replace(xml.find("0000:08:00.0"), 12, "0000:41:00.0");
  xml.replace(xml.find("numaid=\"1\""), 10, "numaid=\"2\"");
  TempDir t;
  std::string tree = VariantTree(t, "seed-guest", {}, {{"root/nccl_topo.xml", xml}});
  ASSERT_FALSE(tree.empty());
  json bad = CollectJson(tree);
  const json* f = FindingIn(bad, "nccl.topo-file-mismatch");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(bad));
  std::string ev = EvidenceText(*f);
  EXPECT_NE(ev.find("GPU 0000:41:00.0 is not a GPU of this machine"), std::string::npos) << ev;
  EXPECT_NE(ev.find("<cpu numaid=\"2\"> names a NUMA node this machine does not have"),
            std::string::npos)
      << ev;
  EXPECT_NE(ev.find("not in the file (0000:08:00.0)"), std::string::npos) << ev;
  EXPECT_FALSE(bad["machines"][0]["cross_checks"][0].value("agrees", true));
}

// serve.below-target is covered with every comparison in serve_front_door_test.cc.

// --- numa.overlapping-nodes: two nodes claim CPUs 4-7; the seed guest's nodes are disjoint -----

TEST(TopologyRulesFrontDoor, NumaOverlappingNodes) {
  json doc = CollectJson(FixtureTree("numa-overlap"));
  const json* f = FindingIn(doc, "numa.overlapping-nodes");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
  EXPECT_EQ(f->value("severity", ""), "warning");
  Silent(CollectJson(FixtureTree("seed-guest")), "numa.overlapping-nodes");
}

// --- nccl.p2p-fallback: a pasted NCCL log with SHM channels; one with P2P/IPC channels ---------

TEST(ImportRulesFrontDoor, NcclP2pFallback) {
  TempDir t;
  const std::string head =
      "n1:7:7 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
      "n1:7:7 [0] NCCL INFO cudaDriverVersion 12040\n";
  t.Write("shm.log",
          head +
              "n1:7:7 [0] NCCL INFO Could not enable P2P between dev 0(=1000) and "
              "dev 1(=81000)\n"
              "n1:7:7 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n");
  t.Write("p2p.log", head + "n1:7:7 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read\n");
  for (const char* name : {"shm", "p2p"}) {
    const std::string d = t.path() + "/" + name;
    auto r = RunDossier(
        {"import", t.path() + "/" + name + ".log", "--machine", "n1", "--dossier", d, "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json doc = ReportJson(d);
    if (std::string(name) == "shm") {
      const json* f = FindingIn(doc, "nccl.p2p-fallback");
      ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
      EXPECT_NE(f->dump().find("SHM"), std::string::npos) << f->dump(2);
    } else {
      Silent(doc, "nccl.p2p-fallback");
    }
  }
}

// The pair NCCL refused is looked up in the machine's one answer per pair, and ACS in its one
// ACS answer: on bare metal behind a switch with ACS redirect, the refused pair shares the
// switch (its path allows P2P) and ACS is named as what stands in the way, with its evidence.
TEST(ImportRulesFrontDoor, NcclP2pFallbackReadsThePairAndAcsVerdicts) {
  TempDir t;
  const std::string d = t.path() + "/d";
  Collect(d, FixtureTree("baremetal-switch"), "box");
  t.Write("refused.log",
          "box:7:7 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
          "box:7:7 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 3000 commId 0x1\n"
          "box:7:7 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 busId 4000 commId 0x1\n"
          "box:7:7 [0] NCCL INFO P2P is disabled between connected GPUs 1 and 0.\n");
  auto r =
      RunDossier({"import", t.path() + "/refused.log", "--machine", "box", "--dossier", d, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = ReportJson(d);
  const json* f = FindingIn(doc, "nccl.p2p-fallback");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
  std::string ex = f->value("explanation", "");
  EXPECT_NE(ex.find("1 of the pairs NCCL names can do P2P by their path (they share a PCIe "
                    "switch on the host (PIX))"),
            std::string::npos)
      << ex;
  EXPECT_NE(ex.find("ACS stands in the way: ACS redirect is on at 0000:02:00.0"), std::string::npos)
      << ex;
  bool pair = false, acs = false;
  for (const auto& e : (*f)["evidence"]) {
    pair = pair || e.value("fact", "") == "GPU 0000:03:00.0 <-> 0000:04:00.0: can do P2P";
    acs = acs || e.value("fact", "").find("ACS control") != std::string::npos;
  }
  EXPECT_TRUE(pair) << f->dump(2);
  EXPECT_TRUE(acs) << f->dump(2);
}

// On a guest whose host is in the dossier: the refused pair's answer is the host's routing
// between the GPUs behind it, and the guest's virtual topology is named with its evidence.
TEST(ImportRulesFrontDoor, NcclP2pFallbackOnAGuestReadsItsHostsAnswer) {
  TempDir t;
  const std::string d = t.path() + "/d";
  Collect(d, FixtureTree("seed-guest"), "guest");
  Collect(d, FixtureTree("seed-host"), "pve-host");
  t.Write("refused.log",
          "guest:7:7 [0] NCCL INFO NCCL version 2.21.5+cuda12.8\n"
          "guest:7:7 [0] NCCL INFO Could not enable P2P between dev 0(=1000) and dev 1(=2000)\n");
  auto r =
      RunDossier({"import", t.path() + "/refused.log", "--machine", "guest", "--dossier", d, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = ReportJson(d);
  const json* f = FindingOn(doc, "guest", "nccl.p2p-fallback");
  ASSERT_NE(f, nullptr);
  std::string ex = f->value("explanation", "");
  EXPECT_NE(ex.find("whether 1 of the pairs NCCL names can do P2P where they sit is not known "
                    "(host level NODE"),
            std::string::npos)
      << ex;
  EXPECT_NE(ex.find("this is a virtual machine"), std::string::npos) << ex;
  bool guest = false, pair = false;
  for (const auto& e : (*f)["evidence"]) {
    guest = guest || e.value("fact", "") == "virtualization guest";
    pair = pair || e.value("fact", "") == "GPU 0000:01:00.0 <-> 0000:02:00.0: can do P2P";
  }
  EXPECT_TRUE(guest) << f->dump(2);
  EXPECT_TRUE(pair) << f->dump(2);
}

// gpu.p2p-not-ok on a guest whose host is in the dossier: the pairs the guest's driver refuses are
// looked up in the one answer per pair (the host's routing between the GPUs behind them), not
// decided again: the seed host's GPUs sit one per root complex, bound to vfio-pci, so whether
// their path allows P2P cannot be told, for all 28 pairs.
TEST(MachineRulesFrontDoor, GpuP2pNotOkReadsThePairVerdicts) {
  TempDir t;
  const std::string d = t.path() + "/d";
  Collect(d, FixtureTree("seed-guest"), "guest");
  Collect(d, FixtureTree("seed-host"), "pve-host");
  std::string paste = "$ nvidia-smi topo -p2p r\n \t";
  for (int i = 0; i < 8; ++i) paste += "GPU" + std::to_string(i) + (i < 7 ? "\t" : "\n");
  for (int i = 0; i < 8; ++i) {
    paste += " GPU" + std::to_string(i);
    for (int j = 0; j < 8; ++j) paste += i == j ? "\tX" : "\tNS";
    paste += "\n";
  }
  paste += "\nLegend:\n\n  X    = Self\n  OK   = Status Ok\n  NS   = Not supported\n";
  t.Write("p2p-r.txt", paste);
  auto r =
      RunDossier({"import", t.path() + "/p2p-r.txt", "--machine", "guest", "--dossier", d, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = ReportJson(d);
  const json* f = FindingOn(doc, "guest", "gpu.p2p-not-ok");
  ASSERT_NE(f, nullptr);
  std::string ex = f->value("explanation", "");
  EXPECT_NE(ex.find("Where these pairs sit (one answer per pair, from the guest's host): 28 "
                    "cannot tell whether their path allows P2P (host level NODE"),
            std::string::npos)
      << ex;
  EXPECT_NE(EvidenceText(*f).find("0 / 0 / 28"), std::string::npos) << f->dump(2);
}

// --- notes.contradicted: "NUMA affinity set" where the GPUs read numa_node -1; the same note on
// bare metal whose GPUs have their node ---------------------------------------------------------

TEST(NotesRulesFrontDoor, NotesContradicted) {
  for (const char* tree : {"seed-guest", "baremetal-switch"}) {
    SCOPED_TRACE(tree);
    TempDir t;
    const std::string d = t.path() + "/d";
    Collect(d, FixtureTree(tree), "box");
    auto r = RunDossier({"note", "--dossier", d, "fact", "--machine", "box", "NUMA affinity", "set",
                         "--status", "confirmed"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json doc = ReportJson(d);
    if (std::string(tree) == "seed-guest") {
      const json* f = FindingIn(doc, "notes.contradicted");
      ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
      EXPECT_NE(EvidenceText(*f).find("numa_node"), std::string::npos) << f->dump(2);
    } else {
      Silent(doc, "notes.contradicted");
    }
  }
}

// --- vm.mapping-stale: the seed host's pci.cfg names the groups of the boot before the BIOS
// change; the same host with the file `dossier generate pve-mapping` writes is silent ------------

TEST(HypervisorRulesFrontDoor, VmMappingStale) {
  TempDir t;
  const std::string d = t.path() + "/d";
  Collect(d, FixtureTree("seed-host"), "pve");
  json doc = ReportJson(d);
  const json* f = FindingIn(doc, "vm.mapping-stale");
  ASSERT_NE(f, nullptr) << ::testing::PrintToString(FindingIds(doc));
  EXPECT_EQ(f->value("severity", ""), "critical");
  // The corrected mapping, written into the host's tree: nothing is stale any more.
  auto g = RunDossier({"generate", "pve-mapping", "--dossier", d, "--machine", "pve"});
  ASSERT_EQ(g.exit_code, 0) << g.err;
  std::string tree = VariantTree(t, "seed-host", {}, {{"etc/pve/mapping/pci.cfg", g.out}});
  ASSERT_FALSE(tree.empty());
  Silent(CollectJson(tree), "vm.mapping-stale");
}

TEST(RuleTableFrontDoor, EveryRegisteredRuleHasAFiringAndANearMissTest) {
  for (const auto& r : RuleTable())
    EXPECT_TRUE(kCovered.count(r.id)) << r.id << " has no front-door test (fires and near miss)";
}

}  // namespace
}  // namespace dossier::frontdoor
