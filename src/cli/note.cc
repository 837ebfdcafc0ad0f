// dossier note: edit the dossier's notes.toml — what only a person knows — without losing the
// comments and layout a person gave it (store/notes_edit.h), or show it.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "analyze/serve_metrics.h"
#include "cli/parse.h"
#include "measure/p2p/record.h"
#include "model/json_io.h"
#include "render/json_visit.h"
#include "store/dossier_dir.h"
#include "store/dossier_lock.h"
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

// Everything the subcommands' options fill.
struct NoteArgs {
  std::string text, value, status, machine, note, result, verify, why, role, reachable,
      instructions, guest_of, vm, format = "md", when;
  std::string when_resolved;  // `when` as a time (ResolveWhen), filled before apply
  bool blocking = false;
  size_t number = 0;
};

void AddWhen(CLI::App* s, NoteArgs* a) {
  s->add_option("--when", a->when,
                "when it happened: an ISO time (2026-12-02T16:30:00Z, UTC), 'now', or "
                "'before-collect N' (just before collect record N). Default: now, except that a "
                "just-changed fact is dated at the newest collect of its machine before this note "
                "(change, reboot, collect, then note: that collect stays current)");
}

// "2026-12-02T16:30Z", "2026-12-02 16:30:00", "2026-12-02" -> "2026-12-02T16:30:00Z", the form
// records are dated in (so times compare as strings); nullopt for anything else.
std::optional<std::string> NormalizeIsoTime(std::string t) {
  if (!t.empty() && (t.back() == 'Z' || t.back() == 'z')) t.pop_back();
  auto digits = [&](size_t at, size_t n) {
    if (at + n > t.size()) return false;
    for (size_t i = at; i < at + n; ++i)
      if (t[i] < '0' || t[i] > '9') return false;
    return true;
  };
  if (!digits(0, 4) || t.size() < 10 || t[4] != '-' || !digits(5, 2) || t[7] != '-' ||
      !digits(8, 2))
    return std::nullopt;
  std::string out = t.substr(0, 10) + "T";
  if (t.size() == 10) return out + "00:00:00Z";
  if (t[10] != 'T' && t[10] != 't' && t[10] != ' ') return std::nullopt;
  if (!digits(11, 2) || t.size() < 16 || t[13] != ':' || !digits(14, 2)) return std::nullopt;
  out += t.substr(11, 5);
  if (t.size() == 16) return out + ":00Z";
  if (t.size() != 19 || t[16] != ':' || !digits(17, 2)) return std::nullopt;
  return out + t.substr(16, 3) + "Z";
}

// The time a note is dated at (NoteArgs::when, above). `records` is the dossier's, oldest first.
Result<std::string> ResolveWhen(const NoteArgs& a, bool just_changed,
                                const std::vector<Record>& records) {
  const std::string& w = a.when;
  if (w == "now") return NowIso8601();
  if (w.rfind("before-collect", 0) == 0) {
    std::string n(Trim(std::string_view(w).substr(14)));
    auto seq = ParseInt(n);
    if (!seq)
      return Error::Invalid("--when '" + w + "': expected 'before-collect N', N a record number");
    for (const auto& r : records) {
      if (r.sequence != *seq) continue;
      if (r.kind != "collect")
        return Error::Invalid("--when '" + w + "': record " + n + " is a " + r.kind +
                              " record, not a collect");
      return r.time;
    }
    return Error::Invalid("--when '" + w + "': the dossier has no record " + n);
  }
  if (!w.empty()) {
    auto t = NormalizeIsoTime(w);
    if (!t)
      return Error::Invalid("--when '" + w +
                            "': expected an ISO time in UTC (2026-12-02T16:30:00Z), 'now' or "
                            "'before-collect N'");
    return *t;
  }
  // A just-changed fact is usually noted after the machine was collected again (change, reboot,
  // collect, note): date it at the newest collect of that machine before now, so that collect is
  // not called stale. Noted before collecting? Say --when now.
  if (just_changed) {
    std::string newest;
    for (const auto& r : records)
      if (r.kind == "collect" && (a.machine.empty() || r.machine == a.machine) && r.time > newest)
        newest = r.time;
    if (!newest.empty()) return newest;
  }
  return NowIso8601();
}

// One `dossier note` subcommand: its options, and the edit it makes. `what` says what was done.
struct NoteSub {
  const char* name;
  const char* summary;
  void (*options)(CLI::App* sub, NoteArgs* a);
  Status (*apply)(NotesEditor* ed, const NoteArgs& a, std::string* what);
};

Status Goal(NotesEditor* ed, const NoteArgs& a, std::string* what) {
  *what = "goal set";
  return ed->SetGoal(a.text);
}

Status Target(NotesEditor* ed, const NoteArgs& a, std::string* what) {
  auto t = ParseTarget(a.text);
  if (!t) return t.error();
  std::vector<NoteField> f = {{"metric", t->metric}, {"op", t->op}, {"value", t->value}};
  if (t->concurrency > 0) f.push_back({"concurrency", t->concurrency});
  if (!a.note.empty()) f.push_back({"note", a.note});
  *what = "target added: " + TargetText(*t);
  return ed->Append("target", f);
}

Status MachineNote(NotesEditor* ed, const NoteArgs& a, std::string* what) {
  std::vector<NoteField> f;
  if (!a.role.empty()) f.push_back({"role", a.role});
  if (!a.reachable.empty()) f.push_back({"reachable", a.reachable == "yes"});
  if (!a.instructions.empty()) f.push_back({"instructions", a.instructions});
  if (!a.guest_of.empty()) f.push_back({"guest_of", a.guest_of});
  if (!a.vm.empty()) f.push_back({"vm", a.vm});
  const auto& ms = ed->notes().machines;
  auto it =
      std::find_if(ms.begin(), ms.end(), [&](const NoteMachine& m) { return m.name == a.text; });
  if (it != ms.end()) {
    *what = "machine " + a.text + " updated";
    return ed->Update("machine", static_cast<size_t>(it - ms.begin()), f);
  }
  f.insert(f.begin(), {"name", a.text});
  *what = "machine " + a.text + " added";
  return ed->Append("machine", f);
}

Status FactNote(NotesEditor* ed, const NoteArgs& a, std::string* what) {
  std::vector<NoteField> f = {{"value", a.value},
                              {"status", a.status.empty() ? "unknown" : a.status},
                              {"when", a.when_resolved}};
  if (!a.note.empty()) f.push_back({"note", a.note});
  // The same fact about the same machine is updated, not repeated.
  const auto& fs = ed->notes().facts;
  auto it = std::find_if(fs.begin(), fs.end(), [&](const NoteFact& x) {
    return ToLower(x.name) == ToLower(a.text) && x.machine == a.machine;
  });
  if (it != fs.end()) {
    *what = "fact " + a.text + " updated";
    return ed->Update("fact", static_cast<size_t>(it - fs.begin()), f);
  }
  f.insert(f.begin(), {"name", a.text});
  if (!a.machine.empty()) f.insert(f.begin() + 1, {"machine", a.machine});
  *what = "fact " + a.text + " added";
  return ed->Append("fact", f);
}

Status Tried(NotesEditor* ed, const NoteArgs& a, std::string* what) {
  std::vector<NoteField> f = {{"what", a.text}};
  if (!a.result.empty()) f.push_back({"result", a.result});
  if (!a.machine.empty()) f.push_back({"machine", a.machine});
  f.push_back({"when", a.when_resolved});
  *what = "logged";
  return ed->Append("tried", f);
}

Status Next(NotesEditor* ed, const NoteArgs& a, std::string* what) {
  std::vector<NoteField> f = {{"do", a.text}};
  if (!a.verify.empty()) f.push_back({"verify", a.verify});
  if (!a.machine.empty()) f.push_back({"machine", a.machine});
  f.push_back({"blocking", a.blocking});
  if (!a.why.empty()) f.push_back({"why", a.why});
  *what = "next step " + std::to_string(ed->notes().next.size() + 1) + " added";
  return ed->Append("next", f);
}

Status Done(NotesEditor* ed, const NoteArgs& a, std::string* what) {
  if (a.number == 0 || a.number > ed->notes().next.size())
    return Error::Invalid("there are " + std::to_string(ed->notes().next.size()) +
                          " next steps ('dossier note show' numbers them)");
  *what = "step " + std::to_string(a.number) + " done";
  return ed->Update("next", a.number - 1, {{"done", true}, {"when", a.when_resolved}});
}

Status File(NotesEditor* ed, const NoteArgs& a, std::string* what) {
  std::vector<NoteField> f = {{"path", a.text}};
  if (!a.machine.empty()) f.push_back({"machine", a.machine});
  if (!a.why.empty()) f.push_back({"why", a.why});
  *what = "file added";
  return ed->Append("file", f);
}

const std::vector<NoteSub>& NoteSubs() {
  static const std::vector<NoteSub> kSubs = {
      {"goal", "set the goal, in one sentence",
       [](CLI::App* s, NoteArgs* a) { s->add_option("text", a->text, "the goal")->required(); },
       Goal},
      {"target", "add a target: \"total_tokens_per_s >= 1000 at concurrency 64\"",
       [](CLI::App* s, NoteArgs* a) {
         s->add_option("expr", a->text, "METRIC OP VALUE [at concurrency N]")->required();
         s->add_option("--note", a->note, "why this number");
       },
       Target},
      {"machine", "add or update a machine: role, reachability, how to work on it",
       [](CLI::App* s, NoteArgs* a) {
         s->add_option("name", a->text, "machine name (as collected)")
             ->required()
             ->check(MachineName());
         s->add_option("--role", a->role, "guest | host | bare-metal | client")
             ->check(CLI::IsMember({"guest", "host", "bare-metal", "client"}));
         s->add_option("--reachable", a->reachable, "yes or no")
             ->check(CLI::IsMember({"yes", "no"}));
         s->add_option("--instructions", a->instructions,
                       "how to work on it (\"commands on the host are run by a person and "
                       "pasted back\")");
         s->add_option("--host,--guest-of", a->guest_of,
                       "for a guest: its host's name (links the two when the guest's SMBIOS "
                       "UUID could not be read)")
             ->check(MachineName());
         s->add_option("--vm", a->vm,
                       "for a guest: its VM id on the host (Proxmox VMID, libvirt "
                       "domain name)");
       },
       MachineNote},
      {"fact", "state a fact no probe can read (a BIOS setting), or update it",
       [](CLI::App* s, NoteArgs* a) {
         s->add_option("name", a->text, "what (\"ACS\", \"Above 4G decoding\")")->required();
         s->add_option("value", a->value, "its value (\"disabled\")")->required();
         s->add_option("--status", a->status, "confirmed | unknown | just-changed")
             ->check(CLI::IsMember({"confirmed", "unknown", "just-changed"}));
         s->add_option("--machine", a->machine, "which machine")->check(MachineName());
         s->add_option("--note", a->note, "anything else");
         AddWhen(s, a);
       },
       FactNote},
      {"tried", "log what was tried and what happened",
       [](CLI::App* s, NoteArgs* a) {
         s->add_option("what", a->text, "what was tried")->required();
         s->add_option("--result", a->result, "what happened");
         s->add_option("--machine", a->machine, "on which machine")->check(MachineName());
         AddWhen(s, a);
       },
       Tried},
      {"next", "add a next step with the command that verifies it",
       [](CLI::App* s, NoteArgs* a) {
         s->add_option("do", a->text, "the step")->required();
         s->add_option("--verify", a->verify, "the command that shows it worked");
         s->add_flag("--blocking", a->blocking, "nothing else can go on until it is done");
         s->add_option("--machine", a->machine, "on which machine")->check(MachineName());
         s->add_option("--why", a->why, "why");
       },
       Next},
      {"done", "mark next step N (as 'note show' numbers them) done",
       [](CLI::App* s, NoteArgs* a) {
         s->add_option("n", a->number, "step number")->required()->check(CLI::PositiveNumber);
         AddWhen(s, a);
       },
       Done},
      {"file", "list a file that matters",
       [](CLI::App* s, NoteArgs* a) {
         s->add_option("path", a->text, "path on that machine")->required();
         s->add_option("--machine", a->machine, "which machine")->check(MachineName());
         s->add_option("--why", a->why, "what it holds");
       },
       File},
  };
  return kSubs;
}

// `dossier note measurement`: a figure a person read off a screen (a bandwidth for one GPU pair
// and message size, a serving benchmark's throughput at a load), stored as a measurement record
// of the same kind dossier's own p2p / serve-bench runs write, marked as typed in (tool "typed
// in"), so the report, the targets and the rules read it with its origin said.
struct MeasurementNoteArgs {
  std::string machine, pair, size, mode = "unknown", when;
  double gbps = -1, latency_us = -1;
  int64_t concurrency = 0;
  double request_rate = -1, total_tok_s = -1, output_tok_s = -1;
  std::string note;
};

// "16M", "16MiB", "12KB", "4096" -> bytes (K/M/G as powers of two, as such tables mean them).
std::optional<uint64_t> SizeBytes(std::string s) {
  s = ToLower(Trim(s));
  uint64_t mul = 1;
  for (const char* suffix : {"ib", "b"})
    if (s.size() > 1 && s.ends_with(suffix)) {
      s.resize(s.size() - std::string_view(suffix).size());
      break;
    }
  if (!s.empty() && (s.back() == 'k' || s.back() == 'm' || s.back() == 'g')) {
    mul = s.back() == 'k' ? 1024 : s.back() == 'm' ? 1048576 : 1073741824;
    s.pop_back();
  }
  auto v = ParseDouble(s);
  if (!v || *v <= 0) return std::nullopt;
  return static_cast<uint64_t>(*v * static_cast<double>(mul));
}

void AddMeasurementNoteOptions(CLI::App* s, MeasurementNoteArgs* a) {
  s->add_option("--machine", a->machine, "the machine it was measured on")->required();
  s->add_option("--pair", a->pair, "A-B: the GPU pair (CUDA ordinals) of a bandwidth figure");
  s->add_option("--size", a->size, "message size of a bandwidth figure (16M, 12KB, 4096)");
  s->add_option("--gbps", a->gbps, "bandwidth, GB/s (1e9 bytes/s)");
  s->add_option("--latency-us", a->latency_us, "latency of one copy, microseconds");
  s->add_option("--mode", a->mode, "peer access: p2p, staged or unknown")
      ->check(CLI::IsMember({"p2p", "staged", "unknown"}));
  s->add_option("--concurrency", a->concurrency, "requests in flight of a serving figure");
  s->add_option("--request-rate", a->request_rate, "requests/s of a serving figure (open loop)");
  s->add_option("--total-tok-s", a->total_tok_s, "total (input + output) tokens/s");
  s->add_option("--output-tok-s", a->output_tok_s, "output tokens/s");
  s->add_option("--note", a->note, "where the figure was read (\"the benchmark's screen\")");
}

int RunMeasurementNote(const MeasurementNoteArgs& a, const std::string& dossier_dir) {
  const std::string origin =
      "typed in: dossier note measurement" + (a.note.empty() ? "" : " (" + a.note + ")");
  const std::string time = NowIso8601();
  bool p2p = !a.pair.empty() || !a.size.empty() || a.gbps >= 0 || a.latency_us >= 0;
  bool serve =
      a.concurrency > 0 || a.request_rate >= 0 || a.total_tok_s >= 0 || a.output_tok_s >= 0;
  auto usage = [](const std::string& m) {
    std::fprintf(stderr, "dossier note measurement: %s\n", m.c_str());
    return kExitUsage;
  };
  if (p2p == serve)
    return usage(
        "give either a bandwidth (--pair A-B --size S --gbps X and/or --latency-us T) or a "
        "serving figure (--concurrency N or --request-rate R, with --total-tok-s / "
        "--output-tok-s)");
  nlohmann::json doc;
  if (p2p) {
    auto parts = Split(a.pair, '-');
    auto s = parts.size() == 2 ? ParseInt(parts[0]) : std::nullopt;
    auto d = parts.size() == 2 ? ParseInt(parts[1]) : std::nullopt;
    if (!s || !d || *s < 0 || *d < 0) return usage("--pair " + a.pair + ": expected A-B ('0-1')");
    auto bytes = SizeBytes(a.size);
    if (!bytes) return usage("--size '" + a.size + "': expected a size (16M, 12KB, 4096)");
    if (a.gbps < 0 && a.latency_us < 0) return usage("--gbps or --latency-us is needed");
    P2pMeasurement pm;
    pm.tool = "typed in";
    pm.imported_from = origin;
    pm.time = time;
    P2pResult r;
    r.src = *s;
    r.dst = *d;
    r.mode = a.mode == "p2p" ? "uni-p2p" : a.mode == "staged" ? "uni-staged" : "uni-unknown";
    r.size_bytes = *bytes;
    if (a.gbps >= 0) r.gbps_median.Set(a.gbps, origin);
    if (a.latency_us >= 0) r.latency_us.Set(a.latency_us, origin);
    r.verdict = "ok";
    pm.results.push_back(std::move(r));
    doc = p2p::P2pRecord(pm, a.machine);
  } else {
    if (a.concurrency <= 0 && a.request_rate <= 0)
      return usage("a serving figure needs its load: --concurrency N or --request-rate R");
    if (a.total_tok_s < 0 && a.output_tok_s < 0)
      return usage("--total-tok-s or --output-tok-s is needed");
    ServeMeasurement sm;
    sm.tool = "typed in";
    sm.imported_from = origin;
    sm.time = time;
    ServeRun run;
    if (a.concurrency > 0) run.concurrency.Set(a.concurrency, origin);
    if (a.request_rate > 0) run.request_rate.Set(a.request_rate, origin);
    run.label = "typed in";
    if (a.total_tok_s >= 0) run.total_tokens_per_s = a.total_tok_s;
    if (a.output_tok_s >= 0) run.output_tokens_per_s = a.output_tok_s;
    // Only the load and the throughputs given are known; every other figure is not, and says
    // why, so no renderer shows its 0.
    const std::string why =
        "typed in with dossier note measurement: only the load and the throughputs given are "
        "known";
    for (const char* f : {"completed", "failed", "cancelled", "duration_s", "input_tokens",
                          "output_tokens", "request_throughput", "input_tokens_per_s",
                          "peak_output_tokens_per_s", "peak_concurrent_requests"})
      run.not_known[f] = why;
    if (a.total_tok_s < 0) run.not_known["total_tokens_per_s"] = why;
    if (a.output_tok_s < 0) run.not_known["output_tokens_per_s"] = why;
    sm.runs.push_back(std::move(run));
    doc = {{"kind", "serve-bench"}, {"machine", a.machine}, {"serve", ServeToJson(sm)}};
  }
  doc["time"] = time;
  DossierDir dir(dossier_dir);
  auto path = dir.Append(std::move(doc), a.machine);
  if (!path) {
    std::fprintf(stderr, "dossier note measurement: cannot write the record: %s\n",
                 path.error().message.c_str());
    return kExitFailure;
  }
  std::fprintf(stderr, "wrote %s (typed in)\n", path->c_str());
  return kExitOk;
}

}  // namespace

int RunNote(const std::vector<std::string>& args) {
  CLI::App app("Edit the dossier's notes (notes.toml), keeping a person's comments, or show them.",
               "dossier note");
  app.require_subcommand(1);
  app.fallthrough();
  std::string dossier_dir = "dossier";
  app.add_option("--dossier", dossier_dir, "dossier directory")
      ->check(NonEmptyPath())
      ->capture_default_str();
  NoteArgs a;
  std::vector<std::pair<CLI::App*, const NoteSub*>> subs;
  for (const auto& n : NoteSubs()) {
    CLI::App* s = app.add_subcommand(n.name, n.summary);
    n.options(s, &a);
    subs.push_back({s, &n});
  }
  CLI::App* show = app.add_subcommand("show", "print the notes");
  MeasurementNoteArgs ma;
  CLI::App* measurement = app.add_subcommand(
      "measurement",
      "store a figure read off a screen (a pair's bandwidth, a benchmark's throughput) as a "
      "measurement record marked as typed in");
  AddMeasurementNoteOptions(measurement, &ma);
  show->add_option("--format", a.format, "md or json")->check(CLI::IsMember({"md", "json"}));
  if (int rc = Parse(app, args); rc >= 0) return rc;

  if (measurement->parsed()) return RunMeasurementNote(ma, dossier_dir);
  DossierDir dir(dossier_dir);
  // Edits hold the dossier's lock from reading notes.toml to replacing it, so concurrent `note`
  // commands take turns and each one's entry survives (store/dossier_lock.h).
  std::optional<DossierLock> lock;
  if (!show->parsed()) {
    auto l = DossierLock::Acquire(dossier_dir);
    if (!l) {
      std::fprintf(stderr, "dossier note: %s\n", l.error().message.c_str());
      return kExitFailure;
    }
    lock.emplace(std::move(*l));
  }
  auto ed = NotesEditor::Open(dir.notes_path());
  if (!ed) {
    std::fprintf(stderr, "dossier note: %s\n", ed.error().message.c_str());
    return kExitUsage;
  }
  if (show->parsed()) {
    if (a.format == "json") {
      std::printf("%s\n", DumpJson(PlainToJson(ed->notes()), 2).c_str());
    } else {
      Show(ed->notes(), dir.notes_path());
    }
    return kExitOk;
  }
  for (const auto& [s, n] : subs) {
    if (!s->parsed()) continue;
    // Dates come from the records when asked ('before-collect N') or for a just-changed fact.
    std::vector<Record> records;
    if (a.when.rfind("before-collect", 0) == 0 || (a.when.empty() && a.status == "just-changed")) {
      std::vector<std::string> warnings;
      if (auto rs = dir.Load(&warnings); rs) records = std::move(*rs);
    }
    auto when = ResolveWhen(a, a.status == "just-changed", records);
    if (!when) {
      std::fprintf(stderr, "dossier note %s: %s\n", n->name, when.error().message.c_str());
      return kExitUsage;
    }
    a.when_resolved = *when;
    std::string what;
    if (Status st = n->apply(&*ed, a, &what); !st) {
      std::fprintf(stderr, "dossier note %s: %s\n", n->name, st.error().message.c_str());
      return kExitUsage;
    }
    if (auto w = ed->Save(); !w) {
      if (w.error().kind == Error::kInvalid) {  // changed under us: nothing written
        std::fprintf(stderr, "dossier note: %s\n", w.error().message.c_str());
      } else {
        std::fprintf(stderr, "dossier note: cannot write %s: %s\n", dir.notes_path().c_str(),
                     w.error().message.c_str());
      }
      return kExitFailure;
    }
    std::fprintf(stderr, "%s: %s\n", dir.notes_path().c_str(), what.c_str());
  }
  return kExitOk;
}

}  // namespace dossier::cli
