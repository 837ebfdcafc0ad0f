#include "import/import_run.h"

#include "import/import_checks.h"
#include "import/part_summary.h"
#include "import/split_session.h"
#include "measure/p2p/record.h"
#include "model/json_io.h"
#include "util/redact.h"

namespace dossier::import {

namespace {

// Up to these, each part is read into a copy of what the run holds (see below).
constexpr size_t kSmallRunLines = 20000;
constexpr size_t kSmallRunParts = 200;

}  // namespace

Status ImportText(std::string_view bytes, const std::string& file, const Importer* forced,
                  ImportRun* run) {
  auto paste = ReadPaste(bytes, file);
  if (!paste) return paste.error();
  FileReport rep;
  rep.file = file;
  rep.notes = paste->notes;
  // The original is kept in the record: redacted as collect redacts, private key blocks removed.
  rep.text = RedactPaste(paste->text);
  Lines lines = std::move(paste->lines);
  std::vector<Part> parts = SplitSession(&lines, forced);
  for (const Part& p : parts) {
    PartReport pr;
    pr.first_line = lines[p.begin].number;
    pr.last_line = lines[p.end - 1].number;
    pr.command = p.command;
    if (!p.importer) {
      rep.notes.push_back("lines " + std::to_string(pr.first_line) + "-" +
                          std::to_string(pr.last_line) +
                          ": not recognised as any format (dossier help formats); not imported");
      rep.parts.push_back(pr);
      continue;
    }
    pr.format = p.importer->name;
    Lines part(lines.begin() + p.begin, lines.begin() + p.end);
    ImportSource src{file, p.importer->name, p.command, run->pair};
    std::string range =
        "lines " + std::to_string(pr.first_line) + "-" + std::to_string(pr.last_line);
    // --as on text that is not that format: said, not read (pci-cfg read from nvidia-smi -q
    // would make mappings named after the driver version).
    if (forced && DetectGuarded(*forced, part) == 0) {
      const Importer* looks = nullptr;
      int best = 0;
      for (const auto& imp : ImporterTable())
        if (int sc = DetectGuarded(imp, part); sc > best) best = sc, looks = &imp;
      pr.error = std::string("not ") + forced->name + " output" +
                 (looks ? std::string(" (it looks like ") + looks->name + ")" : "");
      rep.notes.push_back(range + ": --as " + forced->name + ": " + pr.error + "; not imported");
      pr.format.clear();
      rep.parts.push_back(pr);
      continue;
    }
    // Each part goes into a copy first: a part that turns out not to be its format adds nothing.
    // While the run holds little, that copy and the summary (a diff of the machine before and
    // after) cost little. Past it (a paste of hundreds of outputs, or after a huge one) a copy
    // of everything before each part would make the import quadratic; then the part is read
    // alone first (into an empty machine: is it its format, what does it hold), and only then
    // into the run itself. Both reads are linear in the part.
    const bool small = run->held_lines <= kSmallRunLines && run->recognised_parts < kSmallRunParts;
    Imported alone;
    alone.machine.name = run->imported.machine.name;
    Imported attempt = small ? run->imported : Imported{};
    attempt.notes.clear();
    Imported& first = small ? attempt : alone;
    Status s = ParseGuarded(*p.importer, part, src, &first);
    if (!s) {
      // What the importer said before it gave up (a block whose key figures were unreadable) is
      // kept: it names the lines.
      for (auto& n : first.notes) rep.notes.push_back(std::move(n));
      pr.error = s.error().message;
      rep.notes.push_back(range + ": read as " + pr.format + " but: " + pr.error +
                          "; not imported");
      pr.format.clear();
      rep.parts.push_back(pr);
      continue;
    }
    if (small) {
      pr.took = PartSummary(run->imported, attempt);
    } else {
      Imported empty;
      empty.machine.name = alone.machine.name;
      pr.took = PartSummary(empty, alone);
      if (!pr.took.empty()) {
        const size_t had = run->imported.notes.size();
        Status again = ParseGuarded(*p.importer, part, src, &run->imported);
        auto& said = run->imported.notes;  // what this read said, reported below
        attempt.notes.assign(
            std::make_move_iterator(said.begin() + static_cast<std::ptrdiff_t>(had)),
            std::make_move_iterator(said.end()));
        said.resize(had);
        if (!again) attempt.notes.push_back(range + ": " + again.error().message);
      }
    }
    for (auto& n : attempt.notes) rep.notes.push_back(std::move(n));
    if (pr.took.empty()) {
      // Recognised, but nothing in it was a fact: said, and nothing of it is stored.
      pr.error = "no fact was found in it";
      rep.notes.push_back(range + ": read as " + pr.format + " but no fact was found in it; " +
                          "nothing of it is stored");
      pr.format.clear();
      rep.parts.push_back(pr);
      continue;
    }
    if (small) {
      attempt.notes = std::move(run->imported.notes);
      run->imported = std::move(attempt);
    }
    run->held_lines += part.size();
    ++run->recognised_parts;
    rep.parts.push_back(pr);
  }
  if (parts.empty()) rep.notes.push_back(file + ": empty (nothing but blank lines)");
  // Everything this file added, and what is said about it (notes, the prompts' commands, why a
  // part was not read: each may quote the paste), is redacted here, the one place every importer's
  // result passes, before the CLI prints or stores any of it. Redaction is idempotent: what an
  // earlier file added comes out as it went in.
  CheckNumberDomains(&run->imported, &rep.notes);
  RedactImported(&run->imported);
  for (auto& pr : rep.parts) {
    pr.command = RedactImportedText(std::move(pr.command));
    pr.error = RedactImportedText(std::move(pr.error));
  }
  for (auto& n : rep.notes) n = RedactImportedText(std::move(n));
  run->files.push_back(std::move(rep));
  return OkStatus();
}

namespace {

nlohmann::json ReportJson(const FileReport& f) {
  nlohmann::json parts = nlohmann::json::array();
  for (const auto& p : f.parts) {
    nlohmann::json j = {{"first_line", p.first_line}, {"last_line", p.last_line}};
    j["format"] = p.format.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.format);
    if (!p.command.empty()) j["command"] = p.command;
    if (!p.error.empty()) j["error"] = p.error;
    if (!p.took.empty()) j["took"] = p.took;
    parts.push_back(std::move(j));
  }
  return {{"file", f.file}, {"parts", parts}, {"notes", f.notes}};
}

}  // namespace

std::vector<nlohmann::json> ImportRecords(const ImportRun& run, const std::string& machine,
                                          const std::string& time) {
  nlohmann::json doc = {{"kind", "import"}, {"time", time}};
  Machine m = run.imported.machine;
  m.name = machine;
  doc["machine"] = MachineToJson(m);
  doc["files"] = nlohmann::json::array();
  doc["originals"] = nlohmann::json::array();
  for (const auto& fr : run.files) {
    doc["files"].push_back(ReportJson(fr));
    doc["originals"].push_back({{"file", fr.file}, {"text", fr.text}});
  }
  std::vector<nlohmann::json> docs = {doc};
  for (auto p : run.imported.p2p) {
    p.time = time;
    docs.push_back(p2p::P2pRecord(p, machine));
    docs.back()["time"] = time;
  }
  for (auto s : run.imported.serve) {
    s.time = time;
    docs.push_back(
        {{"kind", "serve-bench"}, {"machine", machine}, {"serve", ServeToJson(s)}, {"time", time}});
  }
  return docs;
}

}  // namespace dossier::import
