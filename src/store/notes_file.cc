#include "store/notes_file.h"

#include <sys/stat.h>
#include <toml++/toml.h>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <sstream>

#include "analyze/serve_metrics.h"
#include "store/regular_file.h"
#include "store/toml_depth.h"

namespace dossier {
namespace {

// A problem in the file, thrown inside this file only and turned into an Error at its edge.
struct NotesProblem {
  std::string message;
};

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void Fail(const toml::node& n, const std::string& what) const {
    const auto& b = n.source().begin;
    throw NotesProblem{path_ + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                       ": " + what};
  }

  // Checks every key of t is one of `allowed`.
  void OnlyKeys(const toml::table& t, const std::string& section,
                std::initializer_list<const char*> allowed) const {
    for (const auto& [k, v] : t) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || k.str() == a;
      if (ok) continue;
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      Fail(v,
           "unknown key '" + std::string(k.str()) + "' in " + section + " (expected " + list + ")");
    }
  }

  std::string Str(const toml::table& t, const char* key, bool required = false) const {
    const toml::node* n = t.get(key);
    if (!n) {
      if (required) Fail(t, "missing '" + std::string(key) + "'");
      return "";
    }
    if (auto s = n->value<std::string>(); s && n->is_string()) return *s;
    // Dates and times are fine where a "when" is wanted: keep their TOML text.
    if (n->is_date() || n->is_time() || n->is_date_time()) {
      std::ostringstream os;
      n->visit([&](const auto& x) { os << x; });
      return os.str();
    }
    Fail(*n, "'" + std::string(key) + "' must be a string (in quotes)");
  }

  bool Bool(const toml::table& t, const char* key) const {
    const toml::node* n = t.get(key);
    if (!n) return false;
    if (!n->is_boolean()) Fail(*n, "'" + std::string(key) + "' must be true or false");
    return *n->value<bool>();
  }

  double Number(const toml::table& t, const char* key) const {
    const toml::node* n = t.get(key);
    if (!n) Fail(t, "missing '" + std::string(key) + "'");
    if (!n->is_number()) Fail(*n, "'" + std::string(key) + "' must be a number");
    // TOML has inf and nan; a target of either can never be met or is always met.
    const double v = *n->value<double>();
    if (!std::isfinite(v)) Fail(*n, "'" + std::string(key) + "' must be a finite number");
    return v;
  }

  int64_t Int(const toml::table& t, const char* key) const {
    const toml::node* n = t.get(key);
    if (!n) return 0;
    if (!n->is_integer() || *n->value<int64_t>() < 1)
      Fail(*n, "'" + std::string(key) + "' must be a whole number, 1 or more");
    return *n->value<int64_t>();
  }

  std::string OneOf(const toml::table& t, const char* key, std::set<std::string> allowed,
                    bool required = false) const {
    std::string v = Str(t, key, required);
    if (v.empty() && !required) return v;
    if (!allowed.count(v)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      Fail(*t.get(key), "'" + std::string(key) + "' is '" + v + "'; expected one of " + list);
    }
    return v;
  }

  // Calls f(table, line) for every entry of the array of tables `key`.
  template <class F>
  void Each(const toml::table& root, const char* key, F f) const {
    const toml::node* n = root.get(key);
    if (!n) return;
    const toml::array* arr = n->as_array();
    if (!arr) Fail(*n, "'" + std::string(key) + "' must be written as [[" + key + "]] sections");
    for (const auto& e : *arr) {
      const toml::table* t = e.as_table();
      if (!t) Fail(e, "each [[" + std::string(key) + "]] entry must be a table");
      f(*t, static_cast<int64_t>(t->source().begin.line));
    }
  }

  Notes Read(const toml::table& root) const {
    Notes n;
    n.path = path_;
    OnlyKeys(root, "the notes", {"goal", "target", "machine", "fact", "tried", "next", "file"});
    if (const toml::node* g = root.get("goal")) {
      const toml::table* t = g->as_table();
      if (!t) Fail(*g, "'goal' must be a [goal] section with text = \"…\"");
      OnlyKeys(*t, "[goal]", {"text"});
      n.goal = Str(*t, "text");
    }
    Each(root, "target", [&](const toml::table& t, int64_t line) {
      OnlyKeys(t, "[[target]]", {"metric", "op", "value", "concurrency", "note"});
      NoteTarget x;
      x.metric = Str(t, "metric", true);
      if (!IsServeMetric(x.metric)) {
        std::string names;
        for (const auto& m : ServeMetricNames()) names += (names.empty() ? "" : ", ") + m;
        Fail(*t.get("metric"), "unknown metric '" + x.metric + "' (one of: " + names + ")");
      }
      x.op = OneOf(t, "op", {">=", ">", "<=", "<"}, true);
      x.value = Number(t, "value");
      x.concurrency = Int(t, "concurrency");
      x.note = Str(t, "note");
      x.line = line;
      n.targets.push_back(std::move(x));
    });
    Each(root, "machine", [&](const toml::table& t, int64_t line) {
      OnlyKeys(t, "[[machine]]", {"name", "role", "reachable", "instructions", "guest_of", "vm"});
      NoteMachine x;
      x.name = Str(t, "name", true);
      x.role = OneOf(t, "role", {"guest", "host", "bare-metal", "client"});
      if (t.get("reachable")) x.reachable = Bool(t, "reachable") ? "yes" : "no";
      x.instructions = Str(t, "instructions");
      x.guest_of = Str(t, "guest_of");
      x.vm = Str(t, "vm");
      x.line = line;
      n.machines.push_back(std::move(x));
    });
    Each(root, "fact", [&](const toml::table& t, int64_t line) {
      OnlyKeys(t, "[[fact]]", {"name", "value", "status", "machine", "note", "when"});
      NoteFact x;
      x.name = Str(t, "name", true);
      if (const toml::node* v = t.get("value"); v && !v->is_string()) {
        std::ostringstream os;  // true / 1 / 2.5 read as written
        v->visit([&](const auto& y) { os << y; });
        x.value = os.str();
      } else {
        x.value = Str(t, "value");
      }
      x.status = OneOf(t, "status", {"confirmed", "unknown", "just-changed"});
      if (x.status.empty()) x.status = "unknown";
      x.machine = Str(t, "machine");
      x.note = Str(t, "note");
      x.when = Str(t, "when");
      x.line = line;
      n.facts.push_back(std::move(x));
    });
    Each(root, "tried", [&](const toml::table& t, int64_t line) {
      OnlyKeys(t, "[[tried]]", {"what", "result", "machine", "when"});
      n.tried.push_back(
          {Str(t, "what", true), Str(t, "result"), Str(t, "machine"), Str(t, "when"), line});
    });
    Each(root, "next", [&](const toml::table& t, int64_t line) {
      OnlyKeys(t, "[[next]]", {"do", "verify", "machine", "blocking", "done", "why", "when"});
      NoteNext x;
      x.step = Str(t, "do", true);
      x.verify = Str(t, "verify");
      x.machine = Str(t, "machine");
      x.blocking = Bool(t, "blocking");
      x.done = Bool(t, "done");
      x.why = Str(t, "why");
      x.when = Str(t, "when");
      x.line = line;
      n.next.push_back(std::move(x));
    });
    Each(root, "file", [&](const toml::table& t, int64_t line) {
      OnlyKeys(t, "[[file]]", {"path", "machine", "why"});
      n.files.push_back({Str(t, "path", true), Str(t, "machine"), Str(t, "why"), line});
    });
    return n;
  }

 private:
  std::string path_;
};

}  // namespace

Result<Notes> ParseNotes(std::string_view text, const std::string& path) {
  if (text.size() > kMaxNotesBytes)
    return Error::TooLarge(path + ": larger than 4 MiB; not a notes file");
  // Checked before toml++ sees the text: its parser recurses per key part (store/toml_depth.h).
  if (auto deep = CheckTomlNesting(text))
    return Error::Invalid(path + ":" + std::to_string(deep->line) + ": " + deep->what +
                          "; not a notes file (the file is left as it is; fix it by hand)");
  try {
    toml::table root = toml::parse(text, std::string_view(path));
    return Reader(path).Read(root);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    return Error::Invalid(path + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                          ": " + std::string(e.description()) +
                          " (the file is left as it is; fix it by hand)");
  } catch (const NotesProblem& p) {
    return Error::Invalid(p.message + " (the file is left as it is; fix it by hand)");
  }
}

Result<Notes> ReadNotes(const std::string& path) {
  auto text = ReadRegularFile(path, kMaxNotesBytes);
  if (!text) {
    if (text.error().kind == Error::kNotFound) return Notes{};
    if (text.error().kind == Error::kTooLarge)
      return Error::TooLarge(path + ": larger than 4 MiB; not a notes file");
    return text.error();
  }
  return ParseNotes(*text, path);
}

}  // namespace dossier
