#include "mcp/tools.h"

#include <fmt/format.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>

#include "generate/generator.h"
#include "import/importer.h"
#include "util/machine_name.h"
#include "util/redact.h"
#include "util/text.h"

namespace dossier::mcp {
namespace {

using nlohmann::json;

// Limits on what a client may send. A pasted session of `lspci -vvv` for eight GPUs is about
// 300 KB; 8 MiB is room for a whole day's pastes. Every other string is a name, a short sentence
// or a list.
constexpr size_t kMaxPaste = 8u << 20;
constexpr int kMaxText = 4096;
constexpr int kMaxName = 253;

std::string Str(const json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool Bool(const json& args, const char* key) {
  auto it = args.find(key);
  return it != args.end() && it->is_boolean() && it->get<bool>();
}

// Options as one word, "--name=value": a value starting with '-' cannot be read as an option.
std::string Opt(const char* name, const std::string& value) {
  // An empty value ("--machine=") makes CLI11 read the next word as the value: never built.
  if (value.empty()) throw std::logic_error(std::string("empty value for --") + name);
  return std::string("--") + name + "=" + value;
}

void AddIf(std::vector<std::string>& argv, const json& args, const char* key, const char* opt) {
  if (std::string v = Str(args, key); !v.empty()) argv.push_back(Opt(opt, v));
}

Error Invalid(std::string m) {
  return Error::Invalid(std::move(m));
}

// Machine names reach records, units and XML: the CLI's rule (util/machine_name.h), said here
// before a child starts so the error is the call's, not a command's.
std::string NameProblem(const json& args, const char* key) {
  std::string v = Str(args, key);
  if (v.empty()) return "";
  if (std::string why = MachineNameProblem(v); !why.empty())
    return fmt::format("arguments.{}: {}", key, why);
  return "";
}

Result<Invocation> Needing(const char* flag, const char* what) {
  return Error::Permission(fmt::format(
      "{} needs the server to be started with {} (dossier mcp {} …); it was not, so nothing was "
      "done. The person who configured this MCP server decides that.",
      what, flag, flag));
}

Invocation Base(const ServerOptions& o, std::initializer_list<std::string> words) {
  Invocation inv;
  inv.argv.assign(words.begin(), words.end());
  inv.argv.push_back(Opt("dossier", o.dossier_dir));
  return inv;
}

ToolResult Failed(const Ran& ran, const std::string& what) {
  ToolResult r;
  r.is_error = true;
  std::string why = ran.timed_out       ? "it ran past its time limit and was stopped"
                    : ran.exit_code < 0 ? "it was killed by a signal"
                                        : fmt::format("exit code {}", ran.exit_code);
  r.text = fmt::format("{} failed ({})", what, why);
  if (!ran.err.empty()) r.text += ":\n" + ran.err;
  return r;
}

// A child's stdout as JSON; nullopt when it is not (a failure said on stderr).
std::optional<json> JsonOut(const Ran& ran) {
  if (ran.truncated) return std::nullopt;
  json j = json::parse(ran.out, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

ToolResult Structured(json j) {
  ToolResult r;
  r.text = j.dump(2, ' ', false, json::error_handler_t::replace);
  r.structured = std::move(j);
  return r;
}

json Obj(std::initializer_list<std::pair<const char*, json>> props, std::vector<std::string> req,
         bool closed = true) {
  json s = {{"type", "object"}, {"properties", json::object()}};
  for (const auto& [k, v] : props) s["properties"][k] = v;
  if (!req.empty()) s["required"] = req;
  if (closed) s["additionalProperties"] = false;
  return s;
}

json StrSchema(const char* what, int max = kMaxText) {
  return {{"type", "string"}, {"maxLength", max}, {"description", what}};
}
// Never empty: an empty option value ("--machine=") makes CLI11 take the next word as the value.
json NameSchema(const char* what) {
  json s = StrSchema(what, kMaxName);
  s["minLength"] = 1;
  return s;
}
json EnumSchema(std::vector<std::string> values, const char* what) {
  return {{"type", "string"}, {"enum", values}, {"description", what}};
}
json IntSchema(int64_t lo, int64_t hi, const char* what) {
  return {{"type", "integer"}, {"minimum", lo}, {"maximum", hi}, {"description", what}};
}
json BoolSchema(const char* what) {
  return {{"type", "boolean"}, {"description", what}};
}
json AnyObjectOut() {
  return {{"type", "object"}};
}

// ----------------------------------------------------------------------------------------------
// summary, report, findings, facts: the report's JSON (`dossier report --format json`).

Result<Invocation> PlanReportJson(const json& args, const ServerOptions& o) {
  if (std::string p = NameProblem(args, "machine"); !p.empty()) return Invalid(p);
  Invocation inv = Base(o, {"report", "--format=json"});
  AddIf(inv.argv, args, "machine", "machine");
  return inv;
}

json SummaryIn() {
  return Obj({{"machine", NameSchema("only this machine's blockers and steps")}}, {});
}
json SummaryOut() {
  return Obj({{"goal", {{"type", "string"}}},
              {"targets", {{"type", "array"}, {"description", "with their latest measured value"}}},
              {"blocked_by", {{"type", "array"}, {"description", "blockers, each with its fix"}}},
              {"next_steps", {{"type", "array"}}},
              {"known_not_to_help", {{"type", "array"}}},
              {"stale", {{"type", "array"}}},
              {"warnings", {{"type", "array"}}}},
             {"goal", "targets", "blocked_by", "next_steps", "known_not_to_help"}, false);
}
ToolResult FinishSummary(const json&, const ServerOptions&, const Ran& ran) {
  auto r = JsonOut(ran);
  if (ran.exit_code != 0 || !r) return Failed(ran, "dossier report");
  const json& s = (*r)["summary"];
  auto arr = [](const json& j, const char* k) {
    return j.is_object() && j.contains(k) && j[k].is_array() ? j[k] : json::array();
  };
  json goal = s.is_object() && s.contains("goal") && s["goal"].is_string() ? s["goal"] : json("");
  json targets = r->contains("goal") && (*r)["goal"].is_object() ? arr((*r)["goal"], "targets")
                                                                 : json::array();
  return Structured({{"goal", goal},
                     {"targets", targets},
                     {"blocked_by", arr(s, "blocked_by")},
                     {"next_steps", arr(s, "now")},
                     {"known_not_to_help", arr(s, "known_not_to_help")},
                     {"stale", arr(s, "stale")},
                     {"warnings", arr(*r, "warnings")}});
}

json ReportIn() {
  return Obj({{"format", EnumSchema({"md", "json"}, "md (default) or json")},
              {"machine", NameSchema("only this machine")},
              {"section", StrSchema("one section: a Markdown heading's words (md), or a key of "
                                    "the report or of the machine (json: gpus, findings, pci…)",
                                    128)}},
             {});
}
json ReportOut() {
  return Obj({{"format", EnumSchema({"md", "json"}, "")},
              {"machine", {{"type", "string"}}},
              {"section", {{"type", "string"}}},
              {"markdown", {{"type", "string"}}},
              {"report", {{"description", "the report's JSON, or the section's value"}}}},
             {"format"});
}
Result<Invocation> PlanReport(const json& args, const ServerOptions& o) {
  if (std::string p = NameProblem(args, "machine"); !p.empty()) return Invalid(p);
  Invocation inv =
      Base(o, {"report", Opt("format", Str(args, "format") == "json" ? "json" : "md")});
  AddIf(inv.argv, args, "machine", "machine");
  return inv;
}

// The lines under the first heading whose words contain `section`, up to the next heading of the
// same or a higher level; nullopt with the headings there are.
std::optional<std::string> MarkdownSection(const std::string& md, const std::string& section,
                                           std::string& headings) {
  std::string want = ToLower(section);
  size_t pos = 0, start = std::string::npos;
  int level = 0;
  bool fence = false;
  while (pos < md.size()) {
    size_t end = md.find('\n', pos);
    if (end == std::string::npos) end = md.size();
    std::string_view line(md.data() + pos, end - pos);
    if (line.starts_with("```")) fence = !fence;
    size_t hashes = 0;
    while (!fence && hashes < line.size() && line[hashes] == '#') ++hashes;
    if (hashes > 0 && hashes <= 6 && hashes < line.size() && line[hashes] == ' ') {
      if (start != std::string::npos && static_cast<int>(hashes) <= level)
        return md.substr(start, pos - start);
      if (start == std::string::npos) {
        std::string words(line.substr(hashes + 1));
        if (ToLower(words).find(want) != std::string::npos) {
          start = pos;
          level = static_cast<int>(hashes);
        } else if (hashes <= 3 && headings.size() < 2000) {
          headings += (headings.empty() ? "" : "; ") + words;
        }
      }
    }
    pos = end + 1;
  }
  if (start != std::string::npos) return md.substr(start);
  return std::nullopt;
}

ToolResult FinishReport(const json& args, const ServerOptions&, const Ran& ran) {
  if (ran.exit_code != 0) return Failed(ran, "dossier report");
  std::string section = Str(args, "section");
  json out = {{"format", Str(args, "format") == "json" ? "json" : "md"}};
  if (!Str(args, "machine").empty()) out["machine"] = Str(args, "machine");
  if (!section.empty()) out["section"] = section;
  if (out["format"] == "md") {
    std::string md = ran.out;
    if (!section.empty()) {
      std::string headings;
      auto s = MarkdownSection(ran.out, section, headings);
      if (!s) {
        ToolResult r;
        r.is_error = true;
        r.text =
            fmt::format("no heading of the report holds '{}'; its headings: {}", section, headings);
        return r;
      }
      md = *s;
    }
    out["markdown"] = md;
    ToolResult r;
    r.text = md;
    r.structured = std::move(out);
    return r;
  }
  auto j = JsonOut(ran);
  if (!j) return Failed(ran, "dossier report --format json");
  if (section.empty()) {
    out["report"] = std::move(*j);
  } else {
    // A key of the one machine asked for, else of the report itself.
    const json* where = nullptr;
    if (j->contains("machines") && (*j)["machines"].is_array() && !Str(args, "machine").empty()) {
      for (const auto& m : (*j)["machines"])
        if (m.value("name", "") == Str(args, "machine") && m.contains(section)) where = &m[section];
    }
    if (!where && j->contains(section)) where = &(*j)[section];
    if (!where) {
      ToolResult r;
      r.is_error = true;
      std::string keys;
      for (const auto& [k, v] : j->items()) keys += (keys.empty() ? "" : ", ") + k;
      r.text = fmt::format(
          "no section '{}' in the report (its keys: {}; a machine's keys, with 'machine': gpus, "
          "findings, pci, numa, iommu, software…)",
          section, keys);
      return r;
    }
    out["report"] = *where;
  }
  ToolResult r = Structured(std::move(out));
  return r;
}

json FindingsIn() {
  return Obj({{"machine", NameSchema("only this machine's findings")},
              {"severity", EnumSchema({"critical", "warning", "info"}, "only this severity")},
              {"id", StrSchema("a rule id or its prefix: 'p2p.' for every P2P finding", 128)}},
             {});
}
json FindingsOut() {
  return Obj({{"findings",
               {{"type", "array"},
                {"items",
                 {{"type", "object"},
                  {"required", {"machine", "id", "severity", "title"}},
                  {"properties",
                   {{"machine", {{"type", "string"}}},
                    {"id", {{"type", "string"}}},
                    {"severity", {{"type", "string"}}},
                    {"title", {{"type", "string"}}}}}}}}},
              {"count", {{"type", "integer"}}}},
             {"findings", "count"});
}
ToolResult FinishFindings(const json& args, const ServerOptions&, const Ran& ran) {
  auto j = JsonOut(ran);
  if (ran.exit_code != 0 || !j) return Failed(ran, "dossier report");
  std::string sev = Str(args, "severity"), id = Str(args, "id");
  json list = json::array();
  for (const auto& m : j->value("machines", json::array())) {
    for (const auto& f : m.value("findings", json::array())) {
      if (!sev.empty() && f.value("severity", "") != sev) continue;
      if (!id.empty() && !f.value("id", "").starts_with(id)) continue;
      json e = f;
      e["machine"] = m.value("name", "");
      list.push_back(std::move(e));
    }
  }
  size_t n = list.size();
  return Structured({{"findings", std::move(list)}, {"count", n}});
}

json FactsIn() {
  return Obj({{"machine", NameSchema("the machine, as the report names it")},
              {"pointer", StrSchema("a JSON pointer into the machine's view, e.g. /gpus/0/link "
                                    "or /iommu/groups; empty for the whole view",
                                    1024)}},
             {"machine"});
}
json FactsOut() {
  return Obj({{"machine", {{"type", "string"}}},
              {"pointer", {{"type", "string"}}},
              {"value", {{"description", "the value there (null is a value: unknown)"}}},
              {"provenance",
               {{"type", "object"},
                {"description",
                 "for each pointer at or under this one: where the value was read ('from') and, "
                 "when it could not be, why ('unknown')"}}}},
             {"machine", "pointer", "value", "provenance"});
}
Result<Invocation> PlanFacts(const json& args, const ServerOptions& o) {
  std::string p = Str(args, "pointer");
  try {
    json::json_pointer ptr(p);
  } catch (const json::exception& e) {
    return Invalid(
        "arguments.pointer: not a JSON pointer (RFC 6901: empty, or '/' then keys "
        "separated by '/', '~0' for '~' and '~1' for '/'): " +
        std::string(e.what()));
  }
  return PlanReportJson(args, o);
}
ToolResult FinishFacts(const json& args, const ServerOptions&, const Ran& ran) {
  auto j = JsonOut(ran);
  if (ran.exit_code != 0 || !j) return Failed(ran, "dossier report");
  std::string name = Str(args, "machine"), p = Str(args, "pointer");
  const json* machine = nullptr;
  std::string names;
  // A named copy: a pointer into the temporary of a range-for over value() would dangle.
  const json machines = j->value("machines", json::array());
  for (const auto& m : machines) {
    names += (names.empty() ? "" : ", ") + m.value("name", "");
    if (m.value("name", "") == name) machine = &m;
  }
  ToolResult err;
  err.is_error = true;
  if (!machine) {
    err.text = fmt::format("no machine '{}' in the dossier (machines: {})", name,
                           names.empty() ? "none" : names);
    return err;
  }
  json view = *machine;
  json provenance = view.contains("provenance") ? view["provenance"] : json::object();
  view.erase(std::string("provenance"));
  json::json_pointer ptr(p);
  if (!view.contains(ptr)) {
    std::string keys;
    for (const auto& [k, v] : view.items()) keys += (keys.empty() ? "" : ", ") + k;
    err.text = fmt::format("nothing at {} in {}'s view (its keys: {})", p, name, keys);
    return err;
  }
  json prov = json::object();
  if (provenance.is_object()) {
    for (const auto& [k, v] : provenance.items())
      if (p.empty() || k == p || k.starts_with(p + "/") || p.starts_with(k + "/")) prov[k] = v;
  }
  return Structured(
      {{"machine", name}, {"pointer", p}, {"value", view.at(ptr)}, {"provenance", prov}});
}

// ----------------------------------------------------------------------------------------------
// import, note, collect: what writes to the dossier.

std::vector<std::string> ImporterNames() {
  std::vector<std::string> v;
  for (const auto& i : import::ImporterTable()) v.push_back(i.name);
  return v;
}

json ImportIn() {
  json text = {{"type", "string"},
               {"maxLength", kMaxPaste},
               {"description", "the pasted outputs, one or many (a whole terminal session)"}};
  return Obj({{"text", text},
              {"machine", NameSchema("the machine the outputs came from")},
              {"as", EnumSchema(ImporterNames(),
                                "read the text as this format (default: "
                                "detected from the content)")},
              {"pair", StrSchema("A-B: the GPU pair a pasted bandwidth table is about", 32)}},
             {"text", "machine"});
}
json ImportOut() {
  return Obj({{"stored", {{"type", "boolean"}}},
              {"machine", {{"type", "string"}}},
              {"summary", {{"type", "string"}, {"description", "what was read, part by part"}}},
              {"view", {{"type", "object"}, {"description", "the machine as imported"}}}},
             {"stored", "machine", "summary"});
}
Result<Invocation> PlanImport(const json& args, const ServerOptions& o) {
  if (std::string p = NameProblem(args, "machine"); !p.empty()) return Invalid(p);
  Invocation inv = Base(o, {"import", Opt("machine", Str(args, "machine"))});
  AddIf(inv.argv, args, "as", "as");
  AddIf(inv.argv, args, "pair", "pair");
  // Without --allow-write the import is read and shown, not stored.
  if (!o.allow_write) inv.argv.push_back("--format=json");
  inv.argv.insert(inv.argv.end(), {"--", "-"});
  inv.input = Str(args, "text");
  return inv;
}
ToolResult FinishImport(const json& args, const ServerOptions& o, const Ran& ran) {
  if (ran.exit_code != 0) return Failed(ran, "dossier import");
  json out = {{"stored", o.allow_write}, {"machine", Str(args, "machine")}, {"summary", ran.err}};
  if (!o.allow_write) {
    auto j = JsonOut(ran);
    if (!j) return Failed(ran, "dossier import --format json");
    out["view"] = std::move(*j);
  }
  return Structured(std::move(out));
}

json NoteIn() {
  return Obj(
      {{"kind", EnumSchema({"goal", "target", "machine", "fact", "tried", "next", "done", "file"},
                           "what to note")},
       {"text", StrSchema("goal: the goal; target: 'METRIC OP VALUE [at concurrency N]'; fact: "
                          "its name; tried: what was tried; next: the step; file: its path")},
       {"value", StrSchema("fact: its value")},
       {"machine", NameSchema("which machine (for machine: the one added or updated)")},
       {"status", EnumSchema({"confirmed", "unknown", "just-changed"}, "fact: how sure")},
       {"result", StrSchema("tried: what happened")},
       {"verify", StrSchema("next: the command that shows it worked")},
       {"blocking", BoolSchema("next: nothing else can go on until it is done")},
       {"why", StrSchema("next, file: why")},
       {"note", StrSchema("target, fact: anything else")},
       {"when", StrSchema("fact, tried, done: an ISO time (UTC), 'now' or 'before-collect N'", 64)},
       {"role", EnumSchema({"guest", "host", "bare-metal", "client"}, "machine: its role")},
       {"reachable", EnumSchema({"yes", "no"}, "machine: can dossier run there")},
       {"instructions", StrSchema("machine: how to work on it")},
       {"host", NameSchema("machine (a guest): its host")},
       {"vm", StrSchema("machine (a guest): its VM id on the host", 128)},
       {"n", IntSchema(1, 100000, "done: the step's number, as the notes number them")}},
      {"kind"});
}
json NoteOut() {
  return Obj({{"kind", {{"type", "string"}}}, {"message", {{"type", "string"}}}},
             {"kind", "message"});
}
Result<Invocation> PlanNote(const json& args, const ServerOptions& o) {
  if (!o.allow_write) return Needing("--allow-write", "note");
  for (const char* k : {"machine", "host"})
    if (std::string p = NameProblem(args, k); !p.empty()) return Invalid(p);
  std::string kind = Str(args, "kind");
  Invocation inv;
  inv.argv = {"note", Opt("dossier", o.dossier_dir), kind};
  std::vector<std::string> pos;
  auto need = [&](const char* key, const char* what) -> std::optional<Error> {
    std::string v = Str(args, key);
    if (v.empty())
      return Invalid(fmt::format("arguments.{}: note {} needs it ({})", key, kind, what));
    pos.push_back(v);
    return std::nullopt;
  };
  std::optional<Error> e;
  // Options each kind takes (the CLI refuses others: a stray one is a usage error there).
  std::vector<std::pair<const char*, const char*>> opts;
  if (kind == "goal") {
    e = need("text", "the goal");
  } else if (kind == "target") {
    e = need("text", "'METRIC OP VALUE [at concurrency N]'");
    opts = {{"note", "note"}};
  } else if (kind == "machine") {
    e = need("machine", "the machine's name");
    opts = {{"role", "role"},
            {"reachable", "reachable"},
            {"instructions", "instructions"},
            {"host", "host"},
            {"vm", "vm"}};
  } else if (kind == "fact") {
    e = need("text", "the fact's name");
    if (!e) e = need("value", "its value");
    opts = {{"status", "status"}, {"machine", "machine"}, {"note", "note"}, {"when", "when"}};
  } else if (kind == "tried") {
    e = need("text", "what was tried");
    opts = {{"result", "result"}, {"machine", "machine"}, {"when", "when"}};
  } else if (kind == "next") {
    e = need("text", "the step");
    opts = {{"verify", "verify"}, {"machine", "machine"}, {"why", "why"}};
    if (Bool(args, "blocking")) inv.argv.push_back("--blocking");
  } else if (kind == "done") {
    if (!args.contains("n")) return Invalid("arguments.n: note done needs the step's number");
    pos.push_back(std::to_string(args["n"].get<int64_t>()));
    opts = {{"when", "when"}};
  } else if (kind == "file") {
    e = need("text", "the file's path");
    opts = {{"machine", "machine"}, {"why", "why"}};
  }
  if (e) return *e;
  for (const auto& [key, opt] : opts) AddIf(inv.argv, args, key, opt);
  inv.argv.push_back("--");
  inv.argv.insert(inv.argv.end(), pos.begin(), pos.end());
  inv.limit_s = 60;
  return inv;
}
ToolResult FinishNote(const json& args, const ServerOptions&, const Ran& ran) {
  if (ran.exit_code != 0) return Failed(ran, "dossier note");
  std::string msg = ran.out + ran.err;
  return Structured({{"kind", Str(args, "kind")}, {"message", msg}});
}

json CollectIn() {
  return Obj({{"root", StrSchema("a captured machine tree (its sys/ and proc/) inside a "
                                 "directory the server allows with --allow-root; default: this "
                                 "machine, live",
                                 PATH_MAX)},
              {"machine", NameSchema("the machine's name (default: its hostname)")}},
             {});
}
json CollectOut() {
  return Obj(
      {{"stored", {{"type", "boolean"}}},
       {"message", {{"type", "string"}}},
       {"report", {{"type", "object"}, {"description", "the machine's report (not stored)"}}}},
      {"stored"});
}
// The root must resolve inside one of the allowed directories: a client cannot point collect at
// /etc or at ~ of the user running the server.
Result<std::string> AllowedRoot(const std::string& root, const ServerOptions& o) {
  if (o.allowed_roots.empty())
    return Error::Permission(
        "collect with a root needs the server to be started with --allow-root DIR (the "
        "directory holding captured trees); it was not, so nothing was read");
  char buf[PATH_MAX];
  if (!::realpath(root.c_str(), buf))
    return Invalid(fmt::format("arguments.root: {}: not found", root));
  std::string real = buf;
  for (const auto& a : o.allowed_roots)
    if (real == a || real.starts_with(a == "/" ? a : a + "/")) return real;
  return Invalid(
      fmt::format("arguments.root: {} is outside the directories the server allows "
                  "(--allow-root)",
                  root));
}
Result<Invocation> PlanCollect(const json& args, const ServerOptions& o) {
  if (std::string p = NameProblem(args, "machine"); !p.empty()) return Invalid(p);
  Invocation inv = Base(o, {"collect", "-q"});
  if (std::string root = Str(args, "root"); !root.empty() || args.contains("root")) {
    auto real = AllowedRoot(root, o);
    if (!real) return real.error();
    inv.argv.push_back(Opt("root", *real));
  }
  AddIf(inv.argv, args, "machine", "machine");
  if (!o.allow_write) inv.argv.push_back("--format=json");
  return inv;
}
ToolResult FinishCollect(const json&, const ServerOptions& o, const Ran& ran) {
  if (ran.exit_code != 0) return Failed(ran, "dossier collect");
  if (o.allow_write) return Structured({{"stored", true}, {"message", ran.err}});
  auto j = JsonOut(ran);
  if (!j) return Failed(ran, "dossier collect --format json");
  return Structured({{"stored", false}, {"message", ran.err}, {"report", std::move(*j)}});
}

// ----------------------------------------------------------------------------------------------
// diff, generate: read the dossier, return text.

json DiffIn() {
  json records = {{"type", "array"},
                  {"items", {{"type", "integer"}, {"minimum", 1}, {"maximum", 999999}}},
                  {"minItems", 2},
                  {"maxItems", 2},
                  {"description", "two records by sequence number (A B)"}};
  return Obj({{"machine", NameSchema("the machine whose last two states to compare")},
              {"records", records}},
             {});
}
Result<Invocation> PlanDiff(const json& args, const ServerOptions& o) {
  if (std::string p = NameProblem(args, "machine"); !p.empty()) return Invalid(p);
  Invocation inv = Base(o, {"diff", "--format=json"});
  AddIf(inv.argv, args, "machine", "machine");
  if (args.contains("records")) {
    inv.argv.push_back("--");
    for (const auto& r : args["records"]) inv.argv.push_back(std::to_string(r.get<int64_t>()));
  }
  return inv;
}
ToolResult FinishDiff(const json&, const ServerOptions&, const Ran& ran) {
  auto j = JsonOut(ran);
  if (ran.exit_code != 0 || !j || !j->is_object()) return Failed(ran, "dossier diff");
  return Structured(std::move(*j));
}

std::vector<std::string> GeneratorNames() {
  std::vector<std::string> v;
  for (const auto& g : GeneratorTable()) v.push_back(g.name);
  return v;
}
json GenerateIn() {
  return Obj({{"name", EnumSchema(GeneratorNames(), "the artifact")},
              {"machine", NameSchema("the machine it is for")},
              {"diff", BoolSchema("pve-mapping: a unified diff against the current file")}},
             {"name"});
}
json GenerateOut() {
  return Obj({{"name", {{"type", "string"}}},
              {"text", {{"type", "string"}, {"description", "the artifact"}}},
              {"notes", {{"type", "string"}, {"description", "how to use it, how to verify it"}}}},
             {"name", "text", "notes"});
}
Result<Invocation> PlanGenerate(const json& args, const ServerOptions& o) {
  if (std::string p = NameProblem(args, "machine"); !p.empty()) return Invalid(p);
  // Never --output or --textfile-dir: the artifact comes back as text, no file is written.
  Invocation inv;
  inv.argv = {"generate", Str(args, "name"), Opt("dossier", o.dossier_dir)};
  AddIf(inv.argv, args, "machine", "machine");
  if (Bool(args, "diff")) inv.argv.push_back("--diff");
  return inv;
}
ToolResult FinishGenerate(const json& args, const ServerOptions&, const Ran& ran) {
  if (ran.exit_code != 0) return Failed(ran, "dossier generate");
  return Structured({{"name", Str(args, "name")}, {"text", ran.out}, {"notes", ran.err}});
}

// ----------------------------------------------------------------------------------------------
// p2p, serve_bench: measurements, bounded by the call's time limit.

json MeasureOut() {
  return Obj({{"stored", {{"type", "boolean"}}},
              {"complete", {{"type", "boolean"}, {"description", "false: stopped early"}}},
              {"result", {{"type", "object"}}},
              {"log", {{"type", "string"}}}},
             {"stored", "complete", "result"});
}
json P2pIn() {
  json secs = {{"type", "number"},
               {"minimum", 1},
               {"maximum", 3600},
               {"description",
                "time limit for the whole run, in seconds (default 120); what was "
                "measured by then is kept"}};
  return Obj(
      {{"seconds", secs},
       {"pairs", StrSchema("ordered GPU pairs by CUDA ordinal, e.g. 0-1,2-3 (default all)", 512)},
       {"sizes", StrSchema("message sizes, e.g. 4K,16M (default 4K..256M)", 256)},
       {"reps", IntSchema(1, 100, "timed batches per result (default 5)")},
       {"no_host", BoolSchema("skip host<->GPU copies")},
       {"no_local", BoolSchema("skip device-local copies")},
       {"machine", NameSchema("machine name for the record (default: the hostname)")}},
      {});
}
double Seconds(const json& args, double def) {
  auto it = args.find("seconds");
  return it != args.end() && it->is_number() ? it->get<double>() : def;
}
Result<Invocation> PlanP2p(const json& args, const ServerOptions& o) {
  if (!o.allow_measure) return Needing("--allow-measure", "p2p");
  if (std::string p = NameProblem(args, "machine"); !p.empty()) return Invalid(p);
  double secs = Seconds(args, 120);
  Invocation inv = Base(o, {"p2p", "--format=json", Opt("timeout", fmt::format("{}", secs))});
  // The libraries are the person's choice, never the client's: a path from the client would be
  // code loaded into a process of this user.
  if (!o.cuda_lib.empty()) inv.argv.push_back(Opt("cuda-lib", o.cuda_lib));
  if (!o.nvml_lib.empty()) inv.argv.push_back(Opt("nvml-lib", o.nvml_lib));
  AddIf(inv.argv, args, "pairs", "pairs");
  AddIf(inv.argv, args, "sizes", "sizes");
  AddIf(inv.argv, args, "machine", "machine");
  if (args.contains("reps"))
    inv.argv.push_back(Opt("reps", std::to_string(args["reps"].get<int>())));
  if (Bool(args, "no_host")) inv.argv.push_back("--no-host");
  if (Bool(args, "no_local")) inv.argv.push_back("--no-local");
  // Stored as the CLI stores it (an append-only record; a stopped run keeps what it measured):
  // --allow-measure is the permission for the measurement and its record.
  inv.limit_s = secs + 30;  // the command's own --timeout ends it first
  return inv;
}
ToolResult FinishMeasure(const Ran& ran, const char* what, const char* interrupted_key) {
  auto j = JsonOut(ran);
  // Exit code 1 with a result is a measurement that found failures or was stopped: a result.
  if (!j || !j->is_object() || (ran.exit_code != 0 && ran.exit_code != 1)) return Failed(ran, what);
  bool stopped = ran.timed_out || j->value(interrupted_key, false);
  std::string log = ran.err.size() > 16384 ? ran.err.substr(ran.err.size() - 16384) : ran.err;
  return Structured(
      {{"stored", true}, {"complete", !stopped}, {"result", std::move(*j)}, {"log", log}});
}
ToolResult FinishP2p(const json&, const ServerOptions&, const Ran& ran) {
  return FinishMeasure(ran, "dossier p2p", "interrupted");
}

json ServeBenchIn() {
  json secs = {{"type", "number"},
               {"minimum", 1},
               {"maximum", 86400},
               {"description", "time limit for the whole benchmark, in seconds (default 600)"}};
  return Obj({{"url", StrSchema("the server, e.g. http://127.0.0.1:30000", 2048)},
              {"seconds", secs},
              {"api", EnumSchema({"completions", "chat"}, "default completions")},
              {"model", StrSchema("model name (default: the first of /v1/models)", 512)},
              {"concurrency", StrSchema("requests in flight, one run per level: 1,8,64", 128)},
              {"num_prompts", IntSchema(1, 100000, "requests per run")},
              {"input_len", IntSchema(1, 1000000, "prompt tokens (default 1024)")},
              {"output_len", IntSchema(1, 1000000, "tokens to generate (default 128)")},
              {"machine", NameSchema("machine name for the record (default: the hostname)")}},
             {"url"});
}
Result<Invocation> PlanServeBench(const json& args, const ServerOptions& o) {
  if (!o.allow_measure) return Needing("--allow-measure", "serve_bench");
  if (std::string p = NameProblem(args, "machine"); !p.empty()) return Invalid(p);
  double secs = Seconds(args, 600);
  Invocation inv =
      Base(o, {"serve-bench", "--format=json", Opt("deadline", fmt::format("{}", secs))});
  AddIf(inv.argv, args, "api", "api");
  AddIf(inv.argv, args, "model", "model");
  AddIf(inv.argv, args, "concurrency", "concurrency");
  AddIf(inv.argv, args, "machine", "machine");
  for (const char* k : {"num_prompts", "input_len", "output_len"}) {
    if (!args.contains(k)) continue;
    std::string opt(k);
    std::replace(opt.begin(), opt.end(), '_', '-');
    inv.argv.push_back(Opt(opt.c_str(), std::to_string(args[k].get<int64_t>())));
  }
  inv.argv.insert(inv.argv.end(), {"--", Str(args, "url")});
  inv.limit_s = secs + 60;
  return inv;
}
ToolResult FinishServeBench(const json&, const ServerOptions&, const Ran& ran) {
  return FinishMeasure(ran, "dossier serve-bench", "interrupted");
}

}  // namespace

const std::vector<Tool>& ToolTable() {
  static const std::vector<Tool> kTools = {
      {"summary", "Summary",
       "The report's first screen as data: the goal, targets with their latest values, what "
       "blocks (each with its fix and the command that verifies it), the next steps, and what "
       "is known not to help.",
       Tool::kRead, SummaryIn, SummaryOut, PlanReportJson, FinishSummary},
      {"report", "Report",
       "The dossier's report: every machine's hardware, wiring, software, findings and steps, "
       "each fact with its source. Markdown or JSON; one machine or one section.",
       Tool::kRead, ReportIn, ReportOut, PlanReport, FinishReport},
      {"findings", "Findings",
       "What the analysis found (why things are slow or broken, what will and will not help), "
       "filtered by machine, severity or rule id.",
       Tool::kRead, FindingsIn, FindingsOut, PlanReportJson, FinishFindings},
      {"facts", "Facts",
       "One value of a machine's view by JSON pointer, with where it was read and, when it "
       "could not be, why. Unknown is a value: null with its reason.",
       Tool::kRead, FactsIn, FactsOut, PlanFacts, FinishFacts},
      {"import", "Import pasted outputs",
       "Read outputs a person pasted back from a machine dossier cannot run on (nvidia-smi, "
       "lspci, IOMMU groups, dmesg, NCCL logs, benchmark results…). Stored only when the server "
       "allows writing; otherwise shown as read.",
       Tool::kRead, ImportIn, ImportOut, PlanImport, FinishImport},
      {"note", "Note",
       "Edit the notes: the goal, a target, a machine, a fact no probe can read, what was tried "
       "and what happened, a next step, a step done, a file that matters. Needs --allow-write.",
       Tool::kWrite, NoteIn, NoteOut, PlanNote, FinishNote},
      {"collect", "Collect",
       "Probe this machine (or a captured tree under a directory the server allows) and store "
       "a record when the server allows writing; otherwise return the machine's report.",
       Tool::kRead, CollectIn, CollectOut, PlanCollect, FinishCollect},
      {"diff", "Diff",
       "What changed between two states of a machine (default: its last two): devices, IOMMU "
       "groups, links, drivers, kernel command line, software, findings.",
       Tool::kRead, DiffIn, AnyObjectOut, PlanDiff, FinishDiff},
      {"generate", "Generate an artifact",
       "The text of an artifact that acts on what was found (NCCL topology file, NUMA unit, "
       "corrected Proxmox mapping, QEMU args, Prometheus metrics) and how to verify it. Never "
       "writes a file.",
       Tool::kRead, GenerateIn, GenerateOut, PlanGenerate, FinishGenerate},
      {"p2p", "Measure GPU copies",
       "Measure GPU<->GPU and host<->GPU copies over message sizes, checking every byte, within "
       "the call's time limit; progress is notified, cancelling keeps what was measured (a p2p "
       "record, as the CLI stores it). Needs --allow-measure.",
       Tool::kMeasure, P2pIn, MeasureOut, PlanP2p, FinishP2p},
      {"serve_bench", "Benchmark a serving endpoint",
       "Measure an OpenAI-compatible endpoint (TTFT, ITL, TPOT, throughput) within the call's "
       "time limit, stored as a serve-bench record. Needs --allow-measure.",
       Tool::kMeasure, ServeBenchIn, MeasureOut, PlanServeBench, FinishServeBench},
  };
  return kTools;
}

const Tool* FindTool(std::string_view name) {
  for (const auto& t : ToolTable())
    if (name == t.name) return &t;
  return nullptr;
}

nlohmann::json RedactJson(const nlohmann::json& j) {
  if (j.is_string()) return RedactText(j.get_ref<const std::string&>());
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : j) out.push_back(RedactJson(v));
    return out;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : j.items()) out[k] = RedactJson(v);
    return out;
  }
  return j;
}

}  // namespace dossier::mcp
