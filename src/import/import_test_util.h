// Test helpers for the importers: the shared samples (tests/fixtures/import/, copied from
// ../shared/samples) with their header of expected facts stripped, imported as the CLI would.
#pragma once

#include <gtest/gtest.h>

#include <string>

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

}  // namespace dossier::import::testing
