// dossier fleet on a large fleet: progress on stderr every thousand nodes read (a run over ten
// thousand nodes says it is alive), nothing of it with -q, and the report on stdout either way.
#include <gtest/gtest.h>

#include "../tests/run_cli.h"
#include "../tests/temp_dir.h"

namespace dossier {
namespace {

TEST(FleetCommand, ProgressEveryThousandNodesOnStderrUnlessQuiet) {
  testing::TempDir t;
  for (int i = 0; i < 2500; ++i)
    t.Write("nodes/n" + std::to_string(i) + ".json",
            R"({"schema": "dossier/1", "kind": "collect", "time": "2026-12-01T00:00:00Z", )"
            R"("machine": {"name": "n)" +
                std::to_string(i) + "\"}}");
  const std::string dir = t.path() + "/nodes";
  auto err = testing::RunShell(std::string(DOSSIER_BINARY) + " fleet " + dir + " 2>&1 >/dev/null");
  EXPECT_EQ(err.code, 0) << err.out;
  EXPECT_EQ(err.out, "read 1000 nodes\nread 2000 nodes\n");
  auto quiet =
      testing::RunShell(std::string(DOSSIER_BINARY) + " fleet -q " + dir + " 2>&1 >/dev/null");
  EXPECT_EQ(quiet.code, 0);
  EXPECT_EQ(quiet.out, "");
  auto out = testing::RunShell(std::string(DOSSIER_BINARY) + " fleet " + dir + " 2>/dev/null");
  EXPECT_NE(out.out.find("# Fleet: 2500 node(s) in 1 group(s)"), std::string::npos) << out.out;
}

}  // namespace
}  // namespace dossier
