// dossier note: edit the dossier's notes.toml — what only a person knows — without losing the
// comments and layout a person gave it (store/notes_edit.h), or show it.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "analyze/serve_metrics.h"
#include "cli/parse.h"
#include "render/json_visit.h"
#include "store/dossier_dir.h"
#include "store/notes_edit.h"
#include "util/text.h"

namespace dossier::cli {
namespace {

// "total_tokens_per_s >= 1000 at concurrency 64" -> a target; the error says what is wrong.
Result<NoteTarget> ParseTarget(const std::string& expr) {
  NoteTarget t;
  size_t at = std::string::npos;
  for (const char* op : {">=", "<=", ">", "<"}) {
    at = expr.find(op);
    if (at != std::string::npos) {
      t.op = op;
      break;
    }
  }
  if (at == std::string::npos)
    return Error::Invalid("'" + expr + "': expected METRIC >= VALUE [at concurrency N]");
  t.metric = std::string(Trim(std::string_view(expr).substr(0, at)));
  auto rest = SplitAny(std::string_view(expr).substr(at + t.op.size()), " ");
  auto v = rest.empty() ? std::nullopt : ParseDouble(rest[0]);
  if (!v) return Error::Invalid("'" + expr + "': the value after " + t.op + " is not a number");
  t.value = *v;
  if (rest.size() == 4 && rest[1] == "at" && rest[2] == "concurrency") {
    auto c = ParseInt(rest[3]);
    if (!c || *c < 1) return Error::Invalid("'" + expr + "': concurrency must be 1 or more");
    t.concurrency = *c;
  } else if (rest.size() != 1) {
    return Error::Invalid("'" + expr + "': expected METRIC >= VALUE [at concurrency N]");
  }
  if (!IsServeMetric(t.metric)) {
    std::string names;
    for (const auto& n : ServeMetricNames()) names += " " + n;
    return Error::Invalid("unknown metric '" + t.metric + "'; one of:" + names);
  }
  return t;
}

void Show(const Notes& n, const std::string& path) {
  std::printf("# Notes (%s)\n\n", path.c_str());
  std::printf("Goal: %s\n", n.goal.empty() ? "(none)" : n.goal.c_str());
  for (const auto& t : n.targets) std::printf("  target: %s\n", TargetText(t).c_str());
  if (!n.machines.empty()) std::printf("\nMachines:\n");
  for (const auto& m : n.machines)
    std::printf(
        "  %s (%s%s%s): %s\n", m.name.c_str(), m.role.empty() ? "role not said" : m.role.c_str(),
        m.reachable.empty() ? "" : ", reachable: ", m.reachable.c_str(), m.instructions.c_str());
  if (!n.facts.empty()) std::printf("\nStated facts:\n");
  for (const auto& f : n.facts)
    std::printf("  %s = %s [%s]%s%s\n", f.name.c_str(), f.value.c_str(), f.status.c_str(),
                f.machine.empty() ? "" : " on ", f.machine.c_str());
  if (!n.tried.empty()) std::printf("\nTried:\n");
  for (const auto& t : n.tried)
    std::printf("  %s%s%s\n", t.what.c_str(), t.result.empty() ? "" : " -> ", t.result.c_str());
  if (!n.next.empty()) std::printf("\nNext steps (number for 'dossier note done N'):\n");
  for (size_t i = 0; i < n.next.size(); ++i) {
    const auto& s = n.next[i];
    std::printf(
        "  %zu. %s%s%s%s%s\n", i + 1, s.done ? "[done] " : "", s.blocking ? "[blocking] " : "",
        s.step.c_str(),
        s.verify.empty() ? "" : "  (verify: ", s.verify.empty() ? "" : (s.verify + ")").c_str());
  }
  if (!n.files.empty()) std::printf("\nFiles:\n");
  for (const auto& f : n.files)
    std::printf("  %s%s%s %s\n", f.machine.empty() ? "" : f.machine.c_str(),
                f.machine.empty() ? "" : ": ", f.path.c_str(), f.why.c_str());
}

}  // namespace

int RunNote(const std::vector<std::string>& args) {
  CLI::App app("Edit the dossier's notes (notes.toml), keeping a person's comments, or show them.",
               "dossier note");
  app.require_subcommand(1);
  app.fallthrough();
  std::string dossier_dir = "dossier";
  app.add_option("--dossier", dossier_dir, "dossier directory")->capture_default_str();

  std::string text, value, status, machine, note, result, verify, why, role, reachable,
      instructions, guest_of, format = "md";
  bool blocking = false;
  size_t number = 0;
  auto* goal = app.add_subcommand("goal", "set the goal, in one sentence");
  goal->add_option("text", text, "the goal")->required();
  auto* target = app.add_subcommand(
      "target", "add a target: \"total_tokens_per_s >= 1000 at concurrency 64\"");
  target->add_option("expr", text, "METRIC OP VALUE [at concurrency N]")->required();
  target->add_option("--note", note, "why this number");
  auto* mach = app.add_subcommand("machine",
                                  "add or update a machine: role, reachability, "
                                  "how to work on it");
  mach->add_option("name", text, "machine name (as collected)")->required();
  mach->add_option("--role", role, "guest | host | bare-metal | client")
      ->check(CLI::IsMember({"guest", "host", "bare-metal", "client"}));
  mach->add_option("--reachable", reachable, "yes or no")->check(CLI::IsMember({"yes", "no"}));
  mach->add_option("--instructions", instructions,
                   "how to work on it (\"commands on the host are run by a person and pasted "
                   "back\")");
  mach->add_option("--guest-of", guest_of, "for a guest: its host's name");
  auto* fact = app.add_subcommand("fact", "state a fact no probe can read (a BIOS setting)");
  fact->add_option("name", text, "what (\"ACS\", \"Above 4G decoding\")")->required();
  fact->add_option("value", value, "its value (\"disabled\")")->required();
  fact->add_option("--status", status, "confirmed | unknown | just-changed")
      ->check(CLI::IsMember({"confirmed", "unknown", "just-changed"}));
  fact->add_option("--machine", machine, "which machine");
  fact->add_option("--note", note, "anything else");
  auto* tried = app.add_subcommand("tried", "log what was tried and what happened");
  tried->add_option("what", text, "what was tried")->required();
  tried->add_option("--result", result, "what happened");
  tried->add_option("--machine", machine, "on which machine");
  auto* next = app.add_subcommand("next", "add a next step with the command that verifies it");
  next->add_option("do", text, "the step")->required();
  next->add_option("--verify", verify, "the command that shows it worked");
  next->add_flag("--blocking", blocking, "nothing else can go on until it is done");
  next->add_option("--machine", machine, "on which machine");
  next->add_option("--why", why, "why");
  auto* done = app.add_subcommand("done", "mark next step N (as 'note show' numbers them) done");
  done->add_option("n", number, "step number")->required()->check(CLI::PositiveNumber);
  auto* file = app.add_subcommand("file", "list a file that matters");
  file->add_option("path", text, "path on that machine")->required();
  file->add_option("--machine", machine, "which machine");
  file->add_option("--why", why, "what it holds");
  auto* show = app.add_subcommand("show", "print the notes");
  show->add_option("--format", format, "md or json")->check(CLI::IsMember({"md", "json"}));
  if (int rc = Parse(app, args); rc >= 0) return rc;

  DossierDir dir(dossier_dir);
  auto ed = NotesEditor::Open(dir.notes_path());
  if (!ed) {
    std::fprintf(stderr, "dossier note: %s\n", ed.error().message.c_str());
    return kExitUsage;
  }
  if (show->parsed()) {
    if (format == "json") {
      std::printf("%s\n", PlainToJson(ed->notes()).dump(2).c_str());
    } else {
      Show(ed->notes(), dir.notes_path());
    }
    return kExitOk;
  }

  Status s = OkStatus();
  std::string what;
  if (goal->parsed()) {
    s = ed->SetGoal(text);
    what = "goal set";
  } else if (target->parsed()) {
    auto t = ParseTarget(text);
    if (!t) {
      std::fprintf(stderr, "dossier note target: %s\n", t.error().message.c_str());
      return kExitUsage;
    }
    std::vector<NoteField> f = {{"metric", t->metric}, {"op", t->op}, {"value", t->value}};
    if (t->concurrency > 0) f.push_back({"concurrency", t->concurrency});
    if (!note.empty()) f.push_back({"note", note});
    s = ed->Append("target", f);
    what = "target added: " + TargetText(*t);
  } else if (mach->parsed()) {
    std::vector<NoteField> f;
    if (!role.empty()) f.push_back({"role", role});
    if (!reachable.empty()) f.push_back({"reachable", reachable == "yes"});
    if (!instructions.empty()) f.push_back({"instructions", instructions});
    if (!guest_of.empty()) f.push_back({"guest_of", guest_of});
    const auto& ms = ed->notes().machines;
    auto it =
        std::find_if(ms.begin(), ms.end(), [&](const NoteMachine& m) { return m.name == text; });
    if (it != ms.end()) {
      s = ed->Update("machine", static_cast<size_t>(it - ms.begin()), f);
      what = "machine " + text + " updated";
    } else {
      f.insert(f.begin(), {"name", text});
      s = ed->Append("machine", f);
      what = "machine " + text + " added";
    }
  } else if (fact->parsed()) {
    std::vector<NoteField> f = {
        {"value", value}, {"status", status.empty() ? "unknown" : status}, {"when", NowIso8601()}};
    if (!note.empty()) f.push_back({"note", note});
    const auto& fs = ed->notes().facts;
    auto it = std::find_if(fs.begin(), fs.end(), [&](const NoteFact& x) {
      return ToLower(x.name) == ToLower(text) && x.machine == machine;
    });
    if (it != fs.end()) {
      s = ed->Update("fact", static_cast<size_t>(it - fs.begin()), f);
      what = "fact " + text + " updated";
    } else {
      f.insert(f.begin(), {"name", text});
      if (!machine.empty()) f.insert(f.begin() + 1, {"machine", machine});
      s = ed->Append("fact", f);
      what = "fact " + text + " added";
    }
  } else if (tried->parsed()) {
    std::vector<NoteField> f = {{"what", text}};
    if (!result.empty()) f.push_back({"result", result});
    if (!machine.empty()) f.push_back({"machine", machine});
    f.push_back({"when", NowIso8601()});
    s = ed->Append("tried", f);
    what = "logged";
  } else if (next->parsed()) {
    std::vector<NoteField> f = {{"do", text}};
    if (!verify.empty()) f.push_back({"verify", verify});
    if (!machine.empty()) f.push_back({"machine", machine});
    f.push_back({"blocking", blocking});
    if (!why.empty()) f.push_back({"why", why});
    s = ed->Append("next", f);
    what = "next step " + std::to_string(ed->notes().next.size() + 1) + " added";
  } else if (done->parsed()) {
    if (number > ed->notes().next.size()) {
      std::fprintf(stderr, "dossier note done: there are %zu next steps\n",
                   ed->notes().next.size());
      return kExitUsage;
    }
    s = ed->Update("next", number - 1, {{"done", true}});
    what = "step " + std::to_string(number) + " done";
  } else if (file->parsed()) {
    std::vector<NoteField> f = {{"path", text}};
    if (!machine.empty()) f.push_back({"machine", machine});
    if (!why.empty()) f.push_back({"why", why});
    s = ed->Append("file", f);
    what = "file added";
  }
  if (!s) {
    std::fprintf(stderr, "dossier note: %s\n", s.error().message.c_str());
    return kExitUsage;
  }
  if (auto w = ed->Save(); !w) {
    std::fprintf(stderr, "dossier note: cannot write %s: %s\n", dir.notes_path().c_str(),
                 w.error().message.c_str());
    return kExitFailure;
  }
  std::fprintf(stderr, "%s: %s\n", dir.notes_path().c_str(), what.c_str());
  return kExitOk;
}

}  // namespace dossier::cli
