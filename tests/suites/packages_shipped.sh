#!/usr/bin/env bash
# A package is judged as shipped (docs/packages.md): the release profile is the default when every input is a
# wheel or conda package; a claim the files do not meet fails the gate; an sdist, a link to a wheel and what a
# directory scan leaves out are said; "static libstdc++" only where the file defines the C++ runtime. Oracles:
# readelf (no .debug_line in the stripped fixtures; NEEDED entries), nm (whether __cxa_throw is defined),
# `auditwheel show` where installed (the tag the fixtures satisfy).
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1

mkwheel() { python3 "$TRUELINE_ROOT/tests/lib/mkwheel.py" "$@"; }
# run OUT COMMAND...: runs the command with stdout and stderr in OUT, and prints its exit status
run() { local out=$1; shift; "$@" > "$out" 2>&1; echo $?; }

EXT=_m.cpython-311-x86_64-linux-gnu.so
printf 'int helper(void) { return 3; }\n' > h.c
printf 'int helper(void);\nvoid *PyInit__m(void) { return (void *)(long)helper(); }\n' > m.c
premise "fixtures: a stripped extension that needs libhelper.so, and libhelper.so (readelf: no .debug_line)" sh -c "
  gcc -shared -fPIC h.c -o libhelper.so && gcc -shared -fPIC m.c -o $EXT -L. -lhelper -Wl,-rpath,'\$ORIGIN' &&
  strip --strip-debug $EXT libhelper.so && readelf -d $EXT | grep -q 'NEEDED.*libhelper.so' &&
  ! readelf -SW $EXT | grep -q '\.debug_line'"
OK=ok-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
BAD=bad-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
mkwheel $OK "ok/$EXT=$EXT" ok/libhelper.so=libhelper.so
mkwheel $BAD "bad/$EXT=$EXT"

# --- the release profile is a package's default ---------------------------------------------------------
rc=$(run ok.txt trueline-check $OK)
lacks "a stripped wheel: no line-tables error by default (the release profile)" ok.txt \
  'error \[line-tables\]' 'file\(s\) checked'
contains "... the claim is met" ok.txt 'the file name claims manylinux_2_17_x86_64: met'
same "... exit 0" 0 "$rc"
rc=$(run okb.txt trueline-check --profile build $OK)
# both stripped members (readelf above) carry the same error: said once for the package, with the count and the
# members' paths inside it
contains "--profile build: the stripped members' line-tables error, once for the package with the count" okb.txt \
  "^$OK: error \\[line-tables\\] no \\.debug_line: .* \\(in 2 members: ok/_m\\.cpython-311-x86_64-linux-gnu\\.so, ok/libhelper\\.so\\)"
lacks "... not once per member" okb.txt "^$OK!ok/[^:]*: error \\[line-tables\\]" "^$OK: error"
contains "... whose hint names the release profile" okb.txt 'hint: this file is a member of a package.*--profile release'
same "... exit 1" 1 "$rc"
printf '[audit]\nprofile = build\n' > build.ini
rc=$(run okc.txt trueline-check --config build.ini $OK)
contains "[audit] profile = build wins over the package default" okc.txt 'error \[line-tables\] no \.debug_line'
same "... exit 1" 1 "$rc"
# a conda package (.tar.bz2) is a package too
python3 -c 'import tarfile; t = tarfile.open("cp-1.0-0.tar.bz2", "w:bz2"); t.add("libhelper.so", "lib/libhelper.so"); t.close()'
rc=$(run conda.txt trueline-check cp-1.0-0.tar.bz2)
lacks "a conda .tar.bz2 alone: the release profile (no line-tables error for its stripped library)" conda.txt \
  'error \[line-tables\]' '^package cp-1\.0-0\.tar\.bz2'
rc=$(run condab.txt trueline-check --profile build cp-1.0-0.tar.bz2)
contains "... --profile build: the line-tables error" condab.txt '^cp-1\.0-0\.tar\.bz2!lib/libhelper\.so: error \[line-tables\] no \.debug_line'
rc=$(run mix.txt trueline-check $OK "$EXT")
contains "a wheel and a plain file together: the build profile" mix.txt "^$EXT: error \\[line-tables\\] no \\.debug_line"

# --- NOT met fails the gate ------------------------------------------------------------------------------
if have auditwheel; then
  aw=$(timeout 120 auditwheel show $BAD 2>/dev/null | tr '\n' ' ' |
    sed -n 's/.*consistent with the following platform tag: *"\([a-z0-9_]*\)_x86_64".*/\1/p')
  same "oracle: auditwheel calls the wheel without libhelper.so linux_x86_64" linux "$aw"
else
  skip "oracle: no auditwheel"
fi
rc=$(run bad.txt trueline-check $BAD)
contains "a wheel that needs a library it does not ship: NOT met" bad.txt \
  'the file name claims manylinux_2_17_x86_64: NOT met'
lacks "... and no finding at error" bad.txt ': error \[' 'file\(s\) checked'
same "... exit 1: the verdict fails the gate" 1 "$rc"
contains "... the summary line says why" bad.txt '; 1 package does NOT meet the tag its name claims'
trueline-check --format json --output bad.json $BAD > /dev/null 2>&1
same "json: summary.packages_not_met" 1 "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["packages_not_met"])' bad.json)"
rc=$(run both.txt trueline-check $OK $BAD)
same "two wheels, one NOT met: exit 1" 1 "$rc"
# the claim weighs as a finding of symbol-versions (the check of platform floors): its severity and --fail-on
rc=$(run only.txt trueline-check --checks line-tables $BAD)
contains "--checks line-tables: the verdict is still shown" only.txt 'manylinux_2_17_x86_64: NOT met'
same "... but does not fail the gate (symbol-versions not run): exit 0" 0 "$rc"
printf '[checks]\nsymbol-versions = warning\n' > sv_warn.ini
rc=$(run warn.txt trueline-check --config sv_warn.ini $BAD)
same "[checks] symbol-versions = warning: exit 0" 0 "$rc"
rc=$(run warn2.txt trueline-check --config sv_warn.ini --fail-on warning $BAD)
same "... with --fail-on warning: exit 1" 1 "$rc"

# --- an sdist, a link to a wheel, a directory scan --------------------------------------------------------
mkdir -p src/sd-1.0 && printf 'print(1)\n' > src/sd-1.0/setup.py && tar czf sd-1.0.tar.gz -C src sd-1.0
rc=$(run sd.txt trueline-check sd-1.0.tar.gz)
contains "an sdist: said to be a source distribution" sd.txt 'sd-1\.0\.tar\.gz: .*a Python source distribution \(sdist\)'
same "... exit 2 (a bad input)" 2 "$rc"
ln -sf $BAD latest.whl
rc=$(run link.txt trueline-check latest.whl)
contains "a link to a wheel: said to be one, naming its target" link.txt \
  "latest\\.whl: a link to the package .*/$BAD"
contains "... judged by the target's name (the claim is read from it)" link.txt \
  'the file name claims manylinux_2_17_x86_64: NOT met'
same "... exit 1" 1 "$rc"
trueline-check latest.whl > link-out.txt 2> /dev/null
contains "... the text report says it too (stdout)" link-out.txt \
  "given as latest\\.whl, a link to this package: judged as this file, by its name"
trueline-check --format json latest.whl > link.json 2> /dev/null
check "... JSON: the package's given_as_link is the path given, its path the target (readlink -f)" python3 -c '
import json, os, sys
p = json.load(open("link.json"))["packages"][0]
sys.exit(not (p["given_as_link"] == "latest.whl" and p["path"] == os.path.realpath("latest.whl")))'
trueline-check --format json $BAD > nolink.json 2> /dev/null
check "... a package given as itself has no given_as_link" python3 -c '
import json, sys
sys.exit("given_as_link" in json.load(open("nolink.json"))["packages"][0])'
mkdir -p dir && cp $OK dir/ && cp sd-1.0.tar.gz dir/ && ln -sf "$PWD/$OK" dir/again.whl
rc=$(run dir.txt trueline-check dir)
contains "a directory scan says what it skipped: the link and the sdist" dir.txt \
  'file\(s\) checked: .*did not follow 1 link to files; skipped 1 source distribution'
same "... exit status of a build-profile scan of the wheel alone" \
  "$(trueline-check --profile build $OK > /dev/null 2>&1; echo $?)" "$rc"
trueline-check --format json --output dir.json dir > /dev/null 2>&1
same "json: summary.skipped lists them" "1 1" "$(python3 -c '
import json, sys; s = json.load(open(sys.argv[1]))["summary"]["skipped"]
print(s["links_to_files"], s["source_distributions"])' dir.json)"

# --- "static libstdc++" only where the C++ runtime is defined ------------------------------------------------
cat > v.cpp <<'EOF'
#include <vector>
#include <stdexcept>
std::vector<int> make(int n) { if (n < 0) throw std::runtime_error("n"); return std::vector<int>(n, 1); }
int api(int n) { return (int)make(n).size(); }
EOF
premise "fixtures: g++ builds a module without -g that links libstdc++.so.6 (readelf) and leaves __cxa_throw undefined (nm)" sh -c '
  g++ -O1 -fPIC -shared v.cpp -o libdyn.so && readelf -d libdyn.so | grep -q "NEEDED.*libstdc++\.so\.6" &&
  nm libdyn.so | grep -q " U __cxa_throw"'
trueline-check --profile build libdyn.so > dyn.txt 2>&1
lacks "a module linking libstdc++.so.6: no 'static libstdc++'" dyn.txt 'static libstdc\+\+' 'file\(s\) checked'
contains "... its std:: code without -g is its own, in the no .debug_line error" dyn.txt \
  '^libdyn\.so: error \[line-tables\] no \.debug_line'
if g++ -O1 -fPIC -shared -static-libstdc++ v.cpp -o libsta.so 2>/dev/null && nm libsta.so | grep -q " T __cxa_throw"; then
  trueline-check --profile build libsta.so > sta.txt 2>&1
  contains "-static-libstdc++ (nm: __cxa_throw defined): its std:: functions are a static libstdc++'s" sta.txt \
    '^libsta\.so: info \[line-tables\] [0-9]+ functions of a static libstdc\+\+ have no line info'
else
  skip "-static-libstdc++: no libstdc++.a here"
fi

# --- "N functions have line rows but no DWARF subprogram": each one, with --verbose and in JSON ----------------
# a -g unit (subprogram api) with an assembly function appended to its .s: nosub has rows of the unit (.loc)
# and no subprogram. Oracle: nm's defined functions less readelf's DW_TAG_subprogram names.
printf 'int api(int x) { return x * 2; }\n' > u.c
premise "fixtures: libu.so, one unit with a subprogram and a function with .loc rows but none" sh -c '
  gcc -g -O1 -fPIC -S u.c -o u.s &&
  printf "\t.text\n\t.globl nosub\n\t.type nosub, @function\nnosub:\n\t.loc 1 1 5\n\tmovl \$1, %%eax\n\t.loc 1 1 9\n\tret\n\t.size nosub, .-nosub\n" >> u.s &&
  gcc -c u.s -o u.o && gcc -shared u.o -o libu.so'
nm --defined-only libu.so | awk '$2 == "T" { print $3 }' | sort > u.funcs
readelf --debug-dump=info libu.so | awk '/DW_TAG_subprogram/ { s = 1; next } /DW_TAG_/ { s = 0 } s && /DW_AT_name/ { print $NF }' | sort > u.subs
comm -23 u.funcs u.subs | grep -v '^_' > want_nosub.txt
premise "oracle: nm and readelf leave nosub (and only it) without a subprogram" test "$(cat want_nosub.txt)" = nosub
trueline-check --checks dwarf-symbols libu.so > u.txt 2>&1
contains "the count" u.txt '^libu\.so: info \[dwarf-symbols\] 1 function has line rows but no DWARF subprogram'
contains "... without --verbose the list is one line saying it is there" u.txt '^1 detail not shown \(--verbose lists it\)'
trueline-check --verbose --checks dwarf-symbols libu.so > uv.txt 2>&1
contains "--verbose: each function named, with its unit" uv.txt \
  '^libu\.so: info \[dwarf-symbols\] nosub: has line rows of unit u\.c but no DWARF subprogram of its own'
trueline-check --format json --checks dwarf-symbols libu.so > u.json 2>/dev/null
python3 -c 'import json, sys
print("\n".join(sorted(x["symbol"] for f in json.load(open(sys.argv[1]))["files"] for x in f["findings"]
      if x.get("detail") and "no DWARF subprogram" in x["message"])))' u.json > got_nosub.txt
check "json: the list is the functions nm has and readelf's subprograms lack" same_bytes want_nosub.txt got_nosub.txt

# --- JSON lists complete: every symbol above the claimed tag's maximum, not "and N more" ----------------------
cat > many.cpp <<'EOF2'
#include <string>
#include <sstream>
#include <thread>
#include <mutex>
#include <condition_variable>
std::string api(int n) {
  std::ostringstream o; std::mutex m; std::condition_variable cv; o << n << std::to_string(n);
  std::thread t([&] { std::lock_guard<std::mutex> g(m); cv.notify_all(); }); t.join(); return o.str() + std::string(n, 'x');
}
EOF2
premise "fixtures: g++ builds a library with C++11 symbols" g++ -O1 -fPIC -shared many.cpp -o libmany.so
mkwheel many-1.0-py3-none-manylinux1_x86_64.whl many/libmany.so=libmany.so
# oracle: objdump -T's undefined symbols whose GLIBCXX_ version is above manylinux1's GLIBCXX_3.4.8
objdump -T libmany.so | python3 -c '
import re, sys
n = 0
for line in sys.stdin:
    m = re.search(r"\*UND\*\s+\S+\s+(?:\(?)GLIBCXX_([0-9.]+)\)?\s+(\S+)", line)
    if m and tuple(int(x) for x in m.group(1).split(".")) > (3, 4, 8): n += 1
print(n)' > want_many.txt
premise "oracle: objdump -T lists more than 8 symbols above GLIBCXX_3.4.8" test "$(cat want_many.txt)" -gt 8
trueline-check many-1.0-py3-none-manylinux1_x86_64.whl > many.txt 2>&1
contains "text: the summary names 8 and counts the rest" many.txt \
  "error \\[symbol-versions\\] needs GLIBCXX_.* $(cat want_many.txt) symbol\\(s\\) need more: .* and $(( $(cat want_many.txt) - 8 )) more"
trueline-check --format json many-1.0-py3-none-manylinux1_x86_64.whl > many.json 2>/dev/null
same "json: one detail per symbol above GLIBCXX_3.4.8, as many as objdump -T lists" "$(cat want_many.txt)" \
  "$(python3 -c 'import json, sys
print(sum(1 for f in json.load(open(sys.argv[1]))["files"] for x in f["findings"] if x["check"] == "symbol-versions"
          and x.get("detail") and "GLIBCXX_" in x["message"]))' many.json)"

# --- one denominator for device images: the verdict counts the cubins line-tables counts -------------------------
# a kernel's .cu and a host-only .cu: nvcc gives the host-only one a cubin without a device function. Oracle:
# cuobjdump -elf, the cubins whose symbol table has a FUNC.
CUOBJDUMP=$(find_pypi_tool cuobjdump)
[ -n "$CUOBJDUMP" ] || CUOBJDUMP=$(command -v cuobjdump)
if have_nvcc && [ -n "$CUOBJDUMP" ]; then
  printf '__global__ void k(float *a) { a[threadIdx.x] *= 2.0f; }\nextern "C" void run(float *a) { k<<<1, 32>>>(a); }\n' > dk.cu
  printf 'extern "C" int host_only(int x) { return x + 1; }\n' > dh.cu
  premise "fixtures: nvcc builds a library of a kernel's .cu and a host-only .cu" sh -c "
    '$CUDA_HOME/bin/nvcc' -shared -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 dk.cu dh.cu -o libdev.so"
  mkwheel dv-1.0-py3-none-manylinux_2_17_x86_64.whl dv/libdev.so=libdev.so
  with_code=$("$CUOBJDUMP" -elf libdev.so 2>/dev/null |
    awk '/^Fatbin elf code:/ { if (f) n++; f = 0 } / FUNC / { f = 1 } END { if (f) n++; print n + 0 }')
  all=$("$CUOBJDUMP" -lelf libdev.so 2>/dev/null | grep -c '^ELF file')
  premise "oracle: cuobjdump lists more cubins ($all) than cubins with a device function ($with_code)" sh -c \
    "[ '$with_code' -gt 0 ] && [ '$all' -gt '$with_code' ]"
  trueline-check dv-1.0-py3-none-manylinux_2_17_x86_64.whl > dv.txt 2>&1
  contains "line-tables counts the cubins with device code ($with_code)" dv.txt \
    "none of its $with_code cubins"
  contains "... and the verdict's device line counts the same cubins" dv.txt \
    "device: kernels with line rows: 0 of [0-9]+ \\(in 0 of $with_code cubins with line info"
else
  skip "device image denominators: no nvcc or no cuobjdump"
fi

# --- the highest version's symbols: complete in JSON when the message names eight ------------------------------
# a library calling the threads and dl functions glibc 2.34 moved into libc (new versions there). Oracle:
# objdump -T, the undefined symbols at the highest GLIBC_ version; SKIP where the C library gives fewer than 9.
cat > hv.c <<'EOF2'
#include <pthread.h>
#include <dlfcn.h>
static void *run(void *a) { return a; }
static void once(void) {}
int api(void) {
  pthread_t t; pthread_key_t k; pthread_once_t o = PTHREAD_ONCE_INIT; pthread_attr_t at; pthread_mutexattr_t ma;
  pthread_attr_init(&at); pthread_attr_setstacksize(&at, 1 << 16); pthread_mutexattr_init(&ma);
  pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
  pthread_create(&t, &at, run, 0); pthread_join(t, 0); pthread_key_create(&k, 0); pthread_setspecific(k, &k);
  int r = pthread_getspecific(k) != 0; pthread_key_delete(k); pthread_once(&o, once);
  void *h = dlopen("libm.so.6", RTLD_NOW); if (h) { r += dlsym(h, "cos") != 0; dlclose(h); } else r += dlerror() != 0;
  pthread_t d; pthread_create(&d, 0, run, 0); pthread_detach(d); return r;
}
EOF2
premise "fixtures: gcc builds libhv.so" gcc -shared -fPIC hv.c -o libhv.so
objdump -T libhv.so | python3 -c '
import re, sys
v = [tuple(int(x) for x in m.group(1).split(".")) for m in (re.search(r"\*UND\*\s+\S+\s+\(?GLIBC_([0-9.]+)\)?\s", l) for l in sys.stdin) if m]
print(sum(1 for x in v if x == max(v)) if v else 0)' > want_hv.txt
if [ "$(cat want_hv.txt)" -gt 8 ]; then
  trueline-check --format json --checks symbol-versions libhv.so > hv.json 2>/dev/null
  same "json: one detail per symbol at the highest GLIBC_ version, as many as objdump -T lists" "$(cat want_hv.txt)" \
    "$(python3 -c 'import json, sys
print(sum(1 for f in json.load(open(sys.argv[1]))["files"] for x in f["findings"] if x.get("detail")
          and "the highest GLIBC_ version it needs" in x["message"]))' hv.json)"
else
  skip "highest-version details: this C library versions fewer than 9 of the fixture's symbols alike"
fi
