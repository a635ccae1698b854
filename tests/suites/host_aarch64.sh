#!/usr/bin/env bash
# trueline-check host audit of aarch64 ELF: the five host checks on fixtures built here with Debian's cross
# toolchain (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu, binutils-aarch64-linux-gnu), the cross binutils as the
# oracle. Relocatable objects exercise the reader's own R_AARCH64_ABS32/ABS64 handling of .rela.debug_*.
# Also: what is unsupported (big-endian, ELF32, relocatable objects of other machines) exits 2 naming the machine.
source "$(dirname "$0")/../lib/harness.sh"
source "$(dirname "$0")/../lib/host_fixtures.sh"
X=aarch64-linux-gnu-
have ${X}gcc && have ${X}g++ && have ${X}objcopy && have ${X}readelf \
  || { skip "aarch64 cross toolchain missing (apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu)"; exit 0; }
C=trueline-check
FX=$T/fx64
mkdir -p "$FX" && cd "$FX" || exit 1

build_aarch64_fixtures() {
  build_common_fixtures "$X" --target=aarch64-linux-gnu
  # small C++ without std headers: namespaces, a class, a template, an inline member (COMDAT) compile fast
  cat > cpp.cpp <<'C'
namespace geo { struct P { int x, y; int sum() const { return x + y; } };
template <class T> T twice(T v) { return v + v; }
int area(const P &p) { return p.sum() * twice(p.x); } }
template double geo::twice<double>(double);
C
  ${X}gcc -gdwarf-4 -O1 -fPIC -c m.c -o m4.o                  # m.o: DWARF 5 (gcc 12 default)
  ${X}gcc -g -O0 -fPIC -ffunction-sections -c m.c -o mfs.o    # 3 functions, each at 0x0 of its own section
  ${X}gcc -gdwarf-4 -O0 -fPIC -ffunction-sections -c m.c -o mfs4.o
  ${X}g++ -g -O1 -fPIC -c cpp.cpp -o cpp.o
  ${X}g++ -gdwarf-4 -O0 -fPIC -ffunction-sections -c cpp.cpp -o cpp4fs.o
  ${X}g++ -O1 -fPIC -c cpp.cpp -o cpp_nog.o
  ${X}objcopy --redefine-sym use=used mfs.o mfs_renamed.o
  ${X}ar rcs libarc.a m.o nog.o cpp.o
  # unsupported inputs
  ${X}gcc -mbig-endian -g -c m.c -o m_be.o
  python3 -c "import sys; b = bytearray(open('m.o', 'rb').read()); b[18:20] = (243).to_bytes(2, 'little'); open('m_riscv.o', 'wb').write(b)"
  gcc -m32 -g -c m.c -o m32.o 2>/dev/null || rm -f m32.o
  wait
}
build_aarch64_fixtures >"$T/fixtures64.log" 2>&1
run() { local out=$1; shift; "$C" --no-color "$@" >"$out" 2>"$out.err"; echo $? >"$out.rc"; }
# the exit status of a run that printed its report (a run that did not has none to compare)
rc_of() { if grep -q 'file(s) checked' "$1"; then cat "$1.rc"; else echo "no report"; fi; }
json_img() { # FILE EXPR: evaluates EXPR with h = the host image and f = the file record of FILE's JSON report
  "$C" --format json --checks line-tables,dwarf-symbols "$1" | python3 -c "
import json, sys; f = json.load(sys.stdin)['files'][0]; h = f['images'][0]; sys.exit(0 if ($2) else 1)"; }
nfuncs() { ${X}nm -S --defined-only "$1" | awk '$3 ~ /^[TtWw]$/ && $2 !~ /^0+$/' | grep -cv ' call_weak_fn$'; }
premise "fixtures: aarch64 objects built" test "$(${X}readelf -h mfs.o | grep -c 'AArch64')" = 1
# nm's count of the C++ object: area, the inline member and both twice<> instantiations (COMDAT); the loop
# below checks that trueline-check counts the same
premise "C++ -ffunction-sections fixture has at least 4 functions (nm)" test "$(nfuncs cpp4fs.o)" -ge 4

# line-tables and dwarf-symbols on relocatable objects: the reader relocates .rela.debug_* itself
for o in m.o m4.o mfs.o mfs4.o cpp.o cpp4fs.o; do
  n=$(nfuncs "$o")
  check "relocatable $o: all $n functions have line rows and a matching subprogram" \
    json_img "$o" "f['machine'] == 183 and h['functions'] == $n > 0 and h['functions_with_lines'] == $n and h['subprograms'] >= $n and not f['findings']"
done
check "DWARF 4 and 5 units read (m4.o v4, m.o v5)" \
  eval 'json_img m4.o "h[\"compile_units\"][0][\"dwarf_version\"] == 4" && json_img m.o "h[\"compile_units\"][0][\"dwarf_version\"] == 5"'
run nog.txt --checks line-tables nog.o cpp_nog.o
contains "line-tables: C object without -g has no .debug_line" nog.txt 'nog.o: error \[line-tables\] no .debug_line'
contains "line-tables: C++ object without -g has no .debug_line" nog.txt 'cpp_nog.o: error \[line-tables\] no .debug_line'

# line-tables on linked files, against the cross readelf's decodedline
run lt_g.txt --checks line-tables libc_g.so app
check "line-tables: fully -g library and executable pass (crt's call_weak_fn not blamed)" test "$(rc_of lt_g.txt)" = 0
run lt_mixed.txt --checks line-tables libc_mixed.so
contains "line-tables: the TU without -g is named per function" lt_mixed.txt 'nodebug_fn: function .* has no line rows'
total=$(nfuncs libc_mixed.so)
pct=$(awk -v a=$((total - 2)) -v b="$total" 'BEGIN { printf "%.1f", 100 * a / b }')
contains "line-tables: coverage percentage" lt_mixed.txt "line coverage: $((total - 2)) of $total functions \\($pct%\\)"
lacks "line-tables: covered functions not reported" lt_mixed.txt 'init_math: function' 'file\(s\) checked'
check "line-tables: exit 1 on errors" test "$(rc_of lt_mixed.txt)" = 1
for lib in libc_mixed.so libleak.so; do
  oracle=$(cov_oracle "$lib" "$X" | ${X}c++filt | sort); ours=$(ours_uncovered "$lib" | sort)
  if [ "$oracle" = "$ours" ]; then pass "line coverage of $lib agrees with ${X}readelf decodedline ($(echo "$ours" | grep -c .) uncovered)"
  else fail "line coverage of $lib differs from ${X}readelf"; diff <(echo "$oracle") <(echo "$ours") | head; fi
done
# libstatic.so: thousands of uncovered functions (the static libstdc++ has no DWARF); the report names the first
# ones only, so compare the counts
n_or=$(cov_oracle libstatic.so "$X" | wc -l)
run lt_static.txt --checks line-tables libstatic.so
read -r a b < <(sed -nE 's/.*line coverage: ([0-9]+) of ([0-9]+) functions.*/\1 \2/p' lt_static.txt)
check "line coverage of libstatic.so: uncovered count agrees with ${X}readelf ($n_or)" test "$((b - a))" = "$n_or" -a "$n_or" -gt 1000

# dwarf-symbols
run ds_ok.txt --checks dwarf-symbols m.o mfs.o cpp.o cpp4fs.o libc_g.so libleak.so app
check "dwarf-symbols: consistent objects, libraries and executable pass" test "$(rc_of ds_ok.txt)" = 0
run ds_ren.txt --checks dwarf-symbols m_renamed.o mfs_renamed.o
contains "dwarf-symbols: renamed symbol found" ds_ren.txt 'm_renamed.o: error \[dwarf-symbols\] init_maths: the DWARF subprogram at 0x0 is named init_math'
n=$(${X}nm --defined-only m_renamed.o | grep -c ' T ')
contains "dwarf-symbols: counts reported" ds_ren.txt "m_renamed.o: info \[dwarf-symbols\] $n symbols, $n subprograms, 1 disagreements \\(init_maths\\)"
# every function of mfs.o sits at 0x0 of its own section: only the section index keeps them apart
contains "dwarf-symbols: renamed symbol among same-address functions of -ffunction-sections" ds_ren.txt \
  'mfs_renamed.o: error \[dwarf-symbols\] used: the DWARF subprogram at 0x0 is named use,'
contains "dwarf-symbols: the other -ffunction-sections functions match" ds_ren.txt \
  'mfs_renamed.o: info \[dwarf-symbols\] 3 symbols, 3 subprograms, 1 disagreements \(used\)'
run ds_mixed.txt --checks dwarf-symbols libc_mixed.so
# the TU without -g (nodebug_fn, nodebug_other: no subprogram, no line rows) is line-tables' error; here it is
# counted, not blamed on stale DWARF (as in host_checks.sh)
n=$(${X}nm --defined-only nog.o | grep -c ' T ')
contains "dwarf-symbols: functions of the TU without -g are counted, not compared" ds_mixed.txt \
  "libc_mixed.so: info \\[dwarf-symbols\\] $n functions have neither a DWARF subprogram nor line rows.*nodebug_(fn|other)"
check "dwarf-symbols: ... and are no error (exit 0)" test "$(rc_of ds_mixed.txt)" = 0

# archives
run arc.txt --checks line-tables,dwarf-symbols libarc.a
contains "archive members named lib.a(member.o)" arc.txt 'libarc.a\(nog.o\): error \[line-tables\] no .debug_line'
lacks "archive: the -g members pass" arc.txt 'libarc.a\((m|cpp).o\)' 'file\(s\) checked'

# stl-leak
stl_leak_fixture_checks
LIBSTDCXX=$(${X}g++ -print-file-name=libstdc++.so.6)
if [ -f "$LIBSTDCXX" ] && ${X}readelf -h "$LIBSTDCXX" | grep -q AArch64; then
  run sys.txt --checks stl-leak "$LIBSTDCXX"
  check "stl-leak: the cross libstdc++.so.6 is recognized, not a leak" test "$(rc_of sys.txt)" = 0
  premise "cross libstdc++.so.6 does export std:: (the check could have fired)" sh -c "${X}nm -D --defined-only '$LIBSTDCXX' | grep -q ' _ZNSt'"
else skip "cross libstdc++.so.6 not found"; fi

# symbol-versions (libleak.so is linked against the cross libstdc++)
run sv.txt --checks symbol-versions --policy manylinux_2_28 libleak.so
need=$(${X}objdump -T libleak.so | grep -o 'GLIBCXX_3\.4\.[0-9]*' | sort -t. -k3 -n | tail -1)
premise "symbol-versions: fixture needs a GLIBCXX above 3.4.24 ($need)" test "${need##*.}" -gt 24
contains "symbol-versions: highest GLIBCXX needed named ($need)" sv.txt "needs ${need//./\\.} \(from libstdc\+\+\.so\.6\) but manylinux_2_28 allows at most GLIBCXX_3\.4\.24"
check "symbol-versions: policy failure exits 1" test "$(rc_of sv.txt)" = 1
run sv2.txt --checks symbol-versions --policy manylinux_2_39 libleak.so
check "symbol-versions: newer policy passes" test "$(rc_of sv2.txt)" = 0

# mixed-toolchain
if [ -f libtwo.so ]; then
  run mt.txt --checks mixed-toolchain libtwo.so libc_g.so
  contains "mixed-toolchain: gcc + clang in one aarch64 library" mt.txt 'libtwo.so: error \[mixed-toolchain\] 2 compiler versions in DW_AT_producer: GCC [0-9.]+ \(1 CU: m.c\); clang [0-9.]+ \(1 CU: nog.c\)'
  lacks "mixed-toolchain: gcc-only library clean" mt.txt 'libc_g.so' 'file\(s\) checked'
else skip "clang (--target=aarch64-linux-gnu) missing: mixed-toolchain fixture"; fi

# unsupported inputs: exit 2, named with class, byte order and machine; other inputs still checked
run un.txt --checks line-tables m_be.o m_riscv.o $( [ -f m32.o ] && echo m32.o) m.o
check "unsupported inputs exit 2" test "$(rc_of un.txt)" = 2
contains "big-endian aarch64 named" un.txt 'm_be.o: error: cannot read: unsupported ELF: 64-bit big-endian aarch64 \(e_machine 183\)'
contains "relocatable object of another machine named" un.txt 'm_riscv.o: error: cannot read: unsupported ELF: relocatable riscv object \(e_machine 243\)'
if [ -f m32.o ]; then contains "ELF32 named" un.txt 'm32.o: error: cannot read: unsupported ELF: 32-bit little-endian i386 \(e_machine 3\)'
else skip "gcc -m32 cannot compile: no ELF32 fixture"; fi
contains "other inputs still checked" un.txt "$( [ -f m32.o ] && echo 4 || echo 3) file\(s\) checked"
