// Runs every fuzz entry over its corpus (tests/corpus/<name>/*) and over damaged variants of each
// sample: truncated at many points, with bytes flipped, and with binary noise appended. What
// libFuzzer would find in hours this does not; what it checks is that real inputs and their
// obvious damage never crash a parser (under ASan+UBSan in CI).
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "tests/fuzz/fuzz_entries.h"
#include "tests/temp_dir.h"

namespace dossier::fuzz {
namespace {

using dossier::testing::Slurp;

void Feed(const FuzzEntry& e, const std::string& s) {
  e.run(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

// One test per entry: ctest runs them side by side (under ASan the whole corpus took 11 minutes
// as one test, the longest of the suite, and a clean clone has no timings to start it first).
class Corpus : public ::testing::TestWithParam<FuzzEntry> {};

TEST_P(Corpus, HasSamplesAndSurvivesDamage) {
  const FuzzEntry& e = GetParam();
  // Deterministic and the entry's own: a failure reproduces, and no entry's inputs depend on
  // which entries ran before it.
  std::mt19937 rng(static_cast<std::mt19937::result_type>(1234 ^ EntrySeed(e.name)));
  std::filesystem::path dir = std::filesystem::path(DOSSIER_SOURCE_DIR) / "tests/corpus" / e.name;
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << "no corpus for fuzz entry " << e.name;
  size_t samples = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    std::string s = Slurp(f.path());
    ++samples;
    SCOPED_TRACE(f.path().string());
    Feed(e, s);
    for (size_t cut = 0; cut < s.size(); cut += 1 + s.size() / 40) Feed(e, s.substr(0, cut));
    for (int i = 0; i < 20 && !s.empty(); ++i) {
      std::string m = s;
      for (int k = 0; k < 4; ++k) m[rng() % m.size()] = static_cast<char>(rng());
      Feed(e, m);
    }
    std::string noisy = s;
    for (int i = 0; i < 256; ++i) noisy.push_back(static_cast<char>(rng()));
    Feed(e, noisy);
  }
  EXPECT_GT(samples, 0u) << "empty corpus for " << e.name;
}

// Test names from entry names ("import-lspci" -> import_lspci): gtest allows [A-Za-z0-9_] only.
std::string EntryName(const ::testing::TestParamInfo<FuzzEntry>& info) {
  std::string n = info.param.name;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Every, Corpus, ::testing::ValuesIn(FuzzEntries()), EntryName);

}  // namespace
}  // namespace dossier::fuzz
