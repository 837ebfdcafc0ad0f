// Notes: what only a person knows, from the human-edited notes.toml in the dossier directory
// (store/notes_file.cc parses it; `dossier note …` edits it). The goal and its numeric targets, how
// to work on each machine, facts no probe can read (BIOS settings), what was tried, next steps
// and the files that matter. Every entry keeps the line it was read from, so the report and the
// error messages can point back at the file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dossier {

// "total_tokens_per_s >= 1000 at concurrency 64". metric names a number of a serve-bench run
// (analyze/serve_metrics.h lists them); concurrency 0 means "any run".
struct NoteTarget {
  std::string metric;
  std::string op;  // ">=", ">", "<=", "<"
  double value = 0;
  int64_t concurrency = 0;
  std::string note;
  int64_t line = 0;
  template <class V>
  void visit(V& v) {
    v("metric", metric);
    v("op", op);
    v("value", value);
    v("concurrency", concurrency);
    v("note", note);
    v("line", line);
  }
};

struct NoteMachine {
  std::string name;
  std::string role;          // "guest", "host", "bare-metal", "client"
  std::string reachable;     // "yes", "no", "" when not said
  std::string instructions;  // "commands on the host are run by a person and pasted back"
  std::string guest_of;      // for a guest: the host's name
  int64_t line = 0;
  std::string vm;  // for a guest: its VM id on that host (links guest and host)
  template <class V>
  void visit(V& v) {
    v("name", name);
    v("role", role);
    v("reachable", reachable);
    v("instructions", instructions);
    v("guest_of", guest_of);
    v("vm", vm);
    v("line", line);
  }
};

// A stated fact: "ACS = disabled (just-changed) on pve-host".
struct NoteFact {
  std::string name;
  std::string value;
  std::string status;  // "confirmed", "unknown", "just-changed"
  std::string machine;
  std::string note;
  std::string when;
  int64_t line = 0;
  template <class V>
  void visit(V& v) {
    v("name", name);
    v("value", value);
    v("status", status);
    v("machine", machine);
    v("note", note);
    v("when", when);
    v("line", line);
  }
};

struct NoteTried {
  std::string what;
  std::string result;
  std::string machine;
  std::string when;
  int64_t line = 0;
  template <class V>
  void visit(V& v) {
    v("what", what);
    v("result", result);
    v("machine", machine);
    v("when", when);
    v("line", line);
  }
};

struct NoteNext {
  std::string step;  // the key is "do" in the file
  std::string verify;
  std::string machine;
  bool blocking = false;
  bool done = false;
  std::string why;
  std::string when;  // when it was done (dossier note done N --when)
  int64_t line = 0;
  template <class V>
  void visit(V& v) {
    v("do", step);
    v("verify", verify);
    v("machine", machine);
    v("blocking", blocking);
    v("done", done);
    v("why", why);
    v("when", when);
    v("line", line);
  }
};

struct NoteFile {
  std::string path;
  std::string machine;
  std::string why;
  int64_t line = 0;
  template <class V>
  void visit(V& v) {
    v("path", path);
    v("machine", machine);
    v("why", why);
    v("line", line);
  }
};

struct Notes {
  std::string path;  // the file read; empty when there is none
  std::string goal;
  std::vector<NoteTarget> targets;
  std::vector<NoteMachine> machines;
  std::vector<NoteFact> facts;
  std::vector<NoteTried> tried;
  std::vector<NoteNext> next;
  std::vector<NoteFile> files;
  template <class V>
  void visit(V& v) {
    v("path", path);
    v("goal", goal);
    v("targets", targets);
    v("machines", machines);
    v("facts", facts);
    v("tried", tried);
    v("next", next);
    v("files", files);
  }
  const NoteMachine* FindMachine(const std::string& name) const {
    for (const auto& m : machines)
      if (m.name == name) return &m;
    return nullptr;
  }
};

}  // namespace dossier
