#!/usr/bin/env bash
# How trueline-cc's build (C library, static or dynamic, and any code of its own that replaces the C library's)
# shows at the level of a user: (1) instructions of trueline-cc's own process (callgrind: deterministic,
# load-independent) for a warm toolchain fingerprint (--trueline-print-fingerprint, the part of every hit before
# the exec) and for a whole warm ccache hit verified by the waiting wrapper (verify_in_cache = false: a process
# that execs ccache cannot be counted to its end), gcc and nvcc, (2) a full warm rebuild of
# tests/lib/accept_projects.sh's CMake CUDA project (every compile a hit; `cmake --build --target clean` then
# the timed build) through `VARIANT;ccache` against bare ccache with the flags trueline-cc forces, REPS rounds
# (default 11), each running every variant in a rotating order; medians and the quartiles of the build times.
# VARIANTS='label=/path/to/trueline-cc;label=...' compares several builds of trueline-cc (default: this build's).
# Prints the "## libc" section of bench/recorded/benchmarks.md. A few minutes on 2 cores.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
BUILD=${TRUELINE_BUILD:-$root/build}
REPS=${REPS:-11}
VARIANTS=${VARIANTS:-"this build=$BUILD/bin/trueline-cc"}
T=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench-libc.XXXXXX")
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/xdg" XDG_CONFIG_HOME="$T/xdg-config" CCACHE_DIR="$T/ccache"
unset NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS CCC_OVERRIDE_OPTIONS TRUELINE_EXPLAIN
. "$root/tests/lib/accept_projects.sh"
for t in cmake ccache valgrind; do
  command -v $t >/dev/null || { printf '## libc\n\n(%s not installed: not measured.)\n' "$t"; exit 0; }
done
NVCC=${CUDA_HOME:+$CUDA_HOME/bin/nvcc}
[ -n "$NVCC" ] && [ -x "$NVCC" ] || NVCC=$(command -v nvcc || true)
[ -n "$NVCC" ] || { printf '## libc\n\n(nvcc not found: not measured.)\n'; exit 0; }
labels=() progs=()
IFS=';' read -r -a specs <<<"$VARIANTS"
for s in "${specs[@]}"; do
  labels+=("${s%%=*}") progs+=("${s#*=}")
  [ -x "${s#*=}" ] || { echo "bench/libc.sh: ${s#*=} is not a program" >&2; exit 1; }
done
cd "$T"
load0=$(cut -d' ' -f1-3 /proc/loadavg)

# (1) instructions per warm hit
printf 'int f(int x) { return x * 3 + 1; }\n' > a.c
printf '__global__ void k(float *p) { p[threadIdx.x] *= 2.0f; }\n' > k.cu
ir() { # PROG ARGS...: instructions callgrind counted in PROG's process (not its children): the fewer of the 2nd and
  # 3rd of three runs (under valgrind the environment holds its LD_PRELOAD, part of the memo's keys: the 1st is cold)
  local k
  for k in 1 2 3; do
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/Collected :/ { print $NF }' | tail -1
  done | tail -2 | sort -n | head -1
}
declare -A fp_gcc fp_nvcc hit_gcc hit_nvcc libc_of
for i in "${!progs[@]}"; do
  p=${progs[$i]}
  for _ in 1 2 3; do # the cache, the memo and the page cache warm
    "$p" ccache gcc -c a.c -o a.o && "$p" ccache "$NVCC" -arch=sm_90 -c k.cu -o k.o
  done
  fp_gcc[$i]=$(ir "$p" --trueline-print-fingerprint gcc)
  fp_nvcc[$i]=$(ir "$p" --trueline-print-fingerprint "$NVCC")
  hit_gcc[$i]=$(TRUELINE_PROVENANCE_VERIFY_IN_CACHE=false ir "$p" ccache gcc -c a.c -o a.o)
  hit_nvcc[$i]=$(TRUELINE_PROVENANCE_VERIFY_IN_CACHE=false ir "$p" ccache "$NVCC" -arch=sm_90 -c k.cu -o k.o)
  libc_of[$i]=$("$p" --trueline-version 2>/dev/null | sed -n 's/.*C library: *\([a-z]*\).*/\1/p' | head -1)
  file -L "$p" | grep -q 'statically linked' && libc_of[$i]="${libc_of[$i]:-?}, static" || libc_of[$i]="${libc_of[$i]:-?}, dynamic"
done

# (2) warm rebuilds: one build dir per variant (its launcher), bare last; one cache for all, filled first
write_cuda_project proj
configure() { # DIR LAUNCHER CUDA_FLAGS CXX_FLAGS
  cmake -S proj -B "$1" "-DCMAKE_CUDA_COMPILER=$NVCC" "-DCMAKE_CUDA_COMPILER_LAUNCHER=$2" \
    "-DCMAKE_CXX_COMPILER_LAUNCHER=$2" "-DCMAKE_CUDA_FLAGS=$3" "-DCMAKE_CXX_FLAGS=$4" > "$1.cfg.log" 2>&1
}
n=${#progs[@]}
for i in "${!progs[@]}"; do configure "b$i" "${progs[$i]};ccache" "" ""; done
configure "b$n" ccache "-lineinfo -Xcompiler=-g1" "-g1"
misses() { ccache --print-stats | awk -F'\t' '$1 == "cache_miss" { print $2 }'; }
build() { # I: the build step's wall seconds after a clean
  cmake --build "b$1" --target clean > /dev/null 2>&1
  local t0 t1
  t0=$(date +%s.%N)
  cmake --build "b$1" -j2 > "b$1.build.log" 2>&1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
for i in $(seq 0 "$n"); do build "$i" > /dev/null; build "$i" > /dev/null; done
m0=$(misses)
declare -A times
for r in $(seq 1 "$REPS"); do
  for k in $(seq 0 "$n"); do
    i=$(( (k + r) % (n + 1) ))
    times[$i]="${times[$i]:-} $(build "$i")"
  done
done
[ "$(misses)" = "$m0" ] || { echo "bench/libc.sh: a timed rebuild had cache misses" >&2; exit 1; }
quart() { # Q: the Q-quantile (0.25, 0.5, 0.75) of the numbers on stdin
  tr ' ' '\n' | grep . | sort -g | awk -v q="$1" '{ a[NR] = $1 } END { x = 1 + (NR - 1) * q; i = int(x); f = x - i
    printf "%.3f", (i < NR) ? a[i] + f * (a[i + 1] - a[i]) : a[i] }'
}
load1=$(cut -d' ' -f1-3 /proc/loadavg)

echo "## libc"
echo
echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'); load average $load0 at the"
echo "start, $load1 at the end. Command: \`bash bench/libc.sh\` (VARIANTS='label=path;...' compares builds of"
echo "trueline-cc). $REPS rounds."
echo
echo "*Instructions* (callgrind, trueline-cc's own process; deterministic, the primary figure): *fingerprint*, a warm"
echo "\`--trueline-print-fingerprint\` (start-up, configuration, memo, toolchain identity: every hit's work before it"
echo "execs the cache); *hit*, a whole warm \`trueline-cc ccache gcc -c\` / \`nvcc -c\` with the waiting wrapper"
echo "verifying the object (verify_in_cache = false; a process that execs ccache is not counted to its end). *Warm rebuild*: the"
echo "accept bench's CMake CUDA project (4 compiles through the launcher, a device link and a link) rebuilt from"
echo "\`--target clean\`, every compile a ccache hit; seconds, median and quartiles; ratio of medians to bare"
echo "ccache given the flags trueline-cc forces. A difference smaller than the quartile spread is noise."
echo
echo "| trueline-cc | C library | fingerprint, gcc | fingerprint, nvcc | hit, gcc | hit, nvcc | warm rebuild s: median (q1-q3) | ratio to bare ccache |"
echo "|---|---|---|---|---|---|---|---|"
bm=$(echo "${times[$n]}" | quart 0.5)
for i in "${!progs[@]}"; do
  m=$(echo "${times[$i]}" | quart 0.5)
  echo "| ${labels[$i]} | ${libc_of[$i]} | ${fp_gcc[$i]} | ${fp_nvcc[$i]} | ${hit_gcc[$i]} | ${hit_nvcc[$i]} | $m ($(echo "${times[$i]}" | quart 0.25)-$(echo "${times[$i]}" | quart 0.75)) | $(awk -v a="$m" -v b="$bm" 'BEGIN { printf "%.3fx", a / b }') |"
done
echo "| bare ccache | | | | | | $bm ($(echo "${times[$n]}" | quart 0.25)-$(echo "${times[$n]}" | quart 0.75)) | 1x |"
