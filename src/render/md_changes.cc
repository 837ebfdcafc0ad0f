// A diff of two records of a machine as Markdown: used for "Changes since the previous boot" in
// the report and by `dossier diff`.
#include "render/markdown.h"
#include "render/md_util.h"
#include "util/utf8.h"

namespace dossier {
namespace {

const char* Heading(const std::string& kind) {
  if (kind.rfind("device", 0) == 0) return "Devices";
  if (kind.rfind("iommu", 0) == 0) return "IOMMU groups";
  if (kind == "link") return "Links";
  if (kind == "driver") return "Drivers";
  if (kind == "kernel-cmdline") return "Kernel command line";
  if (kind == "software") return "Software and firmware";
  if (kind == "p2p") return "GPU topology and P2P status";
  if (kind.rfind("finding", 0) == 0) return "Findings";
  return "Other facts";
}

// "(2026-12-03T09:00:00Z, boot `9b21d4f0`)"; a pasted state has no boot id: "(import, TIME)".
std::string SideText(const DiffSide& s) {
  if (s.kind == "import") return "(import of pasted outputs, " + md::Escape(s.time) + ")";
  return "(" + md::Escape(s.time) + ", boot " +
         md::Code(std::string(CutUtf8(s.boot_id, 8)), false) + ")";
}

}  // namespace

void MdChanges(const MachineDiff& d, std::string* out) {
  *out += "From " + md::Code(d.from.file, false) + " " + SideText(d.from) + " to " +
          md::Code(d.to.file, false) + " " + SideText(d.to) +
          (d.rebooted ? ": the machine rebooted in between." : ".") + "\n\n";
  if (!d.not_compared.empty()) {
    *out += "Compared only on what both states show; not compared:\n\n";
    for (const auto& n : d.not_compared) *out += "- " + md::Escape(n) + "\n";
    *out += "\n";
  }
  if (d.changes.empty()) {
    *out += d.not_compared.empty() ? "Nothing changed.\n"
                                   : "Nothing changed in what both states show.\n";
    return;
  }
  static const char* const kOrder[] = {"Devices",
                                       "IOMMU groups",
                                       "Links",
                                       "Drivers",
                                       "Kernel command line",
                                       "Software and firmware",
                                       "GPU topology and P2P status",
                                       "Findings",
                                       "Other facts"};
  for (const char* h : kOrder) {
    md::Table t({"change", "subject", "before", "after", "detail"});
    for (const auto& c : d.changes) {
      if (std::string(Heading(c.kind)) != h) continue;
      t.Row({md::Escape(c.kind), md::Code(c.subject), md::Escape(c.before), md::Escape(c.after),
             md::Prose(c.detail)});
    }
    if (t.empty()) continue;
    *out += std::string("**") + h + "**\n\n" + t.Render() + "\n";
  }
}

}  // namespace dossier
