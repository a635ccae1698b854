#!/usr/bin/env bash
# Device-code benchmark: full device audit / inventory of libcublasLt.so.13 (5737 zstd entries, 1.43 GB
# decompressed) — and PyTorch's libtorch_cuda.so when importable — against NVIDIA's `cuobjdump -lelf -lptx` on
# the same file, in one run so the ratios are comparable. Prints a markdown table (docs/benchmarks.md "device").
#   bench/device.sh [FILE...]      BENCH_CPUS=0,1 pins every command to those CPUs (the 2-core target)
#                                  BENCH_RUNS=N repetitions, best wall time kept (default 3)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
TC=${TRUELINE_BUILD:-$root/build}/bin/trueline-check
[ -x "$TC" ] || { echo "build first: $TC missing" >&2; exit 2; }
runs=${BENCH_RUNS:-3}
pin=()
[ -n "${BENCH_CPUS:-}" ] && pin=(taskset -c "$BENCH_CPUS")
cuda_home() { local n; n=$(command -v nvcc) && cd "$(dirname "$(readlink -f "$n")")/.." && pwd; }
CUDA_HOME=${CUDA_HOME:-$(cuda_home)}
CUOBJDUMP=$(command -v cuobjdump || { [ -n "$CUDA_HOME" ] && [ -x "$CUDA_HOME/bin/cuobjdump" ] && echo "$CUDA_HOME/bin/cuobjdump"; } ||
  python3 - <<'PY' 2>/dev/null
import glob, importlib.util, os
spec = importlib.util.find_spec("nvidia")
for base in (spec.submodule_search_locations if spec else []):
    for p in glob.glob(os.path.join(base, "**", "bin", "cuobjdump"), recursive=True):
        print(p); raise SystemExit
PY
)
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  for d in "$CUDA_HOME/lib64" "$CUDA_HOME/targets/x86_64-linux/lib"; do
    [ -f "$d/libcublasLt.so.13" ] && { files+=("$d/libcublasLt.so.13"); break; }
  done
  t=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cuda.so"))' 2>/dev/null)
  [ -n "$t" ] && [ -f "$t" ] && files+=("$t")
fi
# measure CMD...: best wall seconds and peak RSS (MB) over $runs runs, via getrusage of the child
measure() {
  python3 - "$runs" "$@" <<'PY'
import resource, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
best, rss, rc = None, 0, 0
for _ in range(runs):
    t = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    w = time.perf_counter() - t
    rc = p.returncode
    best = w if best is None or w < best else best
r = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
print("%.2f %.0f %d" % (best, r, rc))
PY
}
echo "| file | size | tool | command | wall s (best of $runs) | peak RSS MB | exit |"
echo "|---|---|---|---|---|---|---|"
for f in "${files[@]}"; do
  sz=$(($(stat -c %s "$f") / 1048576))
  read -r lw lr lrc < <(measure "${pin[@]}" "$TC" --list "$f")
  echo "| $(basename "$f") | ${sz} MB | trueline-check | --list | $lw | $lr | $lrc |"
  read -r aw ar arc < <(measure "${pin[@]}" "$TC" --checks line-tables,cuda-arch,mixed-toolchain "$f")
  echo "| $(basename "$f") | ${sz} MB | trueline-check | --checks line-tables,cuda-arch,mixed-toolchain (full device audit) | $aw | $ar | $arc |"
  if [ -n "$CUOBJDUMP" ]; then
    read -r cw cr crc < <(measure "${pin[@]}" "$CUOBJDUMP" -lelf -lptx "$f")
    echo "| $(basename "$f") | ${sz} MB | cuobjdump | -lelf -lptx | $cw | $cr | $crc |"
    python3 -c "import sys; a,b,c,d=map(float,sys.argv[1:]); print('| | | ratio | cuobjdump / trueline --list | %.1fx faster | %.1fx less memory | |' % (c/a, d/b))" "$lw" "$lr" "$cw" "$cr"
  fi
done
echo
echo "cpus: ${BENCH_CPUS:-all $(nproc)}; $(uname -m); cuobjdump: ${CUOBJDUMP:-absent}; $("$TC" --version)"
