#!/usr/bin/env bash
# Makes dossier-VERSION-x86_64.tar.gz: a binary that runs on a stock Debian 12, Ubuntu 22.04 or
# RHEL 9 with nothing installed. The build directory's objects are relinked (not recompiled) as
# dossier-portable (packaging/CMakeLists.txt: run path $ORIGIN/../lib, libhttp_parser static);
# the shared libraries it needs beyond glibc and the GCC runtime (libstdc++, libgcc_s) are copied
# into lib/. NVML, CUDA and libcurl are not among them: dossier opens them at run time when the
# host has them.
# usage: scripts/build-portable.sh [BUILD_DIR] [OUT_DIR]   (prints the tarball's path)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
out=${2:-$build}
version=$(sed -n 's/^project(dossier VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
name=dossier-$version-x86_64
[ -f "$build/CMakeCache.txt" ] || { echo "build-portable: $build is not a configured build directory (scripts/build.sh first)" >&2; exit 2; }
cmake --build "$build" --target dossier-portable >&2

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/$name/bin" "$stage/$name/lib"
# Debug info stays in the build directory: the tarball carries what runs.
objcopy --strip-debug "$build/packaging/dossier-portable" "$stage/$name/bin/dossier"

# What the system provides everywhere: glibc and the GCC runtime.
system_lib() {
  case "$1" in
    libc.so.6 | libm.so.6 | libdl.so.2 | librt.so.1 | libpthread.so.0 | libresolv.so.2 | \
      ld-linux-x86-64.so.2 | libstdc++.so.6 | libgcc_s.so.1) return 0 ;;
  esac
  return 1
}
# Every library ldd resolves (transitively) that is not the system's goes into lib/.
ldd "$stage/$name/bin/dossier" | while read -r soname arrow path rest; do
  [ "$arrow" = "=>" ] || continue
  system_lib "$soname" && continue
  [ -f "$path" ] || { echo "build-portable: $soname not found ($path)" >&2; exit 1; }
  cp -L "$path" "$stage/$name/lib/$soname"
  objcopy --strip-debug "$stage/$name/lib/$soname"
done
# pciutils' PCI ID database, so a machine with none installed still names its devices (dossier
# looks in share/dossier beside bin/ when the system has no pci.ids; libpci reads it gzipped).
# From the build machine's pci.ids package (Debian) or hwdata (Fedora); its "Version:" header goes
# beside it for `dossier version`. Licence: GPL-2.0-or-later or BSD-3-Clause (the file says so).
ids=
for f in /usr/share/misc/pci.ids /usr/share/hwdata/pci.ids; do
  [ -f "$f" ] && { ids=$f; break; }
done
[ -n "$ids" ] || { echo "build-portable: no pci.ids on this machine (apt-get install pci.ids)" >&2; exit 1; }
mkdir -p "$stage/$name/share/dossier"
gzip -9n <"$ids" >"$stage/$name/share/dossier/pci.ids.gz"
sed -n 's/^#[[:space:]]*Version:[[:space:]]*\([^[:space:]]*\).*/\1/p' "$ids" | head -1 \
  >"$stage/$name/share/dossier/pci.ids.version"
[ -s "$stage/$name/share/dossier/pci.ids.version" ] ||
  { echo "build-portable: $ids has no Version: header" >&2; exit 1; }
cp "$src/README.md" "$stage/$name/"
cat >"$stage/$name/PORTABLE.txt" <<TXT
dossier $version, portable build for x86_64 Linux.

Run bin/dossier from anywhere (it finds lib/ beside it); nothing needs installing. Needs glibc 2.34
or later and libstdc++ from GCC 11 or later (Debian 12, Ubuntu 22.04, RHEL 9 and later have both).
NVML (libnvidia-ml.so.1), the CUDA driver (libcuda.so.1) and libcurl (libcurl.so.4, for
serve-bench over https) are loaded at run time when the host has them.

share/dossier/pci.ids.gz is the PCI ID Repository's database (https://pci-ids.ucw.cz, version in
pci.ids.version beside it; GPL-2.0-or-later or BSD-3-Clause): dossier names PCI devices from it
when the system has no pci.ids of its own ("dossier version" says which one is used).
TXT
tar -C "$stage" --owner=0 --group=0 --sort=name -czf "$out/$name.tar.gz" "$name"
echo "$out/$name.tar.gz"
