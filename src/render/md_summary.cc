// The report's first screen (analyze/summary.h): goal and targets with their latest values, what
// blocks with the command for each, the next three steps, what is known not to help, and which
// records are stale. Short on purpose: everything below it is reference.
#include <fmt/format.h>

#include "analyze/summary.h"
#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {
namespace {

std::string SummaryWhere(const std::string& machine) {
  return machine.empty() ? "" : " — on " + md::Code(machine, false);
}

std::string SummaryCmd(const std::string& c) {
  return c.empty() ? "" : ": " + md::Code(c, false);
}

}  // namespace

std::string MdTargetValue(const TargetStatus& t) {
  if (!t.failed.empty()) return "run failed (" + md::Prose(t.failed, false) + ")";
  if (!t.measured) return "not measured";
  std::string v = fmt::format("{:.1f}", t.value);
  return t.verdict == "not met" ? "**" + v + "**, not met" : v + ", " + md::Escape(t.verdict);
}

void MdSummary(const View& view, const Analysis& a, std::string* out) {
  HandoffSummary s = Summarize(view, a);
  if (!s.goal.empty()) *out += "**Goal.** " + md::Prose(s.goal, false) + "\n";
  for (const auto& t : a.plan.targets) {
    *out += "- " + md::Code(t.text, false) + ": " + MdTargetValue(t);
    if (t.measured) *out += " (" + md::Code(t.machine, false) + ", " + md::Escape(t.time) + ")";
    if (!t.stale.empty()) *out += " — stale: " + md::Prose(t.stale, false);
    *out += "\n";
  }
  if (!s.goal.empty() || !a.plan.targets.empty()) *out += "\n";

  if (s.blocked_by.empty()) {
    *out += "**Blocked by:** nothing known.\n\n";
  } else {
    *out += "**Blocked by:**\n";
    for (const auto& l : s.blocked_by)
      *out += "- " + md::Prose(l.text, false) + SummaryWhere(l.machine) + SummaryCmd(l.command) +
              " (" + md::Prose(l.from, false) + ")\n";
    *out += "\n";
  }
  if (!s.now.empty()) {
    *out += "**Now:**\n";
    int i = 0;
    for (const auto& l : s.now)
      *out += std::to_string(++i) + ". " + md::Prose(l.text, false) + SummaryWhere(l.machine) +
              SummaryCmd(l.command) + "\n";
    *out += "\n";
  }
  if (!s.not_helping.empty()) {
    *out += "**Known not to help:**\n";
    for (const auto& n : s.not_helping)
      *out += "- " + md::Prose(n.what, false) +
              (n.evidence.empty() ? "" : ": " + md::Prose(n.evidence, false)) + "\n";
    *out += "\n";
  }
  for (const auto& st : s.stale) *out += "> **Stale:** " + md::Prose(st, false) + "\n";
  if (!s.stale.empty()) *out += "\n";
}

}  // namespace dossier
