// One libFuzzer binary per fuzz entry: built with -DDOSSIER_FUZZ_ENTRY="name".
#include <cstring>

#include "tests/fuzz/fuzz_entries.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const dossier::fuzz::FuzzEntry* entry = [] {
    for (const auto& e : dossier::fuzz::FuzzEntries())
      if (std::strcmp(e.name, DOSSIER_FUZZ_ENTRY) == 0) return &e;
    return static_cast<const dossier::fuzz::FuzzEntry*>(nullptr);
  }();
  if (entry) entry->run(data, size);
  return 0;
}
