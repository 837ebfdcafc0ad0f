#!/usr/bin/env bash
# The README's second command: builds and runs every test (ctest over the one test binary).
# usage: scripts/test.sh [--sanitize]   (--sanitize: AddressSanitizer + UBSan, in build-asan/, and
#        line and branch coverage of that same run against scripts/coverage-floors.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The MCP clients (npm, cached outside the clone): without the network their two tests skip.
scripts/install-mcp-client.sh >/dev/null ||
  echo "test.sh: the MCP clients could not be installed; McpClients.* will be skipped" >&2
dir=$(scripts/build.sh "$@")
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ "${1:-}" = --sanitize ]; then
  find "$dir" -name '*.gcda' -delete  # counts of this run only
fi
ctest --test-dir "$dir" --output-on-failure -j "$(nproc)"
if [ "${1:-}" = --sanitize ]; then
  # Every fuzz entry under ASan+UBSan (tests/fuzz/fuzz_soak.cc), deterministically: fixed seeds,
  # a fixed number of inputs per entry, so a commit always gets the same verdict; a failing input
  # is kept in $dir/tests/fuzz-crashes-SEED/. The suite above already ran seeds 1 and 2 (200 inputs per
  # entry, FuzzSoak.*) under the sanitizers; these are two more. Under ASan the soak reads about
  # 310 inputs a second over the 54 entries (100 per entry took 17 s; 35 a second while coverage
  # counters were atomic), so 1,000 per entry and seed, the two seeds side by side (one process,
  # one core each), keep this step near 3 minutes. The random hunt is scripts/fuzz-hunt.sh.
  pids=()
  for seed in 3 4; do
    "$dir/tests/dossier_fuzz_soak" --inputs "${FUZZ_INPUTS:-1000}" --seed "$seed" \
      --crash-dir "$dir/tests/fuzz-crashes-$seed" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done  # set -e: a seed that failed fails the run
  scripts/coverage.sh --build-dir "$dir"
fi
