#!/usr/bin/env bash
# Installs the Debian 12 packages dossier needs to build and test, when they are missing.
# Runs apt-get (as root, or through sudo). Safe to run again: installs only what is absent.
set -euo pipefail
pkgs=(g++ cmake ninja-build pkg-config ccache
      libcli11-dev nlohmann-json3-dev libfmt-dev libpci-dev pci.ids pciutils
      libcurl4-openssl-dev libtomlplusplus-dev libsimdjson-dev libhttp-parser-dev libmd4c-html0-dev libmd4c-dev libpugixml-dev libvalijson-dev
      libgtest-dev libgmock-dev libbenchmark-dev
      clang libclang-rt-14-dev
      chromium prometheus lintian help2man dpkg-dev fakeroot gcovr
      python3-aiohttp python3-numpy python3-yaml)
# libmd4c-dev: Debian 12's md4c-html.pc requires md4c.pc, but libmd4c-html0-dev does not depend on
# the package that ships it, so CMake's pkg_check_modules(md4c-html) fails on a fresh machine without it.
# npm builds the pinned llama.cpp server for serve-bench's integration test; a machine whose Node.js
# already brings npm (NodeSource's) keeps it, a stock Debian gets Debian's.
command -v npm >/dev/null || pkgs+=(nodejs npm)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present" >&2
  exit 0
fi
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
