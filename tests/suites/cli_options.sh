#!/usr/bin/env bash
# The command lines of both tools: --version with the libraries it was built with (truth: pkg-config, the
# distribution's package database, getconf), trueline-cc's unknown --trueline-* options refused before any
# compile, --version of trueline-cc itself versus a compiler's through a link, and an unreadable input
# reported once.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
VERSION=$(sed -n 's/^VERSION *:= *//p' "$TRUELINE_ROOT/Makefile")
premise "the Makefile states a version" test -n "$VERSION"
printf 'int answer(void) { return 42; }\n' > a.c

# --- --version --------------------------------------------------------------------------------------------
trueline-cc --version > cc-ver.txt 2>&1; rc=$?
check "trueline-cc --version (no compiler) exits 0, printing a trueline-cc version line" \
  sh -c "[ $rc -eq 0 ] && grep -q '^trueline-cc [0-9]' cc-ver.txt"
contains "and names trueline-cc's version from the Makefile" cc-ver.txt "^trueline-cc $VERSION \\(C library: (musl|glibc)\\)$"
trueline-cc --trueline-version > cc-tver.txt 2>&1
check "--trueline-version prints the same" same_bytes cc-ver.txt cc-tver.txt
trueline-check --version > ck-ver.txt 2>&1
contains "trueline-check --version names its version from the Makefile" ck-ver.txt "^trueline-check $VERSION$"
# built_with FILE NAME TRUTH: the "built with:" line names NAME at version TRUTH
built_with() { grep -E "^built with: " "$1" | tr ',' '\n' | sed 's/^ *//; s/^built with: //' | grep -qx "$2 $3"; }
libc_name=$(sed -nE 's/.*C library: (musl|glibc)\)$/\1/p' cc-ver.txt)
if [ "$libc_name" = musl ]; then
  check "trueline-cc linked against musl says 'musl' in its built-with line" sh -c "grep -q '^built with: musl, ' cc-ver.txt"
else
  check "trueline-cc's built-with line names glibc at getconf's version" built_with cc-ver.txt glibc "$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')"
fi
check "trueline-check's built-with line names glibc at getconf's version" built_with ck-ver.txt glibc "$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')"
for pc in libelf:libelf libzstd:zstd libxxhash:xxhash zlib:zlib; do
  v=$(pkg-config --modversion "${pc%%:*}" 2>/dev/null)
  if [ -z "$v" ]; then skip "pkg-config knows no ${pc%%:*}: its version is not checked"; continue; fi
  check "trueline-cc --version: ${pc#*:} $v (pkg-config)" built_with cc-ver.txt "${pc#*:}" "$v"
  check "trueline-check --version: ${pc#*:} $v (pkg-config)" built_with ck-ver.txt "${pc#*:}" "$v"
done
v=$(pkg-config --modversion liblz4 2>/dev/null)
if [ -n "$v" ]; then check "trueline-check --version: lz4 $v (pkg-config)" built_with ck-ver.txt lz4 "$v"; fi
v=$(pkg-config --modversion libdwarf 2>/dev/null || dpkg-query -W -f='${Version}' libdwarf-dev 2>/dev/null | sed 's/-.*//')
if [ -n "$v" ]; then check "trueline-check --version: libdwarf $v (pkg-config or the package database)" built_with ck-ver.txt libdwarf "$v"
else skip "no libdwarf version from pkg-config or dpkg"; fi
contains "inih and libiberty are named (neither has a version API)" ck-ver.txt '^built with: .*, inih, libiberty(,|$)'
# under a compiler's name, --version is the compiler's
mkdir -p links && ln -s "$(command -v trueline-cc)" links/gcc
PATH="$T/links:$PATH" gcc --version > link-ver.txt 2>&1
gcc_real=$(command -v gcc); "$gcc_real" --version > gcc-ver.txt 2>&1
check "gcc --version through a masquerade link is gcc's own output" sh -c 'grep -q . gcc-ver.txt && cmp -s link-ver.txt gcc-ver.txt'

# --- unknown --trueline-* options -----------------------------------------------------------------------
trueline-cc --trueline-explian gcc -c a.c -o a.o 2> unk1.txt; rc=$?
check "a misspelt --trueline-explian before the compiler: exit 2, nothing compiled" sh -c "[ $rc -eq 2 ] && [ ! -e a.o ]"
contains "the message names the unknown option" unk1.txt 'unknown option --trueline-explian'
contains "and lists the known ones" unk1.txt "options are: .*--trueline-explain .*--trueline-print-fingerprint"
lacks "it is not taken for the compiler's name" unk1.txt 'compiler not found' 'unknown option'
trueline-cc gcc -c a.c --trueline-fingerprint -o b.o 2> unk2.txt; rc=$?
check "an unknown --trueline-* after the compiler: exit 2, the compiler never sees it" sh -c "[ $rc -eq 2 ] && [ ! -e b.o ] && ! grep -q 'gcc: error' unk2.txt"
PATH="$T/links:$PATH" gcc --trueline-explian -c a.c -o c.o 2> unk3.txt; rc=$?
check "through a masquerade link too: exit 2, no object" sh -c "[ $rc -eq 2 ] && [ ! -e c.o ] && grep -q 'unknown option --trueline-explian' unk3.txt"
trueline-cc gcc --trueline-version 2> alone.txt; rc=$?
check "--trueline-version with a compiler: exit 2, said to be an option given alone" sh -c "[ $rc -eq 2 ] && grep -q 'given alone' alone.txt"
trueline-cc --trueline-explain gcc -c a.c -o d.o 2> known.txt
check "a known option still works (the object written, the report on stderr)" sh -c "readelf -S d.o | grep -q debug_line && grep -q '^trueline-cc: forced: -g1' known.txt"

# --- an unreadable input: reported once, the others still checked ----------------------------------------
gcc -g -c a.c -o good.o
trueline-check /nonexistent-dir/none.so good.o > both.txt 2>&1; rc=$?
check "text report: exit 2 for the unreadable input" test "$rc" -eq 2
same "text report: the unreadable path is named once (stdout and stderr together)" "$(grep -c 'none\.so' both.txt)" 1
contains "and the readable input is still checked" both.txt '^2 file\(s\) checked'
trueline-check --format json /nonexistent-dir/none.so good.o > rep.json 2> json-err.txt; rc=$?
check "json report: exit 2, the report parses and lists both inputs" sh -c "[ $rc -eq 2 ] && python3 -c 'import json,sys; d=json.load(open(\"rep.json\")); sys.exit(0 if len(d[\"files\"]) == 2 else 1)'"
same "json report: stderr names the unreadable input once" "$(grep -c 'none\.so' json-err.txt)" 1
trueline-check --output out.txt /nonexistent-dir/none.so > /dev/null 2> out-err.txt
same "text report to a file: stderr names it once" "$(grep -c 'none\.so' out-err.txt)" 1
