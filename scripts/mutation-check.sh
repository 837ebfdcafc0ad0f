#!/usr/bin/env bash
# Applies each source mutation of tests/mutations.txt in turn to a copy of the sources, rebuilds
# incrementally, runs the suite, and reports which mutations were killed (the suite failed) and
# which survived. Every mutation must be killed; a mutation whose text is no longer in its file
# is reported stale (update the list to the code as it is). Exit 0 only when all were killed.
#
# usage: scripts/mutation-check.sh [ID…]       (default: every mutation of the list)
#        scripts/mutation-check.sh --check-list  (seconds, no build: is every mutation's text
#                                                 still in its file? CI runs this one)
# env:   MUTATION_DIR (default build-mutation: the source copy and its build, kept between runs
#        so a second run is incremental; scripts/mutants.py shares it), JOBS (ninja -j, default 1),
#        TEST_TIMEOUT (s, default 900), MUTATION_UNITY=OFF (one file per compile: a mutation
#        rebuilds one file, but a cold build parses the heavy headers once per file, about ten
#        times the work of unity batches on a loaded machine), MUTATION_FLAGS=release (the
#        RelWithDebInfo flags of scripts/build.sh instead of -O0)
#
# Not run by CI on every change (a full run takes tens of minutes on 2 cores); run it before
# resolving a change to the tests, and after adding a mutation.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
list=tests/mutations.txt
work=${MUTATION_DIR:-build-mutation}
jobs=${JOBS:-1}
test_timeout=${TEST_TIMEOUT:-900}
src=$work/src
bld=$work/build
start=$(date +%s)

if [ "${1:-}" = --check-list ]; then
  python3 - "$list" <<'PY'
import sys
path = sys.argv[1]
muts, cur = [], None
for n, line in enumerate(open(path, encoding="utf-8"), 1):
    line = line.rstrip("\n")
    if not line.strip() or line.startswith("#"):
        continue
    if line.startswith("[") and line.endswith("]"):
        cur = {"id": line[1:-1], "line": n}
        muts.append(cur)
        continue
    key, sep, val = line.partition(": ")
    if cur is None or not sep:
        sys.exit(f"{path}:{n}: expected [id] or key: value")
    cur[key] = val
stale = []
for m in muts:
    try:
        count = open(m["file"], encoding="utf-8").read().count(m["from"])
    except (OSError, KeyError):
        count = 0
    if count != 1:
        stale.append(f"{path}:{m['line']}: [{m['id']}] '{m.get('from')}' occurs {count} times in {m.get('file')}")
print(f"mutation list: {len(muts)} mutations, {len(stale)} stale", file=sys.stderr)
for s in stale:
    print("  " + s, file=sys.stderr)
sys.exit(1 if stale else 0)
PY
  exit $?
fi

# A copy of the tracked and untracked (not ignored) files: the checkout itself is never mutated,
# so an interrupted run leaves nothing behind. Files already there and equal are left alone
# (their times too), which keeps the rebuild incremental.
mkdir -p "$src"
# A file the checkout no longer has (moved or deleted) leaves the copy: left there, a test moved
# to another directory was compiled twice (the test glob finds both) and the copy did not build.
git ls-files -co --exclude-standard | LC_ALL=C sort > "$work/.files"
(cd "$src" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) | LC_ALL=C comm -23 - "$work/.files" |
  while IFS= read -r f; do rm -f "$src/$f"; done
git ls-files -co --exclude-standard | while IFS= read -r f; do
  [ -f "$f" ] || continue
  if ! cmp -s "$f" "$src/$f"; then
    mkdir -p "$src/$(dirname "$f")"
    cp -p "$f" "$src/$f"
  fi
done
export CCACHE_BASEDIR=$top/$src
# Mutated objects in a cache of their own (as scripts/mutants.py): in the shared one they evicted
# the working builds' objects.
export CCACHE_DIR=${MUTATION_CCACHE_DIR:-$HOME/.cache/ccache-mutation}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# build.ninja, not CMakeCache.txt: a configure that failed (a -dev package missing) leaves the
# cache behind, and the next run must configure again rather than stop at ninja.
if [ ! -f "$bld/build.ninja" ]; then
  # Default: unity batches (a mutation recompiles its batch of 16; the cold build is a tenth of
  # one file per compile's, README "Generated mutants"); -O0: quicker to compile than to run faster.
  flags=(-DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O0)
  [ "${MUTATION_FLAGS:-}" = release ] && flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
  cmake -S "$src" -B "$bld" -G Ninja "${flags[@]}" -DDOSSIER_UNITY="${MUTATION_UNITY:-ON}" \
    -DDOSSIER_BENCH=OFF -DDOSSIER_LIB_ASSERTIONS=ON >/dev/null
fi

run_suite() {  # $1: optional gtest filter; returns the suite's status
  local filter=${1:-*}
  (cd "$bld" && timeout "$test_timeout" tests/dossier_tests --gtest_brief=1 --gtest_fail_fast \
    --gtest_filter="$filter" >"$top/$work/last-test.log" 2>&1)
}

echo "mutation-check: building the unmutated sources in $bld" >&2
ninja -C "$bld" -j "$jobs" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 2; }
if ! run_suite; then
  echo "mutation-check: the suite fails without any mutation; see $work/last-test.log" >&2
  exit 2
fi

# id<TAB>file<TAB>from<TAB>to<TAB>tests, one line per mutation.
parsed=$(python3 - "$list" "$@" <<'PY'
import sys
path, want = sys.argv[1], set(sys.argv[2:])
muts, cur = [], None
for n, line in enumerate(open(path, encoding="utf-8"), 1):
    line = line.rstrip("\n")
    if not line.strip() or line.startswith("#"):
        continue
    if line.startswith("[") and line.endswith("]"):
        cur = {"id": line[1:-1], "line": n}
        muts.append(cur)
        continue
    key, sep, val = line.partition(": ")
    if cur is None or not sep or key not in ("file", "from", "to", "tests"):
        sys.exit(f"{path}:{n}: expected [id] or file:/from:/to:/tests: lines")
    cur[key] = val
for m in muts:
    for k in ("file", "from", "to"):
        if k not in m:
            sys.exit(f"{path}:{m['line']}: [{m['id']}] has no '{k}:'")
    if "\t" in m["from"] + m["to"]:
        sys.exit(f"{path}:{m['line']}: tabs are not allowed")
unknown = want - {m["id"] for m in muts}
if unknown:
    sys.exit("unknown mutation id(s): " + ", ".join(sorted(unknown)))
for m in muts:
    if not want or m["id"] in want:
        print("\t".join([m["id"], m["file"], m["from"], m["to"], m.get("tests", "")]))
PY
)

apply() {  # file from to: replaces the one occurrence; exit 3 when not exactly one
  python3 - "$@" <<'PY'
import sys
path, old, new = sys.argv[1:4]
text = open(path, encoding="utf-8").read()
if text.count(old) != 1:
    sys.exit(3)
open(path, "w", encoding="utf-8").write(text.replace(old, new))
PY
}

killed=() survived=() stale=() invalid=()
while IFS=$'\t' read -r id file from to tests; do
  [ -n "$id" ] || continue
  t0=$(date +%s)
  cp -p "$file" "$work/pristine"  # the checkout's copy: the mutation is undone from it
  if ! apply "$src/$file" "$from" "$to"; then
    stale+=("$id")
    echo "STALE     $id: '$from' is not (exactly once) in $file" >&2
    continue
  fi
  verdict=
  if ! ninja -C "$bld" -j "$jobs" >"$work/build.log" 2>&1; then
    verdict=INVALID  # does not compile: not a bug the suite could see
  elif [ -n "$tests" ] && ! run_suite "$tests"; then
    verdict=KILLED
  elif ! run_suite; then
    verdict=KILLED
  else
    verdict=SURVIVED
  fi
  cp -p "$work/pristine" "$src/$file"
  touch "$src/$file"  # newer than the mutated object: the next build recompiles it (ccache hit)
  case $verdict in
    KILLED) killed+=("$id") ;;
    SURVIVED) survived+=("$id") ;;
    INVALID) invalid+=("$id") ;;
  esac
  what=$(grep -m1 -E '^\[  FAILED  \]' "$work/last-test.log" 2>/dev/null | sed 's/^\[  FAILED  \] //' || true)
  printf '%-9s %s (%ss)%s\n' "$verdict" "$id" "$(($(date +%s) - t0))" \
    "$([ $verdict = KILLED ] && [ -n "$what" ] && echo " by $what")" >&2
done <<<"$parsed"
ninja -C "$bld" -j "$jobs" >"$work/build.log" 2>&1 || true  # leave the build unmutated

total=$((${#killed[@]} + ${#survived[@]} + ${#stale[@]} + ${#invalid[@]}))
echo "mutation-check: $total mutations: ${#killed[@]} killed, ${#survived[@]} survived," \
  "${#stale[@]} stale, ${#invalid[@]} do not compile ($(($(date +%s) - start)) s)"
for id in "${survived[@]}"; do echo "  survived: $id"; done
for id in "${stale[@]}"; do echo "  stale: $id"; done
for id in "${invalid[@]}"; do echo "  does not compile: $id"; done
[ ${#survived[@]} -eq 0 ] && [ ${#stale[@]} -eq 0 ] && [ ${#invalid[@]} -eq 0 ]
