// Rules on imported facts, through the registered rule table on the view built from the records
// `dossier import` writes (the same path as `dossier report`): ACS redirect in a pasted ACSCtl
// grep, a topo -p2p with NS, an NCCL log that fell back to SHM and why; and imported facts folded
// into a collected machine (stale, disagreements).
#include <gtest/gtest.h>

#include "analyze/analysis.h"
#include "import/import_test_util.h"
#include "view/build_view.h"

namespace dossier::import {
namespace {

using testing::ImportString;
using testing::SampleBody;

std::vector<Record> RecordsOf(const std::vector<std::pair<std::string, std::string>>& pastes,
                              const std::string& machine) {
  std::vector<Record> out;
  int i = 0;
  for (const auto& [text, as] : pastes) {
    ImportRun run = ImportString(text, as);
    std::string time = "2026-12-03T09:00:0" + std::to_string(i++) + "Z";
    for (auto& d : ImportRecords(run, machine, time)) {
      Record r;
      r.kind = d["kind"];
      r.time = time;
      r.machine = machine;
      r.file = "records/00000" + std::to_string(i) + "-" + r.kind + ".json";
      r.doc = std::move(d);
      FillHeaderFromDoc(&r);
      out.push_back(std::move(r));
    }
  }
  return out;
}

const Finding* FindingOf(const Analysis& a, const std::string& machine, const std::string& id) {
  for (const auto& f : a.Of(machine).findings)
    if (f.id == id) return &f;
  return nullptr;
}

TEST(ImportRules, AcsRedirectInAPastedGrepSaysWhichLines) {
  std::string paste =
      "$ sudo lspci -vvv | grep ACSCtl\n"
      "\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- "
      "DirectTrans-\n"
      "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- "
      "DirectTrans-\n";
  View v = BuildView(RecordsOf({{paste, ""}}, "host"), Notes{}, {});
  Analysis a = Analyze(v);
  const Finding* f = FindingOf(a, "host", "pcie.acs-redirect");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("1 of 2 pasted ACSCtl"), std::string::npos) << f->title;
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_EQ(f->evidence[0].source, "imported: paste.txt:3 (lspci)");
  // All bits off (the shared sample): no finding.
  View off = BuildView(
      RecordsOf({{SampleBody("lspci/stelline-esc8000a-acsctl-grep-all-disabled.txt"), ""}}, "h"),
      Notes{}, {});
  EXPECT_EQ(FindingOf(Analyze(off), "h", "pcie.acs-redirect"), nullptr);
}

TEST(ImportRules, TopoP2pNsRaisesP2pNotOk) {
  View v = BuildView(RecordsOf({{"$ nvidia-smi topo -p2p p\n" +
                                     SampleBody("topo_p2p/autodl-container-2x-2080ti-p2p-p-ns.txt"),
                                 ""}},
                               "box"),
                     Notes{}, {});
  Analysis a = Analyze(v);  // kept: the finding points into it
  const Finding* f = FindingOf(a, "box", "gpu.p2p-not-ok");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("NS"), std::string::npos);
  EXPECT_NE(f->evidence[0].source.find("prop"), std::string::npos);
  // All OK: no finding.
  View ok = BuildView(RecordsOf({{SampleBody("topo_p2p/stas00-8x-h100-p2p-r-ok.txt"), ""}}, "h"),
                      Notes{}, {});
  EXPECT_EQ(FindingOf(Analyze(ok), "h", "gpu.p2p-not-ok"), nullptr);
}

// Where the refused pairs sit comes from the one answer per pair: on a machine known from its
// pastes (nvidia-smi -q for the addresses, topo -p2p r for the status), the driver's NS makes
// the pair's answer "cannot", and the finding says so.
TEST(ImportRules, P2pNotOkSaysWhereThePairsSitFromThePairVerdicts) {
  std::string p2p = "$ nvidia-smi topo -p2p r\n \tGPU0\tGPU1\n GPU0\tX\tNS\n GPU1\tNS\tX\n";
  View v = BuildView(
      RecordsOf({{"$ nvidia-smi -q\n" + SampleBody("nvidia_smi_q/thamada-2x-h100nvl.txt"), ""},
                 {p2p, ""}},
                "box"),
      Notes{}, {});
  Analysis a = Analyze(v);
  const Finding* f = FindingOf(a, "box", "gpu.p2p-not-ok");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->explanation.find("Where these pairs sit (one answer per pair): 1 cannot do P2P "
                                "where they sit (the host driver reports P2P read NS"),
            std::string::npos)
      << f->explanation;
}

TEST(ImportRules, NcclShmFallbackExplainedByTheDriverStatus) {
  std::string nccl =
      "n:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n"
      "n:1:1 [0] NCCL INFO Could not enable P2P between dev 0(=1000) and dev 1(=81000)\n"
      "n:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct\n";
  // The log alone: the finding, and it says why is not known yet.
  Analysis alone = Analyze(BuildView(RecordsOf({{nccl, ""}}, "n"), Notes{}, {}));
  const Finding* f = FindingOf(alone, "n", "nccl.p2p-fallback");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->explanation.find("not in the dossier"), std::string::npos);
  // With the driver's P2P status imported too, it says why.
  std::string p2p =
      "$ nvidia-smi topo -p2p r\n" + SampleBody("topo_p2p/autodl-container-2x-2080ti-p2p-p-ns.txt");
  Analysis both = Analyze(BuildView(RecordsOf({{nccl, ""}, {p2p, ""}}, "n"), Notes{}, {}));
  f = FindingOf(both, "n", "nccl.p2p-fallback");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->explanation.find("driver reports P2P NS"), std::string::npos) << f->explanation;
}

TEST(ImportView, ImportedMeasurementsAreMeasurements) {
  View v = BuildView(
      RecordsOf(
          {{SampleBody("p2p_bandwidth_latency/stelline-puget-wrx90-2x-rtx6000ada-p2p-ok.txt"), ""},
           {SampleBody("serving_bench/dennislee22-vllm-gptoss120b-4pods-1req.txt"), ""}},
          "node"),
      Notes{}, {});
  const MachineView* mv = v.Find("node");
  ASSERT_NE(mv, nullptr);
  ASSERT_EQ(mv->p2p.size(), 1u);
  EXPECT_EQ(mv->p2p[0].tool, "p2pBandwidthLatencyTest");
  ASSERT_EQ(mv->serve.size(), 1u);
  EXPECT_EQ(mv->serve[0].tool, "vllm bench serve");
  EXPECT_EQ(mv->imports.size(), 2u);
}

TEST(ImportView, NewerImportSupersedesAndTheDisagreementIsKept) {
  std::string old_groups =
      "IOMMU group 44 f1:00.0 VGA compatible controller [0300]: NVIDIA "
      "Corporation GB202GL [10de:2bb1] (rev a1)\n";
  std::string new_groups =
      "IOMMU group 36 f1:00.0 VGA compatible controller [0300]: NVIDIA "
      "Corporation GB202GL [10de:2bb1] (rev a1)\n";
  View v = BuildView(RecordsOf({{old_groups, ""}, {new_groups, ""}}, "host"), Notes{}, {});
  const MachineView* mv = v.Find("host");
  ASSERT_NE(mv, nullptr);
  const PciDevice* d = mv->machine.FindPci("0000:f1:00.0");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->iommu_group.value_or(-1), 36);
  ASSERT_FALSE(mv->disagreements.empty());
  const auto& x = mv->disagreements[0];
  EXPECT_EQ(x.path, "/pci/devices[0000:f1:00.0]/iommu_group");
  EXPECT_EQ(x.kept, "36");
  EXPECT_EQ(x.other, "44");
}

}  // namespace
}  // namespace dossier::import
