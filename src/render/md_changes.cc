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

}  // namespace

void MdChanges(const MachineDiff& d, std::string* out) {
  *out += "From " + md::Code(d.from.file, false) + " (" + md::Escape(d.from.time) + ", boot " +
          md::Code(std::string(CutUtf8(d.from.boot_id, 8)), false) + ") to " +
          md::Code(d.to.file, false) + " (" + md::Escape(d.to.time) + ", boot " +
          md::Code(std::string(CutUtf8(d.to.boot_id, 8)), false) + ")" +
          (d.rebooted ? ": the machine rebooted in between." : ".") + "\n\n";
  if (d.changes.empty()) {
    *out += "Nothing changed.\n";
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
