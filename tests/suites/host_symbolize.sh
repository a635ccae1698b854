#!/usr/bin/env bash
# --symbolize on host code, many addresses in one process: every instruction address objdump disassembles in
# programs and libraries built here (-O2 -g, templates and static inline functions inlined two and more deep),
# answered with --addr2line as binutils' `addr2line -f -i -C` answers it. The oracle runs once per address:
# binutils renames a DWARF function after its symbol for the rest of a run once asked about it, so its answer
# to one address depends on the addresses asked before.
source "$(dirname "$0")/../lib/harness.sh"
have gcc && have g++ && have addr2line && have objdump || { skip "gcc/g++/binutils missing"; exit 0; }
C=trueline-check
cd "$T" || exit 1
cat > sort.cpp <<'EOF'
#include <algorithm>
#include <cstdio>
#include <vector>
namespace geo {
struct P { double x, y; };
static inline double sq(double v) { return v * v; }
inline double dist2(const P &a, const P &b) { return sq(a.x - b.x) + sq(a.y - b.y); }
template <class T> T clampv(T v, T lo, T hi) { return v < lo ? lo : v > hi ? hi : v; }
}
double total(const std::vector<geo::P> &ps)
{
    double t = 0;
    for (size_t i = 1; i < ps.size(); i++)
        t += geo::clampv(geo::dist2(ps[i - 1], ps[i]), 0.0, 100.0);
    return t;
}
int main(int argc, char **argv)
{
    std::vector<geo::P> ps;
    for (int i = 0; i < argc * 10; i++)
        ps.push_back({(double)i, (double)(i * i % 7)});
    std::sort(ps.begin(), ps.end(), [](const geo::P &a, const geo::P &b) { return a.y < b.y; });
    std::printf("%f\n", total(ps));
}
EOF
cat > walk.c <<'EOF'
#include <stdlib.h>
static inline int sq(int x) { return x * x; }
static inline int poly(int x) { return sq(x) + 3 * x + sq(x + 1); }
static int __attribute__((noinline)) walk(const int *v, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += poly(v[i]) % 7;
    return s;
}
int api(int n)
{
    int *v = malloc(n * sizeof *v);
    for (int i = 0; i < n; i++)
        v[i] = i * 3;
    int r = walk(v, n);
    free(v);
    return r;
}
EOF
premise "fixtures build (-O2 -g)" sh -c 'g++ -O2 -g -o sortprog sort.cpp && gcc -O2 -g -fPIC -shared -o libwalk.so walk.c &&
  g++ -O2 -gdwarf-4 -o sortprog4 sort.cpp'

# compare BINARY: every address objdump shows, in one --symbolize process, against addr2line per address
compare() {
  objdump -d --no-show-raw-insn "$1" | awk '/^ *[0-9a-f]+:/ { sub(":", "", $1); print "0x" $1 }' > "$1.addrs"
  python3 - "$1" <<'PY'
import re, subprocess, sys
b = sys.argv[1]
addrs = open(b + ".addrs").read().split()
exp = {}
for a in addrs:
    out = subprocess.run(["addr2line", "-f", "-i", "-C", "-e", b, a], capture_output=True, text=True).stdout
    exp[a] = [re.sub(r" \(discriminator \d+\)$", "", l) for l in out.split("\n") if l]
# the addresses addr2line answers from DWARF (a file and line in the first frame): not the C runtime's
known = [a for a in addrs if len(exp[a]) >= 2 and not exp[a][1].startswith("??") and not exp[a][1].endswith(":?")]
p = subprocess.run(["trueline-check", "--symbolize", b, "--addr2line"], input="\n".join(known) + "\n",
                   capture_output=True, text=True)
out = p.stdout.split("\n")
i = bad = deep = 0
for a in known:
    want = exp[a]; got = out[i:i + len(want)]; i += len(want)
    deep += len(want) >= 6
    if got != want:
        bad += 1
        if bad <= 3: print("    |", a, "addr2line", want, "trueline", got)
# the others that a function symbol names (the C runtime's code, built without -g): that name, the file and
# line unknown (addr2line takes a file name from STT_FILE symbols there; not compared)
other = [a for a in addrs if a not in set(known) and exp[a] and exp[a][0] != "??"]
q = subprocess.run(["trueline-check", "--symbolize", b, "--addr2line"], input="\n".join(other) + "\n",
                   capture_output=True, text=True).stdout.split("\n")
named = sum(1 for k, a in enumerate(other) if q[2 * k] == exp[a][0] and q[2 * k + 1].endswith(":?"))
if named != len(other): bad += 1; print("    |", len(other) - named, "of", len(other), "symbol-named addresses differ")
print(len(known), bad, deep, p.returncode, i == len(out) - 1, len(other))
PY
}
for b in sortprog libwalk.so sortprog4; do
  r=$(compare "$b" | tee "$b.cmp" | tail -1)
  sed -n '/^    |/p' "$b.cmp"
  set -- $r
  check "$b: all $1 addresses answer as addr2line -f -i -C does, in one process ($3 with two or more inlined frames; $6 without DWARF named by their symbols)" \
    sh -c '[ "$1" -gt 50 ] && [ "$2" = 0 ] && [ "$4" = 0 ] && [ "$5" = True ]' _ "$@"
done
premise "sortprog: addr2line shows two or more inlined frames at more than 10 addresses (the comparison saw inlining)" \
  sh -c '[ "$(tail -1 sortprog.cmp | cut -d" " -f3)" -gt 10 ]'

# An assembly routine after a C function, as zstd's huf_decompress_amd64.S: global entry labels without .type
# (STT_NOTYPE) and a local one. binutils names an address after the nearest symbol before it, typed or not;
# with gas -g the routine has line rows (compared with file:line), without it only the name is compared.
cat > fast.S <<'EOF'
    .text
    .globl asm_loop
    .hidden asm_loop
    .p2align 4
asm_loop:
    movq %rdi, %rax
.Lloop:
    addq $1, %rax
    cmpq %rsi, %rax
    jb .Lloop
    ret
    .globl asm_tail
asm_tail:
    leaq 3(%rdi), %rax
    ret
local_entry:
    xorl %eax, %eax
    ret
    .section .note.GNU-stack,"",@progbits
EOF
cat > useasm.c <<'EOF'
long asm_loop(long a, long b);
long asm_tail(long a);
long use_asm(long a) { return asm_loop(a, a + 10) + asm_tail(a); }
EOF
premise "assembly fixtures build (C -g, .S with and without -g)" sh -c 'gcc -O2 -g -fPIC -c useasm.c -o useasm.o &&
  gcc -g -c fast.S -o fast_g.o && gcc -c fast.S -o fast.o && gcc -shared useasm.o fast_g.o -o libasm_g.so &&
  gcc -shared useasm.o fast.o -o libasm.so'
for b in libasm_g.so libasm.so; do
  # the shape: the routine's symbols are untyped (readelf), and addr2line names addresses in it after them
  nasm=$(objdump -d --no-show-raw-insn $b | awk '/^ *[0-9a-f]+:/ { sub(":", "", $1); print "0x" $1 }' |
         addr2line -f -e $b | grep -cxE 'asm_loop|asm_tail|local_entry')
  premise "$b: asm_loop, asm_tail, local_entry untyped (readelf), $nasm addresses named after them by addr2line" \
    sh -c "[ \$(readelf -sW $b | grep -cE 'NOTYPE .* (asm_loop|asm_tail|local_entry)\$') -ge 3 ] && [ $nasm -ge 8 ]"
  r=$(compare "$b" | tee "$b.cmp" | tail -1)
  sed -n '/^    |/p' "$b.cmp"
  set -- $r
  check "$b: each address of the C function and the assembly routine named as addr2line -f -i -C does ($1 from DWARF or line rows, $6 by symbol alone)" \
    sh -c '[ $(($1 + $6)) -ge 20 ] && [ "$2" = 0 ] && [ "$4" = 0 ] && [ "$5" = True ]' _ "$@"
done

# text and JSON forms for host code; a location that is no address; an address outside every function
main=0x$(nm sortprog | awk '$3 == "main" { print $1 }' | sed 's/^0*//')
"$C" --symbolize sortprog "$main" > t.txt 2>&1; rc=$?
check "text: a heading naming host code and the function, then #0 file:line in main" sh -c \
  '[ '$rc' = 0 ] && grep -q "^'$main' (host, main+0x0):$" t.txt && grep -q "^  #0 .*sort\.cpp:18 in main$" t.txt'
"$C" --symbolize sortprog "$main" --format json > t.json
check "json: the location, image host, frames with file and line" python3 -c '
import json, sys
o = json.loads(open("t.json").readline())
sys.exit(0 if o["location"] == sys.argv[1] and o["image"] == "host" and o["frames"][0]["line"] == 18 and o["frames"][0]["file"].endswith("sort.cpp") else 1)' "$main"
printf 'main+0x4\n%s\n0x1\n' "$main" | "$C" --symbolize sortprog --addr2line > bad.txt 2> bad.err; rc=$?
check "host: a FUNCTION+OFFSET and an address outside the code: ?? pairs in step, named on stderr, exit 2" sh -c \
  '[ '$rc' = 2 ] && [ "$(sed -n 1,2p bad.txt | paste -sd" ")" = "?? ??:0" ] && [ "$(sed -n 3p bad.txt)" = main ] &&
   [ "$(sed -n 5,6p bad.txt | paste -sd" ")" = "?? ??:0" ] && grep -q "main+0x4" bad.err && grep -q "0x1: no function" bad.err'
gcc -O2 -o nodebug walk.c -shared -fPIC
"$C" --symbolize nodebug 0x1000 > nd.txt 2> nd.err; rc=$?
check "a file without DWARF: exit 2, said on stderr" sh -c '[ '$rc' = 2 ] && grep -q "no cubin image, and no host DWARF" nd.err'
