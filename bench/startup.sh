#!/usr/bin/env bash
# Start-up as a person sees it: the whole `dossier collect --root TREE --format json` process
# against `lspci -vvv` on the same captured tree (the seed story's 8-GPU guest), alternating in
# one hyperfine run. The goal: collect takes no longer than lspci (ratio <= 1).
# usage: bench/startup.sh [BUILD_DIR]   (needs hyperfine; generates the tree into BUILD_DIR)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
tree=$build/bench-trees/seed-guest
[ -d "$tree" ] || "$build/dossier-treegen" "$src/tests/fixtures/trees/seed-guest" "$tree" >/dev/null
hyperfine -N --warmup 5 --runs "${RUNS:-60}" \
  -n collect "$build/dossier collect -q --root $tree --format json" \
  -n lspci "lspci -vvv -A linux-sysfs -O sysfs.path=$tree/sys/bus/pci" \
  --export-json "$build/startup.json" >&2
python3 - "$build/startup.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
c, l = r["collect"]["mean"], r["lspci"]["mean"]
print(f"collect {c*1e3:.2f} ms, lspci {l*1e3:.2f} ms, collect/lspci = {c/l:.2f}")
PY
