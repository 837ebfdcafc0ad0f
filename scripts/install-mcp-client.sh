#!/usr/bin/env bash
# Installs the MCP clients dossier's tests speak to `dossier mcp` with (tests/mcp_sdk_test.cc):
# the official TypeScript SDK (@modelcontextprotocol/sdk) and the MCP Inspector's CLI, from npm,
# at the versions tests/mcp/package-lock.json pins, into a cache outside the clone keyed by that
# lock file's hash. A second run only checks that the cache is complete and prints its path.
#
#   scripts/install-mcp-client.sh          install if missing, print the directory
#   DOSSIER_CACHE=/dir scripts/...         cache root (default ~/.cache/dossier)
#
# Cold cost: npm ci ~20-60 s (network, 160 MB); a no-op once cached.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE_ROOT=${DOSSIER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dossier}
KEY=$(sha256sum tests/mcp/package-lock.json | cut -c1-16)
DIR=$CACHE_ROOT/mcp-client-$KEY
if [[ -f $DIR/.complete ]]; then
  echo "$DIR"
  exit 0
fi
command -v npm >/dev/null || { echo "install-mcp-client: npm is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
rm -rf "$DIR.tmp"
mkdir -p "$DIR.tmp"
cp tests/mcp/package.json tests/mcp/package-lock.json "$DIR.tmp/"
(cd "$DIR.tmp" && npm ci --no-audit --no-fund --loglevel=error >&2)
touch "$DIR.tmp/.complete"
rm -rf "$DIR"
mv "$DIR.tmp" "$DIR"
echo "$DIR"
