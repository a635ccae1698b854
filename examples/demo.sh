#!/bin/sh
# `make demo`: trueline on the bundled example (examples/demo: a small CUDA + C++ library), as a story.
#  1. the problem: bare ccache hands back an object built without the -lineinfo NVCC_PREPEND_FLAGS asked for;
#  2. the fix: the same builds through trueline-cc chained to ccache;
#  3. an unchanged rebuild is still a cache hit (its record verified);
#  4. the library built and audited by trueline-check, the verdict taken from its exit status;
#  5. the provenance records: which toolchain and flags built each object.
# Needs the build dependencies and ccache; nvcc for steps 1-3 (without it, steps 4-5 on the C++ part).
# DEMO_NVCC=PATH names the nvcc to use (empty: none); DEMO_KEEP=1 keeps the work directory and prints it.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TRUELINE_BUILD:-$root/build}/bin
src=$root/examples/demo
work=$(mktemp -d "${TMPDIR:-/tmp}/trueline-demo.XXXXXX")
if [ -n "${DEMO_KEEP:-}" ]; then echo "demo: work directory $work"; else trap 'rm -rf "$work"' EXIT; fi
export CCACHE_DIR="$work/ccache" XDG_CACHE_HOME="$work/xdg"
unset NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS CCC_OVERRIDE_OPTIONS
cd "$work"
step() { printf '\n== %s\n' "$*"; }
show() { printf '  $ %s\n' "$*"; } # the command as the reader would type it
lineinfo_of() { # "yes"/"no": does the object's device code carry source line info?
  if "$bin/trueline-check" --list --format json "$1" 2>/dev/null | grep -q '"lineinfo": *true'; then echo yes; else echo no; fi
}
# what ccache did since the last `ccache -z`: "hit", "miss" or "none"
ccache_outcome() {
  ccache --print-stats 2>/dev/null | awk '
    $1 ~ /_cache_hit$/ && $1 != "local_storage_hit" { hit += $2 } $1 == "cache_miss" { miss += $2 }
    END { print (hit > 0 ? "hit" : miss > 0 ? "miss" : "none") }'
}
if [ -n "${DEMO_NVCC+set}" ]; then
  nvcc_bin=$DEMO_NVCC
else
  nvcc_bin=$(command -v nvcc || { [ -n "${CUDA_HOME:-}" ] && echo "$CUDA_HOME/bin/nvcc"; } || true)
  [ -z "$nvcc_bin" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_bin=/usr/local/cuda/bin/nvcc
fi
command -v ccache >/dev/null || { echo "demo: ccache is not installed (make deps-demo installs it)"; exit 1; }
NV="-arch=sm_90 -c $src/vecops.cu"

if [ -n "$nvcc_bin" ]; then
  cuda=$(cd "$(dirname "$nvcc_bin")/.." && pwd)
  export PATH="$PATH:$cuda/bin"
  step "1. The problem: ccache does not hash NVCC_PREPEND_FLAGS"
  show "ccache nvcc -arch=sm_90 -c vecops.cu -o plain.o"
  ccache nvcc $NV -o plain.o || exit 1
  ccache -z >/dev/null
  show "NVCC_PREPEND_FLAGS=-lineinfo ccache nvcc -arch=sm_90 -c vecops.cu -o bare.o"
  NVCC_PREPEND_FLAGS=-lineinfo ccache nvcc $NV -o bare.o || exit 1
  echo "  ccache: $(ccache_outcome); device line info in bare.o: $(lineinfo_of bare.o)"
  if cmp -s plain.o bare.o; then
    echo "  bare.o is byte-identical to plain.o: the cache returned the object built without -lineinfo."
  else
    echo "  bare.o differs from plain.o: this ccache hashed NVCC_PREPEND_FLAGS."
  fi

  step "2. The fix: the same build through trueline-cc in front of ccache"
  show "NVCC_PREPEND_FLAGS=-lineinfo trueline-cc ccache nvcc -arch=sm_90 -c vecops.cu -o tl.o"
  ccache -z >/dev/null
  NVCC_PREPEND_FLAGS=-lineinfo "$bin/trueline-cc" ccache nvcc $NV -o tl.o || exit 1
  echo "  ccache: $(ccache_outcome); device line info in tl.o: $(lineinfo_of tl.o)"
  echo "  trueline-cc moved the variable's flags onto the command line (and forces -lineinfo in any case),"
  echo "  so the cache key and the object agree with what was asked. What it ran:"
  NVCC_PREPEND_FLAGS=-lineinfo "$bin/trueline-cc" --trueline-print-fingerprint --trueline-explain ccache nvcc $NV -o tl.o 2>&1 >/dev/null |
    grep -E '^trueline-cc: (folded|forced|effective argv):' | cut -c1-150 | sed 's/^/    /'

  step "3. An unchanged rebuild is still a cache hit"
  show "NVCC_PREPEND_FLAGS=-lineinfo trueline-cc ccache nvcc -arch=sm_90 -c vecops.cu -o tl2.o"
  ccache -z >/dev/null
  "$bin/trueline-cc" --trueline-zero-stats
  NVCC_PREPEND_FLAGS=-lineinfo "$bin/trueline-cc" ccache nvcc $NV -o tl2.o || exit 1
  outcome=$(ccache_outcome)
  case $outcome in
    hit) echo "  ccache: hit (from ccache's statistics of this build); device line info in tl2.o: $(lineinfo_of tl2.o)" ;;
    *) echo "  ccache: $outcome (expected a hit: is the cache directory writable?)" ;;
  esac
  echo "  trueline-cc checked the hit's provenance record against this invocation:"
  "$bin/trueline-cc" --trueline-stats | grep -E 'verified|Mismatches' | sed 's/^ */    /'
else
  step "nvcc not found: steps 1-3 (CUDA) skipped; building and auditing the C++ part"
fi

step "4. Build libdemo.so through trueline-cc + ccache, and audit it"
show "trueline-cc ccache g++ -O2 -fPIC -c stats.cpp -o stats.o"
"$bin/trueline-cc" ccache g++ -O2 -fPIC -c "$src/stats.cpp" -o stats.o || exit 1
objs=stats.o libs=""
if [ -n "$nvcc_bin" ]; then
  show "trueline-cc ccache nvcc -arch=sm_90 -Xcompiler=-fPIC -c vecops.cu -o vecops.o"
  "$bin/trueline-cc" ccache nvcc -arch=sm_90 -Xcompiler=-fPIC -c "$src/vecops.cu" -o vecops.o || exit 1
  objs="$objs vecops.o" libs="-L$cuda/lib64 -lcudart"
fi
g++ -shared -o libdemo.so $objs $libs || exit 1
show "trueline-check libdemo.so"
"$bin/trueline-check" --no-color libdemo.so > audit.txt 2>&1
status=$?
# errors and warnings in full; info notes counted (trueline-check libdemo.so shows them)
awk '/: info \[/ { skip = 1; next } /^    hint:/ && skip { next } { skip = 0; print }' audit.txt | cut -c1-150 | sed 's/^/  /'
case $status in
  0) echo "  verdict: exit status 0, the audit passes: no finding at error severity (info notes are advice only)." ;;
  1) echo "  verdict: exit status 1, the audit fails: the findings above are defects of this build." ;;
  *) echo "  verdict: exit status $status: an input could not be read (see above)." ;;
esac

step "5. Which toolchain and flags built each object (the .note.trueline records)"
show "trueline-check --provenance libdemo.so"
"$bin/trueline-check" --provenance libdemo.so | cut -c1-150 | sed 's/^/  /'
