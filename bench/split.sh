#!/usr/bin/env bash
# Ship-small benchmark: what the shipped files weigh when their line info goes to a debug store, against the same
# build without line info, on three real builds; and what the split costs. Prints the "## split" section of
# bench/recorded/benchmarks.md (bench/run.sh collects it).
#   a. a CUDA library from GitHub (kernels of NVIDIA/cuda-samples: histogram, scan, convolutionSeparable, linked
#      into one .so) through `trueline-cc ccache nvcc`: forced -lineinfo (default), with
#      [wrapper] line_info_store, and with device_lineinfo = false;
#   b. the PyTorch extension recipe (the build.ninja torch.utils.cpp_extension writes, PYTORCH_NVCC = trueline-cc
#      ccache nvcc; torch itself is not installed), the sortingNetworks kernels of cuda-samples + a binding file, packaged
#      into a wheel: the same three ways;
#   c. a C++ library at -O3 (open-source-parsers/jsoncpp, src/lib_json), host only: trueline-cc's forced -g1 then
#      `trueline-check --split`, against the same build without -g; split time and peak memory against
#      `eu-strip -g -f` and `objcopy --only-keep-debug` + `objcopy --strip-debug` on the same file.
# For a and b, the documented full workflow is a row of its own: line_info_store for the device line info, then
# `trueline-check --split` on the linked file for the host DWARF (the forced -g1 the device-only split keeps).
# SPLIT_PROJECTS="a b c" (the default) picks the projects measured.
# Sources: CUDA_SAMPLES_SRC and JSONCPP_SRC name checkouts (a project whose source is not given is said so and
# left out). Sizes: the file, and its deflate size as a wheel member (python zipfile, level 6). Times: wall
# seconds and peak RSS from /usr/bin/time (builds once each, cold ccache; splits best of 3).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TRUELINE_BUILD:-$root/build}
tcc=$build/bin/trueline-cc tck=$build/bin/trueline-check
[ -x "$tcc" ] && [ -x "$tck" ] || { echo "bench/split.sh: build first (make)" >&2; exit 2; }
command -v nvcc >/dev/null || export PATH="$PATH:${CUDA_HOME:-/usr/local/cuda}/bin"
work=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench-split.XXXXXX"); tf=$work/time
trap 'rm -rf "$work"' EXIT
export XDG_CACHE_HOME=$work/xdg CCACHE_CONFIGPATH=$work/ccache.conf
: > "$CCACHE_CONFIGPATH"
unset TRUELINE_WRAPPER_LINE_INFO_STORE TRUELINE_WRAPPER_DEVICE_LINEINFO TRUELINE_WRAPPER_HOST_DEBUG CCACHE_DISABLE
ARCH="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]"

zsize() { python3 -c 'import sys, zlib; print(len(zlib.compress(open(sys.argv[1], "rb").read(), 6)))' "$1"; }
fsize() { stat -c %s "$1"; }
secsize() { local x; x=$(readelf -SW "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk -v n="$2" '$1 == n { print $5 }')
  [ -n "$x" ] && echo $((16#$x)) || echo 0; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%+.2f %%", (a - b) * 100 / b; else print "n/a" }'; }
kb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1024 }'; }
# timed DIR CMD...: one run in DIR; prints "SECONDS KB"
timed() { local d=$1; shift; (cd "$d" && /usr/bin/time -o "$tf" -f "%e %M" "$@" >/dev/null 2>"$work/err") || { sed 's/^/# /' "$work/err" >&2; return 1; }; tail -1 "$tf"; }
best3() { local best="" rss="" t m; for _ in 1 2 3; do read -r t m < <(timed "$@") || return 1
  if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; rss=$m; fi; done; echo "$best $rss"; }

# three_ways NAME DIR-MAKER TARGET: builds a fresh tree from DIR-MAKER three ways, each with its own cold ccache;
# prints the size table rows of TARGET (a file under the tree) and the build times
three_ways() {
  local name=$1 maker=$2 target=$3 v t m
  for v in default store bare none; do
    rm -rf "$work/$name-$v" "$work/cc-$name-$v"; "$maker" "$work/$name-$v"
    local env=(CCACHE_DIR="$work/cc-$name-$v")
    [ "$v" = store ] && env+=(TRUELINE_WRAPPER_LINE_INFO_STORE="$work/store-$name")
    [ "$v" = bare ] && env+=(TRUELINE_WRAPPER_DEVICE_LINEINFO=false)
    # no line info at all, the issue's baseline: no -lineinfo and the build's own host flags (no -g)
    [ "$v" = none ] && env+=(TRUELINE_WRAPPER_DEVICE_LINEINFO=false TRUELINE_WRAPPER_HOST_DEBUG=keep)
    read -r t m < <(timed "$work/$name-$v" env "${env[@]}" make -j2) || { echo "| $name: the $v build failed | | | | |"; return 1; }
    eval "bt_$v=$t"
  done
  # the fourth way: the default build's file split after the link, in place (same size; zeros compress away)
  cp "$work/$name-default/$target" "$work/$name-after.bin"
  "$tck" --split --device-only --in-place --debug-store "$work/store-$name-after" "$work/$name-after.bin" >/dev/null
  # the full workflow: the line_info_store build's file, its host DWARF split out after the link
  "$tck" --split --debug-store "$work/store-$name" --output-dir "$work/$name-full" "$work/$name-store/$target" >/dev/null
  local d="$work/$name-default/$target" s="$work/$name-store/$target" b="$work/$name-none/$target" a="$work/$name-after.bin"
  local full; full="$work/$name-full/$(basename "$target")"
  local bf bz; bf=$(fsize "$b"); bz=$(zsize "$b")
  for row in "default (forced -lineinfo):$d" "line_info_store (split before the link):$s" \
             "line_info_store + trueline-check --split (host) on the linked file:$full" \
             "trueline-check --split on the linked file:$a" "device_lineinfo = false (host -g1 kept):$work/$name-bare/$target" \
             "no line info (device_lineinfo = false, host_debug = keep; no -g):$b"; do
    local f=${row#*:} fs fz; fs=$(fsize "$f"); fz=$(zsize "$f")
    echo "| ${row%%:*} | $(kb "$fs") KiB ($(pct "$fs" "$bf")) | $(kb "$(secsize "$f" .nv_fatbin)") KiB | $(kb "$fz") KiB ($(pct "$fz" "$bz")) |"
  done
  echo
  echo "Build wall time on a cold ccache (make -j2): default $bt_default s, line_info_store $bt_store s, device_lineinfo = false $bt_bare s, no line info $bt_none s; the store holds $(find "$work/store-$name" -type f | wc -l) device parts."
}

samples_tree() { # a: cuda-samples kernels as one shared library
  local d=$1 s=$CUDA_SAMPLES_SRC/Samples/2_Concepts_and_Techniques
  mkdir -p "$d" && cp "$s"/histogram/histogram64.cu "$s"/histogram/histogram256.cu "$s"/histogram/histogram_common.h \
    "$s"/scan/scan.cu "$s"/scan/scan_common.h "$s"/convolutionSeparable/convolutionSeparable.cu \
    "$s"/convolutionSeparable/convolutionSeparable_common.h "$d"/
  cat > "$d/Makefile" <<MK
OBJ = histogram64.o histogram256.o scan.o convolutionSeparable.o
libsamples.so: \$(OBJ)
	$tcc nvcc -shared -o \$@ \$(OBJ)
%.o: %.cu
	$tcc ccache nvcc $ARCH -O3 -I$CUDA_SAMPLES_SRC/Common -Xcompiler=-fPIC -c \$< -o \$@
MK
}

extension_tree() { # b: the torch-shaped build.ninja (as tests/suites/pytorch_extension.sh writes it), run by make
  local d=$1 s=$CUDA_SAMPLES_SRC/Samples/2_Concepts_and_Techniques/sortingNetworks
  mkdir -p "$d" && cp "$s"/bitonicSort.cu "$s"/oddEvenMergeSort.cu "$s"/sortingNetworks_common.cuh \
    "$s"/sortingNetworks_common.h "$d"/
  printf '#include "sortingNetworks_common.h"\nint ext_entry(int n) { return n > 0 ? n : 0; }\n' > "$d/ext.cpp"
  local pyinc; pyinc=$(python3 -c 'import sysconfig; print(sysconfig.get_path("include", scheme="posix_prefix"))')
  cat > "$d/build.ninja" <<NJ
ninja_required_version = 1.3
cxx = $tcc c++
nvcc = $tcc ccache nvcc
cflags = -DTORCH_EXTENSION_NAME=ext -DTORCH_API_INCLUDE_EXTENSION_H -isystem $pyinc -fPIC -std=c++17 -O3
cuda_cflags = -DTORCH_EXTENSION_NAME=ext -isystem $pyinc -I$CUDA_SAMPLES_SRC/Common -D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr $ARCH --compiler-options '-fPIC' -std=c++17 -O3
ldflags = -shared -L${CUDA_HOME:-/usr/local/cuda}/lib64 -lcudart
rule compile
  command = \$cxx -MMD -MF \$out.d \$cflags -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
rule cuda_compile
  depfile = \$out.d
  deps = gcc
  command = \$nvcc --generate-dependencies-with-compile --dependency-output \$out.d \$cuda_cflags -c \$in -o \$out
rule link
  command = \$cxx \$in \$ldflags -o \$out
build ext.o: compile ext.cpp
build bitonicSort.cuda.o: cuda_compile bitonicSort.cu
build oddEvenMergeSort.cuda.o: cuda_compile oddEvenMergeSort.cu
build ext.so: link ext.o bitonicSort.cuda.o oddEvenMergeSort.cuda.o
default ext.so
NJ
  printf 'all:\n\tninja -j2 >/dev/null\n\tpython3 %s ext-1.0-cp311-cp311-linux_x86_64.whl ext.so=ext.so\n' \
    "$root/tests/lib/mkwheel.py" > "$d/Makefile"
}

{
  echo "## split"
  echo
  echo "Measured by \`bench/split.sh\` on $(date -u +%Y-%m-%d), $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at the start; $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/nvcc \1/p'), $(ccache --version | head -1). Sizes in KiB; in brackets the difference to the build without line info (no -lineinfo, no -g); deflate = the file compressed as a wheel member (zlib level 6)."
  echo
  want() { case " ${SPLIT_PROJECTS:-a b c} " in *" $1 "*) return 0;; esac; return 1; }
  if [ -n "${CUDA_SAMPLES_SRC:-}" ] && [ -d "$CUDA_SAMPLES_SRC/Samples" ]; then
    if want a; then
    echo "### a. CUDA library: NVIDIA/cuda-samples kernels (histogram64/256, scan, convolutionSeparable) as libsamples.so, sm_80 + sm_90 (+ compute_90 PTX), -O3"
    echo
    echo "| build | libsamples.so | .nv_fatbin | deflate |"
    echo "|---|---|---|---|"
    three_ways samples samples_tree libsamples.so
    echo
    fi
    if ! want b; then
      :
    elif command -v ninja >/dev/null; then
      echo "### b. PyTorch extension recipe: torch's build.ninja shape, cuda-samples sortingNetworks (bitonicSort.cu, oddEvenMergeSort.cu) + ext.cpp as ext.so, in a wheel"
      echo
      echo "| build | ext.so | .nv_fatbin | deflate |"
      echo "|---|---|---|---|"
      three_ways ext extension_tree ext.so
      for v in default store bare none; do eval "w_$v=\$(fsize \"$work/ext-$v/ext-1.0-cp311-cp311-linux_x86_64.whl\")"; done
      whl=ext-1.0-cp311-cp311-linux_x86_64.whl
      "$tck" --split --debug-store "$work/store-ext" --output-dir "$work/ext-fullwhl" "$work/ext-store/$whl" >/dev/null
      w_full=$(fsize "$work/ext-fullwhl/$whl")
      echo "Wheel sizes (zip as written by tests/lib/mkwheel.py): default $(kb "$w_default") KiB ($(pct "$w_default" "$w_none")), line_info_store $(kb "$w_store") KiB ($(pct "$w_store" "$w_none")), line_info_store + trueline-check --split of the wheel $(kb "$w_full") KiB ($(pct "$w_full" "$w_none")), device_lineinfo = false $(kb "$w_bare") KiB ($(pct "$w_bare" "$w_none")), no line info $(kb "$w_none") KiB."
      echo
    else
      echo "b. not measured: ninja not installed."; echo
    fi
  else
    echo "a, b. not measured: CUDA_SAMPLES_SRC does not name a checkout of NVIDIA/cuda-samples."; echo
  fi
  if ! want c; then
    :
  elif [ -n "${JSONCPP_SRC:-}" ] && [ -d "$JSONCPP_SRC/src/lib_json" ]; then
    echo "### c. C++ library: open-source-parsers/jsoncpp (src/lib_json) as libjsoncpp.so, g++ -O3, host only"
    echo
    for v in g1 nog g; do
      d=$work/json-$v; mkdir -p "$d"; flags=""; env=()
      [ "$v" = nog ] && env=(TRUELINE_WRAPPER_HOST_DEBUG=keep)
      [ "$v" = g ] && flags=-g
      for c in json_reader json_value json_writer; do
        env "${env[@]}" "$tcc" g++ -O3 -fPIC $flags -std=c++17 -I"$JSONCPP_SRC/include" -c "$JSONCPP_SRC/src/lib_json/$c.cpp" -o "$d/$c.o" || exit 1
      done
      env "${env[@]}" "$tcc" g++ -shared -Wl,--build-id -o "$d/libjsoncpp.so" "$d"/*.o || exit 1
    done
    for v in g1 g; do
      "$tck" --split --debug-store "$work/store-json" --output-dir "$work/json-$v/out" "$work/json-$v/libjsoncpp.so" >/dev/null || exit 1
    done
    b=$work/json-nog/libjsoncpp.so bf=$(fsize "$b") bz=$(zsize "$b")
    echo "| build | libjsoncpp.so | deflate |"
    echo "|---|---|---|"
    for row in "trueline-cc (forced -g1):$work/json-g1/libjsoncpp.so" "-g1, trueline-check --split:$work/json-g1/out/libjsoncpp.so" \
               "-g (full), trueline-check --split:$work/json-g/out/libjsoncpp.so" "without -g:$b"; do
      f=${row#*:}; fs=$(fsize "$f"); fz=$(zsize "$f")
      echo "| ${row%%:*} | $(kb "$fs") KiB ($(pct "$fs" "$bf")) | $(kb "$fz") KiB ($(pct "$fz" "$bz")) |"
    done
    echo
    echo "Splitting the -g (full DWARF) libjsoncpp.so ($(kb "$(fsize "$work/json-g/libjsoncpp.so")") KiB), best of 3:"
    echo
    echo "| command | wall | peak RSS |"
    echo "|---|---|---|"
    f=$work/json-g/libjsoncpp.so; s=$work/sp; mkdir -p "$s"
    read -r t m < <(best3 "$s" sh -c "rm -rf st out; exec '$tck' --split --debug-store st --output-dir out '$f'")
    echo "| \`trueline-check --split --debug-store S --output-dir O\` | $t s | $(kb "$m") MiB |"
    read -r t m < <(best3 "$s" eu-strip -g -f lib.debug -o lib.stripped "$f")
    echo "| \`eu-strip -g -f lib.debug -o lib.stripped\` | $t s | $(kb "$m") MiB |"
    read -r t1 m1 < <(best3 "$s" objcopy --only-keep-debug "$f" lib.dbg)
    read -r t2 m2 < <(best3 "$s" objcopy --strip-debug --add-gnu-debuglink=lib.dbg "$f" lib.out)
    echo "| \`objcopy --only-keep-debug\` + \`objcopy --strip-debug --add-gnu-debuglink\` | $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.2f", a + b }') s | $(kb "$(( m1 > m2 ? m1 : m2 ))") MiB |"
  else
    echo "c. not measured: JSONCPP_SRC does not name a checkout of open-source-parsers/jsoncpp."
  fi
}
