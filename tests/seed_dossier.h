// The seed story's dossier for a test: both machines collected from their generated trees and,
// when asked, the host's pasted session imported. Empty on success, else what failed.
#pragma once

#include <string>

#include "tests/fixture_trees.h"
#include "tests/run_cli.h"

namespace dossier::testing {

inline std::string MakeSeedDossier(const std::string& dir, bool with_host_paste) {
  std::string d = " --dossier " + dir;
  for (const auto& [tree, name] :
       {std::pair<const char*, const char*>{"seed-host", "pve-host"}, {"seed-guest", "guest"}}) {
    auto r = RunCli("collect -q --root " + FixtureTree(tree) + " --machine " + name + d);
    if (r.code != 0) return r.out;
  }
  if (with_host_paste) {
    auto r = RunCli("import -q --machine pve-host" + d + " " + DOSSIER_SOURCE_DIR +
                    "/tests/fixtures/import-seed/pve-host-session.txt");
    if (r.code != 0) return r.out;
  }
  return "";
}

}  // namespace dossier::testing
