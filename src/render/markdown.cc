#include "render/markdown.h"

#include <map>

#include "model/fact_paths.h"
#include "render/md_util.h"
#include "render/render.h"

namespace dossier {

const std::vector<MdSection>& MdMachineSections() {
  static const std::vector<MdSection> kSections = {
      {"Machine", MdIdentity},
      {"CPU and NUMA", MdCpuNuma},
      {"PCIe tree and links", MdPciTree},
      {"IOMMU and ACS", MdIommuAcs},
      {"Virtualization", MdVirtualization},
      {"VMs on this host", MdHypervisor},
      {"GPUs and topology", MdGpus},
      {"GPUs as the driver sees them (NVML)", MdNvml},
      {"Kernel", MdKernel},
      {"Software", MdSoftware},
      {"Servers and model", MdServers},
  };
  return kSections;
}

const std::vector<MdDocSection>& MdDocumentSections() {
  static const std::vector<MdDocSection> kSections = {
      {"Summary", MdSummary, false},
      {"Goal", MdGoal, true},
      {"Instructions", MdInstructions, true},
      {"Discoveries, from the hardware up", MdDiscoveries, false},
      {"Memory plan", MdMemoryPlan, false},
      {"Measurements", MdMeasurements, false},
      {"Findings", MdFindings, false},
      {"Accomplished", MdAccomplished, true},
      {"Next steps", MdNextSteps, false},
      {"Relevant files", MdFiles, true},
      {"Legend", MdLegend, false},
  };
  return kSections;
}

namespace {

// Clears the stale reason most facts of m share when the whole record is stale (said once above
// the machine), and numbers the others: each becomes "note N". Returns the reasons by number.
std::vector<std::string> ShortenStale(Machine* m, bool record_stale) {
  std::map<std::string, int> count;
  WalkPaths(*m, [&](const std::string&, auto& leaf) {
    if constexpr (IsFactType<std::remove_reference_t<decltype(leaf)>>::value) {
      if (!leaf.stale.empty()) ++count[leaf.stale];
    }
  });
  std::string wide;
  int most = 0;
  for (const auto& [why, n] : count)
    if (record_stale && n > most) wide = why, most = n;
  std::vector<std::string> reasons;
  std::map<std::string, size_t> number;
  WalkPaths(*m, [&](const std::string&, auto& leaf) {
    if constexpr (IsFactType<std::remove_reference_t<decltype(leaf)>>::value) {
      if (leaf.stale.empty()) return;
      if (leaf.stale == wide) {
        leaf.stale.clear();
        return;
      }
      auto [it, added] = number.emplace(leaf.stale, reasons.size() + 1);
      if (added) reasons.push_back(leaf.stale);
      leaf.stale = "note " + std::to_string(it->second);
    }
  });
  return reasons;
}

}  // namespace

void MdDiscoveries(const View& view, const Analysis& a, std::string* out) {
  if (view.machines.empty()) *out += "No machine has been collected yet.\n\n";
  for (const auto& mv : view.machines) {
    *out += "### Machine " + md::Code(mv.machine.name, false) + "\n\n";
    if (!mv.record.file.empty()) {
      *out += "Record " + md::Code(mv.record.file, false) + " (" + md::Escape(mv.record.kind) +
              ", " + md::Escape(mv.record.time) + ", " + md::Escape(mv.record.tool) + ").\n\n";
    }
    if (!mv.stale.empty()) *out += "> **Stale:** " + md::Prose(mv.stale, false) + "\n\n";
    // Staleness once, not on every cell: the record-wide reason is the note above; other reasons
    // (facts filled from older records) are numbered once here and cells say "stale: note N".
    MachineView shown = mv;
    std::vector<std::string> reasons = ShortenStale(&shown.machine, !mv.stale.empty());
    for (size_t i = 0; i < reasons.size(); ++i)
      *out += (i ? "" : "Facts marked stale below:\n\n") + std::string("- note ") +
              std::to_string(i + 1) + ": " + md::Prose(reasons[i], false) + "\n";
    if (!reasons.empty()) *out += "\n";
    for (const auto& s : MdMachineSections()) {
      *out += std::string("#### ") + s.title + "\n\n";
      s.render(shown, out);
      *out += "\n";
    }
    MdPassthrough(view, mv, out);
    MdStatedFacts(view, mv, out);
    MdImports(mv, out);
    if (const MachineDiff& changes = a.Of(mv).changes; !changes.from.file.empty()) {
      *out += "#### Changes since the previous boot\n\n";
      MdChanges(changes, out);
      *out += "\n";
    }
  }
  MdStatedFactsElsewhere(view, out);
}

std::string RenderMarkdown(const View& view, const Analysis& analysis) {
  std::string out = "# Dossier\n\n";
  out += "Generated " + md::Escape(view.generated_at);
  if (!view.dossier_path.empty())
    out += " from the dossier in " + md::Code(view.dossier_path, false);
  out +=
      ". Unknown values say why; sources are machine paths (under the collected root), "
      "library calls, records or the notes file; stale values say why they may no longer "
      "hold.\n\n";
  for (const auto& w : view.warnings) out += "> warning: " + md::Prose(w, false) + "\n";
  if (!view.warnings.empty()) out += "\n";
  bool one_shot = view.dossier_path.empty();
  for (const auto& s : MdDocumentSections()) {
    if (one_shot && s.from_notes) continue;
    std::string body;
    s.render(view, analysis, &body);
    if (one_shot && body.empty()) continue;
    out += std::string("## ") + s.title + "\n\n" + body;
    if (!body.empty() && body.back() != '\n') out += "\n";
  }
  return out;
}

}  // namespace dossier
