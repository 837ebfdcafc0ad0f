// Per machine: the `dossier import` records folded into it (view/imports.h), and every fact a
// collect and an import (or two imports) disagree on, both values with their sources, so a reader
// sees that the matrix of last week and today's collect differ and which one the report uses.
#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {

void MdImports(const MachineView& mv, std::string* out) {
  if (mv.imports.empty()) return;
  *out += "#### Imported from pasted outputs\n\n";
  md::Table t({"record", "time"});
  for (const auto& r : mv.imports) t.Row({md::Code(r.file), md::Escape(r.time)});
  *out += t.Render() +
          "\nFacts from these carry \"imported: FILE:LINE (format)\" as their source; an import "
          "older than the machine's latest collect only fills what that collect did not see, "
          "and those facts are marked stale.\n\n";
  if (mv.disagreements.empty()) return;
  *out += "#### Collected and imported facts that disagree (" +
          std::to_string(mv.disagreements.size()) + ")\n\n";
  md::Table d({"fact", "used", "from", "the other record says", "from"});
  size_t shown = 0;
  for (const auto& x : mv.disagreements) {
    if (++shown > 40) break;
    d.Row({md::Code(x.path), md::Escape(x.kept), md::Escape(x.kept_record + ": " + x.kept_source),
           md::Escape(x.other), md::Escape(x.other_record + ": " + x.other_source)});
  }
  *out += d.Render();
  if (mv.disagreements.size() > 40)
    *out += "\n… and " + std::to_string(mv.disagreements.size() - 40) +
            " more (dossier report --format json lists them all).\n";
  *out += "\nThe newer record's value is used; the other is shown so neither is lost.\n\n";
}

}  // namespace dossier
