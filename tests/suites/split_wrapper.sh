#!/usr/bin/env bash
# [wrapper] line_info_store: trueline-cc splits the device line info out of each nvcc object before the stamp
# (docs/wrapper.md, "Ship small: line_info_store"). First with a stand-in trueline-check beside a copy of
# trueline-cc that records its arguments (what is run, when, with which store; a failure fails the compile;
# the cache key tells stores apart), then, where trueline-check has `--split --device-only`, a small CUDA
# library (tests/data/device) built three ways through `trueline-cc ccache nvcc`: default, with the store,
# and bare (device_lineinfo = false). Oracles: readelf (sizes, build-id notes), NVIDIA's cuobjdump (SASS,
# cubins; PyPI, skipped when absent), ccache's own statistics, tests/lib/cubin_overhead.py.
. "$(dirname "$0")/../lib/harness.sh"
have_nvcc || { skip "nvcc not found (CUDA_HOME/PATH)"; exit 0; }
have ccache || { skip "ccache not installed"; exit 0; }
cd "$T"
unset CCACHE_BASEDIR CCACHE_DEPEND CCACHE_DIRECT CCACHE_NODIRECT CCACHE_IGNOREOPTIONS CCACHE_RECACHE \
      TRUELINE_WRAPPER_LINE_INFO_STORE TRUELINE_WRAPPER_DEVICE_LINEINFO TRUELINE_PROVENANCE_STAMP
: > ccache.conf
export CCACHE_CONFIGPATH=$T/ccache.conf
DATA=$TRUELINE_ROOT/tests/data/device
NV=(-c -arch=sm_90 -Xcompiler -fPIC)
# hits and misses of ccache, as ccache counts them
stats() { ccache --print-stats | awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 == "cache_miss" { m += $2 } END { print h + 0, m + 0 }'; }
stat_of() { trueline-cc --trueline-stats | awk -v k="$1" 'index($0, k) { print $NF }'; }

# --- 1. the stand-in: what trueline-cc runs, and when ------------------------------------------------------------
# A copy of trueline-cc with a trueline-check script beside it: trueline-cc takes the checker beside its own
# real path before PATH (the real one is on PATH here). The script records its arguments and whether the
# object already had its record (it must not: the split comes before the stamp), and rewrites the object
# (one section removed) as a split would, so that the record must bind the rewritten bytes.
mkdir -p sb && cp "$(command -v trueline-cc)" sb/trueline-cc
cat > sb/trueline-check <<'SH'
#!/bin/sh
obj=; for a; do obj=$a; done
if readelf -S "$obj" 2>/dev/null | grep -q '\.note\.trueline'; then s=stamped; else s=unstamped; fi
echo "$* [$s]" >> "$STANDIN_LOG"
[ -n "${STANDIN_FAIL:-}" ] && { echo "stand-in: cannot write the store" >&2; exit 2; }
objcopy --remove-section=.comment "$obj"
SH
chmod +x sb/trueline-check
export STANDIN_LOG=$T/standin.log CCACHE_DIR=$T/cc-standin
mkdir -p w && cd w && printf '__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x * 3; }\n' > k.cu
printf 'int plain(int x) { return x + 1; }\n' > p.c

TRUELINE_WRAPPER_LINE_INFO_STORE=rel-store "$T/sb/trueline-cc" ccache nvcc "${NV[@]}" k.cu -o k1.o 2>err1.txt
check "ccache miss with a store: the split ran once, in the stage, before the stamp, with the absolute store" \
  grep -qxF -- "--split --in-place --device-only --debug-store $T/w/rel-store -- k1.o [unstamped]" "$STANDIN_LOG"
check "... and the object the cache stored was rewritten by the split (no .comment) and then stamped" \
  sh -c 'readelf -S k1.o | grep -q "\.note\.trueline" && ! readelf -S k1.o | grep -q "\.comment"'
read -r h0 m0 < <(stats)
v0=$(stat_of verified); x0=$(stat_of mismatch)
TRUELINE_WRAPPER_LINE_INFO_STORE=rel-store "$T/sb/trueline-cc" ccache nvcc "${NV[@]}" k.cu -o k2.o
read -r h1 m1 < <(stats)
check "the same compile again: a hit" test $((h1 - h0)) = 1 -a "$m1" = "$m0"
check "... that runs no split (the cached object is the split one)" test "$(wc -l < "$STANDIN_LOG")" = 1
check "... and verifies (the record binds the split object)" test "$(stat_of verified)" -gt "${v0:-0}" -a "$(stat_of mismatch)" = "${x0:-0}"
check "... giving the split object itself" same_bytes k1.o k2.o
"$T/sb/trueline-cc" ccache nvcc "${NV[@]}" k.cu -o k3.o
read -r h2 m2 < <(stats)
check "the setting off: a miss (an unsplit object is not the split one's entry)" test $((m2 - m1)) = 1 -a "$h2" = "$h1"
check "... and no split ran" test "$(wc -l < "$STANDIN_LOG")" = 1
check "... the object keeps what the split removed" sh -c 'readelf -S k3.o | grep -q "\.comment"'
TRUELINE_WRAPPER_LINE_INFO_STORE=$T/other-store "$T/sb/trueline-cc" ccache nvcc "${NV[@]}" k.cu -o k4.o
read -r h3 m3 < <(stats)
check "another store: a miss (a hit would leave that store without the parts)" test $((m3 - m2)) = 1 -a "$h3" = "$h2"
check "... split into that store" grep -qF -- "--debug-store $T/other-store -- k4.o" "$STANDIN_LOG"
TRUELINE_WRAPPER_LINE_INFO_STORE=$T/s "$T/sb/trueline-cc" --trueline-explain ccache nvcc "${NV[@]}" k.cu -o k5.o 2>ex.txt
contains "explain names the store and the cache key's part" ex.txt "line info store: $T/s .*line_info_store=$T/s"

# no cache: the after step splits, then stamps
n0=$(wc -l < "$STANDIN_LOG")
TRUELINE_WRAPPER_LINE_INFO_STORE=$T/s "$T/sb/trueline-cc" nvcc "${NV[@]}" k.cu -o k6.o
check "no cache: the split runs in the after step, before the stamp" \
  sh -c 'tail -1 "$1" | grep -qxF -- "--split --in-place --device-only --debug-store $2/s -- k6.o [unstamped]" && [ "$(wc -l < "$1")" = $(($3 + 1)) ]' _ "$STANDIN_LOG" "$T" "$n0"
check "... and the object is stamped after it" sh -c 'readelf -S k6.o | grep -q "\.note\.trueline" && ! readelf -S k6.o | grep -q "\.comment"'

# not a device compile: nothing split, and the cache key is the usual one
"$T/sb/trueline-cc" ccache gcc -c p.c -o p1.o
read -r h4 m4 < <(stats)
TRUELINE_WRAPPER_LINE_INFO_STORE=$T/s "$T/sb/trueline-cc" ccache gcc -c p.c -o p2.o
read -r h5 m5 < <(stats)
check "gcc with a store set: a hit on the entry made without it" test $((h5 - h4)) = 1 -a "$m5" = "$m4"
check "... and no split ran" test "$(grep -c 'p[12]\.o' "$STANDIN_LOG")" = 0
# device line info not forced: nothing to split
n1=$(wc -l < "$STANDIN_LOG")
TRUELINE_WRAPPER_DEVICE_LINEINFO=false TRUELINE_WRAPPER_LINE_INFO_STORE=$T/s "$T/sb/trueline-cc" ccache nvcc "${NV[@]}" k.cu -o k7.o
check "device_lineinfo = false: no split" test "$(wc -l < "$STANDIN_LOG")" = "$n1"

# a failed split fails the compile, names the object, leaves no object and no cache entry
STANDIN_FAIL=1 TRUELINE_WRAPPER_LINE_INFO_STORE=$T/bad "$T/sb/trueline-cc" ccache nvcc "${NV[@]}" k.cu -o k8.o 2>err8.txt
rc=$?
check "a failed split: the compile fails" test "$rc" -ne 0
contains "... naming the object and the store" err8.txt "k8\.o: splitting the device line info into $T/bad failed"
contains "... passing on trueline-check's reason" err8.txt "stand-in: cannot write the store"
check "... leaving no object behind" test ! -e k8.o
read -r h6 m6 < <(stats)
TRUELINE_WRAPPER_LINE_INFO_STORE=$T/bad "$T/sb/trueline-cc" ccache nvcc "${NV[@]}" k.cu -o k9.o
read -r h7 m7 < <(stats)
check "... and nothing cached: the next run is a miss" test $((m7 - m6)) = 1 -a "$h7" = "$h6"
STANDIN_FAIL=1 TRUELINE_WRAPPER_LINE_INFO_STORE=$T/bad2 "$T/sb/trueline-cc" nvcc "${NV[@]}" k.cu -o k10.o 2>err10.txt
rc=$?
check "a failed split without a cache: the compile fails too, object removed" sh -c '[ "$1" -ne 0 ] && [ ! -e k10.o ]' _ "$rc"
contains "... naming the object" err10.txt "k10\.o: splitting the device line info"
cd "$T"

# --- 2. the real split on a small CUDA library -------------------------------------------------------------------
if ! trueline-check --help 2>&1 | grep -q -- '--device-only'; then
  skip "trueline-check has no --split --device-only yet: the library builds were not run"
  exit 0
fi
CUOBJDUMP=$(find_pypi_tool cuobjdump)
export CCACHE_DIR=$T/cc-lib STORE=$T/store
cat > Makefile.lib <<'MK'
ARCH = -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]
OBJ = split_lib.o kern.o kern_b.o
libk.so: $(OBJ)
	$(LINK) -shared -o $@ $(OBJ)
%.o: %.cu
	$(NVCC) $(ARCH) -O3 -Xcompiler -fPIC -c $< -o $@
MK
# build DIR [VAR=VALUE...]: the library through `trueline-cc ccache nvcc` in DIR, emptied first (a rebuild
# uses the same DIR, as a real rebuild does: the hits counted are then not about the directory)
build() {
  local d=$1; shift
  rm -rf "$d" && mkdir -p "$d" && cp "$DATA"/split_lib.cu "$DATA"/kern.cu "$DATA"/kern_b.cu "$d"/ &&
    cp Makefile.lib "$d"/Makefile &&
    (cd "$d" && env "$@" make -s NVCC="trueline-cc ccache nvcc" LINK="trueline-cc nvcc" >make.out 2>&1)
}
# section NAME SIZE lines of readelf -SW (its "[ 9]" is two fields, "[10]" one: the index is cut off first)
sections() { readelf -SW "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '{ print $1, $5 }'; }
fatbin_size() { local x; x=$(sections "$1" | awk '$1 == ".nv_fatbin" { print $2 }'); [ -n "$x" ] && echo $((16#$x)); }
premise "default build" build default
premise "build with the store" build split TRUELINE_WRAPPER_LINE_INFO_STORE="$STORE"
premise "bare build (device_lineinfo = false)" build bare TRUELINE_WRAPPER_DEVICE_LINEINFO=false
check "the split build printed nothing (trueline-check's summary stays off stdout)" test ! -s split/make.out

# the store: one part per cubin of the objects, each an ELF file whose GNU build-id names its path
ncubins=0
for o in split_lib kern kern_b; do
  n=$(python3 "$TRUELINE_ROOT/tests/lib/fatbin_count.py" default/$o.o | sed -n 's/.*elf=\([0-9]*\).*/\1/p')
  ncubins=$((ncubins + ${n:-0}))
done
parts=$(find "$STORE" -type f -name '*.debug' | wc -l)
check "the store holds one part per cubin ($ncubins cubins in the default build's objects)" test "$parts" = "$ncubins" -a "$ncubins" -gt 0
named_by_build_id() {
  local f bad=0 id
  for f in $(find "$STORE" -type f -name '*.debug'); do
    id=$(readelf -n "$f" 2>/dev/null | awk '/Build ID:/ { print $3 }')
    [ -n "$id" ] && [ "$f" = "$STORE/.build-id/${id:0:2}/${id:2}.debug" ] || { echo "    | $f: build-id '${id}'"; bad=1; }
  done
  [ "$bad" = 0 ] && [ -n "$f" ]
}
check "... each part carries a GNU build-id note (readelf -n) that names its path .build-id/NN/REST.debug" named_by_build_id
# every line section of every cubin in a split object is empty (the split keeps its header, not its bytes)
no_line_bytes() {
  local d; d=$(mktemp -d "$T/lines.XXXX")
  (cd "$d" && "$CUOBJDUMP" -xelf all "$1" >/dev/null 2>&1) || return 1
  local c name size n=0
  for c in "$d"/*.cubin; do
    n=$((n + 1))
    while read -r name size; do
      [ $((16#$size)) = 0 ] || { echo "    | $c: $name has $((16#$size)) bytes"; return 1; }
    done < <(sections "$c" | awk '$1 ~ /^\.(debug_line|nv_debug_line_sass)$/')
  done
  [ "$n" -gt 0 ]
}
if [ -n "$CUOBJDUMP" ]; then
  check "the split objects' cubins have no line bytes left (cuobjdump -xelf, readelf)" no_line_bytes "$T/split/split_lib.o"
  check "... while the default build's have (the check can fail)" eval '! no_line_bytes "$T/default/split_lib.o"'
else
  skip "line bytes of the objects' cubins: cuobjdump not found (pip install nvidia-cuda-cuobjdump)"
fi

D=$(fatbin_size default/libk.so); S=$(fatbin_size split/libk.so); B=$(fatbin_size bare/libk.so)
check "the linked .so's .nv_fatbin shrank (default $D, split $S bytes)" test -n "$S" -a -n "$D" -a "${S:-0}" -lt "${D:-0}"
if [ -n "$CUOBJDUMP" ]; then
  # the headers and names of the emptied line sections stay in each cubin: measured per cubin pair (same order
  # in both .so files, as cuobjdump -lelf lists them)
  mkdir -p xs xb
  (cd xs && "$CUOBJDUMP" -xelf all ../split/libk.so >/dev/null) && (cd xb && "$CUOBJDUMP" -xelf all ../bare/libk.so >/dev/null)
  pairs=$(paste -d' ' <("$CUOBJDUMP" -lelf split/libk.so | awk '{ print "xs/" $NF }') \
                      <("$CUOBJDUMP" -lelf bare/libk.so | awk '{ print "xb/" $NF }'))
  # shellcheck disable=SC2086
  over=$(python3 "$TRUELINE_ROOT/tests/lib/cubin_overhead.py" $pairs | awk '$1 == "total" { print $2 }')
  echo "# .nv_fatbin: default $D, split $S, bare $B bytes; emptied section headers and names: ${over:-?} bytes;" \
       "split - bare - those = $((S - B - ${over:-0})) bytes ($(awk -v a="$S" -v b="$B" -v o="${over:-0}" 'BEGIN { printf "%.2f", (a - b - o) * 100 / b }') % of bare)"
  check "... to within 2 % of the bare build's, plus the emptied headers' cost" \
    awk -v a="$S" -v b="$B" -v o="${over:-x}" 'BEGIN { exit !(o ~ /^[0-9]+$/ && a ~ /^[0-9]+$/ && b ~ /^[0-9]+$/ && a <= b * 1.02 + o) }'
  "$CUOBJDUMP" -sass split/libk.so > sass.split; "$CUOBJDUMP" -sass default/libk.so > sass.default
  check "cuobjdump -sass of the split .so equals the default build's" same_bytes sass.split sass.default
else
  skip "cuobjdump (PyPI nvidia-cuda-cuobjdump) not installed: fatbin size bound and SASS comparison"
fi

# a second build with the store: all hits, verified, the same split objects; the store left as it was
read -r ha ma < <(stats)
va=$(stat_of verified); xa=$(stat_of mismatch)
find "$STORE" -type f | sort | xargs md5sum > store.before
cp -r split split.first && cp -r default default.first
premise "second build with the store" build split TRUELINE_WRAPPER_LINE_INFO_STORE="$STORE"
read -r hb mb < <(stats)
echo "# second build: $((hb - ha)) hits, $((mb - ma)) misses"
check "second build with the store: all hits (3)" test $((hb - ha)) = 3 -a "$mb" = "$ma"
check "... each verified, no mismatch" test "$(stat_of verified)" -ge $(( ${va:-0} + 3 )) -a "$(stat_of mismatch)" = "${xa:-0}"
check "... the objects are the split ones" sh -c 'for o in split_lib kern kern_b; do cmp -s split.first/$o.o split/$o.o || exit 1; done'
check "... trueline-check --provenance reads their records" sh -c 'trueline-check --provenance split/kern.o | grep -q "forced -lineinfo"'
find "$STORE" -type f | sort | xargs md5sum > store.after
check "... and the store is as the first build left it" same_bytes store.before store.after
# the setting off again: misses, objects with their line info
premise "build without the store after the split builds" build default
read -r hc mc < <(stats)
check "the store off: hits on the default build's entries, not the split ones" test $((hc - hb)) = 3 -a "$mc" = "$mb"
check "... the default build's objects" sh -c 'for o in split_lib kern kern_b; do cmp -s default.first/$o.o default/$o.o || exit 1; done'
