# Host fixtures for the host_* suites, built at test time with the real gcc/g++/clang (sourced after harness.sh).
# Everything lands in $FX (default $T/fx). Sets HAVE_CLANG.
FX=${FX:-$T/fx}
mkdir -p "$FX"
HAVE_CLANG=0; have clang && HAVE_CLANG=1

# The sources every host fixture set compiles (written into the current directory).
write_host_sources() {
  cat > m.c <<'C'
int init_math(int x) { return x * 2; }
static int helper(int y) { return y + 1; }
int use(int z) { return helper(z) + init_math(z); }
C
  cat > nog.c <<'C'
int nodebug_fn(int a) { return a * 3; }
int nodebug_other(int a) { return a - 3; }
C
  cat > leak.cpp <<'C'
#include <vector>
#include <string>
#include <filesystem>
struct Foo { int a; };
template class std::vector<Foo>;
std::string greet(const std::string &s) { return s + "!"; }
int touch(const char *p) { return std::filesystem::exists(p); }
C
  cat > clean.map <<'C'
{ global: _Z5greetRKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE; _Z5touchPKc; local: *; };
C
  printf 'extern int use(int);\nint main(void) { return use(1) == 5 ? 0 : 1; }\n' > main.c
}

# build_common_fixtures [PREFIX [CLANG_FLAGS]]: the fixtures the native set (PREFIX "") and a cross set
# (PREFIX aarch64-linux-gnu-, CLANG_FLAGS --target=aarch64-linux-gnu) share, in the current directory. The slow
# C++ libraries build in the background (2 cores): the caller waits before using them.
build_common_fixtures() {
  local X=${1:-} clang_flags=${2:-}
  write_host_sources
  { ${X}g++ -g -O1 -fPIC -shared -o libleak.so leak.cpp         # explicit std:: instantiation exported
    ${X}g++ -g -O1 -fPIC -fvisibility=hidden -fvisibility-inlines-hidden -shared -o libhidden.so leak.cpp; } &
  ${X}g++ -g -O1 -fPIC -shared -static-libstdc++ -Wl,--exclude-libs,ALL -Wl,--version-script=clean.map \
    -o libclean.so leak.cpp &
  ${X}g++ -g -O1 -fPIC -shared -static-libstdc++ -o libstatic.so leak.cpp
  ${X}gcc -g -O1 -fPIC -c m.c -o m.o
  ${X}gcc -O1 -fPIC -c nog.c -o nog.o
  ${X}gcc -g -O1 -fPIC -c nog.c -o nog_g.o
  ${X}gcc -shared -o libc_g.so m.o nog_g.o                   # C library, all -g
  ${X}gcc -shared -o libc_mixed.so m.o nog.o                 # one TU without -g
  ${X}gcc -g -O1 -o app main.c m.o
  ${X}objcopy --redefine-sym init_math=init_maths m.o m_renamed.o  # DWARF disagrees with its symbols
  if [ "$HAVE_CLANG" = 1 ]; then                             # gcc + clang in one library
    # shellcheck disable=SC2086
    clang $clang_flags -g -O1 -fPIC -c nog.c -o nog_clang.o && ${X}gcc -shared -o libtwo.so m.o nog_clang.o
  fi
}

build_host_fixtures() {
  ( cd "$FX" || exit 1
  build_common_fixtures
  gcc -O1 -fPIC -shared -o libc_nog.so m.c nog.c             # C library without -g
  ar rcs libarc.a m.o nog.o
  # separate debug pair and a wrong-CRC pair
  cp libc_g.so libsep.so && objcopy --only-keep-debug libsep.so libsep.so.debug && objcopy --strip-debug libsep.so \
    && objcopy --add-gnu-debuglink=libsep.so.debug libsep.so
  mkdir -p bad && cp libsep.so bad/libsep.so && gcc -g -O2 -fPIC -shared -o bad/other.so m.c nog.c \
    && objcopy --only-keep-debug bad/other.so bad/libsep.so.debug
  # compressed debug sections
  objcopy --compress-debug-sections=zlib libc_g.so libz.so
  objcopy --compress-debug-sections=zstd libc_g.so libzstd.so 2>/dev/null || true
  objcopy --compress-debug-sections=zstd m.o m_zstd.o 2>/dev/null || true
  if [ "$HAVE_CLANG" = 1 ]; then
    clang -g -O1 -fPIC -shared -o libclang.so m.c nog.c
    clang++ -std=c++17 -g -O1 -fPIC -c leak.cpp -o leak_clang.o  # DWARF 5 with addrx/strx forms, relocatable
  fi
  wait
  ) >"$T/fixtures.log" 2>&1
}

# Line coverage versus binutils' decoder on the same (linked) file; the oracle is readelf --debug-dump=decodedline
# (the cross binutils' for foreign machines: pass their prefix, e.g. aarch64-linux-gnu-).
cov_oracle() { # FILE [TOOL_PREFIX] -> names of sized functions without any row with a line inside
  python3 - "$1" "${2:-}" <<'PY'
import re, subprocess, sys
f, pfx = sys.argv[1], sys.argv[2]
syms = []
for l in subprocess.run([pfx + "nm", "-S", "--defined-only", f], capture_output=True, text=True).stdout.splitlines():
    p = l.split()
    if len(p) == 4 and p[2] in "TtWw" and int(p[1], 16) > 0:  # W: weak functions (template instantiations)
        syms.append((int(p[0], 16), int(p[1], 16), p[3]))
rows, seq = [], []
for l in subprocess.run([pfx + "readelf", "--debug-dump=decodedline", f], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"^\S+\s+(\d+|-)\s+(0x[0-9a-f]+)", l)
    if not m: continue
    addr = int(m.group(2), 16)
    if seq: rows.append((seq[-1][0], addr, seq[-1][1]))
    seq = [] if m.group(1) == "-" else [(addr, int(m.group(1)))]
cov = sorted((a, b) for a, b, line in rows if line != 0 and b > a)
crt = {"call_weak_fn", "_start","_init","_fini","deregister_tm_clones","register_tm_clones","__do_global_dtors_aux","frame_dummy"}
import bisect
starts = [a for a, b in cov]
for a, s, n in sorted(syms):
    if n in crt: continue
    i = bisect.bisect_right(starts, a + s - 1)
    hit = any(lo < a + s and hi > a for lo, hi in cov[max(0, i - 64):i])
    if not hit: print(n)
PY
}
ours_uncovered() { trueline-check --checks line-tables --format json "$1" | python3 -c '
import json,sys,subprocess
d=json.load(sys.stdin)
for x in d["files"][0]["findings"]:
    if x["symbol"] and "has no line rows" in x["message"]: print(x["symbol"])' || echo "(no report)"; }

# The stl-leak verdicts on the fixtures of build_common_fixtures (both architectures expect the same).
stl_leak_fixture_checks() {
  run sl.txt --checks stl-leak libleak.so libstatic.so libclean.so libhidden.so
  contains "stl-leak: explicit instantiation over its own type exported (info)" sl.txt 'libleak.so: info \[stl-leak\] exports [0-9]+ std:: template instantiation\(s\) over its own types, such as std::vector<Foo'
  lacks "stl-leak: own-type instantiations are no error or warning" sl.txt 'libleak.so: (error|warning) \[stl-leak\]' 'file\(s\) checked'
  contains "stl-leak: static libstdc++ exported (error)" sl.txt 'libstatic.so: error \[stl-leak\] .*C\+\+ runtime itself defines.*statically linked libstdc\+\+'
  lacks "stl-leak: version script + --exclude-libs is clean" sl.txt 'libclean.so' 'file\(s\) checked'
  lacks "stl-leak: -fvisibility=hidden is clean" sl.txt 'libhidden.so' 'file\(s\) checked'
}
