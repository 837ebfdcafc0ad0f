#!/usr/bin/env bash
# Checks the portable tarball (scripts/build-portable.sh): unpacked into a temporary directory,
# every ELF file's NEEDED libraries are in its lib/ or are glibc's / the GCC runtime's
# (readelf -d); no glibc symbol version is newer than 2.34 and no libstdc++ one newer than
# GLIBCXX_3.4.29 / CXXABI_1.3.13 (RHEL 9's GCC 11) (objdump -T); then the unpacked binary runs
# with LD_LIBRARY_PATH empty on a captured machine tree and its libraries come from the tarball.
# The suite runs it (tests/package_test.cc). usage: scripts/check-portable.sh BUILD_DIR TREE
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-build}" && pwd)
tree=${2:?usage: check-portable.sh BUILD_DIR TREE}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tarball=$("$src/scripts/build-portable.sh" "$build" "$work")
tar -C "$work" -xzf "$tarball"
dir=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'dossier-*')
fail=0
ver_gt() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -1)" = "$1" ] && [ "$1" != "$2" ]; }
for f in "$dir"/bin/dossier "$dir"/lib/*; do
  [ -f "$f" ] || continue
  for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case "$n" in
      libc.so.6 | libm.so.6 | libdl.so.2 | librt.so.1 | libpthread.so.0 | ld-linux-x86-64.so.2 | \
        libstdc++.so.6 | libgcc_s.so.1) ;;
      *) [ -f "$dir/lib/$n" ] || { echo "check-portable: $(basename "$f") needs $n, not in the tarball" >&2; fail=1; } ;;
    esac
  done
  syms=$(objdump -T "$f")
  for pair in GLIBC_:2.34 GLIBCXX_:3.4.29 CXXABI_:1.3.13; do
    prefix=${pair%%:*} limit=${pair#*:}
    for v in $(printf '%s\n' "$syms" | grep -oE "\b${prefix}[0-9.]+" | sed "s/^$prefix//" | sort -Vu); do
      if ver_gt "$v" "$limit"; then
        echo "check-portable: $(basename "$f") needs $prefix$v (> $limit):" \
          "$(printf '%s\n' "$syms" | grep "$prefix$v" | awk '{print $NF}' | tr '\n' ' ')" >&2
        fail=1
      fi
    done
  done
done
# The run path must find the bundled libraries, not the system's copies.
for lib in "$dir"/lib/*; do
  n=$(basename "$lib")
  where=$(env -u LD_LIBRARY_PATH ldd "$dir/bin/dossier" | awk -v n="$n" '$1 == n {print $3}')
  case "$where" in
    "$dir"/bin/../lib/* | "$dir"/lib/*) ;;
    *) echo "check-portable: $n resolves to '$where', not the tarball's" >&2; fail=1 ;;
  esac
done
out=$(env LD_LIBRARY_PATH= "$dir/bin/dossier" collect -q --root "$tree" --format json) ||
  { echo "check-portable: the unpacked binary failed to collect $tree" >&2; fail=1; }
grep -q '"schema": "dossier/1"' <<<"$out" ||
  { echo "check-portable: collect printed no dossier/1 document" >&2; fail=1; }
grep -q '"address": "0000:01:00.0"' <<<"$out" ||
  { echo "check-portable: the collect found no GPU at 0000:01:00.0" >&2; fail=1; }
# The tarball's pci.ids: present, and what names the devices of a tree that carries none (a
# machine with nothing installed). The tree is copied without its own database.
if [ ! -s "$dir/share/dossier/pci.ids.gz" ] || [ ! -s "$dir/share/dossier/pci.ids.version" ]; then
  echo "check-portable: no share/dossier/pci.ids.gz and its version in the tarball" >&2
  fail=1
fi
ids_version=$(cat "$dir/share/dossier/pci.ids.version" 2>/dev/null || true)
env LD_LIBRARY_PATH= "$dir/bin/dossier" version | grep -q "^pci.ids " ||
  { echo "check-portable: dossier version does not say which pci.ids" >&2; fail=1; }
bare="$work/bare-tree"
cp -a "$tree" "$bare"
rm -f "$bare"/usr/share/misc/pci.ids* "$bare"/usr/share/hwdata/pci.ids* "$bare"/usr/share/pci.ids*
out=$(env LD_LIBRARY_PATH= "$dir/bin/dossier" collect -q --root "$bare" --format json) ||
  { echo "check-portable: the unpacked binary failed to collect $bare" >&2; fail=1; }
grep -q "pci.ids.gz carried by dossier (version $ids_version)" <<<"$out" ||
  { echo "check-portable: a tree without pci.ids was not named from the tarball's" >&2; fail=1; }
grep -q '"name": "NVIDIA Corporation' <<<"$out" ||
  { echo "check-portable: no NVIDIA device named from the tarball's pci.ids" >&2; fail=1; }
[ $fail = 0 ] || exit 1
echo "$tarball ok"
