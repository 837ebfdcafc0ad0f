// The rule table: every diagnosis the tool makes is one row (stable id, severity, one-line
// description, function) in rule_table.cc and one function in rules/<family>.cc. Rules read the
// model only — the machine, its measurements, the other machines of the dossier and the notes —
// and never do I/O. A rule that lacks the data it needs returns nothing: it does not fire.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analyze/diff_types.h"
#include "analyze/finding.h"
#include "analyze/verdicts.h"
#include "view/view.h"

namespace dossier {

struct MemoryPlan;

struct RuleContext {
  const MachineView& mv;  // the machine and its measurements
  const View& view;       // every machine in the dossier (a guest's host may be there too)
  const Notes& notes;
  const MachineDiff& changes;  // since the previous boot (analyze/analysis.h); empty when none
  // The questions decided once for every machine (analyze/verdicts.h); RunRules decides them
  // when the caller did not.
  const VerdictTable* verdicts = nullptr;
  // This machine's memory plans (analyze/memory_plan.h), computed once by Analyze; a rule that
  // reads them computes them when the caller did not.
  const std::vector<MemoryPlan>* memory_plans = nullptr;
  const Machine& m() const { return mv.machine; }
  // This machine's verdicts (empty ones when none were decided).
  const MachineVerdicts& V() const;
};

// Returns the finding without id; the table fills it in, and the severity too unless the rule set
// one (a rule raises its severity when what it saw makes it matter more, e.g. the notes say ACS was
// changed to get P2P on a machine where ACS cannot act).
using RuleFn = std::optional<Finding> (*)(const RuleContext&);

struct RuleEntry {
  const char* id;
  const char* severity;  // kCritical, kWarning, kInfo
  const char* what;      // one line, printed by 'dossier help rules'
  RuleFn run;
};

const std::vector<RuleEntry>& RuleTable();

// Runs every rule on one machine, in table order; each finding then agrees with the machine's
// verdicts (EnforceVerdicts): no rule can advise what another, or the notes, hold moot.
std::vector<Finding> RunRules(const RuleContext& ctx);

// The rules, by family (rules/<family>.cc).
std::optional<Finding> RuleP2pVmIsolated(const RuleContext& ctx);             // p2p.cc
std::optional<Finding> RuleP2pSeparateRootComplexes(const RuleContext& ctx);  // p2p.cc
std::optional<Finding> RuleP2pBytesCorrupted(const RuleContext& ctx);         // measure.cc
std::optional<Finding> RuleP2pBelowExpectation(const RuleContext& ctx);       // measure.cc
std::optional<Finding> RuleServeBelowTarget(const RuleContext& ctx);          // measure.cc
std::optional<Finding> RulePcieAcsRedirect(const RuleContext& ctx);           // pcie.cc
std::optional<Finding> RulePcieLinkWidthDegraded(const RuleContext& ctx);     // pcie_link.cc
std::optional<Finding> RulePcieLinkSpeedLow(const RuleContext& ctx);          // pcie_link.cc
std::optional<Finding> RulePcieBarAllocationFailed(const RuleContext& ctx);   // pcie.cc
std::optional<Finding> RuleIommuTranslatedP2p(const RuleContext& ctx);        // iommu.cc
std::optional<Finding> RuleIommuGroupsChanged(const RuleContext& ctx);        // iommu.cc
std::optional<Finding> RuleVmLegacyChipset(const RuleContext& ctx);           // vm.cc
std::optional<Finding> RuleVmMappingStale(const RuleContext& ctx);            // vm_mapping.cc
std::optional<Finding> RuleNumaGpuAffinityUnknown(const RuleContext& ctx);    // numa.cc
std::optional<Finding> RuleNumaOverlappingNodes(const RuleContext& ctx);      // numa.cc
std::optional<Finding> RuleBuildCudaArchMismatch(const RuleContext& ctx);     // build.cc
std::optional<Finding> RuleGpuP2pNotOk(const RuleContext& ctx);               // gpu.cc
std::optional<Finding> RuleGpuHealth(const RuleContext& ctx);                 // gpu_health.cc
std::optional<Finding> RuleNcclP2pFallback(const RuleContext& ctx);           // nccl.cc
std::optional<Finding> RuleNcclTopoFileMismatch(const RuleContext& ctx);      // nccl.cc
std::optional<Finding> RuleNotesContradicted(const RuleContext& ctx);         // notes.cc
std::optional<Finding> RuleDecodeCommunicationBound(const RuleContext& ctx);  // decode.cc
std::optional<Finding> RulePlanServerDisagrees(const RuleContext& ctx);       // memory_plan.cc
std::optional<Finding> RulePlanTargetShort(const RuleContext& ctx);           // plan_layout.cc

}  // namespace dossier
