#!/usr/bin/env bash
# Cache-hit verification keeps exactly the hits the cache itself makes (docs/provenance.md, "What verification
# compares"). Real ccache and sccache, private caches: the same build sequence runs through the bare cache and
# through trueline-cc, and the hit counts (ccache --print-stats, sccache --show-stats) must be equal, with no
# mismatch reported. Sequences: per-build-directory -MD -MF -MT (g++, nvcc), two checkouts of one project
# under CCACHE_BASEDIR / ccache.conf's base_dir / SCCACHE_BASEDIRS / sccache's basedirs built alternately with -I into the checkout and absolute source paths
# as CMake writes them, -fdebug-prefix-map per checkout; one source built by two targets whose -D sets leave its
# preprocessed text alone (ccache keys a g++ object by that text: one object for both). A poisoned entry (the
# cached object of an -O0 build, genuine record and all, served for -O2) must still be caught, and the message must
# name -O0.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
have ccache || { skip "ccache not installed"; exit 0; }
unset CCACHE_BASEDIR CCACHE_NOHASHDIR CCACHE_HASHDIR CCACHE_DEPEND CCACHE_DIRECT CCACHE_NODIRECT CCACHE_IGNOREOPTIONS \
      SCCACHE_BASEDIRS SCCACHE_CONF
: > ccache.conf
export CCACHE_CONFIGPATH=$T/ccache.conf
have_nvcc && export PATH="$CUDA_HOME/bin:$PATH"

# A small project: a header in include/, sources in src/, one build directory per configuration.
project() {
  mkdir -p "$1/include" "$1/src"
  printf '#define SCALE 3\n' > "$1/include/scale.h"
  printf '#include "scale.h"\n#ifndef V\n#define V 1\n#endif\nint scaled(int x) { return x * SCALE + V; }\n' > "$1/src/scaled.cpp"
  printf '#include "scale.h"\n__global__ void k(int *p) { p[threadIdx.x] *= SCALE; }\nint host_v() { return 7; }\n' > "$1/src/k.cu"
}

ccache_hits() { ccache --print-stats | awk '$1=="direct_cache_hit"||$1=="preprocessed_cache_hit"{h+=$2} END{print h+0}'; }
ccache_misses() { ccache --print-stats | awk '$1=="cache_miss"{print $2}'; }
# .text bytes of an object (the code the build links; a record or debug info does not change them)
text_of() { objcopy -O binary --only-section=.text "$1" "$1.text" 2>/dev/null && cat "$1.text"; }
same_text() { [ -s "$1" ] && [ -s "$2" ] && text_of "$1" > "$1.t" && text_of "$2" > "$2.t" && [ -s "$1.t" ] && cmp -s "$1.t" "$2.t"; }
mismatches() { trueline-cc --trueline-stats | awk '/Mismatches:/{print $2}'; }
verified() { trueline-cc --trueline-stats | awk '/Cached compiles verified:/{print $4}'; }

# clear_outputs: the objects and dependency files of the sequences' earlier runs are removed, so that what the
# checks read after a wrapped run (a dependency file, an object's code) is that run's, not the bare run's
clear_outputs() { find "$T/proj" "$T/ci" \( -name '*.o' -o -name '*.d' \) -type f -delete 2>/dev/null; true; }
# no_mismatch_message ERR XDG: the wrapped run's stderr (ERR) says nothing of a mismatch, and trueline-cc's
# statistics in XDG say that it verified cached compiles: there was something for it to find
no_mismatch_message() {
  local v; v=$(XDG_CACHE_HOME=$2 verified)
  if [ -z "$v" ] || [ "$v" -lt 1 ]; then echo "    | trueline-cc's statistics show no verified compile ('$v')" >&"$TL_VERDICT_FD"; return 1; fi
  if grep -Eq 'does not match|recompiling' "$1"; then sed 's/^/    | /' "$1" | head -20 >&"$TL_VERDICT_FD"; return 1; fi
  return 0
}

# run_seq MODE SEQ: runs the sequence function SEQ with CC="ccache" (bare) or CC="trueline-cc ccache" in a
# fresh cache and trueline state, the earlier runs' outputs removed; prints "hits misses" of the cache; stderr
# collected in MODE.SEQ.err.
run_seq() {
  local mode=$1 seq=$2
  export CCACHE_DIR=$T/cc-$mode-$seq XDG_CACHE_HOME=$T/xdg-$mode-$seq
  clear_outputs
  if [ "$mode" = bare ]; then CC="ccache"; else CC="trueline-cc ccache"; fi
  "$seq" "$mode" 2> "$T/$mode.$seq.err" >&2
  echo "$(ccache_hits) $(ccache_misses)"
}

# compare_seq NAME SEQ MIN_HITS: bare and wrapped hit counts equal (and at least MIN_HITS: the premise that the
# sequence has hits at all), no mismatch reported, every wrapped compile verified.
compare_seq() {
  local name=$1 seq=$2 min=$3 bare wrapped
  read -r bh bm < <(run_seq bare "$seq")
  read -r wh wm < <(run_seq wrap "$seq")
  local mm; mm=$(XDG_CACHE_HOME=$T/xdg-wrap-$seq mismatches)
  premise "$name: bare ccache hits at least $min times (it hit $bh)" [ "$bh" -ge "$min" ]
  same "$name: trueline-cc ccache keeps as many hits as bare ccache makes ($bh hits, $bm misses; kept = hits - mismatches)" \
    "$bh/$bm" "$((wh - ${mm:-0}))/$wm"
  check "$name: no mismatch reported (of the compiles trueline-cc verified)" no_mismatch_message "$T/wrap.$seq.err" "$T/xdg-wrap-$seq"
  same "$name: trueline-cc counts no mismatch" "$mm" 0
  same "$name: every cached compile verified (hits and misses)" "$(XDG_CACHE_HOME=$T/xdg-wrap-$seq verified)" "$((wh + wm))"
}

# --- 1. per-build-directory dependency files: g++ -MD -MT -MF as CMake's Makefile generator writes them ---
project "$T/proj"
# one directory, a dependency file per build
seq_depfiles_one_dir() {
  for i in 1 2 3; do (cd "$T/proj" && $CC g++ -MD -MF "dep$i.d" -c src/scaled.cpp -Iinclude -o "a$i.o"); done
}
compare_seq "g++ -MD -MF depN.d in one directory" seq_depfiles_one_dir 2
# build directories of their own: trueline-cc's forced -g1 is debug information, for which ccache hashes the
# working directory (hash_dir) as it does for any -g build; ccache's answer for sharing between build
# directories, hash_dir = false, is what such a build sets
export CCACHE_NOHASHDIR=1
seq_depfiles_gxx() {
  for b in b1 b2 b3; do
    mkdir -p "$T/proj/$b" && (cd "$T/proj/$b" && $CC g++ -O2 -I"$T/proj/include" -MD -MT scaled.o -MF "$T/proj/$b/scaled.o.d" \
      -c "$T/proj/src/scaled.cpp" -o scaled.o)
  done
}
compare_seq "g++ -MD -MF per build dir" seq_depfiles_gxx 2
contains "the hit wrote its own build directory's dependency file" "$T/proj/b3/scaled.o.d" '^scaled.o: .*scaled.cpp'
g++ -O2 -I"$T/proj/include" -c "$T/proj/src/scaled.cpp" -o "$T/bare_gxx.o"
check "the verified hit is the compiler's code (.text as bare g++)" same_text "$T/proj/b3/scaled.o" "$T/bare_gxx.o"
# the waiting wrapper (verification outside ccache's process) decides the same
seq_depfiles_wait() { TRUELINE_PROVENANCE_VERIFY_IN_CACHE=false seq_depfiles_gxx; }
compare_seq "g++ -MD -MF per build dir, wrapper verifies after ccache" seq_depfiles_wait 2
unset CCACHE_NOHASHDIR

# --- 2. the same with nvcc (-MD -MF, --dependency-output) ---
if have_nvcc; then
  seq_depfiles_nvcc() {
    for b in n1 n2; do
      mkdir -p "$T/proj/$b" && (cd "$T/proj/$b" && $CC nvcc -arch=sm_90 -I"$T/proj/include" -MD -MT k.o -MF "$T/proj/$b/k.o.d" \
        -c "$T/proj/src/k.cu" -o k.o)
    done
    mkdir -p "$T/proj/n3" && (cd "$T/proj/n3" && $CC nvcc -arch=sm_90 -I"$T/proj/include" --generate-dependencies-with-compile \
      --dependency-output "$T/proj/n3/k.o.d" -c "$T/proj/src/k.cu" -o k.o)
  }
  compare_seq "nvcc -MD -MF per build dir" seq_depfiles_nvcc 1
  contains "nvcc: the hit wrote its own dependency file" "$T/proj/n2/k.o.d" 'k.cu'
  premise "nvcc: the object's record holds kh" [ "$(strings -a "$T/proj/n2/k.o" | grep -c '^kh=')" = 1 ]
  same "nvcc: no kp (ccache keys an nvcc object with its -D: those are compared)" "$(strings -a "$T/proj/n2/k.o" | grep -c '^kp=')" 0
else skip "nvcc not installed: nvcc dependency-file sequence"; fi

# --- 3. two checkouts sharing one cache under CCACHE_BASEDIR, built alternately ---
mkdir -p "$T/ci" && project "$T/ci/ck1" && cp -r "$T/ci/ck1" "$T/ci/ck2" && mkdir -p "$T/ci/ck1/build" "$T/ci/ck2/build"
seq_checkouts_gxx() {
  for ck in ck1 ck2 ck1 ck2; do
    (cd "$T/ci/$ck/build" && $CC g++ -O2 -g -fdebug-prefix-map="$T/ci/$ck"=. -I"$T/ci/$ck/include" -MD -MT scaled.o \
      -MF scaled.o.d -c "$T/ci/$ck/src/scaled.cpp" -o scaled.o)
  done
}
export CCACHE_BASEDIR=$T/ci
compare_seq "two checkouts, g++ -g -fdebug-prefix-map, CCACHE_BASEDIR" seq_checkouts_gxx 3
if have_nvcc; then
  seq_checkouts_nvcc() {
    for ck in ck1 ck2 ck1 ck2; do
      (cd "$T/ci/$ck/build" && $CC nvcc -arch=sm_90 -O2 -I"$T/ci/$ck/include" -c "$T/ci/$ck/src/k.cu" -o k.o)
    done
  }
  compare_seq "two checkouts, nvcc, CCACHE_BASEDIR" seq_checkouts_nvcc 3
else skip "nvcc not installed: two-checkout nvcc sequence"; fi
# base_dir from ccache.conf instead of the environment
unset CCACHE_BASEDIR
printf 'base_dir = %s\n' "$T/ci" > ccache.conf
seq_checkouts_conf() { seq_checkouts_gxx; }
compare_seq "two checkouts, base_dir in ccache.conf" seq_checkouts_conf 3
: > ccache.conf
# without a base directory the checkouts are different compiles to ccache and to verification alike
seq_checkouts_nobase() { seq_checkouts_gxx; }
compare_seq "two checkouts, no base_dir (ccache hits only the repeats)" seq_checkouts_nobase 2

# --- 4. one source in two targets whose -D sets do not change its preprocessed text (fmt's test-main.cc, built
# with and without -DFMT_HEADER_ONLY=1): ccache keys a g++ object by the preprocessed text, so both share one
# object; each target's hit is kept, and no rebuild recompiles it ---
seq_shared_defines() {
  for d in -DSHARED_BY_TWO_TARGETS=1 -UNOT_DEFINED -DSHARED_BY_TWO_TARGETS=1 -UNOT_DEFINED; do
    (cd "$T/proj" && $CC g++ -O2 "$d" -Iinclude -c src/scaled.cpp -o "t$d.o")
  done
}
compare_seq "one source, two targets' -D sets, one preprocessed text" seq_shared_defines 3
r=$(find "$T/proj" -name 't-DSHARED*.o' | head -1)
same "a g++ record holds kp, the argv hash without what the preprocessor reads" "$(strings -a "$r" | grep -c '^kp=')" 1

# --- 5. what would change the object still mismatches: a poisoned entry ---
export CCACHE_BASEDIR=$T/ci CCACHE_DIR=$T/cc-poison XDG_CACHE_HOME=$T/xdg-poison
build_o() { (cd "$T/ci/$1/build" && trueline-cc ccache g++ "$2" -g -fdebug-prefix-map="$T/ci/$1"=. -I"$T/ci/$1/include" \
  -MD -MF "scaled.$3.d" -c "$T/ci/$1/src/scaled.cpp" -o "$3"); }
build_o ck1 -O2 v1.o
r1=$(find "$CCACHE_DIR" -name '*R' | head -1)
touch -d '1 minute ago' "$r1"
build_o ck1 -O0 v0.o
r0=$(find "$CCACHE_DIR" -name '*R' -newer "$r1" | head -1)
premise "two cache entries, for -O2 and -O0" [ -n "$r1" -a -n "$r0" -a "$r1" != "$r0" ]
cp "$r0" "$r1" # the entry for -O2 now holds the -O0 object with its own, genuine record
build_o ck2 -O2 p.o 2> poison.err; rc=$?
check "poisoned hit from the other checkout: the compile still succeeds (recompiled), p.o written" \
  sh -c "[ $rc -eq 0 ] && [ -s '$T/ci/ck2/build/p.o' ]"
contains "poisoned hit: the differing argument is named" poison.err 'only in the cached object.s argv: -O0; only in this invocation: -O2'
lacks "poisoned hit: what the cache ignores or rewrites is not named" poison.err 'only in .*(include|\.d$|prefix-map|/src/)' 'O0'
objdump -d "$T/ci/ck2/build/p.o" > p.dis
contains "poisoned hit: the object is the -O2 code after the repair (lea 0x1)" p.dis 'lea +0x1\(|add +\$0x1,'
lacks "poisoned hit: no -O0 code left (a frame pointer pushed)" p.dis 'push +%rbp' 'scaled'
same "stats count the mismatch" "$(mismatches)" 1
unset CCACHE_BASEDIR

# --- 6. sccache: its own server and local disk cache per run ---
if have sccache; then
  export SCCACHE_SERVER_PORT=$(free_port) SCCACHE_IDLE_TIMEOUT=120
  trap 'sccache --stop-server >/dev/null 2>&1; rm -rf "$T"' EXIT
  sccache_counts() { sccache --show-stats | awk '/^Cache hits  /{h=$NF} /^Cache misses  /{m=$NF} END{print h+0, m+0}'; }
  # sc_run MODE SEQ: a fresh server and cache; prints "hits misses"
  sc_run() {
    sccache --stop-server >/dev/null 2>&1
    export SCCACHE_DIR=$T/sc-$1-$2 XDG_CACHE_HOME=$T/xdg-sc-$1-$2
    clear_outputs
    sccache_start "$T/sc-server.log" || { echo "no-server"; return; }
    if [ "$1" = bare ]; then CC="sccache"; else CC="trueline-cc sccache"; fi
    "$2" 2> "$T/sc-$1.$2.err" >&2
    sccache_counts
    sccache --stop-server >/dev/null 2>&1
  }
  sc_compare() {
    local name=$1 seq=$2 min=$3
    read -r bh bm < <(sc_run bare "$seq")
    if [ "$bh" = no-server ]; then skip "sccache server did not start: $(tail -1 "$T/sc-server.log")"; return; fi
    read -r wh wm < <(sc_run wrap "$seq")
    if [ "$wh" = no-server ]; then skip "sccache server did not start: $(tail -1 "$T/sc-server.log")"; return; fi
    local mm; mm=$(XDG_CACHE_HOME=$T/xdg-sc-wrap-$seq mismatches)
    premise "$name: bare sccache hits at least $min times (it hit $bh)" [ "$bh" -ge "$min" ]
    same "$name: trueline-cc sccache keeps as many hits as bare sccache makes ($bh hits, $bm misses; kept = hits - mismatches)" \
      "$bh/$bm" "$((wh - ${mm:-0}))/$wm"
    check "$name: no mismatch reported (of the compiles trueline-cc verified)" no_mismatch_message "$T/sc-wrap.$seq.err" "$T/xdg-sc-wrap-$seq"
    same "$name: trueline-cc counts no mismatch" "$mm" 0
    same "$name: every cached compile verified" "$(XDG_CACHE_HOME=$T/xdg-sc-wrap-$seq verified)" "$((wh + wm))"
  }
  sc_depfiles() { seq_depfiles_gxx; }
  sc_compare "sccache: g++ -MD -MF per build dir" sc_depfiles 2
  export SCCACHE_BASEDIRS=$T/ci/ck1:$T/ci/ck2
  sc_checkouts() {
    for ck in ck1 ck2 ck1 ck2; do
      (cd "$T/ci/$ck/build" && $CC g++ -O2 -I"$T/ci/$ck/include" -MD -MF scaled.o.d -c "$T/ci/$ck/src/scaled.cpp" -o s.o)
    done
  }
  sc_compare "sccache: two checkouts under SCCACHE_BASEDIRS" sc_checkouts 3
  unset SCCACHE_BASEDIRS
  printf 'basedirs = ["%s",\n  "%s"]\n' "$T/ci/ck1" "$T/ci/ck2" > sccache.conf
  export SCCACHE_CONF=$T/sccache.conf
  sc_checkouts_conf() { sc_checkouts; }
  sc_compare "sccache: two checkouts, basedirs in sccache's config file" sc_checkouts_conf 3
  unset SCCACHE_CONF
else skip "sccache not installed"; fi
