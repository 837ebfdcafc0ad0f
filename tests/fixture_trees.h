// The machine trees of tests/fixtures/trees, generated on first use by each test process into its
// own directory under the build directory (build/test-trees/PID/NAME) and removed when the process
// exits. Per process, because ctest runs tests in parallel processes and a tree being rewritten
// must never be read by another test.
//
// Names: the description directories under tests/fixtures/trees, plus "seed-guest-unprivileged":
// the seed guest as a non-root user sees it (dossier-treegen --unprivileged).
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include "treegen_tree.h"

namespace dossier::testing {

inline const std::vector<std::string>& FixtureTreeNames() {
  // The story's machines first, then the trees made for one probe's edge (a CPU topology without
  // core ids, an s390's books and drawers, a kernel without /sys/kernel…): their reports are
  // golden files too, so a probe's reading of an odd machine cannot change unseen.
  static const std::vector<std::string> kNames = {"seed-guest",
                                                  "seed-host",
                                                  "baremetal-switch",
                                                  "i440fx-guest",
                                                  "seed-guest-unprivileged",
                                                  "libvirt-host",
                                                  "libvirt-guest",
                                                  "amd-two-die",
                                                  "arm64-no-core-id",
                                                  "mask-only",
                                                  "no-cpuinfo",
                                                  "no-sys-kernel",
                                                  "numa-overlap",
                                                  "power-package-unknown",
                                                  "s390-books-drawers",
                                                  "seed-host-before-acs"};
  return kNames;
}

inline std::string FixtureDescriptionDir(const std::string& name) {
  std::string base = name == "seed-guest-unprivileged" ? "seed-guest" : name;
  return std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/trees/" + base;
}

class FixtureTrees {
 public:
  static FixtureTrees& Get() {
    static FixtureTrees trees;
    return trees;
  }
  // Path of the generated tree; throws with the generator's message when it cannot be built.
  const std::string& Path(const std::string& name) {
    auto it = paths_.find(name);
    if (it != paths_.end()) return it->second;
    std::string out = dir_ + "/" + name;
    treegen::TreeOptions options;
    options.unprivileged = name == "seed-guest-unprivileged";
    std::string error = treegen::GenerateTree(FixtureDescriptionDir(name), out, options);
    if (!error.empty()) throw std::runtime_error("cannot generate " + name + ": " + error);
    return paths_.emplace(name, out).first->second;
  }
  ~FixtureTrees() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

 private:
  FixtureTrees()
      : dir_(std::string(DOSSIER_BUILD_DIR) + "/test-trees/" + std::to_string(::getpid())) {}
  std::string dir_;
  std::map<std::string, std::string> paths_;
};

inline const std::string& FixtureTree(const std::string& name) {
  return FixtureTrees::Get().Path(name);
}

}  // namespace dossier::testing
