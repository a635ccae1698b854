#!/usr/bin/env bash
# stl-leak on libraries shaped like real C++ projects: std:: templates instantiated over the project's own types
# and exported (no error), a statically linked libstdc++ left visible (error) and hidden with --exclude-libs,ALL
# (none). Counts are compared with readelf --dyn-syms + c++filt, and must not depend on what else the same run
# read; libLLVM-14.so.1 when installed (it has std::swap<...enable_if...> names that the demangler's component
# parser read uninitialised state for); and a valgrind run without uninitialised reads.
source "$(dirname "$0")/../lib/harness.sh"
have g++ && have readelf && have c++filt || { skip "g++/readelf/c++filt missing"; exit 0; }
C=trueline-check
cd "$T" || exit 1

cat > own.cpp <<'C'
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>
namespace proj {
struct MyType { int v; std::string name; };
struct Mine : std::enable_shared_from_this<Mine> { virtual ~Mine(); int x = 1; };
Mine::~Mine() {}
}
template class std::vector<proj::MyType>;
template void std::swap<proj::MyType>(proj::MyType &, proj::MyType &);
std::shared_ptr<proj::Mine> make_mine() { return std::make_shared<proj::Mine>(); }
std::shared_ptr<proj::Mine> self(proj::Mine &m) { return m.shared_from_this(); }
unsigned long count_keys(const std::vector<proj::MyType> &v)
{
    std::map<int, proj::MyType> m;
    for (const auto &e : v)
        m[e.v] = e;
    return m.size();
}
C
g++ -O1 -fPIC -shared -o libown.so own.cpp &
g++ -O1 -fPIC -shared -static-libstdc++ -o libown_static.so own.cpp &
g++ -O1 -fPIC -shared -static-libstdc++ -Wl,--exclude-libs,ALL -o libown_excl.so own.cpp &
wait
for f in libown.so libown_static.so libown_excl.so; do [ -s "$f" ] || { fail "fixture $f not built"; exit 0; }; done

# The independent truth: exported definitions (global, weak or unique; default or protected visibility) whose
# mangled name is scoped in std or __gnu_cxx (St, Sa/Sb/Ss/Si/So/Sd, 9__gnu_cxx after the special-name,
# local-name and nested-name prefixes); own-type ones are those whose demangled text names the fixture's namespace.
exported() {
  readelf --dyn-syms -W "$1" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK" || $5 == "UNIQUE") &&
    ($6 == "DEFAULT" || $6 == "PROTECTED") { sub(/@.*/, "", $8); print $8 }'
}
std_syms() { exported "$1" | grep -E '^_Z(T[VIST]|GV|GTt|Th[n]?[0-9]+_)?Z?N?[VKRO]*(St|S[absiod]|9__gnu_cxx)'; }
abi_syms() {
  exported "$1" | grep -E '^(__cxa_|__gxx_personality_v0$|__gxx_personality_sj0$|__dynamic_cast$|_Z(T[VIS])?N?K?10__cxxabiv1)' |
    grep -vxE '__cxa_(atexit|finalize|at_quick_exit|thread_atexit_impl)'
}
# trueline's numbers, from its text report: own-type instantiations, std-only ones, ABI-runtime symbols
own_n() { grep -oE "^$2: info \[stl-leak\] exports [0-9]+ std:: template instantiation\(s\) over its own types" "$1" | grep -oE '[0-9]+' | tail -1; }
std_n() { grep -oE "^$2: info \[stl-leak\] exports [0-9]+ std:: template instantiation\(s\) and inline" "$1" | grep -oE '[0-9]+' | tail -1; }
abi_n() { grep -oE "^$2: error \[stl-leak\] .*\(([0-9]+) of its ABI runtime" "$1" | grep -oE '\(([0-9]+) of its ABI' | grep -oE '[0-9]+'; }

"$C" --no-color --checks stl-leak libown.so libown_static.so libown_excl.so >r.txt 2>&1
# holds NAME COMMAND...: a premise about a fixture (what readelf or nm shows), not about trueline: silent when it
# holds, a FAIL when it does not; the suite goes on
holds() { local n=$1; shift; "$@" || fail "premise broken: $n"; }

# (a) instantiations over the project's own types: reported as such, never as a linked-in libstdc++
truth_own=$(std_syms libown.so | c++filt | grep -c 'proj::')
truth_all=$(std_syms libown.so | grep -c .)
holds "fixture exports std:: instantiations over its own types (readelf: $truth_own of $truth_all)" \
  test "$truth_own" -gt 10
lacks "own-type instantiations: no error or warning" r.txt '^libown\.so: (error|warning) \[stl-leak\]' '^libown\.so: '
check "own-type count equals readelf+c++filt ($truth_own)" test "$(own_n r.txt libown.so)" = "$truth_own"
check "own + std-only equals every exported std:: symbol ($truth_all)" \
  test "$(( $(own_n r.txt libown.so) + $(std_n r.txt libown.so) ))" = "$truth_all"
holds "typeinfo for std::enable_shared_from_this<proj::Mine> is exported (readelf; the own-type count includes it)" \
  sh -c 'readelf --dyn-syms -W libown.so | grep -q _ZTISt23enable_shared_from_thisIN4proj4MineEE'

# (b) -static-libstdc++ without --exclude-libs: the runtime's own symbols are exported
truth_abi=$(abi_syms libown_static.so | grep -c .)
holds "static fixture exports the C++ ABI runtime (readelf: $truth_abi symbols)" test "$truth_abi" -gt 5
contains "static libstdc++ exported: error" r.txt '^libown_static\.so: error \[stl-leak\] .*statically linked libstdc\+\+'
check "ABI-runtime count equals readelf's ($truth_abi)" test "$(abi_n r.txt libown_static.so)" = "$truth_abi"
truth_own_s=$(std_syms libown_static.so | c++filt | grep -c 'proj::')
check "own-type count of the static fixture equals readelf+c++filt ($truth_own_s)" \
  test "$(own_n r.txt libown_static.so)" = "$truth_own_s"
lacks "no dual-ABI warning for a linked-in libstdc++ (it carries both ABIs)" r.txt '^libown_static\.so: warning .*dual-ABI' \
  '^libown_static\.so: '

# (c) the same with --exclude-libs,ALL: nothing of the runtime is visible
holds "excluded fixture exports no ABI runtime symbol (readelf)" test "$(abi_syms libown_excl.so | grep -c .)" = 0
lacks "static libstdc++ hidden by --exclude-libs,ALL: no error or warning" r.txt '^libown_excl\.so: (error|warning) \[stl-leak\]' \
  '^libown_excl\.so: '
check "exit status 1 only for the static fixture" sh -c \
  "$C --checks stl-leak libown.so libown_excl.so >/dev/null 2>&1; a=\$?; $C --checks stl-leak libown_static.so >/dev/null 2>&1; b=\$?; test \$a = 0 -a \$b = 1"

# determinism: the same counts alone and after other files, serial and parallel
LLVM=/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1
others=(libown_static.so libown_excl.so)
LIBSTDCXX=$(g++ -print-file-name=libstdc++.so.6)
[ -f "$LIBSTDCXX" ] && others+=("$LIBSTDCXX")
[ -f "$LLVM" ] && others+=("$LLVM")
"$C" --no-color --checks stl-leak -j1 libown.so >alone.txt 2>&1
"$C" --no-color --checks stl-leak -j1 "${others[@]}" libown.so >after1.txt 2>&1
"$C" --no-color --checks stl-leak -j2 "${others[@]}" libown.so >after2.txt 2>&1
check "counts alone and after ${#others[@]} other files agree (-j1, -j2)" sh -c '
  a=$(grep "^libown.so:" alone.txt); b=$(grep "^libown.so:" after1.txt); c=$(grep "^libown.so:" after2.txt)
  test -n "$a" && test "$a" = "$b" && test "$a" = "$c"'

if [ -f "$LLVM" ]; then
  truth_llvm=$(std_syms "$LLVM" | grep -c .)
  "$C" --no-color --checks stl-leak -j1 "$LLVM" >llvm1.txt 2>&1
  n1=$(( $(own_n llvm1.txt "$LLVM") + $(std_n llvm1.txt "$LLVM") ))
  n2=$(( $(own_n after1.txt "$LLVM") + $(std_n after1.txt "$LLVM") ))
  check "libLLVM-14: std:: exports counted equal readelf's ($truth_llvm), alone" test "$n1" = "$truth_llvm"
  check "libLLVM-14: the same count after other files" test "$n2" = "$truth_llvm"
  lacks "libLLVM-14: no error (no linked-in libstdc++)" llvm1.txt 'error \[stl-leak\]' '^1 file\(s\) checked'
else
  skip "libLLVM-14.so.1 not installed"
fi

# valgrind: the demangler reads no uninitialised state (the std::swap<...enable_if...> name is in libown.so)
holds "fixture exports a name with an unresolved name in a template argument (sr)" \
  sh -c 'readelf --dyn-syms -W libown.so | grep -q "_ZSt4swapIN4proj6MyTypeEENSt9enable_ifIXsr"'
if have valgrind && [ -z "${TRUELINE_SANITIZED:-}" ]; then
  valgrind -q --error-exitcode=99 "$(command -v "$C")" --no-color --checks stl-leak -j1 libown.so >vg.txt 2>&1
  lacks "valgrind: no uninitialised read" vg.txt 'uninitialised|Invalid read' '^1 file\(s\) checked'
  contains "valgrind run produced its report" vg.txt 'file\(s\) checked'
else
  skip "valgrind missing (or a sanitized build)"
fi

# dual-ABI mix: one library whose API takes std::string in both ABIs (one TU built with the old one)
printf '#include <string>\nstd::string name_new(const std::string &s) { return s + "1"; }\n' > abi_new.cpp
printf '#include <string>\nstd::string name_old(const std::string &s) { return s + "0"; }\n' > abi_old.cpp
g++ -O1 -fPIC -c abi_new.cpp -o abi_new.o && g++ -O1 -fPIC -D_GLIBCXX_USE_CXX11_ABI=0 -c abi_old.cpp -o abi_old.o &&
  g++ -shared -o libabimix.so abi_new.o abi_old.o && g++ -shared -o libabione.so abi_new.o
holds "dual-ABI fixture: its API names both std::__cxx11::basic_string and the old std::string (nm -D)" sh -c '
  nm -D --defined-only libabimix.so | c++filt | grep -q "name_new(std::__cxx11::basic_string" &&
  nm -D --defined-only libabimix.so | c++filt | grep -q "name_old(std::basic_string<char"'
"$C" --no-color --checks stl-leak libabimix.so libabione.so >abi.txt 2>&1
contains "dual-ABI mix in the exported API: warning naming both functions" abi.txt \
  '^libabimix\.so: warning \[stl-leak\] dual-ABI mix in the exported API: _Z8name_new.* uses std::__cxx11, _Z8name_old.* uses the old-ABI'
lacks "one ABI only: no dual-ABI warning" abi.txt '^libabione\.so: .*dual-ABI' '^2 file\(s\) checked'

# A supplement of libstdc++ linked statically beside libstdc++.so.6, the way devtoolset/gcc-toolset (manylinux2014)
# links libstdc++_nonshared.a: its libstdc++.so is a linker script naming both. Here the archive holds libstdc++.a's
# thread.o, so the library exports std::thread's compiled code while it needs libstdc++.so.6.
A=$(g++ -print-file-name=libstdc++.a)
mkdir -p sup
if [ -f "$A" ] && (cd sup && ar x "$A" thread.o 2>/dev/null && ar rcs libsupp.a thread.o) &&
  printf 'INPUT(%s/sup/libsupp.a %s)\n' "$PWD" "$(g++ -print-file-name=libstdc++.so.6)" >sup/libstdc++.so &&
  printf '#include <thread>\nint run_two() { int x = 0; std::thread t([&] { x = 2; }); t.join(); return x; }\n' >thr.cpp &&
  g++ -O1 -fPIC -shared thr.cpp -o libthr.so -Lsup; then
  truth_lib=$(readelf --dyn-syms -W libthr.so | awk '$7 != "UND" && $5 == "GLOBAL" && ($6 == "DEFAULT" || $6 == "PROTECTED") {
    sub(/@.*/, "", $8); print $8 }' | grep -E '^_Z(T[VIST])?N?[VKRO]*(St|9__gnu_cxx)' | c++filt | sed 's/(.*//' | grep -vc '<')
  holds "supplement fixture: needs libstdc++.so.6 and exports $truth_lib non-template std:: definitions (readelf)" \
    sh -c "readelf -d libthr.so | grep -q 'NEEDED.*libstdc++.so.6' && [ $truth_lib -gt 3 ]"
  "$C" --no-color --checks stl-leak libthr.so >thr.txt 2>&1
  contains "supplement of libstdc++ beside libstdc++.so.6: a warning with readelf's count ($truth_lib)" thr.txt \
    "^libthr\\.so: warning \\[stl-leak\\] .*exports $truth_lib symbol\\(s\\) that the C\\+\\+ runtime defines .*although it links libstdc\\+\\+\\.so dynamically"
  lacks "... not the error of a whole static libstdc++" thr.txt '^libthr\.so: error' '^libthr\.so: '
  # the same supplement in a Python extension module (PyInit_<name>, as every manylinux2014 C++ module has it):
  # CPython dlopens it RTLD_LOCAL, so nothing binds to its exports
  printf 'extern "C" void *PyInit_thrmod() { return 0; }\n' >> thr.cpp
  g++ -O1 -fPIC -shared thr.cpp -o thrmod.cpython-311-x86_64-linux-gnu.so -Lsup
  "$C" --no-color --checks stl-leak thrmod.cpython-311-x86_64-linux-gnu.so >thrmod.txt 2>&1
  contains "... in a Python extension module: info, saying why" thrmod.txt \
    "^thrmod\\.cpython-311-x86_64-linux-gnu\\.so: info \\[stl-leak\\] .*exports $truth_lib symbol\\(s\\) .*CPython loads RTLD_LOCAL"
  lacks "... and no warning there" thrmod.txt 'warning \[stl-leak\]' '^thrmod\.'
else
  skip "no libstdc++.a with thread.o: supplement case"
fi

# Vague-linkage definitions with global binding (-fno-weak; some distribution and wheel builds look like this):
# inline functions of the headers are then global too, and still no sign of a linked-in libstdc++.
g++ -O1 -fPIC -shared -fno-weak -o libnoweak.so own.cpp
holds "-fno-weak fixture: its std:: instantiations have global binding (readelf)" sh -c \
  "readelf --dyn-syms -W libnoweak.so | awk '\$7 != \"UND\" && \$5 == \"GLOBAL\"' | grep -q ' _ZNSt6vectorIN4proj6MyType'"
"$C" --no-color --checks stl-leak libnoweak.so >noweak.txt 2>&1
lacks "-fno-weak: no error or warning" noweak.txt '^libnoweak\.so: (error|warning) \[stl-leak\]' '^libnoweak\.so: '
contains "-fno-weak: instantiations over own types reported as such" noweak.txt \
  '^libnoweak\.so: info \[stl-leak\] exports [0-9]+ std:: template instantiation\(s\) over its own types'

# A sanitizer runtime intercepts __cxa_throw & co. without any of libstdc++'s code: no error
ASAN=$(gcc -print-file-name=libasan.so)
if [ -f "$ASAN" ] && readelf --dyn-syms -W "$ASAN" | awk '$7 != "UND"' | grep -q ' __cxa_throw'; then
  "$C" --no-color --checks stl-leak "$ASAN" >asan.txt 2>&1
  lacks "sanitizer runtime defining __cxa_throw: no error" asan.txt 'error \[stl-leak\]' '^1 file\(s\) checked'
  contains "... an info naming it an interposer" asan.txt 'info \[stl-leak\] defines and exports [0-9]+ C\+\+ ABI runtime entry point\(s\), such as .*__cxa_throw.*interposer'
else
  skip "no libasan.so defining __cxa_throw"
fi

# An executable that prints through std::cout gets libstdc++'s std::cout copied into its .bss at load time (an
# R_X86_64_COPY relocation; readelf shows it): the library's object, not a definition of the program's own.
cat > $T/hello.cpp <<'C'
#include <iostream>
#include <stdexcept>
int main(int argc, char **) { if (argc > 5) throw std::runtime_error("x"); std::cout << "hi\n"; return 0; }
C
if g++ -O2 -g -o $T/hello $T/hello.cpp && readelf -rW $T/hello | grep -q 'R_X86_64_COPY .*_ZSt4cout'; then
  trueline-check --checks stl-leak $T/hello > $T/hello.txt 2>&1
  lacks "an executable's copy-relocated std::cout is no stl-leak warning or error" $T/hello.txt \
    '(warning|error) \[stl-leak\]' '^1 file\(s\) checked'
  lacks "... and is not counted as an export" $T/hello.txt 'such as std::cout' '^1 file\(s\) checked'
else
  skip "no R_X86_64_COPY for std::cout in a g++ executable here"
fi
