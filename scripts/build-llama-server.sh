#!/usr/bin/env bash
# Build llama.cpp's `llama-server` for the serve-bench integration test
# (tests/integration: a real engine beside our stand-in server).
#
# The source comes from the npm package node-llama-cpp, pinned below: its
# tarball carries llama.cpp as a git bundle (llama/gitRelease.bundle) with
# tools/server, gguf-py and models/ggml-vocab-llama-spm.gguf, which the test
# uses to write a tiny random-weight model. Everything lives in a cache
# directory outside the clone, keyed by the pinned version, so a second run
# only checks that the binary exists and prints its path.
#
#   scripts/build-llama-server.sh          build if missing, print binary path
#   DOSSIER_CACHE=/dir scripts/...         cache root (default ~/.cache/dossier)
#   LLAMA_SERVER_JOBS=N                    ninja jobs (default 1: shared CI box)
#
# Cold cost on 2 cores: npm ~1-4 min (network), ninja -j1 llama-server ~30 min (measured beside
# other builds; fewer when the box is idle); a no-op once cached.
set -euo pipefail

VERSION=3.22.1 # node-llama-cpp; bump deliberately, the cache key follows it
CACHE_ROOT=${DOSSIER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dossier}
DIR=$CACHE_ROOT/llama-server-$VERSION
BIN=$DIR/bin/llama-server
JOBS=${LLAMA_SERVER_JOBS:-1}

if [[ -x $BIN && -f $DIR/llama.cpp/models/ggml-vocab-llama-spm.gguf ]]; then
  echo "llama-server $VERSION cached: $BIN"
  exit 0
fi

for tool in npm git cmake ninja c++; do
  if ! command -v "$tool" >/dev/null; then
    echo "build-llama-server: '$tool' is not installed; run scripts/install-deps.sh" >&2
    exit 1
  fi
done

mkdir -p "$DIR"
# One builder at a time: parallel CI jobs on one cache wait for each other.
exec 9>"$DIR/.lock"
flock 9
if [[ -x $BIN ]]; then
  echo "llama-server $VERSION cached: $BIN"
  exit 0
fi

cd "$DIR"
if [[ ! -f npm/node_modules/node-llama-cpp/llama/gitRelease.bundle ]]; then
  echo "build-llama-server: npm i -E node-llama-cpp@$VERSION into $DIR/npm"
  mkdir -p npm
  # --ignore-scripts: the package's postinstall would build its Node addon
  # with every core; we only want the llama.cpp sources it ships.
  [[ -f npm/package.json ]] || echo '{"private":true}' >npm/package.json
  (cd npm && npm i -E --omit=optional --ignore-scripts --no-audit --no-fund \
    "node-llama-cpp@$VERSION")
fi
PKG=$DIR/npm/node_modules/node-llama-cpp
SRC=$PKG/llama/llama.cpp
if [[ ! -f $SRC/tools/server/server.cpp ]]; then
  # What node-llama-cpp's own `source download` does: clone the shipped bundle.
  rm -rf "$SRC"
  git clone -q "$PKG/llama/gitRelease.bundle" "$SRC"
fi
ln -sfn "$SRC" "$DIR/llama.cpp"

launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$SRC" -B "$DIR/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=OFF \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DLLAMA_BUILD_SERVER=ON "${launcher[@]}"
nice -n 19 ninja -C "$DIR/build" -j"$JOBS" llama-server
mkdir -p "$DIR/bin"
cp "$DIR/build/bin/llama-server" "$BIN.tmp"
mv "$BIN.tmp" "$BIN"
echo "llama-server $VERSION built: $BIN"
