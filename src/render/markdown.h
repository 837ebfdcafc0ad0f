// The Markdown document is a table of sections in the handoff document's order: goal,
// instructions, discoveries from the hardware up (per machine, itself a table of sections, one
// md_*.cc per subject), measurements, findings by severity, accomplished, next steps, relevant
// files. A one-shot collect (no dossier, no notes) prints only the sections that do not come from
// the notes.
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "view/view.h"

namespace dossier {

struct MdSection {
  const char* title;
  void (*render)(const MachineView& mv, std::string* out);
};

const std::vector<MdSection>& MdMachineSections();

void MdIdentity(const MachineView& mv, std::string* out);        // md_system.cc
void MdCpuNuma(const MachineView& mv, std::string* out);         // md_system.cc
void MdVirtualization(const MachineView& mv, std::string* out);  // md_system.cc
void MdKernel(const MachineView& mv, std::string* out);          // md_system.cc
void MdGpus(const MachineView& mv, std::string* out);            // md_gpu.cc
void MdPciTree(const MachineView& mv, std::string* out);         // md_pci.cc
void MdIommuAcs(const MachineView& mv, std::string* out);        // md_pci.cc
void MdSoftware(const MachineView& mv, std::string* out);        // md_software.cc
void MdServers(const MachineView& mv, std::string* out);         // md_software.cc
void MdNvml(const MachineView& mv, std::string* out);            // md_nvml.cc
void MdHypervisor(const MachineView& mv, std::string* out);      // md_hypervisor.cc

// Measurements (md_p2p.cc): one p2p sweep, with its pair matrices at `matrix_size` bytes; and the
// latest sweep of a machine (matrices at 16 MiB), in the shape of a section.
void MdP2pMeasurement(const P2pMeasurement& m, uint64_t matrix_size, std::string* out);
void MdP2p(const MachineView& mv, std::string* out);

// Sections of the whole document, each given the whole view and its analysis.
struct MdDocSection {
  const char* title;
  void (*render)(const View& view, const Analysis& a, std::string* out);
  bool from_notes;  // skipped in a one-shot collect, which has no notes
};

const std::vector<MdDocSection>& MdDocumentSections();

void MdSummary(const View& view, const Analysis& a, std::string* out);       // md_summary.cc
void MdGoal(const View& view, const Analysis& a, std::string* out);          // md_report.cc
void MdInstructions(const View& view, const Analysis& a, std::string* out);  // md_report.cc
void MdDiscoveries(const View& view, const Analysis& a, std::string* out);   // markdown.cc
void MdMeasurements(const View& view, const Analysis& a, std::string* out);  // md_measurements.cc
void MdMemoryPlan(const View& view, const Analysis& a, std::string* out);    // md_memory_plan.cc
void MdFindings(const View& view, const Analysis& a, std::string* out);      // md_findings.cc
void MdAccomplished(const View& view, const Analysis& a, std::string* out);  // md_report.cc
void MdNextSteps(const View& view, const Analysis& a, std::string* out);     // md_report.cc
void MdFiles(const View& view, const Analysis& a, std::string* out);         // md_report.cc
void MdLegend(const View& view, const Analysis& a, std::string* out);        // md_gpu.cc

// A target's latest value: "485.0, not met", "not measured", "run failed (reason)".
std::string MdTargetValue(const TargetStatus& t);  // md_summary.cc

// Per machine, inside the discoveries: facts stated in the notes, and what changed since the
// previous boot.
void MdStatedFacts(const View& view, const MachineView& mv, std::string* out);  // md_report.cc
void MdStatedFactsElsewhere(const View& view, std::string* out);                // md_report.cc
// The imports folded into a machine and the facts they disagree on; nothing when there are none.
void MdImports(const MachineView& mv, std::string* out);  // md_imports.cc
void MdChanges(const MachineDiff& d, std::string* out);   // md_changes.cc
// A linked guest's passthrough map (view/links.h); nothing for a machine without a link.
void MdPassthrough(const View& view, const MachineView& mv, std::string* out);  // md_hypervisor.cc

}  // namespace dossier
