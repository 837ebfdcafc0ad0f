#!/usr/bin/env bash
# Builds the Debian package from a finished build directory (cpack reuses its binary: nothing is
# compiled again), unpacks it into a temporary root with `dpkg -x`, runs the installed binary,
# checks that the man page and bash completion are there, and runs lintian (no errors allowed).
# The suite runs it (tests/package_test.cc); by hand: scripts/check-deb.sh build
# usage: scripts/check-deb.sh BUILD_DIR   (prints the .deb's path on success)
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^project(dossier VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
deb="$build/package/dossier_${version}_amd64.deb"
rm -f "$deb"
(cd "$build" && cpack -G DEB -B "$build/package" >"$build/package-cpack.log" 2>&1) || {
  cat "$build/package-cpack.log" >&2
  echo "check-deb: cpack failed (log above)" >&2
  exit 1
}
[ -f "$deb" ] || { echo "check-deb: cpack wrote no $deb" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg -x "$deb" "$root"
fail=0
for f in usr/bin/dossier usr/share/man/man1/dossier.1.gz usr/share/bash-completion/completions/dossier \
  usr/share/doc/dossier/copyright usr/share/doc/dossier/README.md usr/share/doc/dossier/docs/fleet.md; do
  [ -e "$root/$f" ] || { echo "check-deb: $f missing from the package" >&2; fail=1; }
done
"$root/usr/bin/dossier" --version | grep -qx "dossier $version" ||
  { echo "check-deb: the installed binary does not print 'dossier $version'" >&2; fail=1; }
"$root/usr/bin/dossier" help | grep -q '^  fleet ' ||
  { echo "check-deb: the installed binary lacks the fleet command" >&2; fail=1; }
bash -n "$root/usr/share/bash-completion/completions/dossier" ||
  { echo "check-deb: the bash completion does not parse" >&2; fail=1; }
zcat "$root/usr/share/man/man1/dossier.1.gz" | grep -q '^\.SS "dossier fleet"' ||
  { echo "check-deb: the man page has no section for dossier fleet" >&2; fail=1; }

# lintian: errors fail the check; warnings are printed for the reader.
lint=$(lintian --allow-root --no-tag-display-limit "$deb" 2>&1 || true)
[ -z "$lint" ] || printf '%s\n' "$lint" >&2
if printf '%s\n' "$lint" | grep -q '^E: '; then
  echo "check-deb: lintian reports errors" >&2
  fail=1
fi
[ $fail = 0 ] || exit 1
echo "$deb"
