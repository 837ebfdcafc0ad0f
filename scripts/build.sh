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
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDOSSIER_SANITIZE=$san >&2
fi
cmake --build "$dir" -j "$(nproc)" >&2
echo "$dir"
