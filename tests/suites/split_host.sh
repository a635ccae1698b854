#!/usr/bin/env bash
# --split on host files: shared libraries and executables built here (gcc, g++, clang; -O2 -g) lose their
# DWARF, keep .symtab, their build-id and every loaded byte; their debug file lands in the store under the
# build-id, where eu-addr2line and gdb find the same lines as on the unsplit build; .gnu_debuglink names it with
# its CRC-32 (python's zlib as oracle). Bad input (no build-id, a store that cannot be written, a file that is not
# ELF) exits 2 naming it, leaves no output for it, and the other inputs are still split.
source "$(dirname "$0")/../lib/harness.sh"
have gcc && have readelf && have objcopy && have python3 || { skip "gcc/binutils/python3 missing"; exit 0; }
C=trueline-check
LOADS="$TRUELINE_ROOT/tests/lib/elf_loads.py"
cd "$T" || exit 1
cat > lib.c <<'C'
#include <stdio.h>
static inline int sq(int x) { return x * x; }
static inline int poly(int x) { return sq(x) + 3 * x; }
int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += poly(i); return s; }
int other(int n) { return work(n) * 2 + 1; }
C
cat > main.c <<'C'
#include <stdio.h>
int work(int n);
int other(int n);
int main(int argc, char **argv) { (void)argv; printf("%d %d\n", work(argc + 9), other(argc)); return 0; }
C
cat > lib.cpp <<'C'
#include <algorithm>
#include <string>
#include <vector>
template <class T> static T clampv(T v, T lo, T hi) { return v < lo ? lo : v > hi ? hi : v; }
int work(int n) { std::vector<int> v(n); for (int i = 0; i < n; i++) v[i] = clampv(n - i, 0, 7); std::sort(v.begin(), v.end()); return v.empty() ? 0 : v.back(); }
int other(int n) { return (int)std::to_string(n).size(); }
C

# FIXTURES: name compiler source kind (so|exe); each built with -g (split) and without (the size target).
fixtures=()
build() { # build NAME CC FLAGS...: NAME (with -O2 -g) and NAME.nog (-O2)
  local n=$1 cc=$2; shift 2
  "$cc" -O2 -g -Wl,--build-id "$@" -o "$n" && "$cc" -O2 -Wl,--build-id "$@" -o "$n.nog" && fixtures+=("$n")
}
build libc_gcc.so gcc -fPIC -shared lib.c
build app_gcc gcc main.c -L. -l:libc_gcc.so -Wl,-rpath,'$ORIGIN'
have g++ && build libcpp_gpp.so g++ -fPIC -shared lib.cpp
if have clang; then
  build libc_clang.so clang -fPIC -shared lib.c
  build app_clang clang main.c -L. -l:libc_clang.so -Wl,-rpath,'$ORIGIN'
else
  skip "clang fixtures: clang missing"
fi
premise "fixtures built" [ ${#fixtures[@]} -ge 2 ]

$C --split --debug-store store --output-dir out "${fixtures[@]}" > split.out 2> split.err
rc=$?
check "split of ${#fixtures[@]} files exits 0" [ $rc -eq 0 ]
contains "summary names the debug file" split.out 'libc_gcc\.so: [0-9]+ -> [0-9]+ bytes.*host debug file store/\.build-id/'

build_id() { readelf -n "$1" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p'; }
crc_of() { python3 -c 'import sys,zlib; print("%08x" % zlib.crc32(open(sys.argv[1],"rb").read()))' "$1"; }
link_crc() { # the CRC-32 stored at the end of .gnu_debuglink (little endian here)
  objcopy --dump-section .gnu_debuglink=link.bin "$1" /dev/null 2>/dev/null || objcopy --dump-section .gnu_debuglink=link.bin "$1" link.tmp
  python3 -c 'import struct,sys; print("%08x" % struct.unpack("<I", open(sys.argv[1],"rb").read()[-4:])[0])' link.bin
}
for f in "${fixtures[@]}"; do
  o=out/$f
  premise "$f written" [ -s "$o" ]
  readelf -SW "$o" > "$f.sections"
  lacks "$f: no .debug_ section" "$f.sections" '\.debug_|\.zdebug_' '\.symtab'
  contains "$f: .symtab kept" "$f.sections" '\] \.symtab '
  id=$(build_id "$f")
  same "$f: build-id kept" "$id" "$(build_id "$o")"
  dbg=store/.build-id/${id:0:2}/${id:2}.debug
  check "$f: debug file at STORE/.build-id/NN/REST.debug" [ -s "$dbg" ]
  readelf -SW "$dbg" > "$f.dbg.sections" 2>/dev/null
  contains "$f: debug file holds .debug_line" "$f.dbg.sections" '\.debug_line +PROGBITS'
  same "$f: debug file carries the same build-id" "$id" "$(build_id "$dbg")"
  readelf --string-dump=.gnu_debuglink "$o" > "$f.link" 2>&1
  contains "$f: .gnu_debuglink names $f.debug" "$f.link" "\] +$f\.debug\$"
  same "$f: .gnu_debuglink CRC-32 is the debug file's" "$(crc_of "$dbg")" "$(link_crc "$o")"
  check "$f: program headers and every loaded byte unchanged" python3 "$LOADS" "$f" "$o"
  if have eu-elflint && eu-elflint --gnu-ld "$f" > /dev/null 2>&1; then
    check "$f: eu-elflint --gnu-ld clean" eu-elflint --gnu-ld "$o"
  else
    skip "$f: eu-elflint missing or unhappy with the unsplit file"
  fi
  nog=$(stat -c %s "$f.nog") got=$(stat -c %s "$o")
  check "$f: within 2% of the build without -g ($got vs $nog bytes)" \
    python3 -c "import sys; sys.exit(abs($got - $nog) > 0.02 * $nog)"
  # lines through the store: every global function's address as eu-addr2line answers on the unsplit file
  if have eu-addr2line; then
    addrs=$(nm --defined-only "$f" | awk '$2 ~ /^[Tt]$/ && $3 ~ /^(work|other|main|_Z4worki|_Z5otheri)$/ {print "0x"$1}')
    eu-addr2line -f -e "$f" $addrs > "$f.a2l.orig" 2>&1
    eu-addr2line -f -e "$o" --debuginfo-path="$PWD/store" $addrs > "$f.a2l.split" 2>&1
    eu-addr2line -f -e "$o" $addrs > "$f.a2l.bare" 2>&1
    if grep -q ':[1-9]' "$f.a2l.orig"; then
      check "$f: eu-addr2line finds the same lines through the store" cmp -s "$f.a2l.orig" "$f.a2l.split"
    else
      skip "$f: this eu-addr2line reads no line from the unsplit file either (its DWARF version)"
    fi
    contains "$f: without the store, no lines (the split took them)" "$f.a2l.bare" '^\?\?:0'
  else
    skip "$f: eu-addr2line missing"
  fi
  if have gdb; then
    fn=$(nm --defined-only "$f" | awk '$2 ~ /^[Tt]$/ && $3 ~ /^(work|main|_Z4worki)$/ {print "0x"$1; exit}')
    gdb -batch -nx -iex "set debug-file-directory $PWD/store" -ex "info line *$fn" "$o" > "$f.gdb.split" 2>&1
    gdb -batch -nx -ex "info line *$fn" "$f" > "$f.gdb.orig" 2>&1
    same "$f: gdb with debug-file-directory STORE: the same line at $fn" "$(grep '^Line' "$f.gdb.orig")" "$(grep '^Line' "$f.gdb.split")"
  else
    skip "$f: gdb missing"
  fi
done
for app in app_gcc app_clang; do
  [ -x "out/$app" ] || continue
  (cd out && ./$app > ../$app.run.split) && ./$app > $app.run.orig
  check "$app: the split executable runs as the unsplit one" same_bytes $app.run.orig $app.run.split
done

# Splitting the same build again: the store already has it, the result is the same
expect_rc "a second split of the same file exits 0" 0 $C --split --debug-store store --output-dir out2 libc_gcc.so
check "a second split of the same file writes the same bytes" same_bytes out/libc_gcc.so out2/libc_gcc.so

# --in-place: the file itself, atomically (a new inode), its mode kept
cp -p libc_gcc.so inplace.so && chmod 750 inplace.so && ino=$(stat -c %i inplace.so)
expect_rc "--in-place exits 0" 0 $C --split --debug-store store --in-place inplace.so
readelf -SW inplace.so > inplace.sections
lacks "--in-place: the file lost its .debug_ sections" inplace.sections '\.debug_' '\.symtab'
same "--in-place: mode kept" "750" "$(stat -c %a inplace.so)"
differ "--in-place: replaced by rename (new inode)" "$ino" "$(stat -c %i inplace.so)"

# Bad input: no build-id, not ELF; the good input in the same run is still split
gcc -O2 -g -fPIC -shared -Wl,--build-id=none lib.c -o noid.so
echo 'not an ELF file' > notelf.so
$C --split --debug-store store3 --output-dir out3 noid.so notelf.so libc_gcc.so > bad.out 2> bad.err
check "bad inputs: exit 2" [ $? -eq 2 ]
contains "no build-id: named, with the fix" bad.err 'noid\.so: .*build-id.*-Wl,--build-id'
contains "not ELF: named" bad.err 'notelf\.so: not an ELF file'
check "bad inputs: no output for them" sh -c '[ ! -e out3/noid.so ] && [ ! -e out3/notelf.so ]'
check "bad inputs: the good input is still split" [ -s out3/libc_gcc.so ]
check "bad inputs: no temporary file left" sh -c '[ -z "$(ls -A out3 | grep -v "^libc_gcc.so$")" ]'

# A store that cannot be written is an error, named; the input is untouched, nothing is written
cp -p libc_gcc.so ro.so && sum=$(sha256sum < ro.so)
mkdir -p rostore && : > rostore/.build-id   # a file where the store's directory must go
$C --split --debug-store rostore --in-place ro.so > ro.out 2> ro.err
check "unwritable store: exit 2" [ $? -eq 2 ]
contains "unwritable store: the store's path is named" ro.err 'ro\.so: .*rostore/\.build-id'
same "unwritable store: the input is untouched" "$sum" "$(sha256sum < ro.so)"
check "unwritable store: no temporary file beside the input" sh -c '! ls -A | grep -q "\.tl-"'
if [ "$(id -u)" != 0 ]; then
  mkdir -p ro2 && chmod 555 ro2
  $C --split --debug-store ro2 --output-dir out4 libc_gcc.so > ro2.out 2> ro2.err
  check "read-only store: exit 2" [ $? -eq 2 ]
  contains "read-only store: named" ro2.err 'ro2/\.build-id'
  check "read-only store: no shipped copy without its debug file" [ ! -e out4/libc_gcc.so ]
  chmod 755 ro2
else
  skip "read-only store by permissions: running as root (the file-in-the-way store above covers it)"
fi
expect_rc "--split without --debug-store: exit 2" 2 $C --split --output-dir out5 libc_gcc.so

# A real debuginfod over the store: it indexes the debug files by their build-id notes and serves them, and
# the elfutils client finds the lines through it.
if have debuginfod && have debuginfod-find; then
  port=$(( 20000 + $$ % 20000 ))
  debuginfod -F "$PWD/store" -p $port -d "$T/dbi.sqlite" -t 1 > dbi.log 2>&1 &
  DPID=$!
  trap 'kill $DPID 2>/dev/null; rm -rf "$T"' EXIT
  id=$(build_id app_gcc) got=
  for i in $(seq 1 60); do # a fresh client cache each try: the client remembers a miss
    got=$(DEBUGINFOD_CACHE_PATH="$T/dcache$i" DEBUGINFOD_URLS=http://127.0.0.1:$port debuginfod-find debuginfo "$id" 2>/dev/null) && break
    sleep 0.5
  done
  check "debuginfod over the store serves app_gcc's debug file" same_bytes "$got" "store/.build-id/${id:0:2}/${id:2}.debug"
  if have eu-addr2line; then
    addrs=$(nm --defined-only app_gcc | awk '$2 ~ /^[Tt]$/ && $3 == "main" {print "0x"$1}')
    DEBUGINFOD_CACHE_PATH="$T/dcache-a2l" DEBUGINFOD_URLS=http://127.0.0.1:$port eu-addr2line -f -e out/app_gcc $addrs > a2l.dbi 2>&1
    eu-addr2line -f -e app_gcc $addrs > a2l.orig 2>&1
    check "eu-addr2line through DEBUGINFOD_URLS: the unsplit build's line" sh -c "grep -q ':[1-9]' a2l.orig && cmp -s a2l.orig a2l.dbi"
  fi
  # gdb asks before it uses a server ("Enable debuginfod for this session?"), and -batch answers no: enabled
  # with -iex, before the file is loaded (an -ex comes after the load, when the lookup has already been made)
  if have gdb && ldd "$(command -v gdb)" 2>/dev/null | grep -q libdebuginfod; then
    gdb -batch -nx -ex "info line main" app_gcc > gdb.orig 2>&1
    DEBUGINFOD_CACHE_PATH="$T/dcache-gdb" DEBUGINFOD_URLS=http://127.0.0.1:$port \
      gdb -batch -nx -iex "set debuginfod enabled on" -ex "info line main" out/app_gcc > gdb.dbi 2>&1
    same "gdb through DEBUGINFOD_URLS (debuginfod enabled by -iex): the unsplit build's line for main" \
      "$(grep '^Line [1-9]' gdb.orig)" "$(grep '^Line [1-9]' gdb.dbi)"
    contains "gdb through DEBUGINFOD_URLS: the debug file came from the server" gdb.dbi "Downloading separate debug info"
  else
    skip "gdb through debuginfod: gdb missing or built without libdebuginfod"
  fi
  kill $DPID 2>/dev/null
else
  skip "debuginfod / debuginfod-find missing"
fi

# Two inputs with one file name would overwrite each other in --output-dir: refused before anything is written
mkdir -p dup && cp libc_gcc.so dup/
$C --split --debug-store store --output-dir out6 libc_gcc.so dup/libc_gcc.so > dup.out 2> dup.err
check "the same file name twice: exit 2" [ $? -eq 2 ]
contains "the same file name twice: named" dup.err 'libc_gcc\.so and dup/libc_gcc\.so: the same file name'
check "the same file name twice: nothing written" [ ! -e out6/libc_gcc.so ]

# --device-only: host DWARF stays; a host-only library has nothing to split and is copied byte for byte
$C --split --device-only --debug-store store7 --output-dir out7 libc_gcc.so > dev.out 2>&1
contains "--device-only on a host library: nothing to split" dev.out 'libc_gcc\.so: no line info to split'
check "--device-only on a host library: byte-identical copy" same_bytes libc_gcc.so out7/libc_gcc.so
check "--device-only: no host debug file in the store" sh -c '[ -z "$(find store7 -type f 2>/dev/null)" ]'

# --format json: one object per input, sizes as the file system has them, the debug file's path
$C --split --format json --debug-store store8 --output-dir out8 libc_gcc.so notelf.so > split.json 2> /dev/null
check "--format json: exit 2 with a bad input among them" [ $? -eq 2 ]
check "--format json: sizes, the debug file and the error as written" python3 -c '
import json, os, sys
v = json.load(open("split.json"))
a, b = v
ok = a["status"] == "split" and a["bytes_before"] == os.path.getsize("libc_gcc.so") and \
     a["bytes_after"] == os.path.getsize("out8/libc_gcc.so") and os.path.isfile(a["host_debug_file"]) and \
     b["file"] == "notelf.so" and b["status"] == "error" and "not an ELF" in b["error"]
sys.exit(not ok)'

# A static executable: its .rela.plt (IRELATIVE) names .symtab, so .symtab's symbol indices stay as they are
if gcc -O2 -g -static -Wl,--build-id main.c lib.c -o app_static 2> /dev/null; then
  expect_rc "static executable: split exits 0" 0 $C --split --debug-store store9 --output-dir out9 app_static
  check "static executable: program headers and every loaded byte unchanged" python3 "$LOADS" app_static out9/app_static
  ./app_static > st.orig; (cd out9 && ./app_static > ../st.split)
  check "static executable: the split one runs as the unsplit one" same_bytes st.orig st.split
  readelf -SW out9/app_static > st.sections
  lacks "static executable: no .debug_ section" st.sections '\.debug_' '\.symtab'
else
  skip "static executable: no static C library"
fi

# --in-place through a symbolic link: the file it names is split, the link stays a link
cp libc_gcc.so linked.so && ln -s linked.so link.so
expect_rc "--in-place through a link: exit 0" 0 $C --split --debug-store store --in-place link.so
check "--in-place through a link: the link is still a link" [ -L link.so ]
readelf -SW linked.so > linked.sections
lacks "--in-place through a link: the file it names was split" linked.sections '\.debug_' '\.symtab'

# Damaged headers (inputs the split fuzz target found, tests/data/regress/split/): named, exit 2, promptly
for f in "$TRUELINE_ROOT"/tests/data/regress/split/*; do
  [ -f "$f" ] || continue
  timeout 60 $C --split --debug-store store10 --output-dir out10 "$f" > rg.out 2> rg.err
  rc=$?
  check "damaged input $(basename "$f"): exit 2 within 60 s (got $rc)" [ $rc -eq 2 ]
  contains "damaged input $(basename "$f"): named" rg.err "$(basename "$f"): "
done
