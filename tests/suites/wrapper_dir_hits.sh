#!/usr/bin/env bash
# The line info trueline-cc forces must not cost a hit the user had without it (docs/wrapper.md, "Sharing one
# cache between build directories and checkouts"). ccache hashes the working directory whenever it sees -g
# (hash_dir) and gcc writes the working directory into its preprocessed output when debug info is on: a
# forced -g1 made every compile in a second checkout miss. A small Make project is checked out twice and built
# in each checkout, sharing one cache, through the bare cache (no -g: the user's build) and through trueline-cc:
# the hit counts (the cache's own statistics) must be equal. ccache with CCACHE_BASEDIR and without a base
# directory (a fresh build directory per build, as scikit-build-core makes, sources by absolute path); gcc,
# clang, nvcc; sccache with SCCACHE_BASEDIRS above both checkouts. The debug information of a hit must still
# lead to the sources: readelf's DW_AT_comp_dir and gdb from the build directory are the oracles.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
unset CCACHE_BASEDIR CCACHE_NOHASHDIR CCACHE_HASHDIR CCACHE_DEPEND CCACHE_DIRECT CCACHE_NODIRECT CCACHE_IGNOREOPTIONS \
      CCACHE_PREFIX SCCACHE_BASEDIRS SCCACHE_CONF TRUELINE_WRAPPER_HOST_DEBUG
: > ccache.conf
export CCACHE_CONFIGPATH=$T/ccache.conf
have ccache || { skip "ccache not installed"; exit 0; }

# checkout DIR: a Make project with relative paths (include/, src/, objects in the checkout)
checkout() {
  mkdir -p "$1/include" "$1/src"
  printf '#define SCALE 3\n' > "$1/include/scale.h"
  printf '#include "scale.h"\nint scaled(int x)\n{\n  return x * SCALE + 1;\n}\n' > "$1/src/scaled.c"
  printf '#include "scale.h"\nint twice(int x)\n{\n  return 2 * x * SCALE;\n}\n' > "$1/src/twice.c"
  printf '#include "scale.h"\n__global__ void k(int *p) { p[threadIdx.x] *= SCALE; }\nint host_v(int x)\n{\n  return x + SCALE;\n}\n' > "$1/src/k.cu"
  cat > "$1/Makefile" <<'EOF'
OBJS = scaled.o twice.o
all: $(OBJS)
%.o: src/%.c
	$(CC) -O2 -Iinclude -MMD -c $< -o $@
k.o: src/k.cu
	$(NVCC) -O2 -Iinclude -c $< -o $@
EOF
}
checkout "$T/ws/ck1"
checkout "$T/ws/ck2"

ccache_hits() { ccache --print-stats | awk '$1=="direct_cache_hit"||$1=="preprocessed_cache_hit"{h+=$2} END{print h+0}'; }
ccache_misses() { ccache --print-stats | awk '$1=="cache_miss"{print $2+0}'; }
clean() { rm -f "$T"/ws/ck*/*.o "$T"/ws/ck*/*.d; }

# make_both LAUNCHER COMPILER TARGETS: builds ck1 then ck2 in a fresh cache; prints "hits misses"
make_both() {
  local launcher=$1 comp=$2 targets=$3
  export CCACHE_DIR=$T/cc-$RANDOM$RANDOM XDG_CACHE_HOME=$T/xdg-$RANDOM$RANDOM
  echo "$XDG_CACHE_HOME" > "$T/last-xdg"
  clean
  for ck in ck1 ck2; do
    if [ "$comp" = nvcc ]; then make -s -C "$T/ws/$ck" NVCC="$launcher nvcc" $targets >> "$T/make.log" 2>&1
    else make -s -C "$T/ws/$ck" CC="$launcher $comp" $targets >> "$T/make.log" 2>&1; fi
  done
  echo "$(ccache_hits) $(ccache_misses)"
}

# compare NAME COMPILER TARGETS: bare ccache's hits in the second checkout are kept through trueline-cc
compare() {
  local name=$1 comp=$2 targets=$3 bh bm wh wm
  read -r bh bm < <(make_both ccache "$comp" "$targets")
  read -r wh wm < <(make_both "trueline-cc ccache" "$comp" "$targets")
  premise "$name: bare ccache hits in the second checkout (it hit $bh, missed $bm)" [ "${bh:-0}" -ge 1 ]
  same "$name: trueline-cc ccache keeps bare ccache's hits and misses" "$bh/$bm" "$wh/$wm"
  XDG_CACHE_HOME=$(cat "$T/last-xdg") trueline-cc --trueline-stats > "$T/stats" 2>&1
  contains "$name: trueline-cc verified the hits and found no mismatch" "$T/stats" '^ *Mismatches: *0$'
}

export CCACHE_BASEDIR=$T/ws
compare "gcc, CCACHE_BASEDIR" gcc "scaled.o twice.o"
have clang && compare "clang, CCACHE_BASEDIR" clang "scaled.o twice.o"
have_nvcc && compare "nvcc, CCACHE_BASEDIR" nvcc "k.o"

# the cache's statistics, in every mode ccache has: direct, preprocessor (CCACHE_NODIRECT), depend
CCACHE_NODIRECT=1 compare "gcc, CCACHE_BASEDIR, preprocessor mode" gcc "scaled.o twice.o"
CCACHE_DEPEND=1 compare "gcc, CCACHE_BASEDIR, depend mode" gcc "scaled.o twice.o"

# the wrapped objects' debug information: the working directory is "." in both checkouts (so the object one
# checkout built is right for the other), and the source named relative to it exists in the build directory
make_both "trueline-cc ccache" gcc "scaled.o" > /dev/null
for ck in ck1 ck2; do
  readelf --debug-dump=info "$T/ws/$ck/scaled.o" > "$T/$ck.info" 2>&1
  contains "$ck's object (ck2's is a hit): DW_AT_comp_dir is \".\" (readelf)" "$T/$ck.info" 'DW_AT_comp_dir *:.*: \.$'
done
name=$(awk '/DW_TAG_compile_unit/{cu=1} cu && /DW_AT_name/{sub(/.*: /,""); print; exit}' "$T/ck2.info")
check "ck2: the unit's source ($name) is found from the build directory" test -f "$T/ws/ck2/$name"
if have gdb; then
  (cd "$T/ws/ck2" && gdb -nx -batch -ex 'list scaled' scaled.o) > "$T/gdb.out" 2>&1
  contains "gdb run in ck2 lists scaled's source from the hit's line info" "$T/gdb.out" 'return x \* SCALE \+ 1'
  (cd "$T" && gdb -nx -batch -ex "directory $T/ws/ck2" -ex 'list scaled' "$T/ws/ck2/scaled.o") > "$T/gdb-dir.out" 2>&1
  contains "gdb elsewhere, with 'directory BUILD', lists scaled's source" "$T/gdb-dir.out" 'return x \* SCALE \+ 1'
else skip "gdb not installed: source lookup through a debugger not tried"; fi

# the user's own -g: trueline-cc forces nothing and adds no prefix map (the hits are the user's business)
export CCACHE_DIR=$T/cc-own XDG_CACHE_HOME=$T/xdg-own
(cd "$T/ws/ck1" && trueline-cc --trueline-explain ccache gcc -g -Iinclude -c src/scaled.c -o own.o) > own.log 2>&1
lacks "the user's -g: no prefix map added" own.log 'forced:.*prefix-map' 'effective argv'
# the user's own prefix map for the working directory: left alone, nothing added
(cd "$T/ws/ck1" && trueline-cc --trueline-explain ccache gcc -fdebug-prefix-map="$T/ws/ck1"=/src -Iinclude -c src/scaled.c -o own.o) > map.log 2>&1
lacks "the user's prefix map of the working directory: none added" map.log 'forced:.*prefix-map' 'effective argv'
contains "the user's prefix map is applied (DW_AT_comp_dir /src)" <(readelf --debug-dump=info "$T/ws/ck1/own.o") 'DW_AT_comp_dir *:.*: /src$'

# what explain says is forced: the map of the working directory as $PWD names it (a link to the checkout here)
ln -s "$T/ws/ck1" "$T/ck1-link"
(cd "$T/ck1-link" && PWD=$T/ck1-link trueline-cc --trueline-explain ccache gcc -Iinclude -c src/scaled.c -o pwd.o) > pwd.log 2>&1
contains "explain: the forced map names the working directory as \$PWD names it" pwd.log "forced: -fdebug-prefix-map=$T/ck1-link=\.\$"
# a directory whose name has '=' cannot be mapped (OLD=NEW): nothing added, explain says why
mkdir -p "$T/we=ird" && cp "$T/ws/ck1/src/scaled.c" "$T/ws/ck1/include/scale.h" "$T/we=ird/"
(cd "$T/we=ird" && trueline-cc --trueline-explain ccache gcc -c scaled.c -o w.o) > weird.log 2>&1
contains "a working directory with '=' in its name: explain says no map was added" weird.log "has an '=' in its name: no prefix map added"
lacks "... and none is forced" weird.log 'forced: -fdebug-prefix-map' 'forced: -g1'

# no base directory: a fresh build directory per build, the sources by absolute path (scikit-build-core)
unset CCACHE_BASEDIR
fresh_builds() {
  local launcher=$1 comp=$2
  export CCACHE_DIR=$T/cc-fresh-$RANDOM$RANDOM XDG_CACHE_HOME=$T/xdg-fresh-$RANDOM$RANDOM
  for b in 1 2; do
    mkdir -p "$T/tmpbuild-$b-$launcher-$comp" && (cd "$T/tmpbuild-$b-${launcher}-$comp" &&
      $launcher "$comp" -O2 -I"$T/ws/ck1/include" -c "$T/ws/ck1/src/scaled.c" -o scaled.o) >> "$T/make.log" 2>&1
  done
  echo "$(ccache_hits) $(ccache_misses)"
}
for comp in gcc clang; do
  have "$comp" || continue
  read -r bh bm < <(fresh_builds ccache "$comp")
  read -r wh wm < <(fresh_builds "trueline-cc ccache" "$comp")
  premise "$comp, a fresh build directory: bare ccache hits the second build ($bh)" [ "${bh:-0}" -ge 1 ]
  same "$comp, a fresh build directory, no base directory: trueline-cc keeps bare ccache's hits" "$bh/$bm" "$wh/$wm"
done

# sccache: one base directory above both checkouts
if have sccache; then
  trap 'sccache --stop-server >/dev/null 2>&1; rm -rf "$T"' EXIT
  export SCCACHE_SERVER_PORT=$(free_port 2>/dev/null || echo 4226) SCCACHE_BASEDIRS=$T/ws
  sc_both() {
    local launcher=$1 comp=$2
    sccache --stop-server >/dev/null 2>&1
    export SCCACHE_DIR=$T/sc-$RANDOM$RANDOM XDG_CACHE_HOME=$T/xdg-sc-$RANDOM$RANDOM
    clean
    sccache_start "$T/sc-server.log" || { echo "no-server 0"; return; }
    for ck in ck1 ck2; do make -s -C "$T/ws/$ck" CC="$launcher $comp" scaled.o twice.o >> "$T/make.log" 2>&1; done
    sccache --show-stats | awk '/^Cache hits  /{h=$NF} /^Cache misses  /{m=$NF} END{print h+0, m+0}'
    sccache --stop-server >/dev/null 2>&1
  }
  for comp in gcc clang; do
    have "$comp" || continue
    read -r bh bm < <(sc_both sccache "$comp")
    if [ "$bh" = no-server ]; then skip "sccache server did not start: $(tail -1 "$T/sc-server.log")"; break; fi
    read -r wh wm < <(sc_both "trueline-cc sccache" "$comp")
    if [ "$wh" = no-server ]; then skip "sccache server did not start: $(tail -1 "$T/sc-server.log")"; break; fi
    premise "sccache, $comp: bare sccache hits in the second checkout ($bh)" [ "${bh:-0}" -ge 1 ]
    same "sccache, $comp, SCCACHE_BASEDIRS above the checkouts: trueline-cc keeps bare sccache's hits" "$bh/$bm" "$wh/$wm"
  done
else skip "sccache not installed"; fi
