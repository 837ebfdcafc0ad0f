#!/usr/bin/env bash
# Coverage-guided fuzzing of every entry of tests/fuzz/fuzz_entries.cc with libFuzzer (clang),
# each for a bounded time over a copy of its corpus (tests/corpus/<entry>/; what the fuzzer adds
# goes to the copy, not the checkout). A crash, a leak or a sanitizer report fails it; the input
# that did it is left in build-fuzz/crashes/ and its path printed.
#
# usage: scripts/fuzz.sh [SECONDS_PER_ENTRY]    (default 10; by hand: CI runs the blind,
#        time-bounded tests/fuzz/fuzz_soak.cc in its sanitizer build instead, see the README)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
dir=build-fuzz
export CCACHE_BASEDIR="$PWD"
if [ ! -f "$dir/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDOSSIER_FUZZ=ON -DDOSSIER_BENCH=OFF >&2
fi
# The rows of the entry table, {"name", Function}.
entries=$(sed -nE 's/^ +\{"([a-z0-9_-]+)", [^}]+\},$/\1/p' tests/fuzz/fuzz_entries.cc)
cmake --build "$dir" -j "$(nproc)" --target dossier_fuzz >&2
mkdir -p "$dir/crashes"
failed=()
for e in $entries; do
  work=$dir/corpus-work/$e
  mkdir -p "$work"
  cp -r "tests/corpus/$e/." "$work/"
  if ! DOSSIER_FUZZ_ENTRY=$e ASAN_OPTIONS=detect_leaks=1 "$dir/tests/dossier_fuzz" -max_total_time="$secs" -timeout=10 \
      -rss_limit_mb=2048 -artifact_prefix="$dir/crashes/$e-" -print_final_stats=0 "$work" \
      >"$dir/fuzz_$e.log" 2>&1; then
    failed+=("$e")
    tail -40 "$dir/fuzz_$e.log" >&2
  fi
  echo "fuzz: $e: $(grep -c '' "$dir/fuzz_$e.log") lines of log, $(ls "$work" | wc -l) inputs" >&2
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]} (inputs in $dir/crashes/)" >&2
  exit 1
fi
echo "fuzz: $(echo $entries | wc -w) entries, ${secs} s each: no crash" >&2
