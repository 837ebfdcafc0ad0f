#!/usr/bin/env bash
# The README's first command: installs what is missing, builds, and runs the main job: a collect
# of this machine and of the bundled example 8-GPU guest (the seed story's Proxmox Q35 VM),
# printing each report.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
dir=$(scripts/build.sh)
"$dir/dossier-treegen" tests/fixtures/trees/seed-guest "$dir/fixtures/seed-guest" >&2
echo "=== dossier collect (this machine) ===" >&2
"$dir/dossier" collect --format md
echo "=== dossier collect --root $dir/fixtures/seed-guest (example 8-GPU Proxmox guest) ===" >&2
"$dir/dossier" collect --root "$dir/fixtures/seed-guest" --format md
