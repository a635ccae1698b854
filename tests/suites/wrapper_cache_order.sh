#!/usr/bin/env bash
# The reversed order, a cache running trueline-cc as its compiler (`ccache trueline-cc gcc`, CMake's
# "ccache;trueline-cc", CCACHE_PREFIX=trueline-cc, `sccache trueline-cc gcc`), is refused: exit 2, nothing
# compiled, a message naming the order that works. The orders that work still do: trueline-cc first, a link
# named ccache first on PATH (the build runs "ccache gcc"), compiler links reached under the right order, and a
# user's own CCACHE_DISABLE=1. readelf is the oracle for the line info of the objects that are built.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
have ccache || { skip "ccache not installed"; exit 0; }
unset CCACHE_PREFIX CCACHE_DISABLE UNCACHED_ERR_FD
export CCACHE_DIR=$T/ccache CCACHE_CONFIGPATH=$T/ccache.conf
: > ccache.conf
printf 'int f(int x) { return x + 1; }\n' > a.c
W=$(command -v trueline-cc)
has_lines() { [ -s "$1" ] && readelf -S "$1" | grep -q '\.debug_line'; }
# refused NAME ERR OBJ: the message names the order that works, and no object was written
refused() {
  contains "$1: the message names the right order" "$2" 'put trueline-cc first: "trueline-cc ccache COMPILER'
  contains "$1: the message names CMake's launcher list" "$2" 'LAUNCHER=trueline-cc;ccache'
  check "$1: nothing compiled" test ! -e "$3"
}

expect_rc "ccache trueline-cc gcc: exit 2" 2 sh -c "ccache '$W' gcc -c a.c -o rev.o 2> rev.err"
refused "ccache trueline-cc gcc" rev.err rev.o
contains "ccache trueline-cc gcc: the cache is named" rev.err 'error: ccache runs trueline-cc as its compiler'
expect_rc "CCACHE_PREFIX=trueline-cc ccache gcc: exit 2" 2 sh -c "CCACHE_PREFIX='$W' ccache gcc -c a.c -o pre.o 2> pre.err"
refused "CCACHE_PREFIX=trueline-cc" pre.err pre.o

# CCACHE_DISABLE around trueline-cc without a cache: what ccache sets for a command it runs in its place
expect_rc "CCACHE_DISABLE=1 trueline-cc gcc (no cache chained): exit 2" 2 sh -c "CCACHE_DISABLE=1 trueline-cc gcc -c a.c -o dis0.o 2> dis0.err"
contains "... the message says to unset it if the user set it" dis0.err 'CCACHE_DISABLE is set.*unset it for trueline-cc'

# the right orders
expect_rc "trueline-cc ccache gcc: compiles" 0 trueline-cc ccache gcc -c a.c -o ok.o
check "trueline-cc ccache gcc: .debug_line forced (readelf)" has_lines ok.o
expect_rc "trueline-cc ccache gcc with the user's CCACHE_DISABLE=1: compiles" 0 env CCACHE_DISABLE=1 trueline-cc ccache gcc -c a.c -o dis.o
check "... .debug_line forced (readelf)" has_lines dis.o
mkdir -p links && ln -s "$W" links/ccache && ln -s "$W" links/gcc
expect_rc "a link named ccache first on PATH, the build runs 'ccache gcc': compiles" 0 env PATH="$T/links:$PATH" ccache gcc -c a.c -o link.o
check "... .debug_line forced (readelf)" has_lines link.o
# the real ccache, run by trueline-cc, runs a gcc link: nested, not refused
expect_rc "trueline-cc ccache gcc with a gcc link first on PATH: compiles" 0 env PATH="$T/links:$PATH" trueline-cc "$(command -v ccache)" gcc -c a.c -o nest.o
check "... .debug_line forced (readelf)" has_lines nest.o

# CMake's launcher list in the reversed order: the build fails and says why
if have cmake; then
  mkdir -p proj && printf 'cmake_minimum_required(VERSION 3.10)\nproject(p C)\nadd_library(p STATIC a.c)\n' > proj/CMakeLists.txt
  cp a.c proj/
  cmake -S proj -B bld "-DCMAKE_C_COMPILER_LAUNCHER=ccache;$W" > cmake.log 2>&1
  expect_rc "CMake \"ccache;trueline-cc\": the build fails" 2 sh -c 'cmake --build bld > build.log 2>&1; r=$?; [ $r -ne 0 ] && exit 2; exit $r'
  refused "CMake \"ccache;trueline-cc\"" build.log bld/CMakeFiles/p.dir/a.c.o
else skip "cmake not installed: CMake's reversed launcher list not tried"; fi

# sccache: its server runs trueline-cc (nothing in the environment; the parent is sccache)
if have sccache; then
  trap 'sccache --stop-server >/dev/null 2>&1; rm -rf "$T"' EXIT
  export SCCACHE_SERVER_PORT=$(free_port) SCCACHE_DIR=$T/sccache
  if sccache --start-server > sc.log 2>&1; then
    sccache "$W" gcc -c a.c -o sc.o > sc.err 2>&1
    contains "sccache trueline-cc gcc: refused, the cache named" sc.err 'error: sccache runs trueline-cc as its compiler'
    contains "sccache trueline-cc gcc: the message names the right order (sccache quotes it)" sc.err 'put trueline-cc first: \\?"trueline-cc sccache COMPILER'
    check "sccache trueline-cc gcc: nothing compiled" test ! -e sc.o
    expect_rc "trueline-cc sccache gcc: compiles" 0 trueline-cc sccache gcc -c a.c -o scok.o
    check "... .debug_line forced (readelf)" has_lines scok.o
    sccache --stop-server > /dev/null 2>&1
  else skip "sccache server did not start: $(tail -1 sc.log)"; fi
else skip "sccache not installed"; fi
