#!/bin/sh
# `make demo`: the main job on the bundled example (examples/demo: a small CUDA + C++ library).
#  1. show what bare ccache does with NVCC_PREPEND_FLAGS=-lineinfo (hands back the object built without it);
#  2. the same build through trueline-cc chained to ccache (a miss, and the object has line info);
#  3. build the library through trueline-cc and audit it with trueline-check.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TRUELINE_BUILD:-$root/build}/bin
src=$root/examples/demo
work=$(mktemp -d "${TMPDIR:-/tmp}/trueline-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
export CCACHE_DIR="$work/ccache" XDG_CACHE_HOME="$work/xdg"
unset NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS CCC_OVERRIDE_OPTIONS
cd "$work"
say() { printf '\n== %s\n' "$*"; }
lineinfo_of() { # prints "yes"/"no": does the object's device code carry source line info?
  if "$bin/trueline-check" --list --format json "$1" 2>/dev/null | grep -q '"lineinfo": *true'; then echo yes; else echo no; fi
}
nvcc_bin=$(command -v nvcc || { [ -n "${CUDA_HOME:-}" ] && echo "$CUDA_HOME/bin/nvcc"; } || true)
[ -z "$nvcc_bin" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_bin=/usr/local/cuda/bin/nvcc
command -v ccache >/dev/null || { echo "demo: ccache is not installed (make deps installs it)"; exit 1; }

if [ -n "$nvcc_bin" ]; then
  cuda=$(cd "$(dirname "$nvcc_bin")/.." && pwd)
  export PATH="$PATH:$cuda/bin"
  say "1. bare ccache: a plain build, then the same build with NVCC_PREPEND_FLAGS=-lineinfo"
  ccache nvcc -arch=sm_90 -c "$src/vecops.cu" -o plain.o
  NVCC_PREPEND_FLAGS=-lineinfo ccache nvcc -arch=sm_90 -c "$src/vecops.cu" -o bare.o
  if cmp -s plain.o bare.o; then
    echo "ccache returned a byte-identical object: the -lineinfo asked for in NVCC_PREPEND_FLAGS is silently lost"
  else
    echo "objects differ (this ccache hashed NVCC_PREPEND_FLAGS)"
  fi
  echo "device line info in bare.o: $(lineinfo_of bare.o)"
  say "2. the same two builds through trueline-cc chained to ccache"
  "$bin/trueline-cc" ccache nvcc -arch=sm_90 -c "$src/vecops.cu" -o tl-plain.o
  NVCC_PREPEND_FLAGS=-lineinfo "$bin/trueline-cc" ccache nvcc -arch=sm_90 -c "$src/vecops.cu" -o tl.o
  echo "device line info in tl.o: $(lineinfo_of tl.o)"
  TRUELINE_EXPLAIN=1 NVCC_PREPEND_FLAGS=-lineinfo "$bin/trueline-cc" ccache nvcc -arch=sm_90 -c "$src/vecops.cu" -o tl2.o 2>&1 | sed -n '1,25p'
  ccache -s 2>/dev/null | grep -Ei 'hits|misses' | head -4
else
  say "nvcc not found: the CUDA part of the demo is skipped; doing the C++ part"
fi

say "3. build libdemo.so through trueline-cc + ccache and audit it"
"$bin/trueline-cc" ccache g++ -O2 -fPIC -c "$src/stats.cpp" -o stats.o || exit 1
objs=stats.o; libs=""
if [ -n "$nvcc_bin" ]; then
  "$bin/trueline-cc" ccache nvcc -arch=sm_90 -Xcompiler=-fPIC -c "$src/vecops.cu" -o vecops.o || exit 1
  objs="$objs vecops.o"; libs="-L$cuda/lib64 -lcudart"
fi
g++ -shared -o libdemo.so $objs $libs || exit 1
"$bin/trueline-check" libdemo.so
echo "(trueline-check exit status $?: 0 clean, 1 findings, 2 unreadable input)"

say "4. which toolchain and flags built each object of libdemo.so (the .note.trueline records)"
"$bin/trueline-check" --provenance libdemo.so
