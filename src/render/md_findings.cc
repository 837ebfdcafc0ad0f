// The report's Findings section: every machine's findings, critical first, each with its
// evidence (and where each fact came from), explanation, what will not help, and actions with the
// command that verifies each.
#include <map>
#include <set>

#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {
namespace {

// The evidence row with its device address and numbers taken out: rows alike but for the device.
std::string EvidenceShape(const Evidence& e) {
  std::string k = e.fact + "\x1f" + e.source;
  for (char& c : k)
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) c = '#';
  return k;
}

// Evidence rows in their order, alike rows (three or more) gathered under the first.
std::vector<std::vector<const Evidence*>> GroupEvidence(const std::vector<Evidence>& ev) {
  std::map<std::string, std::vector<const Evidence*>> by;
  for (const auto& e : ev) by[EvidenceShape(e)].push_back(&e);
  std::vector<std::vector<const Evidence*>> out;
  std::set<std::string> done;
  for (const auto& e : ev) {
    std::string k = EvidenceShape(e);
    const auto& g = by[k];
    if (g.size() < 3) {
      out.push_back({&e});
      continue;
    }
    if (done.insert(k).second) out.push_back(g);
  }
  return out;
}

void One(const MachineView& mv, const Finding& f, std::string* out) {
  *out += "#### " + md::Code(f.id, false) + " on " + md::Code(mv.machine.name, false) + ": " +
          md::Prose(f.title, false) + "\n\n";
  if (!f.stale.empty()) *out += "> **Stale:** " + md::Prose(f.stale, false) + "\n\n";
  if (!f.evidence.empty()) {
    md::Table t({"evidence", "value", "source"});
    // Per-device rows that say the same thing are one row: a count and one example (the JSON
    // keeps every row). Staleness is said once above, unless a row's differs.
    const size_t colon = f.stale.find(": ");
    const std::string said = colon == std::string::npos ? f.stale : f.stale.substr(colon + 2);
    for (const auto& g : GroupEvidence(f.evidence)) {
      const Evidence& e = *g.front();
      std::string fact = md::Prose(e.fact), v = md::Prose(e.value);
      if (g.size() > 1) {
        fact += " (and " + std::to_string(g.size() - 1) + " more like it)";
        bool same = true;
        for (const Evidence* x : g) same = same && x->value == e.value;
        if (!same) v += " (values vary; all in the JSON)";
      }
      if (!e.stale.empty() && e.stale != said) v += " (stale: " + md::Prose(e.stale) + ")";
      t.Row({fact, v, md::Code(e.source)});
    }
    *out += t.Render() + "\n";
  }
  *out += "**Why.** " + md::Prose(f.explanation, false) + "\n\n";
  if (!f.not_helping.empty()) {
    *out += "**What will not help.**\n\n";
    for (const auto& n : f.not_helping) *out += "- " + md::Prose(n, false) + "\n";
    *out += "\n";
  }
  if (!f.actions.empty()) {
    *out += "**What to do.**\n\n";
    int i = 0;
    for (const auto& a : f.actions) {
      *out += std::to_string(++i) + ". " + md::Prose(a.step, false) + "\n";
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
  // What was checked and holds, so nobody redoes it; disagreements are findings above.
  md::Table t({"machine", "checked", "result", "file"});
  for (const auto& mv : view.machines)
    for (const auto& x : a.Of(mv).cross_checks)
      t.Row({md::Code(mv.machine.name), md::Prose(x.what),
             (x.agrees ? "agrees: " : "**disagrees**: ") + md::Prose(x.detail),
             md::Code(x.source)});
  if (!t.empty()) *out += "### Cross-checks\n\n" + t.Render() + "\n";
}

}  // namespace dossier
