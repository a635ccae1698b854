#!/usr/bin/env bash
# Plain Make: a project whose Makefile uses make's built-in rules, built with
# `make CC="trueline-cc ccache gcc" CXX="trueline-cc ccache g++"` (README.md, "Recipes"): every object has line info
# and a provenance note though the Makefile passes no -g, the -MMD depfiles it asks for are written, and a rebuild
# after `make clean` is answered by ccache. Truths: readelf, the depfiles' contents, ccache's statistics, the same
# build without trueline.
. "$(dirname "$0")/../lib/harness.sh"
have make || { skip "make not installed"; exit 0; }
have ccache || { skip "ccache not installed"; exit 0; }
command -v trueline-cc > /dev/null || { fail "trueline-cc not on PATH"; exit 0; }
cd "$T"
export CCACHE_DIR=$T/ccache
mkdir -p proj
printf '#pragma once\n#ifdef __cplusplus\nextern "C"\n#endif\nint add(int, int);\n' > proj/util.h
printf '#include "util.h"\nint add(int a, int b) { return a + b; }\n' > proj/util.c
printf '#include "util.h"\n#include <cstdio>\nint main() { std::printf("%%d\\n", add(2, 3)); }\n' > proj/main.cpp
cat > proj/Makefile <<'MK'
CFLAGS = -O2 -MMD
CXXFLAGS = -O2 -MMD
prog: main.o util.o
	$(CXX) -o $@ $^
clean:
	rm -f prog *.o *.d
-include *.d
MK
host_lines() { readelf -S "$1" 2>/dev/null | grep -qE '\] \.debug_line +'; }
stamped() { readelf -n "$1" 2>/dev/null | grep -q '^  trueline'; }
hits() { ccache --print-stats | awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } END { print h + 0 }'; }

cp -r proj bare
premise "the project builds with plain make" sh -c 'make -C bare > bare.txt 2>&1'
premise "without trueline its objects have no .debug_line (the Makefile passes no -g)" sh -c '! readelf -S bare/util.o | grep -q "\.debug_line" && ! readelf -S bare/main.o | grep -q "\.debug_line"'

make -C proj CC="trueline-cc ccache gcc" CXX="trueline-cc ccache g++" > build.txt 2>&1; rc=$?
check "make CC='trueline-cc ccache gcc' CXX='trueline-cc ccache g++' builds the program (exit 0)" sh -c "[ $rc -eq 0 ] && [ -x proj/prog ]"
check "util.o (built-in %.o: %.c rule): .debug_line forced, provenance note (readelf)" sh -c "$(declare -f host_lines stamped); host_lines proj/util.o && stamped proj/util.o"
check "main.o (built-in %.o: %.cpp rule): .debug_line forced, provenance note (readelf)" sh -c "$(declare -f host_lines stamped); host_lines proj/main.o && stamped proj/main.o"
check "the program, linked through trueline-cc, runs (prints 5)" sh -c '[ "$(proj/prog)" = 5 ]'
contains "the -MMD depfile names util.h" proj/util.d '^util\.o: util\.c util\.h'
cp proj/util.o first.o
ccache -z > /dev/null
make -C proj clean > /dev/null && make -C proj CC="trueline-cc ccache gcc" CXX="trueline-cc ccache g++" > rebuild.txt 2>&1
check "a rebuild after make clean: both objects from ccache (its statistics)" test "$(hits)" -eq 2
same_stamped() { same_bytes "$1" "$2" && host_lines "$2" && stamped "$2"; }
check "... the same util.o, line info and note included" same_stamped first.o proj/util.o
