#!/usr/bin/env bash
# Configures and builds dossier. usage: scripts/build.sh [--sanitize] [BUILD_DIR]
# Default build dir: build (build-asan with --sanitize). The sanitizer build also counts line and
# branch coverage (DOSSIER_COVERAGE), so scripts/test.sh --sanitize checks the coverage floors from
# the same run of the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
san=OFF
dir=
for a in "$@"; do
  case "$a" in
    --sanitize) san=ON ;;
    *) dir=$a ;;
  esac
done
[ -n "$dir" ] || { [ $san = ON ] && dir=build-asan || dir=build; }
# ccache (installed by install-deps.sh) keyed on paths relative to the checkout, so a second clone
# of the same sources (CI's) reuses what an earlier build compiled.
export CCACHE_BASEDIR="$PWD"
extra=()
# Benchmarks are not run under the sanitizers.
[ $san = ON ] && extra=(-DDOSSIER_BENCH=OFF -DDOSSIER_COVERAGE=ON)
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDOSSIER_SANITIZE=$san "${extra[@]}" >&2
elif [ $san = ON ] && ! grep -q '^DOSSIER_COVERAGE:BOOL=ON' "$dir/CMakeCache.txt"; then
  cmake "$dir" -DDOSSIER_COVERAGE=ON >&2  # a sanitizer build from before coverage was part of it
fi
cmake --build "$dir" -j "$(nproc)" >&2
echo "$dir"
