// One libFuzzer binary for every entry of tests/fuzz/fuzz_entries.cc; the entry is chosen at
// start by $DOSSIER_FUZZ_ENTRY. One binary instead of one per entry: each links all of
// dossier_core with ASan and the fuzzer's runtime, and forty such links were most of the build.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/fuzz/fuzz_entries.h"

namespace {
const dossier::fuzz::FuzzEntry* g_entry = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* name = std::getenv("DOSSIER_FUZZ_ENTRY");
  for (const auto& e : dossier::fuzz::FuzzEntries())
    if (name && std::strcmp(e.name, name) == 0) g_entry = &e;
  if (!g_entry) {
    std::fprintf(stderr, "DOSSIER_FUZZ_ENTRY=%s names no fuzz entry; the entries:\n",
                 name ? name : "(unset)");
    for (const auto& e : dossier::fuzz::FuzzEntries()) std::fprintf(stderr, "  %s\n", e.name);
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  g_entry->run(data, size);
  return 0;
}
