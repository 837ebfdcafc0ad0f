// dossier diff: what changed between two states of a machine (default: its last two): collect
// records, import records (what a person pasted), or one of each. A pasted state holds only what
// was pasted, so only what both states know is compared (analyze/diff.h DiffStates).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "analyze/diff.h"
#include "cli/parse.h"
#include "model/json_io.h"
#include "render/json_visit.h"
#include "render/markdown.h"
#include "render/md_util.h"
#include "view/build_view.h"

namespace dossier::cli {
namespace {

// A record named on the command line: its sequence number ("12"), file name or path. A number
// two records share (dossiers merged from two machines by copying) is ambiguous: *ambiguous
// then lists the files, and the caller asks for a file name.
const Record* FindRecord(const std::vector<Record>& records, const std::string& ref,
                         std::string* ambiguous) {
  std::vector<const Record*> found;
  for (const auto& r : records) {
    std::string base = r.file.substr(r.file.rfind('/') + 1);
    if (r.file == ref || base == ref) return &r;  // a name is never ambiguous
    if (std::to_string(r.sequence) == ref || (base.rfind(ref, 0) == 0 && ref.size() >= 6))
      found.push_back(&r);  // "12" or a "000012" prefix
  }
  if (found.size() > 1) {
    for (const Record* r : found) *ambiguous += " " + r->file.substr(r->file.rfind('/') + 1);
    return nullptr;
  }
  return found.empty() ? nullptr : found[0];
}

// A state of a machine: a collect, or an import (what was pasted from it).
bool IsState(const Record& r) {
  return (r.kind == "collect" || r.kind == "import") && r.machine_object;
}

std::vector<const Record*> StatesOf(const std::vector<Record>& records, const std::string& m) {
  std::vector<const Record*> out;
  for (const auto& r : records)
    if (IsState(r) && r.machine == m) out.push_back(&r);
  return out;
}

}  // namespace

int RunDiff(const std::vector<std::string>& args) {
  CLI::App app(
      "Compare two states of a machine (default: its last two), each a collect or an import of "
      "pasted outputs: devices, IOMMU groups, links, drivers, kernel command line, software, "
      "P2P status, findings. A pasted state is compared only on what it shows.",
      "dossier diff");
  std::string dossier_dir = "dossier", format = "md", machine;
  std::vector<std::string> refs;
  app.add_option("records", refs, "two records: sequence number, file name or path (A B)")
      ->expected(0, 2);
  app.add_option("--machine", machine,
                 "machine whose last two states (collects or imports) to compare");
  app.add_option("--dossier", dossier_dir, "dossier directory")
      ->check(NonEmptyPath())
      ->capture_default_str();
  app.add_option("--format", format, "md or json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  if (int rc = Parse(app, args); rc >= 0) return rc;
  if (refs.size() == 1) {
    std::fprintf(stderr, "dossier diff: give two records (A B), or none for the last two\n");
    return kExitUsage;
  }

  DossierDir dir(dossier_dir);
  std::vector<std::string> warnings;
  auto records = dir.Load(&warnings);
  if (!records) {
    std::fprintf(stderr, "dossier diff: %s\n", records.error().message.c_str());
    return kExitUsage;
  }
  for (const auto& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());

  const Record *a = nullptr, *b = nullptr;
  if (refs.size() == 2) {
    std::string ambiguous_a, ambiguous_b;
    a = FindRecord(*records, refs[0], &ambiguous_a);
    b = FindRecord(*records, refs[1], &ambiguous_b);
    for (const auto& [ref, amb] :
         {std::pair{refs[0], ambiguous_a}, std::pair{refs[1], ambiguous_b}}) {
      if (amb.empty()) continue;
      std::fprintf(stderr, "dossier diff: '%s' names several records:%s; give a file name\n",
                   ref.c_str(), amb.c_str());
      return kExitUsage;
    }
    for (const auto& [r, ref] : {std::pair{a, refs[0]}, std::pair{b, refs[1]}}) {
      if (!r || !IsState(*r)) {
        std::fprintf(stderr, "dossier diff: '%s' is not a collect or import record in %s/records\n",
                     ref.c_str(), dossier_dir.c_str());
        return kExitUsage;
      }
    }
    if (a->machine != b->machine)
      std::fprintf(stderr, "dossier diff: note: comparing two machines (%s, %s)\n",
                   a->machine.c_str(), b->machine.c_str());
  } else {
    if (machine.empty()) {
      // The one machine with two states or more; several: ask which.
      std::vector<std::string> names;
      for (const auto& r : *records) {
        if (!IsState(r) || StatesOf(*records, r.machine).size() < 2) continue;
        if (std::find(names.begin(), names.end(), r.machine) == names.end())
          names.push_back(r.machine);
      }
      if (names.size() != 1) {
        std::string list;
        for (const auto& n : names) list += " " + n;
        std::fprintf(stderr,
                     names.empty() ? "dossier diff: no machine has two collect or import "
                                     "records yet\n"
                                   : "dossier diff: several machines; pick one with --machine:%s\n",
                     list.c_str());
        return kExitUsage;
      }
      machine = names[0];
    }
    auto states = StatesOf(*records, machine);
    if (states.size() < 2) {
      std::fprintf(stderr,
                   "dossier diff: machine '%s' has %zu collect or import record(s); need two\n",
                   machine.c_str(), states.size());
      return kExitUsage;
    }
    a = states[states.size() - 2];
    b = states.back();
  }

  std::vector<std::string> w;
  // Each side parsed in full, turned into a Machine and released (records are listed as headers).
  auto machine_of = [&](const Record* r) {
    nlohmann::json scratch;
    const nlohmann::json* doc = RecordDoc(*r, &scratch, &w);
    return doc ? MachineFromJson((*doc)["machine"], &w) : Machine{};
  };
  Machine ma = machine_of(a);
  Machine mb = machine_of(b);
  // The rest of the dossier (notes, a guest's host) is context for the findings on each side.
  // Built from the records already loaded: loading the dossier again doubled diff's memory.
  View context = DossierView(dir, *records, {});
  MachineDiff d = DiffStates(ma, a->kind == "import", mb, b->kind == "import", context);
  d.from = {a->file, a->time, ma.boot_id.value_or(""), a->kind};
  d.to = {b->file, b->time, mb.boot_id.value_or(""), b->kind};

  std::string text;
  if (format == "json") {
    nlohmann::json j = PlainToJson(d);
    j["schema"] = kSchema;
    text = DumpJson(j, 2) + "\n";
  } else {
    text = "# Changes of " + md::Code(d.machine, false) + "\n\n";
    MdChanges(d, &text);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace dossier::cli
