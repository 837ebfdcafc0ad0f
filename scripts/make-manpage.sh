#!/usr/bin/env bash
# Writes dossier.1.gz from the binary's own help: help2man over `dossier --help` and
# `--version`, plus one section per command with its `dossier COMMAND --help`, and the exit codes.
# Run at build time (packaging/CMakeLists.txt), so the page cannot drift from the commands.
# usage: scripts/make-manpage.sh path/to/dossier OUT.1.gz
set -euo pipefail
bin=$1
out=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  echo "[COMMANDS]"
  for c in $("$bin" help | awk '/^  [a-z]/ {print $1}'); do
    [ "$c" = help ] || [ "$c" = version ] && continue
    echo ".SS \"dossier $c\""
    echo ".nf"
    # Lines starting with a dot or a quote would be read as roff requests: escape them.
    "$bin" "$c" --help | sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"
    echo ".fi"
  done
  echo "[EXIT STATUS]"
  echo "0: done. 1: the command ran but something failed (a record could not be written, a"
  echo "measurement failed, dossier fleet found nodes that differ). 2: bad usage or unusable input."
  echo "[SEE ALSO]"
  echo "The documentation in /usr/share/doc/dossier/ (README.md, docs/json.md, docs/fleet.md,"
  echo "docs/prometheus.md, docs/measurement.md)."
} >"$tmp/include"
help2man --no-info --no-discard-stderr --section=1 --source="dossier" \
  --name="state dump of a multi-GPU inference machine, with every fact's source" \
  --include="$tmp/include" --output="$tmp/dossier.1" "$bin"
gzip -9n <"$tmp/dossier.1" >"$out"
