// The table of fuzz entries: one per parser of foreign text. Each takes arbitrary bytes and must
// neither crash nor grow memory without bound. The same table drives two things:
//  - tests/fuzz/corpus_test.cc runs every entry over tests/corpus/<name>/* (real samples and the
//    damaged variants the test derives from them) in the normal test suite, under ASan+UBSan in CI;
//  - tests/fuzz/fuzz_main.cc builds one libFuzzer binary per entry when configured with clang and
//    -DDOSSIER_FUZZ=ON (see README, "Fuzzing").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dossier::fuzz {

struct FuzzEntry {
  const char* name;  // also the corpus directory name
  void (*run)(const uint8_t* data, size_t size);
};

const std::vector<FuzzEntry>& FuzzEntries();

// A seed from an entry's name (FNV-1a: the same on every platform, as std::hash is not promised
// to be), so each entry's generated inputs are its own whatever runs before or beside it.
inline uint64_t EntrySeed(const char* name) {
  uint64_t h = 14695981039346656037ull;
  for (; *name; ++name) h = (h ^ static_cast<unsigned char>(*name)) * 1099511628211ull;
  return h;
}

}  // namespace dossier::fuzz
