// The report's Findings section: every machine's findings, critical first, each with its
// evidence (and where each fact came from), explanation, what will not help, and actions with the
// command that verifies each.
#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {
namespace {

void One(const MachineView& mv, const Finding& f, std::string* out) {
  *out += "#### `" + f.id + "` on `" + mv.machine.name + "`: " + md::Escape(f.title) + "\n\n";
  if (!f.stale.empty()) *out += "> **Stale:** " + md::Escape(f.stale) + "\n\n";
  if (!f.evidence.empty()) {
    md::Table t({"evidence", "value", "source"});
    for (const auto& e : f.evidence) {
      std::string v = md::Escape(e.value);
      if (!e.stale.empty()) v += " (stale: " + md::Escape(e.stale) + ")";
      t.Row({md::Escape(e.fact), v, md::Code(e.source)});
    }
    *out += t.Render() + "\n";
  }
  *out += "**Why.** " + f.explanation + "\n\n";
  if (!f.not_helping.empty()) {
    *out += "**What will not help.**\n\n";
    for (const auto& n : f.not_helping) *out += "- " + n + "\n";
    *out += "\n";
  }
  if (!f.actions.empty()) {
    *out += "**What to do.**\n\n";
    int i = 0;
    for (const auto& a : f.actions) {
      *out += std::to_string(++i) + ". " + a.step + "\n";
      if (!a.verify.empty()) *out += "   Verify: " + md::Code(a.verify, false) + "\n";
    }
    *out += "\n";
  }
}

}  // namespace

void MdFindings(const View& view, const Analysis& a, std::string* out) {
  static const char* const kLevels[] = {kCritical, kWarning, kInfo};
  static const char* const kTitles[] = {"Critical", "Warning", "Info"};
  bool any = false;
  for (int level = 0; level < 3; ++level) {
    bool header = false;
    for (const auto& mv : view.machines) {
      for (const auto& f : a.Of(mv).findings) {
        if (f.severity != kLevels[level]) continue;
        if (!header) {
          *out += std::string("### ") + kTitles[level] + "\n\n";
          header = true;
        }
        One(mv, f, out);
        any = true;
      }
    }
  }
  if (!any) *out += "No rule fired (`dossier help rules` lists what is checked).\n\n";
}

}  // namespace dossier
