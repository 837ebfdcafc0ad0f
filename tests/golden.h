// Golden files: an output compared byte for byte with tests/golden/FILE; with
// DOSSIER_UPDATE_GOLDEN=1 the file is rewritten instead (review the git diff). A difference names
// its first differing line and leaves the actual output under BUILD/golden-actual/.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_process.h"
#include "temp_dir.h"

namespace dossier::testing {

// The first line where two texts differ, for a readable failure.
inline std::string FirstDifference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ha = static_cast<bool>(std::getline(a, la)), hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "texts differ only in the final newline";
    if (!ha || !hb || la != lb)
      return "line " + std::to_string(line) + ":\n  golden: " + (ha ? la : "<end>") +
             "\n  actual: " + (hb ? lb : "<end>");
  }
}

inline void ExpectMatchesGolden(const std::string& file, const std::string& actual) {
  const std::string golden = std::string(DOSSIER_SOURCE_DIR) + "/tests/golden/" + file;
  const char* update = std::getenv("DOSSIER_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::filesystem::create_directories(std::filesystem::path(golden).parent_path());
    std::ofstream(golden, std::ios::binary) << actual;
    return;
  }
  if (!std::filesystem::exists(golden)) {
    ADD_FAILURE() << golden << " does not exist; create it with DOSSIER_UPDATE_GOLDEN=1";
    return;
  }
  std::string want = ReadWholeFile(golden);
  if (want == actual) return;
  const std::string dir = std::string(DOSSIER_BUILD_DIR) + "/golden-actual";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/" + file, std::ios::binary) << actual;
  ADD_FAILURE() << file << " differs from the golden file, first at "
                << FirstDifference(want, actual) << "\nsee: diff -u " << golden << " " << dir << "/"
                << file
                << "\nif the change is intended: DOSSIER_UPDATE_GOLDEN=1 and review git diff";
}

}  // namespace dossier::testing
