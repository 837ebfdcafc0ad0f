// The two ways to install (README, "Install"): the Debian package and the portable tarball, each
// built from this build directory (cpack and a relink reuse its objects: nothing is compiled
// again), unpacked, run, and checked (scripts/check-deb.sh, scripts/check-portable.sh say how).
// In the sanitizer build they are skipped: the package and the tarball are made from the release
// build, which the same suite checks; an ASan binary needs libasan, which no host has.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "tests/fixture_trees.h"

namespace dossier {
namespace {

int RunScript(const std::string& cmd, std::string* out) {
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  int st = ::pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

bool Have(const char* tool) {
  std::string out;
  return RunScript(std::string("command -v ") + tool, &out) == 0;
}

TEST(Package, DebianPackageInstallsRunsAndPassesLintian) {
#ifdef DOSSIER_SANITIZED
  GTEST_SKIP() << "sanitizer build: the package is checked in the release build";
#endif
  for (const char* tool : {"cpack", "dpkg", "lintian", "help2man"})
    if (!Have(tool)) GTEST_SKIP() << tool << " missing: scripts/install-deps.sh installs it";
  std::string out;
  int rc = RunScript(std::string(DOSSIER_SOURCE_DIR) + "/scripts/check-deb.sh " + DOSSIER_BUILD_DIR,
                     &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("dossier_" DOSSIER_VERSION "_amd64.deb"), std::string::npos) << out;
}

TEST(Package, PortableTarballNeedsOnlyGlibcAndRunsUnpacked) {
#ifdef DOSSIER_SANITIZED
  GTEST_SKIP() << "sanitizer build: the tarball is checked in the release build";
#endif
#ifdef _GLIBCXX_ASSERTIONS
  // DOSSIER_LIB_ASSERTIONS (the mutant builds): the checks call __glibcxx_assert_fail, which
  // needs a newer libstdc++ than the tarball promises; what ships is the release build's.
  GTEST_SKIP() << "libstdc++ assertions on: the tarball is checked in the release build";
#endif
  const std::string& tree = testing::FixtureTrees::Get().Path("seed-guest");
  std::string out;
  int rc = RunScript(std::string(DOSSIER_SOURCE_DIR) + "/scripts/check-portable.sh " +
                         DOSSIER_BUILD_DIR + " " + tree,
                     &out);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("dossier-" DOSSIER_VERSION "-x86_64.tar.gz ok"), std::string::npos) << out;
}

}  // namespace
}  // namespace dossier
