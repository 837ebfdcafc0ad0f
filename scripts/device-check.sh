#!/usr/bin/env bash
# The check on a real GPU machine (issue 26): on a machine with NVIDIA GPUs and nothing installed
# beyond the driver and CUDA, it
#   1. unpacks the portable tarball (scripts/build-portable.sh) and runs dossier from it;
#   2. collects live and compares every NVML fact dossier records with `nvidia-smi --query-gpu`
#      and `nvidia-smi -q`, field by field: a table of fact, dossier, nvidia-smi, agree;
#   3. runs `dossier p2p` and nvbandwidth on the same sizes and prints dossier / nvbandwidth per
#      mode and size (host->GPU, GPU->host, device-local; GPU->GPU peer copies when there are two
#      GPUs with peer access);
# and exits 1 on a disagreement or a ratio outside 0.95-1.05, 2 on bad usage or a missing tool.
# Everything runs under one deadline (--budget, default 280 s), so it finishes in under 5 minutes.
#
# nvbandwidth: --nvbandwidth PATH, else `nvbandwidth` on PATH, else built from source with the
# machine's nvcc and CMake: --nvbandwidth-src DIR|TARBALL, default the copy this repository carries
# (third_party/nvbandwidth/nvbandwidth-0.8.tar.gz, Apache-2.0). Its build needs Boost
# program_options: the system's, or Debian's packages given with --boost-debs DIR (fetched
# elsewhere with `apt-get download libboost1.74-dev libboost-program-options1.74-dev
# libboost-program-options1.74.0`; the machine needs no network).
#
# Parsing and comparing is Python 3 (every Ubuntu and RHEL server image has it). The parts that
# need no GPU are tested against the stand-in libraries with a fake nvidia-smi and nvbandwidth on
# PATH (tests/device_check_test.cc): --dossier, --nvml-lib and --cuda-lib exist for that.
#
# usage: scripts/device-check.sh [--tarball FILE | --dossier BIN] [--sizes 1,64,256] [--budget S]
#          [--nvbandwidth PATH | --nvbandwidth-src DIR|TARBALL] [--boost-debs DIR]
#          [--nvml-lib LIB] [--cuda-lib LIB] [--no-bandwidth] [--work DIR]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
tarball='' dossier='' sizes=1,64,256 budget=280 nvb='' nvb_src='' boost_debs='' nvml_lib=''
cuda_lib='' bandwidth=1 work=
usage() { sed -n 's/^# usage: /usage: /p; /^#          /s/^# *//p' "$0" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --tarball) tarball=${2:?}; shift 2 ;;
    --dossier) dossier=${2:?}; shift 2 ;;
    --sizes) sizes=${2:?}; shift 2 ;;
    --budget) budget=${2:?}; shift 2 ;;
    --nvbandwidth) nvb=${2:?}; shift 2 ;;
    --nvbandwidth-src) nvb_src=${2:?}; shift 2 ;;
    --boost-debs) boost_debs=${2:?}; shift 2 ;;
    --nvml-lib) nvml_lib=${2:?}; shift 2 ;;
    --cuda-lib) cuda_lib=${2:?}; shift 2 ;;
    --no-bandwidth) bandwidth=0; shift ;;
    --work) work=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "device-check: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ $sizes =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "device-check: --sizes takes MiB like 1,64,256" >&2; exit 2; }
[[ $budget =~ ^[0-9]+$ ]] || { echo "device-check: --budget takes seconds" >&2; exit 2; }
command -v python3 >/dev/null || { echo "device-check: needs python3" >&2; exit 2; }
command -v nvidia-smi >/dev/null || { echo "device-check: no nvidia-smi on PATH (is the driver installed?)" >&2; exit 2; }
deadline=$((SECONDS + budget))
left() { local l=$((deadline - SECONDS)); [ $l -gt 5 ] && echo $l || echo 5; }
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
fail=0

# 1. The binary: from the tarball (the point of the check), or one given.
if [ -z "$dossier" ]; then
  if [ -z "$tarball" ]; then
    for t in "$src"/build/dossier-*-x86_64.tar.gz ./dossier-*-x86_64.tar.gz; do
      [ -f "$t" ] && tarball=$t
    done
  fi
  if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
    echo "device-check: no portable tarball (scripts/build-portable.sh; or --tarball FILE)" >&2
    exit 2
  fi
  tar -C "$work" -xzf "$tarball"
  dossier=$(find "$work" -maxdepth 3 -path '*/bin/dossier' -type f | head -1)
  [ -x "$dossier" ] || { echo "device-check: $tarball holds no bin/dossier" >&2; exit 2; }
fi
echo "== $(env LD_LIBRARY_PATH= "$dossier" version | tr '\n' ';' | sed 's/;$//; s/;/; /g')"
echo "== machine: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | tr '\n' ';')" \
  "driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"

# 2. Facts: dossier's collect beside nvidia-smi's.
collect_args=(collect -q --format json)
[ -n "$nvml_lib" ] && collect_args+=(--nvml-lib "$nvml_lib")
t0=$SECONDS
env LD_LIBRARY_PATH= timeout "$(left)" "$dossier" "${collect_args[@]}" >"$work/collect.json" ||
  { echo "device-check: dossier collect failed" >&2; exit 1; }
echo "== dossier collect: $((SECONDS - t0)) s"
# Every field dossier has a counterpart for. A field this nvidia-smi does not know makes the whole
# query fail, so on failure each is asked alone (and an unknown one is "[not a field]").
fields=index,name,pci.bus_id,uuid,serial,vbios_version,driver_version,compute_cap,memory.total,
fields+=pcie.link.gen.current,pcie.link.gen.max,pcie.link.gen.gpumax,pcie.link.gen.hostmax,
fields+=pcie.link.width.current,pcie.link.width.max,persistence_mode,ecc.mode.current,mig.mode.current,
fields+=power.limit,enforced.power.limit,power.draw,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.memory,
fields+=temperature.gpu,clocks_event_reasons.active,ecc.errors.corrected.volatile.total,
fields+=ecc.errors.uncorrected.volatile.total,ecc.errors.corrected.aggregate.total,
fields+=ecc.errors.uncorrected.aggregate.total,remapped_rows.correctable,remapped_rows.uncorrectable,
fields+=remapped_rows.pending,remapped_rows.failure,retired_pages.pending
if ! nvidia-smi --query-gpu="$fields" --format=csv,nounits >"$work/query.csv" 2>"$work/query.err"; then
  known=
  for f in ${fields//,/ }; do
    nvidia-smi --query-gpu="$f" --format=csv,noheader >/dev/null 2>&1 && known+=${known:+,}$f
  done
  [ -n "$known" ] || { echo "device-check: nvidia-smi --query-gpu answers no field" >&2; exit 1; }
  nvidia-smi --query-gpu="$known" --format=csv,nounits >"$work/query.csv"
fi
nvidia-smi -q >"$work/smi-q.txt" || { echo "device-check: nvidia-smi -q failed" >&2; exit 1; }
python3 "$src/scripts/device_check_compare.py" facts "$work/collect.json" "$work/query.csv" \
  "$work/smi-q.txt" || fail=1

# 3. Bandwidth: dossier p2p beside nvbandwidth, same sizes.
if [ "$bandwidth" = 1 ]; then
  if [ -z "$nvb" ] && command -v nvbandwidth >/dev/null; then nvb=$(command -v nvbandwidth); fi
  if [ -z "$nvb" ]; then
    nvb_src=${nvb_src:-$src/third_party/nvbandwidth/nvbandwidth-0.8.tar.gz}
    command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] ||
      { echo "device-check: no nvbandwidth and no nvcc to build it (--nvbandwidth PATH)" >&2; exit 2; }
    command -v cmake >/dev/null || { echo "device-check: no nvbandwidth and no cmake to build it" >&2; exit 2; }
    export PATH=$PATH:/usr/local/cuda/bin
    if [ -f "$nvb_src" ]; then
      mkdir -p "$work/nvb-src" && tar -C "$work/nvb-src" --strip-components=1 -xzf "$nvb_src"
      nvb_src=$work/nvb-src
    fi
    cmake_args=(-S "$nvb_src" -B "$work/nvb-build" -DCMAKE_BUILD_TYPE=Release)
    if [ -n "$boost_debs" ]; then
      for d in "$boost_debs"/*.deb; do dpkg-deb -x "$d" "$work/boost"; done
      cmake_args+=(-DBoost_ROOT="$work/boost/usr" -DCMAKE_PREFIX_PATH="$work/boost/usr")
    fi
    # Link against the toolkit's stubs (the driver ships libcuda.so.1 and libnvidia-ml.so.1 only).
    for stubs in /usr/local/cuda/lib64/stubs /usr/local/cuda/targets/x86_64-linux/lib/stubs; do
      [ -d "$stubs" ] && cmake_args+=(-DCMAKE_EXE_LINKER_FLAGS="-L$stubs") && break
    done
    t0=$SECONDS
    { timeout "$(left)" cmake "${cmake_args[@]}" && timeout "$(left)" cmake --build "$work/nvb-build" -j "$(nproc)"; } \
      >"$work/nvb-build.log" 2>&1 ||
      { tail -20 "$work/nvb-build.log" >&2; echo "device-check: building nvbandwidth failed" >&2; exit 1; }
    nvb=$work/nvb-build/nvbandwidth
    echo "== built nvbandwidth from $(basename "${nvb_src%/}") in $((SECONDS - t0)) s"
  fi
  p2p_args=(p2p -q --no-store --format json --sizes "${sizes//,/M,}M" --timeout "$(left)")
  [ -n "$cuda_lib" ] && p2p_args+=(--cuda-lib "$cuda_lib")
  [ -n "$nvml_lib" ] && p2p_args+=(--nvml-lib "$nvml_lib")
  t0=$SECONDS
  env LD_LIBRARY_PATH= timeout "$(left)" "$dossier" "${p2p_args[@]}" >"$work/p2p.json" ||
    { echo "device-check: dossier p2p failed (exit $?)" >&2; fail=1; }
  echo "== dossier p2p: $((SECONDS - t0)) s"
  t0=$SECONDS
  # nvbandwidth numbers GPUs as CUDA does; PCI order, as dossier p2p (and nvidia-smi) numbers them.
  export CUDA_DEVICE_ORDER=PCI_BUS_ID
  for s in ${sizes//,/ }; do
    timeout "$(left)" "$nvb" -j -b "$s" -t host_to_device_memcpy_ce device_to_host_memcpy_ce \
      device_local_copy device_to_device_memcpy_write_ce >"$work/nvb-$s.json" ||
      { echo "device-check: nvbandwidth -b $s failed" >&2; fail=1; }
  done
  echo "== nvbandwidth: $((SECONDS - t0)) s"
  python3 "$src/scripts/device_check_compare.py" bandwidth "$work/p2p.json" "$work"/nvb-*.json || fail=1
fi
echo "== done in $SECONDS s: $([ $fail = 0 ] && echo agree || echo DISAGREE)"
exit $fail
