#!/usr/bin/env bash
# Line and branch coverage of src/ by the test suite, per directory, against floors
# (scripts/coverage-floors.txt: set from the figures of the day they were raised, never above
# what the suite reaches; 90 % of lines overall at least). Fails when a directory falls below its
# floor; lists the user-facing functions (commands, rules, renderers, probes) no test runs.
#
# usage: scripts/coverage.sh [--report-only] [--build-dir DIR]
#   --build-dir DIR: the counts a run of the suite already left in DIR (a DOSSIER_COVERAGE build;
#   CI's: scripts/test.sh --sanitize, build-asan/), nothing built or run here.
#   Without it: builds build-coverage/ (unity batches, -O0), runs the suite, reports.
#   --report-only prints the figures without failing (to raise the floors).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-coverage
given=
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) given=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
export CCACHE_BASEDIR="$PWD"
if [ -n "$given" ]; then
  dir=$given
elif [ ! -f "$dir/CMakeCache.txt" ]; then
  # Unity batches and -O0: the cheapest build to compile; --coverage on everything.
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=None -DDOSSIER_BENCH=OFF \
    -DCMAKE_CXX_FLAGS="-O0 --coverage -fprofile-update=single" \
    -DCMAKE_C_FLAGS="-O0 --coverage -fprofile-update=single" \
    -DCMAKE_EXE_LINKER_FLAGS=--coverage -DCMAKE_SHARED_LINKER_FLAGS=--coverage >&2
fi
if [ -z "$given" ]; then
  cmake --build "$dir" -j "$(nproc)" >&2
  find "$dir" -name '*.gcda' -delete
  ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" >&2
fi
# Counters are plain (-fprofile-update=single; atomic ones made the sanitizer suite 7x slower):
# fleet and serve-bench run threads, and a lost increment can make gcov derive a negative branch
# count; gcovr skips such a line with a warning (--gcov-ignore-parse-errors) instead of failing.
# Every object's counts, src/ only (tests and stand-ins are not what is measured); branches the
# compiler adds for exceptions and unreachable paths are left out.
gcovr -r . --object-directory "$dir" --filter 'src/' --exclude '.*_test\.cc' \
  --exclude-throw-branches --exclude-unreachable-branches --gcov-ignore-parse-errors -j "$(nproc)" \
  --json "$dir/coverage.json" "$dir" >&2  # counts of $dir only, not of other builds in the tree
python3 scripts/coverage_check.py "$dir/coverage.json" scripts/coverage-floors.txt ${args[@]+"${args[@]}"}
