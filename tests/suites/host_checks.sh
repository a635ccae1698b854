#!/usr/bin/env bash
# trueline-check host audit: the five host checks on fixtures built here with gcc/g++/clang, plus the system's
# libstdc++.so.6 and the CUDA toolkit's libnccl.so.2 as read-only real inputs.
source "$(dirname "$0")/../lib/harness.sh"
source "$(dirname "$0")/../lib/host_fixtures.sh"
have gcc && have g++ && have objcopy || { skip "gcc/g++/objcopy missing"; exit 0; }
build_host_fixtures
C=trueline-check
cd "$FX" || exit 1
run() { local out=$1; shift; "$C" --no-color "$@" >"$out" 2>"$out.err"; echo $? >"$out.rc"; }
# the exit status of a run that printed its report (a run that did not has none to compare)
rc_of() { if grep -q 'file(s) checked' "$1"; then cat "$1.rc"; else echo "no report"; fi; }

# line-tables
run lt_g.txt --checks line-tables libc_g.so m.o
check "line-tables: fully -g library passes" test "$(rc_of lt_g.txt)" = 0
run lt_nog.txt --checks line-tables libc_nog.so
contains "line-tables: library without -g has no .debug_line" lt_nog.txt 'libc_nog.so: error \[line-tables\] no .debug_line'
run lt_mixed.txt --checks line-tables libc_mixed.so
contains "line-tables: the TU without -g is named per function" lt_mixed.txt 'nodebug_fn: function .* has no line rows'
total=$(nm -S --defined-only libc_mixed.so | awk '$3 ~ /^[Tt]$/ && $2 !~ /^0+$/' | grep -cvE ' (_init|_fini|_start|frame_dummy|register_tm_clones|deregister_tm_clones|__do_global_dtors_aux)$')
pct=$(awk -v a=$((total - 2)) -v b="$total" 'BEGIN { printf "%.1f", 100 * a / b }')
contains "line-tables: coverage percentage" lt_mixed.txt "line coverage: $((total - 2)) of $total functions \\($pct%\\)"

lacks "line-tables: covered functions not reported" lt_mixed.txt 'init_math: function' 'file\(s\) checked'
check "line-tables: exit 1 on errors" test "$(rc_of lt_mixed.txt)" = 1
lacks "line-tables: crt start files never blamed" <("$C" --checks line-tables app) 'frame_dummy|register_tm_clones|_start' 'file\(s\) checked'

# line coverage versus binutils' decoder on the same file (the oracle: readelf --debug-dump=decodedline)
for lib in libc_mixed.so libleak.so; do
  oracle=$(cov_oracle "$lib" | c++filt | sort); ours=$(ours_uncovered "$lib" | sort)
  if [ "$oracle" = "$ours" ]; then pass "line coverage of $lib agrees with readelf decodedline ($(echo "$ours" | grep -c .) uncovered)"
  else fail "line coverage of $lib differs from readelf"; diff <(echo "$oracle") <(echo "$ours") | head; fi
done

# dwarf-symbols
run ds_ok.txt --checks dwarf-symbols m.o libc_g.so libleak.so
check "dwarf-symbols: consistent files pass" test "$(rc_of ds_ok.txt)" = 0
if [ "$HAVE_CLANG" = 1 ]; then
  run ds_clang.txt --checks dwarf-symbols,line-tables leak_clang.o
  check "dwarf-symbols + line-tables: clang++ DWARF 5 object (addrx, strx, relocated) passes" test "$(rc_of ds_clang.txt)" = 0
fi
run ds_ren.txt --checks dwarf-symbols m_renamed.o
contains "dwarf-symbols: renamed symbol found" ds_ren.txt 'init_maths: the DWARF subprogram at 0x0 is named init_math'
n=$(nm --defined-only m_renamed.o | grep -c ' T ')
contains "dwarf-symbols: counts reported" ds_ren.txt "$n symbols, $n subprograms, 1 disagreements \\(init_maths\\)"
run ds_mixed.txt --checks dwarf-symbols libc_mixed.so
# the TU without -g (nodebug_fn, nodebug_other: no subprogram, no line rows) is line-tables' error; here it is
# counted, not blamed on stale DWARF
n=$(nm --defined-only nog.o | grep -c ' T ')
contains "dwarf-symbols: functions of the TU without -g are counted, not compared" ds_mixed.txt \
  "libc_mixed.so: info \\[dwarf-symbols\\] $n functions have neither a DWARF subprogram nor line rows.*nodebug_(fn|other)"
check "dwarf-symbols: ... and are no error (exit 0)" test "$(rc_of ds_mixed.txt)" = 0
# GNU's older compressed form (.zdebug_*, gcc -gz=zlib-gnu): read like SHF_COMPRESSED sections
printf 'int zg_fn(int x) { return x * 7; }\n' > zg.c
if gcc -g -gz=zlib-gnu -fPIC -c zg.c -o zg.o 2>/dev/null && readelf -S zg.o | grep -q zdebug_line; then
  gcc -shared -g -gz=zlib-gnu -fPIC zg.c -o libzg.so
  run zg.txt --checks line-tables,dwarf-symbols zg.o libzg.so
  check "zlib-gnu (.zdebug_*) object and library: line tables and DWARF read (exit 0)" test "$(rc_of zg.txt)" = 0
  # the same object with its .zdebug_info's "ZLIB" magic overwritten: named, exit 2
  python3 - zg.o zg_bad.o <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
shoff, = struct.unpack_from("<Q", b, 0x28); shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3a)
sec = lambda i: struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize)
stroff = sec(shstrndx)[4]
for i in range(shnum):
    s = sec(i); name = bytes(b[stroff + s[0]:]).split(b"\0")[0]
    if name == b".zdebug_info": b[s[4]:s[4] + 4] = b"XLIB"
open(sys.argv[2], "wb").write(b)
PY
  run zgbad.txt --checks line-tables zg_bad.o zg.o
  check "zlib-gnu: a damaged .zdebug_info is a finding (exit 1), the other file still checked" \
    sh -c '[ "$(cat zgbad.txt.rc)" = 1 ] && grep -q "^2 file(s) checked" zgbad.txt && ! grep -q "^zg\.o: error" zgbad.txt'
  contains "zlib-gnu: ... the message names the file, the section and what is wrong" zgbad.txt \
    'zg_bad\.o: error \[line-tables\] the debug sections cannot be read \(\.zdebug_info: .*ZLIB header'
else
  skip "gcc cannot write -gz=zlib-gnu sections"
fi
# Units with line tables but no subprograms: clang's -gline-tables-only (trueline-cc's forced level for clang)
# and gcc's -gsplit-dwarf skeletons (DWARF 5 DW_TAG_skeleton_unit). Their functions have nothing to compare
# with: no error, an info that says how many were left out; their line rows still count for line-tables.
printf 'int full_g(int x) { return x * 2; }\n' > bu_a.c
printf 'int lt_only(int x) { return x + 3; }\nint lt_only2(int x) { return lt_only(x) * 5; }\n' > bu_b.c
gcc -g -fPIC -c bu_a.c -o bu_a.o
gcc -g -gsplit-dwarf -fPIC -c bu_b.c -o bu_split.o && gcc -shared bu_a.o bu_split.o -o libbu_split.so
run ds_split.txt --checks dwarf-symbols,line-tables libbu_split.so
check "dwarf-symbols: a -gsplit-dwarf unit beside a -g one is no error (exit 0)" test "$(rc_of ds_split.txt)" = 0
contains "dwarf-symbols: ... its 2 functions said to be left out" ds_split.txt \
  'libbu_split.so: info \[dwarf-symbols\] 2 functions not compared: their units have line tables but no subprograms'
"$C" --format json libbu_split.so > ds_split.json
check "json: the skeleton unit is read (2 compile units, its line rows counted)" python3 -c '
import json,sys; i=json.load(open("ds_split.json"))["files"][0]["images"][0]
cu=i["compile_units"]; sys.exit(0 if len(cu)==2 and all(c["line_rows"]>0 for c in cu) else 1)'
if [ "$HAVE_CLANG" = 1 ]; then
  clang -g -fPIC -c bu_a.c -o bu_ca.o && clang -gline-tables-only -fPIC -c bu_b.c -o bu_lt.o
  clang -shared bu_ca.o bu_lt.o -o libbu_lt.so
  run ds_lt.txt --checks dwarf-symbols,line-tables libbu_lt.so
  check "dwarf-symbols: a clang -gline-tables-only unit beside a -g one is no error (exit 0)" test "$(rc_of ds_lt.txt)" = 0
  contains "dwarf-symbols: ... its 2 functions said to be left out" ds_lt.txt 'info \[dwarf-symbols\] 2 functions not compared'
  # a renamed function in the -g unit of the same library is still found
  objcopy --redefine-sym full_g=full_h libbu_lt.so libbu_lt_ren.so
  run ds_lt_ren.txt --checks dwarf-symbols libbu_lt_ren.so
  contains "dwarf-symbols: ... while the -g unit's functions are still compared" ds_lt_ren.txt \
    'error \[dwarf-symbols\] full_h: the DWARF subprogram at 0x[0-9a-f]+ is named full_g'
fi
# A .debug_info whose walk stops early (tests/lib/mutate.py's cycle-self-sibling: a DIE whose DW_AT_sibling
# points at itself) is a damaged input (exit 2, the entry named: libdwarf 0.x/2.x refuse the sibling themselves,
# 20210528 follows it and the walk sees it does not move forward), and no symbol is blamed for lacking DWARF.
cat > sib.c <<'EOF'
struct pt { int x, y; };
int first(int v) { struct pt p = { v, v }; return p.x + p.y; }
int second(int v) { int acc = 0; for (int i = 0; i < v; i++) { int t = i * 2; acc += t; } return acc; }
EOF
gcc -g -O0 -c sib.c -o sib.o && python3 "$TRUELINE_ROOT/tests/lib/mutate.py" sib.o sibm >/dev/null
if [ -f sibm/sib.o.cycle-self-sibling ]; then
  run ds_sib.txt --checks dwarf-symbols sibm/sib.o.cycle-self-sibling
  contains "dwarf-symbols: a sibling chain pointing backwards makes the input unreadable, not passed silently" ds_sib.txt \
    'error: cannot read: malformed \.debug_info: at the entry at offset 0x[0-9a-f]+, (its sibling does not follow it|the entry after it cannot be read)'
  lacks "... and no symbol is blamed for the DWARF it could not read" ds_sib.txt 'has no DWARF subprogram' 'file\(s\) checked'
  run ds_sib_ok.txt --checks dwarf-symbols sib.o
  lacks "... the unmutated object has no such warning" ds_sib_ok.txt 'could not be read to its end' 'file\(s\) checked'
else
  fail "mutate.py wrote no cycle-self-sibling mutant of sib.o"
fi
# identical-code folding puts thousands of symbols on one address (one subprogram): matching them pairwise per
# symbol was cubic (12,000 aliases: 20 s). The timeout is a hang guard, not a speed target.
python3 -c 'print("extern \"C\" int f(int x) { return x * 3 + 1; }")
for i in range(12000): print("int a%d(int) __attribute__((alias(\"f\")));" % i)' >icf.cc
g++ -g -O1 -c icf.cc -o icf.o
timeout 120 "$C" --no-color --checks dwarf-symbols icf.o >ds_icf.txt 2>&1; echo $? >ds_icf.txt.rc
check "dwarf-symbols: 12,000 aliases of one function (ICF) pass, well inside the hang guard" test "$(rc_of ds_icf.txt)" = 0
g++ -g -O1 -c -x c++ - -o icf_bad.o <<'SRC'
extern "C" int f(int x) { return x * 3 + 1; }
int a1(int) __attribute__((alias("f")));
SRC
objcopy --redefine-sym f=g_renamed icf_bad.o
run ds_icf_bad.txt --checks dwarf-symbols icf_bad.o
contains "dwarf-symbols: an alias group none of whose names is the subprogram's is reported per symbol" ds_icf_bad.txt \
  'g_renamed: the DWARF subprogram at 0x0 is named f, not this symbol'
contains "dwarf-symbols: ... including the alias, demangled" ds_icf_bad.txt 'a1\(int\): the DWARF subprogram at 0x0 is named f'

# archives
run arc.txt --checks line-tables libarc.a
contains "archive members named lib.a(member.o)" arc.txt 'libarc.a\(nog.o\): error \[line-tables\] no .debug_line'
lacks "archive: the -g member passes" arc.txt 'libarc.a\(m.o\)' 'file\(s\) checked'

# separate debug info
run sep.txt --checks line-tables,dwarf-symbols --format json libsep.so
check "debuglink: separate debug file found and used" python3 -c '
import json,sys; d=json.load(open("sep.txt")); h=d["files"][0]["images"][0]
sys.exit(0 if h["debug_file"].endswith("libsep.so.debug") and h["functions_with_lines"] == 4 and not d["files"][0]["findings"] else 1)'
run bad.txt --checks line-tables bad/libsep.so
contains "debuglink: wrong CRC is reported, debug file not used" bad.txt 'has CRC [0-9a-f]{8} but .gnu_debuglink expects [0-9a-f]{8}'
mkdir -p dbgdir && cp libsep.so.debug dbgdir/ && mkdir -p elsewhere && cp libsep.so elsewhere/
run dd.txt --checks line-tables --debug-dir "$FX/dbgdir" elsewhere/libsep.so
check "debuglink: --debug-dir searched" test "$(rc_of dd.txt)" = 0

# compressed debug sections
run z.txt --checks line-tables,dwarf-symbols --format json libz.so
check "zlib-compressed DWARF read" python3 -c '
import json,sys; h=json.load(open("z.txt"))["files"][0]["images"][0]; sys.exit(0 if h["functions_with_lines"]==4 and h["subprograms"]==4 else 1)'
if readelf -S libzstd.so 2>/dev/null | grep -q 'debug_info' && readelf -t libzstd.so | grep -q ZSTD; then
  run zs.txt --checks line-tables,dwarf-symbols --format json libzstd.so m_zstd.o m.o
  check "zstd-compressed DWARF read (libdwarf alone cannot)" python3 -c '
import json,sys; f=json.load(open("zs.txt"))["files"]; h=f[0]["images"][0]; o=f[1]["images"][0]; plain=f[2]["images"][0]
sys.exit(0 if h["functions_with_lines"]==4 and h["subprograms"]==4 and o["functions_with_lines"]==plain["functions_with_lines"]>0
         and o["subprograms"]==plain["subprograms"] and not f[0]["findings"] and not f[1]["findings"] else 1)'
else skip "objcopy cannot write zstd-compressed sections"; fi

# stl-leak
stl_leak_fixture_checks
LIBSTDCXX=$(g++ -print-file-name=libstdc++.so.6)
if [ -f "$LIBSTDCXX" ]; then
  run sys.txt --checks stl-leak "$LIBSTDCXX"
  check "stl-leak: the system libstdc++.so.6 is recognized, not a leak" test "$(rc_of sys.txt)" = 0
  premise "libstdc++.so.6 does export std:: (the check could have fired)" sh -c "nm -D --defined-only '$LIBSTDCXX' | grep -q ' _ZNSt'"
fi

# symbol-versions
run sv.txt --checks symbol-versions --policy manylinux_2_28 libleak.so
need=$(objdump -T libleak.so | grep -o 'GLIBCXX_3\.4\.[0-9]*' | sort -t. -k3 -n | tail -1)
contains "symbol-versions: highest GLIBCXX needed named ($need)" sv.txt "needs $need \(from libstdc\+\+\.so\.6\) but manylinux_2_28 allows at most GLIBCXX_3\.4\.24"
check "symbol-versions: policy failure exits 1" test "$(rc_of sv.txt)" = 1
run sv2.txt --checks symbol-versions --policy manylinux_2_39 libleak.so
check "symbol-versions: newer policy passes" test "$(rc_of sv2.txt)" = 0
printf '[symbol-versions]\nglibcxx = 3.4.20\n' > max.ini
run sv3.txt --config max.ini --checks symbol-versions libleak.so
contains "symbol-versions: explicit maxima from the config" sv3.txt 'allows at most GLIBCXX_3\.4\.20'

# mixed-toolchain
if [ "$HAVE_CLANG" = 1 ]; then
  run mt.txt --checks mixed-toolchain libtwo.so libclang.so libc_g.so
  contains "mixed-toolchain: gcc + clang in one library" mt.txt 'libtwo.so: error \[mixed-toolchain\] 2 compiler versions in DW_AT_producer: GCC [0-9.]+ \(1 CU: m.c\); clang [0-9.]+ \(1 CU: nog.c\)'
  lacks "mixed-toolchain: clang-only library (crt .comment from GCC) is not an error" mt.txt 'libclang.so: error' 'file\(s\) checked'
  lacks "mixed-toolchain: gcc-only library clean" mt.txt 'libc_g.so' 'file\(s\) checked'
else skip "clang missing: mixed-toolchain fixtures"; fi

# the CUDA toolkit's libnccl.so.2 (full host DWARF, two GCC 8.5.0 builds in .comment)
NCCL=${CUDA_HOME:+$CUDA_HOME/lib64/libnccl.so.2}
if [ -n "$NCCL" ] && [ -f "$NCCL" ]; then
  "$C" --host-only --format json "$NCCL" >nccl.json 2>nccl.err
  # oracle: readelf's rows, without sequences the linker discarded (they start at address 0)
  readelf -W --debug-dump=decodedline "$NCCL" | grep -oE '^\S+\s+([0-9]+|-)\s+0x[0-9a-f]+' >nccl.rows
  check "libnccl.so.2: line rows equal readelf's (live sequences); the rest counted as discarded" python3 - <<'PY'
import json, sys
rows = live = 0; seq = []
for l in open("nccl.rows"):
    _, line, addr = l.split()
    seq.append(int(addr, 16))
    if line == "-":
        # readelf omits rows at exactly 0, so a discarded sequence starts with a small address and no real code
        # of a shared object lies below its first section: 0x1000 separates them
        if seq[0] >= 0x1000: live += len(seq)
        seq = []
h = json.load(open("nccl.json"))["files"][0]["images"][0]
shown = sum(1 for _ in open("nccl.rows"))
print("    readelf live rows", live, "ours", h["line_rows"], "; readelf's other rows", shown - live,
      "ours discarded", h["discarded_line_rows"])
# the discarded rows readelf prints are some of ours (it leaves out those at exactly 0)
sys.exit(0 if h["line_rows"] == live and shown - live <= h["discarded_line_rows"] and len(h["compile_units"]) > 50
         and h["functions_with_lines"] > 1000 else 1)
PY
  check "libnccl.so.2: .comment's two GCC 8.5.0 builds reported" grep -q '2 builds of GCC 8.5.0' nccl.json
else skip "CUDA toolkit's libnccl.so.2 not found"; fi

# bad input: named, exit 2, others still checked
echo "not an elf" > junk.so
run bad_in.txt junk.so m.o
check "bad input exits 2" test "$(rc_of bad_in.txt)" = 2
contains "bad input named with the reason" bad_in.txt 'junk.so: error: cannot read: '
contains "other inputs still checked" bad_in.txt '2 file\(s\) checked'
