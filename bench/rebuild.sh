#!/usr/bin/env bash
# Full warm rebuilds of real projects, every compile a cache hit: `trueline-cc ccache` against bare `ccache`
# (given the flags trueline-cc forces, so both do the same compiles and both hit), as a user sees them — the
# build tool, the compiles and the links together. This is the hit path's user-level figure; bench/wrapper.sh
# measures one hit of a one-line file in isolation.
#   bench/rebuild.sh zstd=DIR   zstd's `programs/` (GNU make: the library's and the CLI's ~60 C files at -O3,
#                               one link), built in a copy of DIR
#   bench/rebuild.sh cmake=DIR  any CMake project (Ninja; C, C++ and CUDA launchers), e.g. fmt with its tests
#   bench/rebuild.sh cuda-samples=DIR  seventeen of NVIDIA's cuda-samples (CMake, nvcc), see CUDA_SAMPLES
# Several projects may be given. REPS rounds (default 7) alternate the variants; JOBS parallel jobs
# (default: the CPU count, at most 4). Each variant has its own cache and copy of the sources, warmed by one
# build first; a round with a cache miss fails the bench. Writes bench/recorded/rebuild.md (OUT=FILE
# elsewhere); with no project given it says so and records nothing. Not part of `make test`.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BUILD=${TRUELINE_BUILD:-$root/build}
W=$BUILD/bin/trueline-cc
REPS=${REPS:-7}
n=$(nproc); JOBS=${JOBS:-$((n < 4 ? n : 4))}
OUT=${OUT:-$here/recorded/rebuild.md}
[ $# -gt 0 ] || { echo "bench/rebuild.sh: no project given (zstd=DIR, cmake=DIR, cuda-samples=DIR); nothing recorded" >&2; exit 0; }
[ -x "$W" ] || { echo "bench/rebuild.sh: $W not built" >&2; exit 2; }
command -v ccache >/dev/null || { echo "bench/rebuild.sh: ccache not found" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench-rebuild.XXXXXX")
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/xdg" XDG_CONFIG_HOME="$T/xdg-config"
unset NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS CCC_OVERRIDE_OPTIONS TRUELINE_EXPLAIN CCACHE_BASEDIR CCACHE_NOHASHDIR
NVCC=${CUDA_HOME:+$CUDA_HOME/bin/nvcc}
[ -n "$NVCC" ] && [ -x "$NVCC" ] || NVCC=$(command -v nvcc || true)

stat_of() { CCACHE_DIR=$T/ccache-$1 ccache --print-stats | awk -F'\t' -v k="$2" '
  k == "hits" && $1 ~ /^(direct|preprocessed)_cache_hit$/ { n += $2 } k == "misses" && $1 == "cache_miss" { n += $2 }
  END { print n + 0 }'; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# Per recipe: setup P V DIR (sources copied to $T/P-V/src), clean P V, build P V. V is tl or plain.
copy_sources() { mkdir -p "$T/$1-$2"; cp -a "$3" "$T/$1-$2/src"; }
zstd_setup() { copy_sources "$@"; }
zstd_clean() { rm -rf "$T/$1-$2/src/programs/obj" "$T/$1-$2/src/programs/zstd"; }
zstd_build() {
  local d=$T/$1-$2/src/programs
  if [ "$2" = tl ]; then make -s -C "$d" -j"${J:-$JOBS}" zstd CC="$W ccache gcc"
  else make -s -C "$d" -j"${J:-$JOBS}" zstd CC="ccache gcc" MOREFLAGS="-g1 -fdebug-prefix-map=$d=."; fi
}
# the CMake project copied to $T/P-V/src, configured in $T/P-V/build
cmake_configure() {
  local b=$T/$1-$2/build l f=() cu=()
  if [ "$2" = tl ]; then l="$W;ccache"
  else l=ccache; f=("-DCMAKE_C_FLAGS=-g1 -fdebug-prefix-map=$b=." "-DCMAKE_CXX_FLAGS=-g1 -fdebug-prefix-map=$b=.")
    cu=("-DCMAKE_CUDA_FLAGS=-lineinfo -Xcompiler=-g1 -Xcompiler=-fdebug-prefix-map=$b=."); fi
  [ -n "$NVCC" ] && cu+=("-DCMAKE_CUDA_COMPILER=$NVCC")
  CCACHE_DIR=$T/ccache-$2 cmake -G Ninja -S "$T/$1-$2/src" -B "$b" -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_C_COMPILER_LAUNCHER=$l" "-DCMAKE_CXX_COMPILER_LAUNCHER=$l" "-DCMAKE_CUDA_COMPILER_LAUNCHER=$l" \
    "${f[@]}" "${cu[@]}" > "$T/$1-$2/configure.log" 2>&1 ||
    { echo "bench/rebuild.sh: $1 ($2) does not configure" >&2; tail -20 "$T/$1-$2/configure.log" >&2; exit 1; }
}
cmake_setup() { copy_sources "$@"; cmake_configure "$1" "$2"; }
cmake_clean() { ninja -C "$T/$1-$2/build" clean > /dev/null; }
cmake_build() { ninja -C "$T/$1-$2/build" -j"${J:-$JOBS}" > /dev/null; }
# NVIDIA's cuda-samples: the runtime-API samples of Samples/0_Introduction that need no OpenGL, MPI, OpenMP or
# NVRTC, each its own CMake project as shipped (-lineinfo, separable compilation), under one top-level list;
# their architecture list is cut to ARCHS (default 90) so that the first build stays short.
CUDA_SAMPLES="asyncAPI clock fp16ScalarProduct matrixMul mergeSort simpleAssert simpleAtomicIntrinsics simpleCallback
  simpleCooperativeGroups simpleMultiCopy simpleOccupancy simplePrintf simpleStreams simpleTemplates
  simpleVoteIntrinsics template vectorAdd"
cuda-samples_setup() {
  local d=$T/$1-$2/src s
  mkdir -p "$d/Samples/0_Introduction"
  cp -a "$3/Common" "$d/"
  for s in $CUDA_SAMPLES; do
    cp -a "$3/Samples/0_Introduction/$s" "$d/Samples/0_Introduction/"
    sed -i "s/^set(CMAKE_CUDA_ARCHITECTURES .*)/set(CMAKE_CUDA_ARCHITECTURES ${ARCHS:-90})/" "$d/Samples/0_Introduction/$s/CMakeLists.txt"
  done
  { echo 'cmake_minimum_required(VERSION 3.20)'; echo 'project(samples LANGUAGES C CXX CUDA)'
    for s in $CUDA_SAMPLES; do echo "add_subdirectory(Samples/0_Introduction/$s)"; done; } > "$d/CMakeLists.txt"
  cmake_configure "$1" "$2"
}
cuda-samples_clean() { cmake_clean "$@"; }
cuda-samples_build() { cmake_build "$@"; }

rows=()
for spec in "$@"; do
  recipe=${spec%%=*} dir=${spec#*=}
  case $recipe in zstd|cmake|cuda-samples) ;;
    *) echo "bench/rebuild.sh: unknown recipe '$recipe' (zstd=DIR, cmake=DIR, cuda-samples=DIR)" >&2; exit 2;; esac
  [ -d "$dir" ] || { echo "bench/rebuild.sh: $dir: not a directory" >&2; exit 2; }
  name=$(basename "$(cd "$dir" && pwd)")
  p=$name
  for v in tl plain; do
    ${recipe}_setup "$p" $v "$dir"
    J=$n CCACHE_DIR=$T/ccache-$v ${recipe}_build "$p" $v > "$T/$p-$v/cold.log" 2>&1 ||
      { echo "bench/rebuild.sh: $name ($v) does not build; see below" >&2; tail -20 "$T/$p-$v/cold.log" >&2; exit 1; }
  done
  declare -A times=()
  hits=0
  "$W" --trueline-zero-stats > /dev/null
  for r in $(seq 0 "$REPS"); do # round 0 warms the memo and the page cache; not counted
    order="tl plain"; [ $((r % 2)) = 1 ] && order="plain tl"
    for v in $order; do
      ${recipe}_clean "$p" $v
      m0=$(stat_of $v misses) h0=$(stat_of $v hits)
      t0=$(date +%s.%N)
      CCACHE_DIR=$T/ccache-$v ${recipe}_build "$p" $v > "$T/$p-$v/warm.log" 2>&1
      t1=$(date +%s.%N)
      [ "$(stat_of $v misses)" = "$m0" ] || { echo "bench/rebuild.sh: a warm rebuild of $name ($v) missed the cache" >&2; exit 1; }
      hits=$(( $(stat_of $v hits) - h0 ))
      [ "$r" = 0 ] || times[$v]="${times[$v]:-} $(seconds "$t0" "$t1")"
    done
  done
  mt=$(echo "${times[tl]}" | median) mp=$(echo "${times[plain]}" | median)
  # hits verification did not keep: each was recompiled (a false mismatch costs a compile on every rebuild)
  mm=$("$W" --trueline-stats | awk '/Recompiled after a mismatch:/ { print $NF }')
  rows+=("| $name ($recipe) | $hits | ${mm:-?} | ${times[plain]} | ${times[tl]} | $mp | $mt | $(awk -v a="$mt" -v b="$mp" 'BEGIN { printf "%.3f", a / b }')x |")
  unset times
done
mkdir -p "$(dirname "$OUT")"
{
  echo "# Warm rebuilds of real projects"
  echo
  echo "Generated by bench/rebuild.sh on $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) cores,"
  echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "$(ccache --version | head -1), gcc $(gcc -dumpfullversion)$([ -n "$NVCC" ] && echo ", $("$NVCC" --version | tail -1)")."
  echo
  echo "Each round removes the objects and the outputs and builds again with $JOBS jobs: every compile is a"
  echo "cache hit (checked), every link runs. *bare*: \`ccache\` with the flags trueline-cc forces added by hand;"
  echo "*trueline*: \`trueline-cc ccache\` as shipped (provenance stamped, hits verified in ccache). $REPS rounds,"
  echo "alternating, after one uncounted round; seconds of wall time."
  echo
  echo "| project | compiles (hits) | hits recompiled after a mismatch | bare ccache, s | trueline-cc ccache, s | bare median | trueline median | ratio |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} > "$OUT"
echo "bench/rebuild.sh: wrote $OUT" >&2
