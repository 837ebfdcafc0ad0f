// Redaction of what an import adds, by position: a secret planted in every string a machine can
// hold (a fact's value, source and reason; each element of a list; each cell of a matrix; each
// value of a map) is gone from the machine after RedactImported, wherever it was.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "import/import_checks.h"
#include "import/import_test_util.h"
#include "model/fact_paths.h"
#include "model/json_io.h"
#include "tests/temp_dir.h"

namespace dossier::import {
namespace {

const std::string kSecret = "hf_QwErTyUiOpAsDfGhJkLzXcVbNm0123456789";
const std::string kPlanted = " Bearer " + kSecret;

template <class T>
struct IsMap : std::false_type {};
template <class V>
struct IsMap<std::map<std::string, V>> : std::true_type {};

// Adds the secret to every string of a leaf and counts where, by the leaf's kind.
struct Planter {
  std::map<std::string, int>* kinds;

  template <class T>
  void Value(T* v) {
    if constexpr (std::is_same_v<T, std::string>) {
      *v += kPlanted;
      ++(*kinds)["string"];
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      for (auto& s : *v) s += kPlanted, ++(*kinds)["list element"];
    } else if constexpr (std::is_same_v<T, std::vector<std::vector<std::string>>>) {
      for (auto& row : *v)
        for (auto& s : row) s += kPlanted, ++(*kinds)["matrix cell"];
    } else if constexpr (IsMap<T>::value) {
      if constexpr (std::is_same_v<typename T::mapped_type, std::string>)
        for (auto& [k, s] : *v) s += kPlanted, ++(*kinds)["map value"];
    }
  }
  template <class T>
  void operator()(const std::string& path, T& leaf) {
    if constexpr (IsFactType<T>::value) {
      if (leaf.value) Value(&*leaf.value);
      leaf.source += kPlanted;
      leaf.unknown += kPlanted;
      ++(*kinds)["source and reason"];
    } else if (path != "/name") {
      Value(&leaf);
    }
  }
};

TEST(ImportRedaction, ASecretInEveryStringOfAMachineIsGoneAfterTheImportsRedaction) {
  // The seed's collected guest holds every family: PCI devices, GPUs with their matrices, NUMA,
  // the software with its environment and Python packages, servers with flags.
  nlohmann::json doc = nlohmann::json::parse(
      dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) + "/tests/golden/seed-guest.json"));
  std::vector<std::string> warnings;
  Imported imported;
  imported.machine = MachineFromJson(doc.at("machines").at(0), &warnings);
  std::map<std::string, int> kinds;
  Planter planter{&kinds};
  WalkPaths(imported.machine, planter);
  imported.notes.push_back("a note" + kPlanted);
  for (const char* kind : {"string", "list element", "matrix cell", "map value"})
    EXPECT_GT(kinds[kind], 0) << "no " << kind << " to plant a secret in";
  ASSERT_NE(MachineToJson(imported.machine).dump().find(kSecret), std::string::npos);

  RedactImported(&imported);
  const std::string out = MachineToJson(imported.machine).dump();
  size_t at = out.find(kSecret);
  EXPECT_EQ(at, std::string::npos)
      << "kept near: "
      << out.substr(at == std::string::npos ? 0 : at - std::min<size_t>(at, 120), 200);
  EXPECT_EQ(imported.notes[0].find(kSecret), std::string::npos);
  EXPECT_NE(out.find("<redacted>"), std::string::npos);
}

// What the import says about a paste quotes its lines (a line pasted with /proc/cmdline that is
// not part of it): the quote is redacted as the facts are.
TEST(ImportRedaction, ANoteQuotingAPastedLineHoldsNoSecret) {
  ImportRun run = testing::ImportString(
      "BOOT_IMAGE=/vmlinuz root=/dev/sda1 amd_iommu=on\nexport HF_TOKEN=" + kSecret + "\n",
      "cmdline");
  ASSERT_EQ(run.files.size(), 1u);
  bool quoted = false;
  for (const auto& n : run.files[0].notes) {
    EXPECT_EQ(n.find(kSecret), std::string::npos) << n;
    quoted = quoted ||
             n.find("not part of /proc/cmdline: 'export HF_TOKEN=<redacted>") != std::string::npos;
  }
  EXPECT_TRUE(quoted) << "the extra line was not named";
}

}  // namespace
}  // namespace dossier::import
