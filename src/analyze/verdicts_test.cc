// One verdict per question (analyze/verdicts.h): each question decided once, and every finding,
// the plan and the summary held to it; advice that knows what the notes say was tried.
#include "analyze/verdicts.h"

#include <gtest/gtest.h>

#include "../tests/model_builders.h"
#include "analyze/analysis.h"
#include "analyze/plan.h"
#include "analyze/rule.h"
#include "analyze/summary.h"

namespace dossier {
namespace {

using testing::SeedGuest;
using testing::SeedHost;
using testing::SwitchBox;
using testing::ViewOf;

const Finding* VtFind(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

bool AnyActionOn(const std::vector<Finding>& fs, const std::string& topic) {
  for (const auto& f : fs)
    for (const auto& a : f.actions)
      if (TopicsOf(a.step).count(topic)) return true;
  return false;
}

size_t NotHelpingOn(const Finding& f, const std::string& topic) {
  size_t n = 0;
  for (const auto& l : f.not_helping)
    if (TopicsOf(l.substr(0, l.find(": "))).count(topic)) ++n;
  return n;
}

// ACSCtl lines pasted with redirect on, which name no bridge.
void PastedAcsLines(Machine* m) {
  for (int i = 0; i < 4; ++i) {
    PciAcsLine l;
    l.control = Known(std::vector<std::string>{"SV", "RR", "CR", "UF"}, "paste.txt:38");
    l.line = "paste.txt:" + std::to_string(38 + i);
    m->pci.acs_lines.push_back(l);
  }
}

TEST(Verdicts, AcsIsDecidedFromWhereTheGpusSit) {
  View seed = ViewOf({SeedHost()});
  VerdictTable t = DecideVerdicts(seed);
  EXPECT_EQ(t.Of("pve-host").acs.answer, Answer::kNo) << t.Of("pve-host").acs.why;
  EXPECT_NE(t.Of("pve-host").acs.why.find("alone under its own root complex"), std::string::npos);

  View sw = ViewOf({SwitchBox()});
  EXPECT_EQ(DecideVerdicts(sw).Of("switchbox").acs.answer, Answer::kYes);

  // Where the GPUs sit is not known: neither answer.
  Machine lost = SeedHost();
  for (auto& d : lost.pci.devices) d.root_complex = {}, d.parent = {};
  View lv = ViewOf({lost});
  EXPECT_EQ(DecideVerdicts(lv).Of("pve-host").acs.answer, Answer::kUnknown);
}

// The seed story's contradiction: redirect bits in pasted ACSCtl lines on a host whose GPUs each
// sit alone under a root complex. pcie.acs-redirect advised "disable ACS in the BIOS setup" while
// p2p.separate-root-complexes said ACS cannot act there.
TEST(Verdicts, NoFindingAdvisesAnAcsChangeWhereAcsCannotAct) {
  Machine h = SeedHost();
  PastedAcsLines(&h);
  View v = ViewOf({h});
  auto fs = RunRules({v.machines[0], v, v.notes, {}});
  EXPECT_EQ(VtFind(fs, "pcie.acs-redirect"), nullptr);
  EXPECT_FALSE(AnyActionOn(fs, "acs-bios"));
  EXPECT_FALSE(AnyActionOn(fs, "acs-kernel"));
  const Finding* sep = VtFind(fs, "p2p.separate-root-complexes");
  ASSERT_NE(sep, nullptr);
  EXPECT_EQ(NotHelpingOn(*sep, "acs-bios"), 1u);

  // The same lines where the tree is not known: the finding asks for the bridges' names.
  Machine lost = h;
  for (auto& d : lost.pci.devices) d.root_complex = {}, d.parent = {};
  View lv = ViewOf({lost});
  auto lfs = RunRules({lv.machines[0], lv, lv.notes, {}});
  const Finding* acs = VtFind(lfs, "pcie.acs-redirect");
  ASSERT_NE(acs, nullptr);
  for (const auto& f : lfs) EXPECT_EQ(NotHelpingOn(f, "acs-bios"), 0u) << f.id;

  // Where ACS does stand in the way, its changes are advised and never listed as not helping.
  View sw = ViewOf({SwitchBox()});
  auto sfs = RunRules({sw.machines[0], sw, sw.notes, {}});
  EXPECT_TRUE(AnyActionOn(sfs, "acs-kernel"));
  EXPECT_TRUE(AnyActionOn(sfs, "acs-bios"));
  for (const auto& f : sfs) EXPECT_EQ(NotHelpingOn(f, "acs-bios"), 0u) << f.id;
}

// A guest and its host with one linked GPU pair whose host verdict is given.
View GuestAndHost(bool decided, bool can) {
  Machine g = SeedGuest(2);
  g.name = "guest";
  View v = ViewOf({SeedHost(), g});
  MachineLink l;
  l.guest = "guest";
  l.host = "pve-host";
  l.vm_id = "100";
  for (size_t i = 0; i < 2; ++i) {
    PassthroughGpu p;
    p.guest_address = v.machines[1].machine.gpus[i].address;
    p.host_address = v.machines[0].machine.gpus[i].address;
    l.gpus.push_back(p);
  }
  l.pairs.push_back({0, 1, "NODE", can, decided,
                     decided ? (can ? "the host driver reports P2P read and write OK"
                                    : "the host driver reports P2P read NS (nvidia-smi topo -p2p)")
                             : "host level NODE: across root complexes P2P depends on the CPU"});
  v.links.push_back(l);
  return v;
}

TEST(Verdicts, ACliqueIsAdvisedMootOrFoundOutOnBothSidesAlike) {
  struct Case {
    bool decided, can;
    Answer want;
  };
  for (Case c : {Case{true, true, Answer::kYes}, Case{true, false, Answer::kNo},
                 Case{false, false, Answer::kUnknown}}) {
    SCOPED_TRACE(AnswerWord(c.want));
    View v = GuestAndHost(c.decided, c.can);
    Analysis a = Analyze(v);
    EXPECT_EQ(a.verdicts.Of("guest").clique.answer, c.want);
    EXPECT_EQ(a.verdicts.Of("pve-host").clique.answer, c.want) << "one answer for the pair";
    const Finding* iso = VtFind(a.Of("guest").findings, "p2p.vm-isolated");
    const Finding* sep = VtFind(a.Of("pve-host").findings, "p2p.separate-root-complexes");
    ASSERT_NE(iso, nullptr);
    ASSERT_NE(sep, nullptr);
    bool advised = AnyActionOn(a.Of("guest").findings, "p2p-clique") ||
                   AnyActionOn(a.Of("pve-host").findings, "p2p-clique");
    size_t moot = NotHelpingOn(*iso, "p2p-clique") + NotHelpingOn(*sep, "p2p-clique");
    if (c.want == Answer::kNo) {
      EXPECT_FALSE(advised);
      EXPECT_EQ(moot, 2u);
    } else {
      EXPECT_EQ(moot, 0u);
    }
    if (c.want == Answer::kYes) {
      EXPECT_TRUE(advised);
    }
    // Unknown: the one step that finds out, from both findings, is one step of the plan.
    size_t find_out = 0;
    for (const auto& s : a.plan.next_steps)
      if (s.step.rfind("Find out whether the host can route P2P", 0) == 0) ++find_out;
    EXPECT_EQ(find_out, c.want == Answer::kUnknown ? 1u : 0u);
    for (const auto& s : a.plan.next_steps) {
      if (c.want == Answer::kNo) {
        EXPECT_FALSE(TopicsOf(s.step).count("p2p-clique")) << s.step;
      }
    }
  }
}

TEST(Verdicts, WhatTheNotesSayWasTriedIsNotAdvisedAgain) {
  // ACS stands in the way on the switch box; the notes say disabling it in the BIOS changed
  // nothing. The BIOS step goes (with the note's line, once); clearing it from Linux stays.
  View v = ViewOf({SwitchBox()});
  v.notes.tried.push_back({"Disabled ACS in the BIOS", "no change in ACSCtl", "switchbox", "", 40});
  Analysis a = Analyze(v);
  const Finding* acs = VtFind(a.Of("switchbox").findings, "pcie.acs-redirect");
  ASSERT_NE(acs, nullptr);
  EXPECT_FALSE(AnyActionOn(a.Of("switchbox").findings, "acs-bios"));
  EXPECT_TRUE(AnyActionOn(a.Of("switchbox").findings, "acs-kernel"));
  ASSERT_EQ(NotHelpingOn(*acs, "acs-bios"), 1u);
  std::string all;
  for (const auto& l : acs->not_helping) all += l + "\n";
  EXPECT_NE(all.find("no change in ACSCtl (tried, notes.toml:40)"), std::string::npos) << all;
  ASSERT_EQ(a.plan.accomplished.size(), 1u);
  EXPECT_TRUE(a.plan.accomplished[0].failed);
}

TEST(Verdicts, TriedOutcomes) {
  EXPECT_TRUE(TriedFailed("NaN crashes in decode"));
  EXPECT_TRUE(TriedFailed("IOMMU groups renumbered, not merged; the VM no longer starts"));
  EXPECT_TRUE(TriedFailed("Failed to build"));
  EXPECT_FALSE(TriedFailed("BAR allocation errors gone"));
  EXPECT_FALSE(TriedFailed("GPUs get PCIe extended config space; P2P still NS"));
  EXPECT_FALSE(TriedFailed(""));
}

TEST(Verdicts, TopicsNameWhatAStepActsOn) {
  EXPECT_EQ(TopicsOf("Disabling ACS in the host BIOS"), (std::set<std::string>{"acs-bios"}));
  EXPECT_TRUE(TopicsOf("lspci -vvv | grep ACSCtl   # BIOS").empty()) << "ACSCtl is not ACS";
  EXPECT_EQ(TopicsOf("pcie_acs_override on the host"), (std::set<std::string>{"acs-override"}));
  EXPECT_EQ(TopicsOf("Clear it: `pci=disable_acs_redir=0000:02:00.0`"),
            (std::set<std::string>{"acs-kernel"}));
  EXPECT_TRUE(TopicsOf("Changing ACS inside the guest").empty());
}

// The summary: a tried entry that failed is known not to help once (not once per subject it
// mentions), with its line; one that failed with no finding about it too.
TEST(Verdicts, SummaryListsEachTriedEntryOnce) {
  Machine h = SeedHost();
  View v = ViewOf({h});
  v.notes.tried.push_back({"Disabled ACS in the host BIOS",
                           "IOMMU groups renumbered, not merged; the VM no longer starts",
                           "pve-host", "", 62});
  v.notes.tried.push_back({"--attention-backend flashinfer", "NaN crashes", "pve-host", "", 70});
  v.notes.tried.push_back({"pci=realloc", "BAR allocation errors gone", "pve-host", "", 75});
  Analysis a = Analyze(v);
  HandoffSummary s = Summarize(v, a);
  std::string all;
  for (const auto& n : s.not_helping) all += n.what + ": " + n.evidence + " (" + n.from + ")\n";
  size_t first = all.find("Disabled ACS in the host BIOS");
  ASSERT_NE(first, std::string::npos) << all;
  EXPECT_EQ(all.find("Disabled ACS in the host BIOS", first + 1), std::string::npos) << all;
  EXPECT_NE(all.find("notes.toml:62"), std::string::npos) << all;
  EXPECT_NE(all.find("NaN crashes"), std::string::npos) << all;
  EXPECT_EQ(all.find("BAR allocation errors gone"), std::string::npos) << all;
  int failed = 0;
  for (const auto& d : a.plan.accomplished) failed += d.failed;
  EXPECT_EQ(failed, 2);
}

// A blocking step of the notes merged with a critical finding keeps the finding's concrete fix on
// the summary's line.
TEST(Verdicts, BlockedByKeepsTheFindingsFixBesideTheNote) {
  View v = ViewOf({SeedHost()});
  v.notes.next.push_back({"Update /etc/pve/mapping/pci.cfg with the new IOMMU group numbers",
                          "qm start 100", "pve-host", true, false, "", "", 67});
  Analysis a;
  a.verdicts = DecideVerdicts(v);
  MachineAnalysis ma;
  ma.machine = "pve-host";
  Finding f;
  f.id = "vm.mapping-stale";
  f.severity = kCritical;
  f.title = "Proxmox PCI mapping no longer matches this machine";
  f.actions.push_back(
      {"Correct the mapping: gpu0: iommugroup=36; `dossier generate pve-mapping "
       "--machine pve-host` prints the corrected /etc/pve/mapping/pci.cfg",
       "qm start 100 && qm showcmd 100 --pretty | grep vfio-pci", ""});
  ma.findings.push_back(f);
  a.machines.push_back(ma);
  a.plan = BuildPlan(v, a);
  HandoffSummary s = Summarize(v, a);
  ASSERT_EQ(s.blocked_by.size(), 1u);
  const SummaryLine& l = s.blocked_by[0];
  EXPECT_NE(l.text.find("Update /etc/pve/mapping/pci.cfg"), std::string::npos) << l.text;
  EXPECT_NE(l.text.find("iommugroup=36"), std::string::npos) << l.text;
  EXPECT_NE(l.text.find("dossier generate pve-mapping"), std::string::npos) << l.text;
  EXPECT_EQ(l.text.find("iommugroup=36", l.text.find("iommugroup=36") + 1), std::string::npos)
      << "the fix once: " << l.text;
  EXPECT_NE(l.command.find("qm showcmd"), std::string::npos) << l.command;
  // The plan's one step carries both too.
  ASSERT_FALSE(a.plan.next_steps.empty());
  EXPECT_NE(a.plan.next_steps[0].step.find("iommugroup=36"), std::string::npos);
  EXPECT_NE(a.plan.next_steps[0].from.find("notes.toml:67"), std::string::npos);
}

}  // namespace
}  // namespace dossier
