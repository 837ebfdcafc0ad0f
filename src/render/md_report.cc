// The report's sections that come from the notes and the plan: goal with targets and measured
// values, instructions per machine, stated facts, accomplished, next steps, relevant files.
#include <fmt/format.h>

#include <map>

#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {
namespace {

bool OneShot(const View& v) {
  return v.dossier_path.empty();
}

std::string NotesRef(const View& v, int64_t line) {
  return md::Code((v.notes.path.empty() ? std::string("notes.toml") : v.notes.path) + ":" +
                  std::to_string(line));
}

std::string RoleOf(const MachineView& mv) {
  const auto& g = mv.machine.virtualization.guest;
  if (!g.known()) return "unknown";
  return *g ? "guest" : "bare metal or host";
}

}  // namespace

void MdGoal(const View& view, const Analysis& a, std::string* out) {
  const Notes& n = view.notes;
  if (n.goal.empty() && n.targets.empty()) {
    *out +=
        "No goal in the notes yet: `dossier note goal \"…\"` and "
        "`dossier note target \"total_tokens_per_s >= 1000 at concurrency 64\"`.\n\n";
    return;
  }
  if (!n.goal.empty()) *out += md::Prose(n.goal, false) + "\n\n";
  if (a.plan.targets.empty()) return;
  md::Table t({"target", "latest measured", "where, when", "verdict"});
  for (const auto& s : a.plan.targets) {
    std::string measured = !s.failed.empty() ? "run failed (" + md::Prose(s.failed) + ")"
                           : s.measured      ? fmt::format("{:.1f}", s.value)
                                             : "not measured";
    if (!s.stale.empty()) measured += " (stale: " + md::Prose(s.stale) + ")";
    std::string where =
        s.measured || !s.failed.empty() ? md::Code(s.machine) + ", " + md::Escape(s.time) : "";
    std::string verdict = s.verdict == "not met" || !s.failed.empty()
                              ? "**" + md::Escape(s.verdict) + "**"
                              : md::Escape(s.verdict);
    t.Row({md::Code(s.text), measured, where, verdict});
  }
  *out += t.Render() + "\nTargets from " + NotesRef(view, a.plan.targets.front().target.line) +
          " and below; values from the newest serve-bench measurement with a matching run.\n\n";
}

void MdInstructions(const View& view, const Analysis&, std::string* out) {
  md::Table t({"machine", "role", "reachable", "how to work on it", "source"});
  std::map<std::string, bool> listed;
  for (const auto& m : view.notes.machines) {
    listed[m.name] = true;
    std::string role =
        md::Escape(m.role) + (m.guest_of.empty() ? "" : " of " + md::Code(m.guest_of));
    t.Row({md::Code(m.name), role.empty() ? "-" : role,
           m.reachable.empty() ? "not said" : md::Escape(m.reachable), md::Prose(m.instructions),
           NotesRef(view, m.line)});
  }
  for (const auto& mv : view.machines) {
    if (listed.count(mv.machine.name)) continue;
    t.Row({md::Code(mv.machine.name), RoleOf(mv),
           mv.measured_only             ? "not known: only its measurements are in the dossier"
           : mv.record.kind == "import" ? "no: imported from pasted outputs"
                                        : "collected",
           "no instructions in the notes (" +
               md::Code("dossier note machine " + mv.machine.name + " --instructions \"…\"") + ")",
           md::Code(mv.record.file)});
  }
  if (t.empty()) {
    *out += "No machine in the dossier or the notes yet.\n\n";
    return;
  }
  *out += t.Render() + "\n";
}

void MdStatedFacts(const View& view, const MachineView& mv, std::string* out) {
  md::Table t({"fact", "value", "status", "note", "source"});
  for (const auto& f : view.notes.facts) {
    if (f.machine != mv.machine.name) continue;
    std::string status = f.status == "just-changed" ? "**just changed**" : md::Escape(f.status);
    t.Row({md::Prose(f.name), md::Prose(f.value), status,
           md::Prose(f.note + (f.when.empty() ? "" : " (" + f.when + ")")),
           NotesRef(view, f.line)});
  }
  if (t.empty()) return;
  *out += "#### Stated facts (notes)\n\n" + t.Render() +
          "\nStated by a person: no probe can read these (BIOS settings and the like).\n\n";
}

void MdStatedFactsElsewhere(const View& view, std::string* out) {
  md::Table t({"machine", "fact", "value", "status", "note", "source"});
  for (const auto& f : view.notes.facts) {
    bool collected = false;
    for (const auto& mv : view.machines) collected = collected || mv.machine.name == f.machine;
    if (collected) continue;
    std::string status = f.status == "just-changed" ? "**just changed**" : md::Escape(f.status);
    t.Row({f.machine.empty() ? "-" : md::Code(f.machine), md::Prose(f.name), md::Prose(f.value),
           status, md::Prose(f.note + (f.when.empty() ? "" : " (" + f.when + ")")),
           NotesRef(view, f.line)});
  }
  if (t.empty()) return;
  *out += "### Stated facts about machines not collected\n\n" + t.Render() + "\n";
}

void MdAccomplished(const View&, const Analysis& a, std::string* out) {
  if (a.plan.accomplished.empty()) {
    *out += "Nothing recorded yet: `dossier note tried \"…\" --result \"…\"`.\n\n";
    return;
  }
  for (const auto& d : a.plan.accomplished) {
    // A tried entry that failed is tried, not accomplished.
    *out += (d.failed ? "- [ ] " : "- [x] ") + md::Prose(d.what, false);
    if (!d.result.empty() && d.result != "done") *out += " → " + md::Prose(d.result, false);
    if (d.failed) *out += " (did not work)";
    std::string ctx;
    if (!d.machine.empty()) ctx += md::Code(d.machine, false);
    if (!d.when.empty()) ctx += (ctx.empty() ? "" : ", ") + md::Escape(d.when);
    if (!ctx.empty()) *out += " (" + ctx + ")";
    *out += " " + md::Code(d.from, false) + "\n";
  }
  *out += "\n";
}

void MdNextSteps(const View& view, const Analysis& a, std::string* out) {
  if (a.plan.next_steps.empty()) {
    if (!OneShot(view))
      *out +=
          "No next step: no finding has an action and the notes list none "
          "(`dossier note next \"…\" --verify \"…\"`).\n\n";
    return;
  }
  md::Table t({"#", "step", "verify with", "machine", "from"});
  int i = 0;
  for (const auto& s : a.plan.next_steps) {
    std::string step = (s.blocking ? "**blocking** " : "") + md::Prose(s.step);
    t.Row({std::to_string(++i), step, md::Code(s.verify), md::Code(s.machine), md::Prose(s.from)});
  }
  *out += t.Render() +
          "\nBlocking steps first; steps from the notes and from the findings' "
          "actions side by side.\n\n";
}

void MdFiles(const View& view, const Analysis&, std::string* out) {
  if (view.notes.files.empty()) {
    *out += "None listed: `dossier note file PATH --machine NAME --why \"…\"`.\n\n";
    return;
  }
  std::map<std::string, std::vector<const NoteFile*>> by;
  std::vector<std::string> order;
  for (const auto& f : view.notes.files) {
    if (!by.count(f.machine)) order.push_back(f.machine);
    by[f.machine].push_back(&f);
  }
  for (const auto& m : order) {
    *out += "### " + (m.empty() ? std::string("Any machine") : md::Code(m, false)) + "\n\n";
    for (const NoteFile* f : by[m]) {
      *out += "- " + md::Code(f->path, false);
      if (!f->why.empty()) *out += " — " + md::Prose(f->why, false);
      *out += "\n";
    }
    *out += "\n";
  }
}

}  // namespace dossier
