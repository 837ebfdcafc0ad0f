// A `dossier collect --format json` (or `dossier report --format json`) file from another machine:
// the way to bring a host in when a person can run the binary there but dossier cannot reach it.
// Its machines are read back through the same JSON contract (model/json_io.h); the facts keep the
// sources they had there, prefixed with the file they came in.
#include <nlohmann/json.hpp>

#include "import/import_text.h"
#include "model/fact_paths.h"
#include "model/json_io.h"
#include "util/text.h"

namespace dossier::import {
namespace {

// A compact dump (one line, no spaces) names its schema as "schema":"dossier/1".
bool SchemaLine(const std::string& t) {
  return t.find("\"schema\": \"dossier/") != std::string::npos ||
         t.find("\"schema\":\"dossier/") != std::string::npos;
}

bool JsonStarts(const Lines& lines, size_t i) {
  // dump(2) writes "{" alone on the first line and the keys sorted, "schema" far below; a
  // compact dump is one line.
  const std::string& t = lines[i].text;
  return t == "{" || (t.starts_with("{") && t.ends_with("}") && SchemaLine(t));
}

int JsonDetect(const Lines& lines) {
  if (lines.empty() || !Trim(lines.front().text).starts_with("{")) return 0;
  for (const auto& l : lines)
    if (SchemaLine(l.text)) return 95;
  return 0;
}

Status JsonParse(const Lines& lines, const ImportSource& src, Imported* out) {
  std::string text;
  for (const auto& l : lines) text += l.text + "\n";
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return Error::Invalid("not a JSON document (cut off? a dossier JSON file is read whole)");
  auto schema = j.find("schema");
  if (schema == j.end() || !schema->is_string() ||
      !schema->get<std::string>().starts_with("dossier/"))
    return Error::Invalid("JSON without \"schema\": \"dossier/1\"");
  auto ms = j.find("machines");
  if (ms == j.end() || !ms->is_array() || ms->empty())
    return Error::Invalid("a dossier JSON file without machines");
  if (ms->size() > 1)
    out->notes.push_back(src.file + ": holds " + std::to_string(ms->size()) +
                         " machines; the first is imported");
  std::vector<std::string> warnings;
  const nlohmann::json& mj = (*ms)[0].contains("machine") ? (*ms)[0]["machine"] : (*ms)[0];
  Machine m = MachineFromJson(mj, &warnings);
  for (auto& w : warnings) out->notes.push_back(src.file + ": " + w);
  std::string prefix = src.At(lines.front().number) + ", there: ";
  WalkPaths(m, [&](const std::string&, auto& leaf) {
    if constexpr (IsFactType<std::remove_reference_t<decltype(leaf)>>::value) {
      if (leaf.known()) {
        leaf.source = prefix + leaf.source;
        ++out->facts;
      }
    }
  });
  // The file is a whole machine and is read in place of what the import holds: after other
  // parts or files of the same import it would drop what they said. Refused instead, with what to
  // do; before them, it is the base they add to.
  Machine empty;
  empty.name = out->machine.name;
  if (MachineToJson(out->machine) != MachineToJson(empty))
    return Error::Invalid(
        "a dossier JSON file is a whole machine, and this import already holds facts read before "
        "it; import the JSON file first or on its own (a dossier import of its own, same "
        "--machine)");
  std::string keep_name = out->machine.name;
  out->machine = std::move(m);
  out->machine.name = keep_name;
  return OkStatus();
}

}  // namespace

Importer CollectJsonImporter() {
  return {"dossier-json",
          "dossier collect --format json from another machine: its facts, sources kept",
          {"dossier collect", "dossier report"},
          JsonStarts,
          JsonDetect,
          JsonParse};
}

}  // namespace dossier::import
