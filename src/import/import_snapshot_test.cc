// Snapshots of what every real paste imports as. The importer tests assert the facts each sample
// must yield; these pin everything else a user reads from the same inputs: every fact's value,
// source line and confidence, what each part was read as and what it took, every note (cut
// tables, lines not read) and every measurement record. A change that alters any of it for a real
// paste shows here as a diff against tests/golden/import/ (review it; DOSSIER_UPDATE_GOLDEN=1
// rewrites the files when the change is intended).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "import/import_test_util.h"
#include "import/paste_text.h"
#include "import/split_session.h"
#include "model/fact_paths.h"
#include "tests/golden.h"

namespace dossier::import {
namespace {

// Which importer's starts() says yes at which line of the paste, and each importer's detect()
// score of every part the session splits into: the two decide what a part is read as, and a
// change to either shows here before it changes a format.
std::string Detection(const std::string& text, const std::string& name) {
  Result<Paste> paste = ReadPaste(text, name);
  if (!paste) return "";
  Lines lines = paste->lines;
  std::string out;
  for (const auto& imp : ImporterTable()) {
    std::string at;
    for (size_t i = 0; i < lines.size(); ++i)
      if (StartsGuarded(imp, lines, i)) at += " " + std::to_string(lines[i].number);
    if (!at.empty()) out += std::string("starts ") + imp.name + ":" + at + "\n";
  }
  for (const auto& part : SplitSession(&lines, nullptr)) {
    Lines p(lines.begin() + static_cast<std::ptrdiff_t>(part.begin),
            lines.begin() + static_cast<std::ptrdiff_t>(part.end));
    if (p.empty()) continue;
    std::string scores;
    for (const auto& imp : ImporterTable())
      if (int d = DetectGuarded(imp, p))
        scores += std::string(" ") + imp.name + "=" + std::to_string(d);
    out += "detect " + std::to_string(p.front().number) + "-" + std::to_string(p.back().number) +
           ":" + (scores.empty() ? " none" : scores) + "\n";
  }
  return out;
}

std::string Snapshot(const ImportRun& run) {
  std::string out;
  for (const auto& f : run.files) {
    out += "# file " + f.file + "\n";
    for (const auto& p : f.parts)
      out += "part " + std::to_string(p.first_line) + "-" + std::to_string(p.last_line) + " " +
             (p.format.empty() ? "(not read)" : p.format) +
             (p.command.empty() ? "" : " $ " + p.command) + (p.took.empty() ? "" : ": " + p.took) +
             (p.error.empty() ? "" : " ! " + p.error) + "\n";
    for (const auto& n : f.notes) out += "note " + n + "\n";
  }
  out += "# facts " + std::to_string(run.imported.facts) + "\n";
  for (const auto& [path, leaf] : Flatten(run.imported.machine)) {
    if (path == "/name") continue;
    if (leaf.known && (leaf.value.empty() || leaf.value == "[]" || leaf.value == "{}" ||
                       leaf.value == "null" || leaf.value == "\"\""))
      continue;
    if (!leaf.known && leaf.source.empty() && leaf.value == "unknown (not recorded)") continue;
    out += path + " = " + leaf.value + (leaf.source.empty() ? "" : "  <- " + leaf.source) + "\n";
  }
  std::vector<nlohmann::json> records = ImportRecords(run, "m", "2026-01-01T00:00:00Z");
  for (size_t i = 1; i < records.size(); ++i) out += "# record\n" + records[i].dump(1) + "\n";
  return out;
}

TEST(ImportSnapshot, EveryRealPasteImportsAsItsGoldenFile) {
  std::vector<testing::RealPaste> inputs = testing::RealPastes();
  ASSERT_GE(inputs.size(), 200u) << "the samples or the corpus were not found";
  for (const auto& in : inputs) {
    SCOPED_TRACE(in.name);
    ImportRun run;
    run.imported.machine.name = "m";
    Status s = ImportText(in.text, in.name, nullptr, &run);
    std::string got = Detection(in.text, in.name) +
                      (s.ok() ? Snapshot(run) : "refused: " + s.error().message + "\n");
    got = testing::ShortenSources(std::move(got), in.name);
    dossier::testing::ExpectMatchesGolden("import/" + in.golden + ".txt", got);
  }
}

}  // namespace
}  // namespace dossier::import
