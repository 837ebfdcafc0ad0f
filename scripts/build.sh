#!/usr/bin/env bash
# Configures and builds dossier. usage: scripts/build.sh [--sanitize] [BUILD_DIR]
# Default build dir: build (build-asan with --sanitize).
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
[ $san = ON ] && extra=(-DDOSSIER_BENCH=OFF)  # benchmarks are not run under the sanitizers
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDOSSIER_SANITIZE=$san "${extra[@]}" >&2
fi
cmake --build "$dir" -j "$(nproc)" >&2
echo "$dir"
