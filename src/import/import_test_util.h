// Test helpers for the importers: the shared samples (tests/fixtures/import/, copied from
// ../shared/samples) with their header of expected facts stripped, imported as the CLI would.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "import/import_run.h"
#include "tests/temp_dir.h"

namespace dossier::import::testing {

inline std::string SamplePath(const std::string& rel) {
  return std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/import/" + rel;
}

// The sample without its "# source / # context / # expected / # ---" header.
inline std::string SampleBody(const std::string& rel) {
  std::string s = dossier::testing::Slurp(SamplePath(rel));
  size_t sep = s.find("\n# ---\n");
  EXPECT_NE(sep, std::string::npos) << rel << " has no header separator";
  return sep == std::string::npos ? s : s.substr(sep + 7);
}

inline ImportRun ImportString(const std::string& text, const std::string& as = "",
                              const std::string& name = "paste.txt") {
  ImportRun run;
  run.imported.machine.name = "m";
  const Importer* forced = as.empty() ? nullptr : FindImporter(as);
  Status s = ImportText(text, name, forced, &run);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return run;
}

inline ImportRun ImportSample(const std::string& rel, const std::string& prefix = "") {
  return ImportString(prefix + SampleBody(rel), "", rel);
}

// The formats the parts of a run were read as, in order ("" for a part not recognised).
inline std::vector<std::string> Formats(const ImportRun& r) {
  std::vector<std::string> out;
  for (const auto& f : r.files)
    for (const auto& p : f.parts) out.push_back(p.format);
  return out;
}

struct RealPaste {
  std::string golden;  // file under tests/golden/import/
  std::string name;    // what the import calls the file (its path under the fixtures)
  std::string text;
};

inline std::string GoldenName(std::string rel) {
  std::replace(rel.begin(), rel.end(), '/', '_');
  return rel;
}

// The shared samples (their header of expected facts stripped, as the importer tests read them),
// the pasted sessions of the seed story, and the fuzz corpus of every importer (real outputs and
// damaged copies of them, read by detection as a paste would be, not forced).
inline std::vector<RealPaste> RealPastes() {
  std::vector<RealPaste> out;
  const std::filesystem::path samples = SamplePath("");
  for (const auto& e : std::filesystem::recursive_directory_iterator(samples)) {
    if (!e.is_regular_file() || e.path().filename() == "INDEX.md") continue;
    std::string rel = std::filesystem::relative(e.path(), samples).string();
    out.push_back({GoldenName(rel), rel, SampleBody(rel)});
  }
  const std::filesystem::path seed =
      std::filesystem::path(DOSSIER_SOURCE_DIR) / "tests/fixtures/import-seed";
  for (const auto& e : std::filesystem::directory_iterator(seed)) {
    if (e.path().extension() != ".txt") continue;
    std::string f = e.path().filename().string();
    out.push_back({"seed_" + f, f, dossier::testing::Slurp(e.path())});
  }
  const std::filesystem::path corpus = std::filesystem::path(DOSSIER_SOURCE_DIR) / "tests/corpus";
  for (const auto& dir : std::filesystem::directory_iterator(corpus)) {
    const std::string d = dir.path().filename().string();
    if (!dir.is_directory() || !(d == "import" || d.starts_with("import-"))) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
      if (!e.is_regular_file() || e.path().filename() == "SOURCES.md") continue;
      std::string rel = d + "/" + e.path().filename().string();
      out.push_back({"corpus_" + GoldenName(rel), rel, dossier::testing::Slurp(e.path())});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const RealPaste& a, const RealPaste& b) { return a.golden < b.golden; });
  return out;
}

// What a user reads of an import, one line per item so a change is a small diff: each part's
// line range, format, what it took or why it was not read; every note; every fact the machine
// holds with its source (or unknown with its reason); and each measurement record the import
// appends, at a fixed time.

// Sources name the file on every line; snapshots say "@N" for "imported: FILE:N".
inline std::string ShortenSources(std::string s, const std::string& file) {
  const std::string from = "imported: " + file + ":";
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + 1))
    s.replace(at, from.size(), "@");
  return s;
}

}  // namespace dossier::import::testing
