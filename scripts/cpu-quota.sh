#!/usr/bin/env bash
# Runs a command with a CPU quota, as on a loaded CI runner: PERCENT ms of CPU in every 100 ms
# for the command and everything it starts. Used to check that no test depends on how fast the
# machine is (the tests assert behaviour; speed is measured in bench/).
#
# usage: scripts/cpu-quota.sh PERCENT COMMAND [ARG…]
#   e.g. scripts/cpu-quota.sh 30 build/tests/dossier_tests --gtest_filter='ServeBench*'
# Uses a cgroup (v2 cpu.max, or v1 cpu.cfs_quota_us) when one can be made (root); otherwise
# stops and continues the command's process group (SIGSTOP/SIGCONT) on the same duty cycle,
# which is coarser but has the same effect on timing.
set -euo pipefail
pct=$1
shift
quota=$((pct * 1000))  # microseconds per 100 ms period
name=dossier-quota-$$
for base in /sys/fs/cgroup /sys/fs/cgroup/cpu; do
  if [ -f "$base/cgroup.controllers" ] && mkdir "$base/$name" 2>/dev/null; then
    echo "$quota 100000" >"$base/$name/cpu.max"
  elif [ -f "$base/cpu.cfs_quota_us" ] && mkdir "$base/$name" 2>/dev/null; then
    echo 100000 >"$base/$name/cpu.cfs_period_us"
    echo "$quota" >"$base/$name/cpu.cfs_quota_us"
  else
    continue
  fi
  echo "cpu-quota: cgroup $base/$name, $pct ms per 100 ms" >&2
  rc=0
  (echo $BASHPID >"$base/$name/cgroup.procs" && exec "$@") || rc=$?
  rmdir "$base/$name" 2>/dev/null || true
  exit $rc
done
echo "cpu-quota: no cgroup can be made here; SIGSTOP/SIGCONT duty cycle, $pct ms per 100 ms" >&2
set -m
"$@" &
pid=$!
run_s=$(printf '0.%03d' "$pct") stop_s=$(printf '0.%03d' $((100 - pct)))
while kill -0 "$pid" 2>/dev/null; do
  sleep "$run_s"
  kill -STOP -- -"$pid" 2>/dev/null || break
  sleep "$stop_s"
  kill -CONT -- -"$pid" 2>/dev/null || break
done
wait "$pid"
