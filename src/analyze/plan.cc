#include "analyze/plan.h"

#include <algorithm>
#include <set>

#include "analyze/analysis.h"
#include "analyze/measure_stale.h"
#include "analyze/roles.h"
#include "analyze/rule.h"
#include "analyze/serve_metrics.h"

namespace dossier {
namespace {

std::string At(const Notes& n, int64_t line) {
  return (n.path.empty() ? std::string("notes.toml") : n.path) + ":" + std::to_string(line);
}

// The newest run at the target's load (concurrency 1 for single stream) when it completed no
// request; nothing when the newest such run completed some.
void FailedRunFor(const std::vector<ServeMeasurement>& ms, const NoteTarget& t,
                  const ServeMeasurement** m_out, const ServeRun** run_out) {
  int64_t want = t.metric == "single_stream_tokens_per_s" ? 1 : t.concurrency;
  for (auto m = ms.rbegin(); m != ms.rend(); ++m) {
    const ServeRun* failed = nullptr;
    for (const auto& run : m->runs) {
      if (want > 0 && !(run.concurrency.known() && *run.concurrency == want)) continue;
      if (run.MeasuredSomething()) return;
      if (!failed) failed = &run;
    }
    if (failed) {
      *m_out = &*m;
      *run_out = failed;
      return;
    }
  }
}

// "12 http-500, 3 timeout" from a run's failure counts; "no request completed" when none said.
std::string FailureReason(const ServeRun& run) {
  std::string out;
  for (const auto& [reason, n] : run.failures)
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
  if (out.empty() && !run.stopped_early.empty()) out = run.stopped_early;
  return out.empty() ? "no request completed" : "no request completed: " + out;
}

std::vector<TargetStatus> Targets(const View& view) {
  std::vector<TargetStatus> out;
  for (const auto& t : view.notes.targets) {
    TargetStatus s;
    s.target = t;
    s.text = TargetText(t);
    s.verdict = "not measured";
    for (const auto& mv : view.machines) {
      auto v = LatestForTarget(mv.serve, t);
      if (!v || (s.measured && v->measurement->time <= s.time)) continue;
      s.measured = true;
      s.value = v->value;
      s.machine = mv.machine.name;
      s.time = v->measurement->time;
      s.verdict = TargetMet(t, v->value) ? "met" : "not met";
      s.stale = MeasurementStale(mv, v->measurement->time, v->measurement->boot_id,
                                 v->measurement->hostname);
    }
    // The newest run at the target's load that completed nothing says the server failed, not 0.
    for (const auto& mv : view.machines) {
      const ServeMeasurement* m = nullptr;
      const ServeRun* run = nullptr;
      FailedRunFor(mv.serve, t, &m, &run);
      if (!run || (s.measured && m->time <= s.time)) continue;
      s.failed = FailureReason(*run);
      s.verdict = "run failed";
      s.machine = mv.machine.name;
      s.time = m->time;
    }
    out.push_back(std::move(s));
  }
  return out;
}

// The machine where an action is done: the finding's own, or its host or guest by name when the
// dossier knows it (else the finding's machine, with the relation said in the step's verify).
std::string WhereDone(const RuleContext& ctx, const std::string& where) {
  const std::string& me = ctx.m().name;
  if (where == "host") {
    const MachineView* host = HostOf(ctx);
    if (host) return host->machine.name;
    if (const NoteMachine* nm = ctx.notes.FindMachine(me); nm && !nm->guest_of.empty())
      return nm->guest_of;
  } else if (where == "guest") {
    std::string guest;
    int n = 0;
    for (const auto& g : ctx.notes.machines)
      if (g.guest_of == me) guest = g.name, ++n;
    if (n == 1) return guest;
  }
  return me;
}

// Identifiers that name what a step acts on: environment-variable names (NCCL_TOPO_FILE) and
// file paths outside /sys, /proc and /dev (/etc/pve/mapping/pci.cfg) in the step; file paths
// only in its verify command (NCCL_DEBUG=INFO there says how to look, not what is changed).
std::set<std::string> PlanIdentifiers(const std::string& text, bool env_names);
std::set<std::string> PlanActsOn(const NextStep& s) {
  std::set<std::string> out = PlanIdentifiers(s.step, true);
  for (const auto& p : PlanIdentifiers(s.verify, false)) out.insert(p);
  return out;
}

std::set<std::string> PlanIdentifiers(const std::string& text, bool env_names) {
  std::set<std::string> out;
  std::string w;
  auto flush = [&] {
    while (!w.empty() && (w.back() == '.' || w.back() == ',' || w.back() == ';' ||
                          w.back() == ')' || w.back() == '`' || w.back() == ':'))
      w.pop_back();
    bool env = w.size() >= 4 && w.find('_') != std::string::npos &&
               std::all_of(w.begin(), w.end(), [](char c) {
                 return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
               });
    bool path = w.size() >= 6 && w[0] == '/' && w.find('/', 1) != std::string::npos &&
                !w.starts_with("/sys/") && !w.starts_with("/proc/") && !w.starts_with("/dev/");
    if ((env && env_names) || path) out.insert(w);
    w.clear();
  };
  for (char c : text) {
    if (c == ' ' || c == '=' || c == '(' || c == '`' || c == '\'' || c == '"' || c == '\n')
      flush();
    else
      w += c;
  }
  flush();
  return out;
}

// The command with spaces collapsed (its "# comment" kept: "# in the guest" and "# on the host"
// are different checks).
std::string PlanCommandKey(const std::string& verify) {
  const std::string& c = verify;
  std::string out;
  for (char ch : c) {
    if (ch == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += ch;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Adds a step, or merges it into the step already listed that does the same thing on the same
// machine (same command to verify; or, between a note and a rule's action, acting on the same
// file or variable): one step then lists both sources, blocks when either does, and keeps the
// first's wording and command.
void AddStep(NextStep x, std::vector<NextStep>* steps) {
  std::set<std::string> mine = PlanActsOn(x);
  for (auto& s : *steps) {
    if (s.machine != x.machine) continue;
    bool same = s.step == x.step ||
                (!x.verify.empty() && PlanCommandKey(s.verify) == PlanCommandKey(x.verify));
    // A note paraphrases what a rule says: acting on the same file or variable is enough then.
    // Two rules' actions are the same only with the same command (they word each one exactly).
    bool note_and_rule = s.severity.empty() != x.severity.empty();
    if (!same && note_and_rule) {
      for (const auto& id : PlanActsOn(s)) same = same || mine.count(id) > 0;
    }
    if (!same) continue;
    // A note's step and a finding's action on the same thing: the note's words first, and the
    // finding's concrete fix beside them (the corrected values, the generator to run).
    if (note_and_rule && s.step != x.step && s.step.find(x.step) == std::string::npos) {
      const NextStep& rule = s.severity.empty() ? x : s;
      const NextStep& note = s.severity.empty() ? s : x;
      s.step = note.step + (note.step.ends_with(".") ? " " : ". ") + "The dossier's fix (" +
               rule.from + "): " + rule.step;
    }
    if (s.from.find(x.from) == std::string::npos) s.from += "; " + x.from;
    s.blocking = s.blocking || x.blocking;
    if (s.verify.empty()) s.verify = x.verify;
    if (!x.severity.empty() &&
        (s.severity.empty() || SeverityRank(x.severity) < SeverityRank(s.severity)))
      s.severity = x.severity;
    return;
  }
  steps->push_back(std::move(x));
}

}  // namespace

Plan BuildPlan(const View& view, const Analysis& analysis) {
  Plan p;
  const Notes& n = view.notes;
  p.targets = Targets(view);
  for (const auto& t : n.tried)
    p.accomplished.push_back(
        {t.what, t.result, t.machine, t.when, At(n, t.line), TriedFailed(t.result)});
  for (const auto& s : n.next)
    if (s.done) p.accomplished.push_back({s.step, "done", s.machine, s.when, At(n, s.line), false});

  // Order: the notes' blocking steps, critical findings' actions, the notes' other steps, then
  // warnings' and infos' actions (an info finding contributes its first action only).
  std::vector<NextStep> blocking_notes, other_notes, crit, warn, info;
  for (const auto& s : n.next) {
    if (s.done) continue;
    NextStep x{s.step, s.verify, s.machine, s.blocking, At(n, s.line), ""};
    (s.blocking ? blocking_notes : other_notes).push_back(std::move(x));
  }
  for (const auto& mv : view.machines) {
    const MachineAnalysis& ma = analysis.Of(mv);
    RuleContext ctx{mv, view, n, ma.changes};
    for (const auto& f : ma.findings) {
      int rank = SeverityRank(f.severity);
      std::string from = "finding " + f.id + (f.stale.empty() ? "" : " (stale)");
      for (size_t i = 0; i < f.actions.size(); ++i) {
        if (rank == 2 && i > 0) break;
        NextStep x{f.actions[i].step,
                   f.actions[i].verify,
                   WhereDone(ctx, f.actions[i].where),
                   rank == 0,
                   from,
                   f.severity};
        (rank == 0 ? crit : rank == 1 ? warn : info).push_back(std::move(x));
      }
    }
  }
  for (auto* v : {&blocking_notes, &crit, &other_notes, &warn, &info})
    for (auto& x : *v) AddStep(std::move(x), &p.next_steps);
  return p;
}

}  // namespace dossier
