#!/usr/bin/env bash
# Build systems that run ccache themselves (CMAKE_<LANG>_COMPILER_LAUNCHER=ccache, as vLLM's setup.py sets it)
# get trueline through a link named ccache first on PATH: the compile goes through trueline-cc and then the
# real ccache. Truths: readelf (line info, the provenance note), the bare compiler's object, ccache's own
# statistics and log read from the real ccache, CMake's generated build.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
have ccache || { skip "ccache not installed"; exit 0; }
REAL_CCACHE=$(command -v ccache)
mkdir -p shim && ln -s "$(command -v trueline-cc)" shim/ccache
export CCACHE_DIR="$T/ccache" CCACHE_LOGFILE="$T/ccache.log"
SHIMPATH="$T/shim:$PATH"
printf 'int twice(int x) { return 2 * x; }\n' > a.c
has_debug_line() { readelf -S "$1" 2>/dev/null | grep -q '\.debug_line'; }
has_note() { readelf -S "$1" 2>/dev/null | grep -q '\.note\.trueline'; }
stat_of() { "$REAL_CCACHE" --print-stats | awk -v k="$1" '$1 == k { print $2 }'; }
hits() { "$REAL_CCACHE" --print-stats | awk '$1 ~ /^(direct|preprocessed)_cache_hit$/ { s += $2 } END { print s + 0 }'; }

premise "the link is the ccache a build finds first on PATH" sh -c "[ \"\$(PATH='$SHIMPATH' command -v ccache)\" = '$T/shim/ccache' ]"
gcc -c a.c -o bare.o
premise "bare gcc -c writes no .debug_line (what the forcing adds)" sh -c '! readelf -S bare.o | grep -q debug_line'

"$REAL_CCACHE" -z >/dev/null
PATH=$SHIMPATH ccache gcc -c a.c -o a.o 2>err.txt
check "ccache gcc -c through the link: the object has .debug_line (trueline-cc forced -g1)" has_debug_line a.o
check "and a .note.trueline provenance record (readelf)" has_note a.o
check "nothing on stderr (of the compile that wrote a.o)" sh -c '[ -s a.o ] && [ ! -s err.txt ]'
same "the real ccache ran and missed (its statistics)" "$(stat_of cache_miss)" 1
PATH=$SHIMPATH ccache gcc -c a.c -o a2.o
same "the same compile again: a hit in the real ccache" "$(hits)" 1
check "the hit's object has line info too" has_debug_line a2.o
PATH=$SHIMPATH TRUELINE_EXPLAIN=1 ccache gcc -c a.c -o a3.o 2>ex.txt
contains "explain: chained to the real ccache, not to the link" ex.txt "^trueline-cc: mode: chained \(cache $REAL_CCACHE\)$"

# the cache's own commands go to the real one untouched
PATH=$SHIMPATH ccache --version > v-link.txt 2>&1
"$REAL_CCACHE" --version > v-real.txt 2>&1
check "ccache --version through the link is the real ccache's" sh -c 'grep -q "^ccache version" v-real.txt && cmp -s v-link.txt v-real.txt'
counted=$(( $(stat_of cache_miss) + $(hits) ))
PATH=$SHIMPATH ccache -z > /dev/null 2>&1
check "ccache -z through the link zeroes the real ccache's statistics ($counted misses and hits before, 0 after)" \
  sh -c "[ $counted -gt 0 ] && [ '$(stat_of cache_miss)' = 0 ] && [ '$(hits)' = 0 ]"
PATH=$SHIMPATH ccache 2> usage.txt >&2; rc=$?
check "ccache alone through the link is the real ccache's usage (not trueline-cc's)" sh -c "[ $rc -ne 0 ] && grep -qi 'ccache' usage.txt && ! grep -q 'trueline-cc' usage.txt"

# a masquerade gcc link next to it: no loop, one wrapper run
ln -s "$(command -v trueline-cc)" shim/gcc
PATH=$SHIMPATH ccache gcc -c a.c -o both.o 2>err2.txt; rc=$?
check "ccache and gcc both links: the compile succeeds once, with line info" sh -c "[ $rc -eq 0 ] && readelf -S both.o | grep -q debug_line && [ ! -s err2.txt ]"
rm shim/gcc

# no real ccache behind the link: a clear error
mkdir -p lone && ln -s "$(command -v trueline-cc)" lone/ccache
PATH="$T/lone:/nonexistent" "$T/lone/ccache" /usr/bin/gcc -c a.c -o lone.o 2>lone.txt; rc=$?
check "no real ccache on PATH: exit 127, no object" sh -c "[ $rc -eq 127 ] && [ ! -e lone.o ]"
contains "and the message says which" lone.txt 'ccache: no real ccache on PATH'

# a link named sccache: chained to the real sccache (a private server: own port, own SCCACHE_DIR)
if have sccache; then
  REAL_SCCACHE=$(command -v sccache)
  ln -s "$(command -v trueline-cc)" shim/sccache
  export SCCACHE_DIR=$T/sccache SCCACHE_SERVER_PORT=$(free_port) SCCACHE_IDLE_TIMEOUT=120
  trap '"$REAL_SCCACHE" --stop-server >/dev/null 2>&1; rm -rf "$T"' EXIT
  if "$REAL_SCCACHE" --start-server > sc-server.log 2>&1; then
    sc_requests() { "$REAL_SCCACHE" --show-stats | awk '/^Compile requests  /{ print $NF }'; }
    r0=$(sc_requests)
    PATH=$SHIMPATH sccache gcc -c a.c -o sc.o 2>sc-err.txt; rc=$?
    check "sccache gcc -c through the link: exit 0, line info and a provenance note (readelf)" \
      sh -c "[ $rc -eq 0 ] && readelf -S sc.o | grep -q debug_line && readelf -S sc.o | grep -q note.trueline"
    same "the real sccache server counted the compile" "$(sc_requests)" "$((r0 + 1))"
    PATH=$SHIMPATH sccache --show-stats > sc-stats.txt 2>&1
    check "sccache --show-stats through the link is the real one's" grep -q '^Compile requests' sc-stats.txt
  else
    skip "sccache server did not start: $(tail -1 sc-server.log)"
  fi
  rm shim/sccache
else
  skip "sccache not installed: the sccache link is not checked"
fi

# CMake's launcher: CMAKE_C_COMPILER_LAUNCHER=ccache picks the link
if have cmake && have make; then
  mkdir -p proj/src && cd proj
  printf 'cmake_minimum_required(VERSION 3.16)\nproject(p C)\nadd_library(p STATIC src/p.c)\n' > CMakeLists.txt
  printf 'int p_value(void) { return 7; }\n' > src/p.c
  PATH=$SHIMPATH cmake -S . -B b -DCMAKE_C_COMPILER=gcc -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_BUILD_TYPE=Release > cfg.txt 2>&1
  PATH=$SHIMPATH cmake --build b > build.txt 2>&1; rc=$?
  obj=$(find b -name 'p.c.o' | head -1)
  check "cmake with CMAKE_C_COMPILER_LAUNCHER=ccache builds (exit 0)" test "$rc" -eq 0
  check "its Release object has .debug_line (CMake passed no -g; trueline-cc forced it)" sh -c "[ -n '$obj' ] && readelf -S '$obj' | grep -q debug_line && ! grep -q -- ' -g ' b/CMakeFiles/p.dir/flags.make"
  check "and a provenance note" sh -c "[ -n '$obj' ] && readelf -S '$obj' | grep -q note.trueline"
  check "ccache's log shows the compile came through trueline-cc's stage" grep -q 'Command line: .*/trueline/stage/.*p\.c' "$T/ccache.log"
  cd "$T"
else
  skip "cmake or make not installed: the CMake launcher recipe is not checked"
fi
