// Redaction of long values: every environment value and command line a probe stores passes
// through RedactCommandLine before it is cut, so its time must grow with the length, not its
// square. A 100 KB run of letters once cost 28 s (the scheme pass rescanned the word from each of
// its letters). Rows: shapes of 100 KB values people have (a long PATH-like list, one word of
// letters, words and spaces, key=value pairs), in bytes per second.
#include <benchmark/benchmark.h>

#include <string>

#include "util/redact.h"

namespace {

std::string Shape(int kind, size_t n) {
  std::string unit;
  switch (kind) {
    case 0:
      unit = "/opt/lib/python3/site-packages:";
      break;  // PATH-like
    case 1:
      unit = "p";
      break;  // one word of letters
    case 2:
      unit = "word and more ";
      break;  // words and spaces
    default:
      unit = "--flag=value ";
      break;  // options with values
  }
  std::string s;
  while (s.size() < n) s += unit;
  s.resize(n);
  return s;
}

void BM_RedactCommandLineLong(benchmark::State& state) {
  const std::string text = Shape(static_cast<int>(state.range(0)), 100000);
  for (auto _ : state) benchmark::DoNotOptimize(dossier::RedactCommandLine(text));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_RedactCommandLineLong)->ArgName("shape")->DenseRange(0, 3);

}  // namespace
