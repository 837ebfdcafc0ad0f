#!/usr/bin/env bash
# The random, time-bounded fuzz hunt (README "Fuzzing"): every fuzz entry (or one) mutated from a
# random seed for SECONDS each, in the normal build. The suite and CI run the same soak
# deterministically (a fixed seed and count); this is where new inputs are found. A finding lands
# in fuzz-findings/ENTRY-crash (or -timeout): add it to tests/corpus/ENTRY/ with a test of the fix,
# and rerun the hunt exactly with the seed it printed:
#   build/tests/dossier_fuzz_soak --seconds SECONDS --seed SEED --entry ENTRY
# usage: scripts/fuzz-hunt.sh [SECONDS] [ENTRY]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
entry=${2:-}
dir=$(scripts/build.sh)
args=(--seconds "$seconds" --crash-dir fuzz-findings)
[ -n "$entry" ] && args+=(--entry "$entry")
exec "$dir/tests/dossier_fuzz_soak" "${args[@]}"
