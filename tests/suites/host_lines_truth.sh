#!/usr/bin/env bash
# The line-table and DWARF readers agree with binutils on real compiler output. A small C/C++ project (a class
# hierarchy, a template, a throw that GCC splits into .cold, a static helper, a C file) is built with gcc and
# clang in the shapes real builds use: -O2 -g, GCC's own line programs (-gno-as-loc-support: an address before
# every row), -gdwarf-4 / -gdwarf-5, -gsplit-dwarf, -g3 (a .debug_macro per COMDAT group), type units, dwz -m
# (.gnu_debugaltlink) and its DWARF 5 form (.debug_sup), gfortran, aarch64, and a cubin whose line relocations
# are REL. The oracle (lines_truth.py) reads readelf -s and readelf --debug-dump=decodedline only.
source "$(dirname "$0")/../lib/harness.sh"
ORACLE=$TRUELINE_ROOT/tests/suites/lines_truth.py
C=trueline-check
FX=$T/fx
mkdir -p "$FX" && cd "$FX" || exit 1

cat > shapes.cc <<'CC'
#include <stdexcept>
#include <vector>
namespace geo {
struct Shape { virtual ~Shape(); virtual double area() const = 0; };
struct Rect : Shape { double w, h; Rect(double a, double b) : w(a), h(b) {} double area() const override; };
template <class T> T total(const std::vector<T> &v) { T s{}; for (auto &x : v) s += x; return s; }
Shape::~Shape() {}
double Rect::area() const { if (w < 0) throw std::invalid_argument("negative width"); return w * h; }
static double scaled(double a, int k) { return a * k + 0.5; }
double sum_areas(const std::vector<Shape *> &v) {
  std::vector<double> a;
  for (auto *s : v) a.push_back(scaled(s->area(), 2));
  return total(a);
}
}
extern "C" int c_checksum(const char *p, int n);
int run_demo(int n) {
  std::vector<geo::Shape *> v;
  for (int i = 0; i < n; i++) v.push_back(new geo::Rect(i, i + 1));
  double a = geo::sum_areas(v);
  for (auto *s : v) delete s;
  return (int)a + geo::total(std::vector<int>{1, 2, n}) + c_checksum("abc", 3);
}
CC
cat > checksum.c <<'CC'
#define MIX(h, c) (((h) ^ (c)) * 16777619u)
static unsigned mix(unsigned h, unsigned char c) { return MIX(h, c); }
int c_checksum(const char *p, int n) {
  unsigned h = 2166136261u;
  for (int i = 0; i < n; i++) h = mix(h, (unsigned char)p[i]);
  return (int)(h >> 1);
}
CC
printf 'int run_demo(int n);\nint main(int argc, char **argv) { (void)argv; return run_demo(argc) & 1; }\n' > main.cc

# build DIR CC CXX FLAGS...: DIR/{checksum,shapes,main}.o, DIR/libgeo.so (checksum + shapes), DIR/demo (main)
build() {
  local d=$1 cc=$2 cxx=$3; shift 3
  mkdir -p "$d"
  "$cc" "$@" -fPIC -c checksum.c -o "$d/checksum.o" && "$cxx" "$@" -fPIC -c shapes.cc -o "$d/shapes.o" &&
    "$cxx" "$@" -c main.cc -o "$d/main.o" && "$cxx" -shared -o "$d/libgeo.so" "$d/checksum.o" "$d/shapes.o" &&
    "$cxx" -o "$d/demo" "$d/main.o" -L"$d" -lgeo
}

# same_lines NAME FILE ORACLE-ARGS...: the functions trueline-check finds with and without line rows (its JSON
# report) are readelf's; the oracle's list is not empty. __clang_call_terminate is clang's, without DWARF, and
# left out by the check by design.
same_lines() {
  local n=$1 f=$2; shift 2
  python3 "$ORACLE" "$@" | grep -v '^none __clang_call_terminate$' >"$f.truth" || return 1
  "$C" --format json --checks line-tables "$f" >"$f.json"
  python3 "$ORACLE" report "$f.json" >"$f.tl" || return 1
  if grep -q '^with [1-9]' "$f.truth" && cmp -s "$f.truth" "$f.tl"; then return 0; fi
  echo "    | $n: readelf says / trueline says:" >&"$TL_VERDICT_FD"
  diff "$f.truth" "$f.tl" | sed 's/^/    | /' | head -10 >&"$TL_VERDICT_FD"
  return 1
}
# audited N REPORT: the text report's summary says that N files were checked (the proof that an absence in it
# was looked for in a real report: a tool that prints nothing lacks every finding)
audited() {
  echo "$2" | grep -Eq "^$1 file\(s\) checked" && return 0
  echo "    | no '$1 file(s) checked' summary in the report" >&"$TL_VERDICT_FD"; return 1
}
# no_line_errors FILE...: every file audited, no line-tables error and no unreadable-DWARF warning
no_line_errors() {
  local out
  out=$("$C" --no-color --checks line-tables,dwarf-symbols "$@" 2>&1)
  audited $# "$out" || return 1
  if echo "$out" | grep -Eq 'error \[line-tables\]|could not be read|cannot read'; then
    echo "$out" | grep -E 'line-tables|could not|cannot' | head -5 | sed 's/^/    | /' >&"$TL_VERDICT_FD"; return 1
  fi
  return 0
}
# no_dwarf_errors FILE...: every file audited, and dwarf-symbols finds nothing wrong in a clean build (ranges of
# .cold parts on units whose DW_AT_low_pc is 0, type units, split DWARF)
no_dwarf_errors() {
  local out
  out=$("$C" --no-color --checks dwarf-symbols "$@" 2>&1)
  audited $# "$out" || return 1
  if echo "$out" | grep -Eq '(error|warning) \[dwarf-symbols\]'; then
    echo "$out" | grep -E '(error|warning) \[' | head -5 | sed 's/^/    | /' >&"$TL_VERDICT_FD"; return 1
  fi
  return 0
}
# holds NAME COMMAND...: a premise about the fixtures (what readelf or dwz shows), not about trueline: silent
# when it holds, a FAIL when it does not; the suite goes on, since the other variants' checks still test something
holds() { local n=$1; shift; "$@" || fail "premise broken: $n"; }
json_has() { # FILE EXPR over h (host image) and f (file record)
  "$C" --format json --checks line-tables,dwarf-symbols "$1" | python3 -c "
import json, sys; f = json.load(sys.stdin)['files'][0]; h = f['images'][0]; sys.exit(0 if ($2) else 1)"; }

# variant NAME CC CXX FLAGS...: compares every output of a built variant with readelf
variant() {
  local v=$1 cc=$2; shift 3
  if [ "$(cat "$T/$v.rc" 2>/dev/null)" != 0 ]; then
    fail "$v: fixture did not build ($cc $*)"; sed 's/^/    | /' "$T/$v.log" | head -5; return
  fi
  check "$v: libgeo.so line rows = readelf's" same_lines "$v" "$v/libgeo.so" truth readelf "$v/libgeo.so" "$v/checksum.o" "$v/shapes.o"
  check "$v: demo line rows = readelf's" same_lines "$v" "$v/demo" truth readelf "$v/demo" "$v/main.o"
  check "$v: shapes.o line rows = readelf's (via libgeo.so)" same_lines "$v" "$v/shapes.o" truth-obj readelf "$v/libgeo.so" "$v/shapes.o"
  check "$v: checksum.o line rows = readelf's (via libgeo.so)" same_lines "$v" "$v/checksum.o" truth-obj readelf "$v/libgeo.so" "$v/checksum.o"
  check "$v: no line-tables error, DWARF read" no_line_errors "$v/libgeo.so" "$v/demo" "$v"/*.o
  check "$v: no dwarf-symbols error" no_dwarf_errors "$v/libgeo.so" "$v/demo" "$v"/*.o
}

VARIANTS=(
  "gcc-O2 gcc g++ -O2 -g"
  "gcc-noas gcc g++ -O2 -g -gno-as-loc-support"
  # the flags of Debian's libstdc++ debug objects (cxx11-ios_failure.o's DW_AT_producer)
  "gcc-debian-libstdcxx gcc g++ -O0 -g3 -gno-as-loc-support -ffunction-sections -fdata-sections"
  "gcc-dwarf4 gcc g++ -O2 -gdwarf-4"
  "gcc-dwarf5-fs gcc g++ -O2 -gdwarf-5 -ffunction-sections"
  "gcc-split gcc g++ -O2 -g -gsplit-dwarf"
  "gcc-split4 gcc g++ -O2 -gdwarf-4 -gsplit-dwarf"
  "gcc-g3 gcc g++ -O2 -g3"
  "gcc-types4 gcc g++ -O2 -gdwarf-4 -fdebug-types-section"
  "gcc-types5 gcc g++ -O2 -gdwarf-5 -fdebug-types-section"
)
if have clang && have clang++; then
  VARIANTS+=("clang-O2 clang clang++ -O2 -g" "clang-dwarf4 clang clang++ -O2 -gdwarf-4"
             "clang-split clang clang++ -O2 -g -gsplit-dwarf" "clang-g3 clang clang++ -O2 -g3")
else
  skip "clang absent: the clang variants"
fi
# the fixtures are built two at a time (they are most of the suite's time), then compared
k=0
for spec in "${VARIANTS[@]}"; do
  set -- $spec
  ( build "$@" >"$T/$1.log" 2>&1; echo $? >"$T/$1.rc" ) &
  k=$((k + 1)); [ $((k % 2)) -eq 0 ] && wait
done
wait
for spec in "${VARIANTS[@]}"; do
  variant $spec
done

# GCC's own line programs: every row follows a DW_LNE_set_address (the shape of Debian's libstdc++ debug info)
holds "gcc-noas: readelf shows a set_address before rows in most of shapes.o's program" sh -c \
  '[ "$(readelf --debug-dump=rawline gcc-noas/shapes.o | grep -c "set Address")" -gt 20 ]'

# -g3 and type units: several sections of one name (COMDAT groups); the subprograms are read all the same
dup_sections() { readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\).*/\1/p' | grep '^\.debug_' | sort | uniq -d | grep -q .; }
subprograms_read() { json_has "$1/shapes.o" 'h["subprograms"] >= 5' && json_has "$1/checksum.o" 'h["subprograms"] >= 1'; }
for v in gcc-g3 gcc-debian-libstdcxx gcc-types4 gcc-types5 clang-g3; do
  [ -f "$v/checksum.o" ] || continue
  case $v in gcc-*) holds "$v: shapes.o holds several .debug_* sections of one name" dup_sections "$v/shapes.o";; esac
  check "$v: dwarf-symbols reads the subprograms of shapes.o and checksum.o" subprograms_read "$v"
done
if [ -f gcc-g3/checksum.o ]; then
  objcopy --redefine-sym c_checksum=c_checksum_old gcc-g3/checksum.o gcc-g3/stale.o
  "$C" --no-color --checks dwarf-symbols gcc-g3/stale.o >g3stale.txt 2>&1
  contains "-g3: a renamed symbol is still flagged against its DWARF name" g3stale.txt \
    'c_checksum_old: the DWARF subprogram at 0x[0-9a-f]+ is named c_checksum, not this symbol'
fi

# dwz: what two libraries share moves into a supplementary file, named by .gnu_debugaltlink (DWARF 5: .debug_sup)
if have dwz; then
  mkdir -p dwz && cp gcc-O2/libgeo.so dwz/liba.so && g++ -shared -o dwz/libb.so gcc-O2/shapes.o gcc-O2/checksum.o
  cp dwz/liba.so dwz/liba5.so && cp dwz/libb.so dwz/libb5.so
  (cd dwz && dwz -m common.debug -M common.debug liba.so libb.so && dwz --dwarf-5 -m common5.debug -M common5.debug liba5.so libb5.so) >dwz.log 2>&1
  holds "dwz: .gnu_debugaltlink and .debug_sup written" sh -c \
    'readelf -SW dwz/liba.so | grep -q .gnu_debugaltlink && readelf -SW dwz/liba5.so | grep -q .debug_sup'
  for lib in liba liba5; do
    check "dwz $lib.so: line rows = readelf's" same_lines dwz "dwz/$lib.so" truth readelf "dwz/$lib.so" gcc-O2/checksum.o gcc-O2/shapes.o
    "$C" --no-color --checks dwarf-symbols "dwz/$lib.so" >"dwz_$lib.txt" 2>&1
    lacks "dwz $lib.so: no libdwarf placeholder names" "dwz_$lib.txt" 'DW_FORM_|\(unnamed\)' '^1 file\(s\) checked'
    lacks "dwz $lib.so: dwarf-symbols agrees with the symbol table" "dwz_$lib.txt" 'error \[|warning \[' '^1 file\(s\) checked'
    check "dwz $lib.so: subprograms read" json_has "dwz/$lib.so" 'h["subprograms"] >= 8'
    # the names really come from the supplementary file: a renamed symbol is flagged with its DWARF name
    objcopy --redefine-sym c_checksum=c_checksum_v2 "dwz/$lib.so" "dwz/${lib}_stale.so"
    "$C" --no-color --checks dwarf-symbols "dwz/${lib}_stale.so" >"dwz_${lib}_stale.txt" 2>&1
    contains "dwz $lib.so: a renamed symbol is flagged with the name kept in the supplementary file" \
      "dwz_${lib}_stale.txt" 'c_checksum_v2: the DWARF subprogram at 0x[0-9a-f]+ is named c_checksum, not this symbol'
    # without the supplementary file: said, and nothing compared against placeholders
    mkdir -p "dwz/alone_$lib" && cp "dwz/$lib.so" "dwz/alone_$lib/"
    "$C" --no-color --checks dwarf-symbols "dwz/alone_$lib/$lib.so" >"dwz_alone_$lib.txt" 2>&1
    contains "dwz $lib.so without its supplementary file: a warning names it" "dwz_alone_$lib.txt" \
      'warning \[dwarf-symbols\].*supplementary DWARF file common5?\.debug \(dwz\), which was not found'
    lacks "dwz $lib.so without its supplementary file: no placeholder compared, no error" "dwz_alone_$lib.txt" \
      'DW_FORM_|error \[' '^1 file\(s\) checked'
  done
  # a supplementary file of another dwz run is not used
  mkdir -p dwz/other && cp dwz/liba.so dwz/other/ && cp gcc-dwarf4/libgeo.so dwz/other/x.so &&
    cp gcc-dwarf4/libgeo.so dwz/other/y.so && (cd dwz/other && dwz -m common.debug x.so y.so) >>dwz.log 2>&1
  "$C" --no-color --checks dwarf-symbols dwz/other/liba.so >dwz_other.txt 2>&1
  contains "dwz: a supplementary file of another build is refused by build-id" dwz_other.txt \
    'common\.debug has build-id [0-9a-f]+, not the one \.gnu_debugaltlink records'
  lacks "dwz: ... and its names are not used" dwz_other.txt 'DW_FORM_|error \[' '^1 file\(s\) checked'
else
  skip "dwz absent: supplementary DWARF files"
fi

# gfortran: a module procedure, a function, a subroutine
if have gfortran; then
  cat > stats.f90 <<'F'
module stats
contains
  pure function mean(x) result(m)
    real, intent(in) :: x(:)
    real :: m
    m = sum(x) / max(1, size(x))
  end function
  subroutine scale(x, k)
    real, intent(inout) :: x(:)
    real, intent(in) :: k
    x = x * k
  end subroutine
end module
F
  if gfortran -O2 -g -fPIC -c stats.f90 -o stats.o 2>gf.log && gfortran -shared -o libstats.so stats.o 2>>gf.log; then
    check "gfortran: libstats.so line rows = readelf's" same_lines gfortran libstats.so truth readelf libstats.so stats.o
    check "gfortran: stats.o line rows = readelf's" same_lines gfortran stats.o truth-obj readelf libstats.so stats.o
    check "gfortran: no line-tables error" no_line_errors libstats.so stats.o
  else
    fail "gfortran: fixture did not build"
  fi
else
  skip "gfortran absent"
fi

# aarch64: the reader relocates .rela.debug_line itself (R_AARCH64_ABS64)
X=aarch64-linux-gnu-
if have ${X}gcc && have ${X}g++ && have ${X}readelf; then
  for fl in "-O2 -g" "-O2 -g -gno-as-loc-support"; do
    v=aarch64$(echo "$fl" | tr -d ' ' | tr '=' '_')
    if build "$v" ${X}gcc ${X}g++ $fl >"$T/$v.log" 2>&1; then
      check "$v: libgeo.so line rows = readelf's" same_lines "$v" "$v/libgeo.so" truth ${X}readelf "$v/libgeo.so" "$v/checksum.o" "$v/shapes.o"
      check "$v: shapes.o line rows = readelf's" same_lines "$v" "$v/shapes.o" truth-obj ${X}readelf "$v/libgeo.so" "$v/shapes.o"
      check "$v: no line-tables error" no_line_errors "$v/libgeo.so" "$v"/*.o
    else
      fail "$v: fixture did not build"
    fi
  done
else
  skip "aarch64 cross gcc absent"
fi

# Rows of code the linker discarded: with -ffunction-sections and --gc-sections the sequences of the dropped
# functions start at address 0. The report counts the rows of the file's code and says how many more describe
# discarded code. Oracles: readelf's decodedline rows at addresses inside the file's code sections (the first
# number), and the row-making opcodes readelf's rawline prints (Special opcode, Copy, End of Sequence: every
# row, discarded or not). Both GCC line-program shapes: gas's (.loc) and GCC's own (an address per row).
mkdir -p gcsec && cd gcsec || exit 1
cat > gc.c <<'CC'
int used(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * x; return s; }
int unused1(int x) { int s = 1; for (int i = 0; i < x; i++) s *= i + x; return s; }
static int helper(int x) { return x * 7 + 1; }
int unused2(int x) { return helper(x) + helper(x + 1); }
__attribute__((visibility("default"))) int api(int x) { return used(x) + 1; }
CC
printf '__attribute__((visibility("default"))) int nolines(int x) { return x * 5 + 3; }\n' > nog.c
# in_code_rows FILE: readelf's decodedline rows whose address is inside an executable section (end rows: at its end)
in_code_rows() {
  python3 - "$1" <<'PY'
import re, subprocess, sys
b = sys.argv[1]
code = []
for l in subprocess.run(["readelf", "-SW", b], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r'\s*\[\s*\d+\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)', l)
    if m and 'X' in m.group(3): code.append((int(m.group(1), 16), int(m.group(1), 16) + int(m.group(2), 16)))
n = 0
for l in subprocess.run(["readelf", "--debug-dump=decodedline", b], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) >= 3 and f[2].startswith("0x"):
        n += any(lo <= int(f[2], 16) <= hi for lo, hi in code)
print(n)
PY
}
for v in gas:-g gcc-own:-gno-as-loc-support; do
  if gcc -O1 -g ${v#*:} -fPIC -fvisibility=hidden -ffunction-sections -c gc.c -o ${v%%:*}.o && gcc -O1 -fPIC -c nog.c -o nog.o &&
     gcc -shared -Wl,--gc-sections ${v%%:*}.o nog.o -o ${v%%:*}.so; then
    so=${v%%:*}.so
    kept=$(in_code_rows $so)
    all=$(readelf --debug-dump=rawline $so | grep -cE 'Special opcode|Copy|End of Sequence')
    shown=$(readelf --debug-dump=decodedline $so | awk 'NF >= 3 && $3 ~ /^0x/' | wc -l)
    holds "$v: the linker discarded sequences (rawline sets an address of 0)" sh -c \
      "readelf --debug-dump=rawline $so | grep -qiE 'set Address to 0(x0)?\$' && [ $all -gt $kept ]"
    "$C" --no-color $so > $so.txt 2>&1
    contains "$v: $kept line rows in its code (readelf, in code sections), $((all - kept)) more of discarded code (rawline $all in all)" \
      $so.txt "line coverage: 2 of 3 functions \\(66\\.7%\\), $kept line rows in its code \\($((all - kept)) more describe code the linker discarded\\)"
    check "$v: readelf's decodedline count ($shown) lies between the two (it leaves out discarded rows at exactly 0)" \
      sh -c "[ $kept -le $shown ] && [ $shown -le $all ]"
    check "$v: JSON line_rows $kept, discarded_line_rows $((all - kept))" \
      json_has $so "(h['line_rows'], h['discarded_line_rows']) == ($kept, $((all - kept)))"
  else
    fail "$v: --gc-sections fixture built"
  fi
done
cd "$FX" || exit 1

# a cubin whose line relocations are REL (ptxas for sm_75), its code sections at address 0
if have_nvcc; then
  cat > k.cu <<'CU'
__device__ float sq(float x) { return x * x; }
__global__ void kern(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = sq(a[i]) + 1.0f; }
__global__ void kern2(float *a) { a[threadIdx.x] *= 2.0f; }
CU
  if nvcc -lineinfo -cubin -arch=sm_75 k.cu -o k75.cubin >nvcc.log 2>&1; then
    holds "cubin sm_75: .rel.debug_line, code at address 0" sh -c \
      'readelf -SW k75.cubin 2>/dev/null | grep -q "\.rel\.debug_line" && ! readelf -SW k75.cubin 2>/dev/null | grep -q "\.rela\.debug_line" && readelf -SW k75.cubin 2>/dev/null | awk "/\.text\._Z4kernPfi/ {exit \$4 != 0}"'
    "$C" --list k75.cubin >k75.list 2>&1
    contains "cubin sm_75: lineinfo=yes" k75.list 'cubin sm_75 .* lineinfo=yes'
    for k in kern:_Z4kernPfi kern2:_Z5kern2Pf; do
      line=$(grep -n "void ${k%%:*}(" k.cu | cut -d: -f1)
      check "cubin sm_75: ${k%%:*}+0x0 symbolizes to k.cu:$line (the line readelf decodes, as in the source)" sh -c \
        "readelf --debug-dump=decodedline k75.cubin 2>/dev/null | grep -Eq '^k\\.cu +$line +' && \
         $C --symbolize k75.cubin ${k#*:}+0x0 | grep -q 'k\\.cu:$line in'"
    done
    # relocatable device code inside a host object: the same REL line relocations, in a fatbin
    if nvcc -lineinfo -rdc=true -c -arch=sm_75 k.cu -o k75rdc.o >>nvcc.log 2>&1; then
      "$C" --list k75rdc.o >k75rdc.list 2>&1
      contains "rdc object sm_75: its relocatable cubin has lineinfo=yes" k75rdc.list 'relfatbin.* sm_75 .*lineinfo=yes.*relocatable'
      "$C" --no-color --checks line-tables k75rdc.o >k75rdc.txt 2>&1
      contains "rdc object sm_75: audited (the premise of the next check)" k75rdc.txt '^1 file\(s\) checked'
      lacks "rdc object sm_75: no device function reported without line rows" k75rdc.txt 'device function has no line rows' \
        '^1 file\(s\) checked'
    else
      fail "nvcc -rdc=true -c -arch=sm_75 failed"
    fi
    # sm_80 relocatable device code with cooperative groups: ptxas writes .rela.debug_line (an R_CUDA_32 on a
    # header's .debug_str offset) and .rel.debug_line (the sequences' addresses) side by side
    cat > cg.cu <<'CU'
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void cgkern(float *a, int n)
{
    cg::thread_block b = cg::this_thread_block();
    int i = b.thread_rank();
    b.sync();
    if (i < n) a[i] += 1.0f;
}
CU
    if nvcc -lineinfo -cubin -rdc=true -arch=sm_80 cg.cu -o cg80.cubin >>nvcc.log 2>&1; then
      holds "cubin sm_80 -rdc: both .rel.debug_line and .rela.debug_line" sh -c \
        'readelf -SW cg80.cubin 2>/dev/null | grep -q " \.rel\.debug_line " && readelf -SW cg80.cubin 2>/dev/null | grep -q " \.rela\.debug_line "'
      "$C" --list cg80.cubin >cg80.list 2>&1
      contains "cubin sm_80 with REL and RELA line relocations: lineinfo=yes" cg80.list 'cubin sm_80 .* lineinfo=yes'
      line=$(grep -n "void cgkern(" cg.cu | cut -d: -f1)
      check "cubin sm_80 with REL and RELA line relocations: cgkern+0x0 symbolizes to cg.cu:$line (the line readelf decodes)" sh -c \
        "readelf --debug-dump=decodedline cg80.cubin 2>/dev/null | grep -Eq '^cg\\.cu +$line +' && \
         $C --symbolize cg80.cubin _Z6cgkernPfi+0x0 | grep -q 'cg\\.cu:$line in'"
    else
      fail "nvcc -lineinfo -cubin -rdc=true -arch=sm_80 failed"
    fi
  else
    skip "nvcc cannot build for sm_75 (needed for a REL cubin)"
  fi
else
  skip "nvcc absent: REL cubin"
fi
