#!/usr/bin/env bash
# Acceptance bench on the CMake CUDA project of tests/suites/accept_clean_builds.sh (tests/lib/accept_projects.sh):
#  (a) false errors: error findings of trueline-check on the clean project's .so and on its whole build dir
#      (goal 0);
#  (b) full warm rebuild, every compile a cache hit (rm the build dir, configure, build):
#      CMAKE_<LANG>_COMPILER_LAUNCHER="trueline-cc;ccache" against "ccache" with the flags trueline-cc would
#      force added by hand (-lineinfo -Xcompiler=-g1 for CUDA, -g1 for C++), so both do the same work;
#      ratio of the build step's wall time, goal <= 1.03x;
#  (c) cold build (empty cache: every compile a miss), same two variants, goal <= 1.02x; trueline-cc's memo is
#      warm (the toolchain was fingerprinted before), as in every build after the first;
#  (d) the first build after a toolchain change: the cache and trueline-cc's memo both empty, so each toolchain is
#      hashed once (the nvcc closure with its host gcc is ~270 MB) before the compiles run; no goal, for scale.
# REPS (default 3) rounds; each round runs both variants, in alternating order; medians. Configure time is
# not counted (it runs CMake's compiler probes, which no launcher sees). Writes bench/recorded/accept.md
# (OUT=FILE elsewhere). Not part of `make test`. A few minutes on 2 cores.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BUILD=${TRUELINE_BUILD:-$root/build}
export PATH="$BUILD/bin:$PATH"
REPS=${REPS:-3}
OUT=${OUT:-$here/recorded/accept.md}
T=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench-accept.XXXXXX")
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/xdg" XDG_CONFIG_HOME="$T/xdg-config"
. "$root/tests/lib/accept_projects.sh"
for t in cmake ccache trueline-cc trueline-check; do
  command -v $t >/dev/null || { echo "bench/accept.sh: $t not found" >&2; exit 2; }
done
# nvcc from CUDA_HOME or PATH, as the test harness finds it
NVCC=${CUDA_HOME:+$CUDA_HOME/bin/nvcc}
[ -n "$NVCC" ] && [ -x "$NVCC" ] || NVCC=$(command -v nvcc || true)
[ -n "$NVCC" ] || { echo "bench/accept.sh: nvcc not found (CUDA_HOME or PATH)" >&2; exit 2; }
W=$(command -v trueline-cc)
cd "$T"
write_cuda_project proj

# configure VARIANT: the build dir b-VARIANT, the cache ccache-VARIANT
configure() {
  local v=$1 cu_l cxx_l cu_f="" cxx_f=""
  if [ "$v" = tl ]; then cu_l="$W;ccache"; cxx_l="$W;ccache"
  else cu_l=ccache; cxx_l=ccache; cu_f="-lineinfo -Xcompiler=-g1"; cxx_f="-g1"; fi
  rm -rf "b-$v"
  CCACHE_DIR=$T/ccache-$v cmake -S proj -B "b-$v" "-DCMAKE_CUDA_COMPILER=$NVCC" \
    "-DCMAKE_CUDA_COMPILER_LAUNCHER=$cu_l" "-DCMAKE_CXX_COMPILER_LAUNCHER=$cxx_l" \
    "-DCMAKE_CUDA_FLAGS=$cu_f" "-DCMAKE_CXX_FLAGS=$cxx_f" > "cfg-$v.log" 2>&1
}
# build VARIANT: prints the build step's wall seconds
build() {
  local v=$1 t0 t1
  t0=$(date +%s.%N)
  CCACHE_DIR=$T/ccache-$v cmake --build "b-$v" -j2 > "build-$v.log" 2>&1
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}
misses() { CCACHE_DIR=$T/ccache-$1 ccache --print-stats | awk -F'\t' '$1 == "cache_miss" { print $2 }'; }
hits() { CCACHE_DIR=$T/ccache-$1 ccache --print-stats | awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } END { print h + 0 }'; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
# (a) false errors on the clean project
configure tl && build tl > /dev/null
trueline-check --no-color b-tl/libkernels.so > audit-so.txt 2>&1 || true
trueline-check --no-color b-tl/ > audit-dir.txt 2>&1 || true
err_so=$(grep -c ': error \[' audit-so.txt || true)
err_dir=$(grep -c ': error \[' audit-dir.txt || true)
sum_so=$(grep -m1 'file(s) checked' audit-so.txt)
sum_dir=$(grep -m1 'file(s) checked' audit-dir.txt)

# (b) warm rebuilds and (c) cold builds; warm-up first (fills both caches and trueline-cc's memo)
configure plain && build plain > /dev/null
declare -A warm cold
for r in $(seq 1 "$REPS"); do
  order="tl plain"; [ $((r % 2)) = 0 ] && order="plain tl"
  for v in $order; do
    m0=$(misses $v)
    configure $v; warm[$v]="${warm[$v]:-} $(build $v)"
    [ "$(misses $v)" = "$m0" ] || { echo "bench/accept.sh: warm rebuild of $v had cache misses" >&2; exit 1; }
  done
  for v in $order; do
    CCACHE_DIR=$T/ccache-$v ccache -C > /dev/null
    h0=$(hits $v)
    configure $v; cold[$v]="${cold[$v]:-} $(build $v)"
    [ "$(hits $v)" = "$h0" ] || { echo "bench/accept.sh: cold build of $v had cache hits" >&2; exit 1; }
  done
  # (d): the memo too (its stage entries and statistics go with it)
  CCACHE_DIR=$T/ccache-tl ccache -C > /dev/null
  configure tl; rm -rf "$XDG_CACHE_HOME/trueline"; first="${first:-} $(build tl)"
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
wt=$(echo "${warm[tl]}" | median); wp=$(echo "${warm[plain]}" | median)
ct=$(echo "${cold[tl]}" | median); cp=$(echo "${cold[plain]}" | median)
ft=$(echo "$first" | median)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
verdict() { awk -v r="$1" -v g="$2" 'BEGIN { print (r <= g) ? "met" : "missed" }'; }
rw=$(ratio "$wt" "$wp"); rc=$(ratio "$ct" "$cp"); rf=$(ratio "$ft" "$cp")
load1=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
mkdir -p "$(dirname "$OUT")"
{
  echo "# Acceptance bench"
  echo
  echo "Generated by bench/accept.sh on $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) cores, $cpu;"
  echo "$(cmake --version | head -1), $("$NVCC" --version | tail -1), $(ccache --version | head -1), gcc $(gcc -dumpfullversion)."
  echo "Load average (1, 5, 15 min) at the start: $load0; at the end: $load1. Other work on the machine"
  echo "competes with both variants alike (they alternate), but a load above the core count makes single"
  echo "runs vary by more than the goals; compare the runs as well as the medians."
  echo
  echo "Project: tests/lib/accept_projects.sh's CMake CUDA shared library (3 .cu with separable compilation and"
  echo "a device link, 1 .cpp, static cudart, sm_90), built with -j2. $REPS rounds, medians."
  echo
  echo "## (a) false errors on the clean project (goal 0)"
  echo
  echo "| input | error findings | summary |"
  echo "|---|---|---|"
  echo "| libkernels.so | $err_so | $sum_so |"
  echo "| build dir | $err_dir | $sum_dir |"
  if [ "$err_so" != 0 ] || [ "$err_dir" != 0 ]; then
    echo
    echo "The error findings, by check:"
    echo
    cat audit-so.txt audit-dir.txt | grep -o ': error \[[a-z-]*\]' | sort | uniq -c | sed 's/^ */    /'
  fi
  echo
  echo "## (b) warm rebuild, every compile a hit (goal <= 1.03x)"
  echo
  echo "rm -rf the build dir, configure (not timed), \`cmake --build\` (timed). *trueline*: launchers"
  echo "\`trueline-cc;ccache\`; *bare*: launcher \`ccache\` with \`-lineinfo -Xcompiler=-g1\` / \`-g1\` added to the flags."
  echo
  echo "| variant | build s (runs) | median s |"
  echo "|---|---|---|"
  echo "| trueline |${warm[tl]} | $wt |"
  echo "| bare ccache |${warm[plain]} | $wp |"
  echo
  echo "Ratio trueline / bare: **${rw}x** (goal $(verdict "$rw" 1.03))."
  echo
  echo "## (c) cold build, every compile a miss (goal <= 1.02x)"
  echo
  echo "| variant | build s (runs) | median s |"
  echo "|---|---|---|"
  echo "| trueline |${cold[tl]} | $ct |"
  echo "| bare ccache |${cold[plain]} | $cp |"
  echo
  echo "Ratio trueline / bare: **${rc}x** (goal $(verdict "$rc" 1.02))."
  echo
  echo "## (d) first build after a toolchain change: cache and trueline-cc's memo empty (no goal)"
  echo
  echo "| variant | build s (runs) | median s |"
  echo "|---|---|---|"
  echo "| trueline, memo empty |$first | $ft |"
  echo "| bare ccache (as in c) |${cold[plain]} | $cp |"
  echo
  echo "Ratio: **${rf}x**. Each toolchain's closure is hashed once (bench/wrapper.sh, \"cold\" fingerprint); (c) is"
  echo "every later cold build."
} > "$OUT"
cat "$OUT"
