# Provenance notes: stamping by trueline-cc (launcher and through ccache's stamping stage), survival
# through ld -r / -shared / executables / ar / strip / objcopy, cache-hit verification (a poisoned ccache
# entry is caught and rebuilt), and the checker's provenance check and --provenance table.
. "$(dirname "$0")/../lib/harness.sh"

cd "$T" || exit 1
printf 'int a(void){return 1;}\n' > a.c
printf 'int b(void){return 2;}\n' > b.c
printf 'int a(void);int b(void);int main(void){return a()+b()-3;}\n' > m.c
printf 'int v(void){return V;}\n' > v.c
# the number of trueline records readelf finds; "missing" when there is no file to count in
notes() { [ -s "$1" ] || { echo missing; return; }; readelf -n "$1" 2>/dev/null | grep -c '^  trueline'; }

# --- stamping without a cache (launcher mode) ---
for f in a b m; do trueline-cc gcc -fPIC -c $f.c -o $f.o; done
check "launcher: -c object carries one record" [ "$(notes a.o)" = 1 ]
readelf -W -S a.o > sec.txt
contains "note section is SHT_NOTE" sec.txt '\.note\.trueline +NOTE'
lacks "note section is not allocated (no run-time cost)" sec.txt '\.note\.trueline +NOTE( +[0-9a-f]+){4} +[A-Z]*A' \
  '\.note\.trueline +NOTE'
trueline-check --provenance a.o > table.txt; rc=$?
check "--provenance exits 0 (a table printed)" sh -c '[ $0 -eq 0 ] && grep -q "^a\.o: 1 provenance record" table.txt' $rc
contains "--provenance names source and compiler" table.txt 'cc +a\.c +gcc +gcc '
contains "--provenance shows forced line info" table.txt 'forced -g1'
trueline-check --provenance --format json a.o > table.json
check "--provenance json parses and carries the fingerprint" python3 -c '
import json,sys; d=json.load(open("table.json")); r=d[0]["records"][0]
sys.exit(0 if len(r["fingerprint"])==32 and r["source"]=="a.c" and "-g1" in r["argv"] else 1)'
fp=$(trueline-cc --trueline-print-fingerprint gcc -c a.c -o /dev/null)
check "record's fingerprint is the wrapper's (${fp:0:16})" sh -c '[ ${#1} -eq 32 ] && grep -q -- "${1%????????????????}" table.txt' _ "$fp"
if have clang; then
  trueline-cc clang -c a.c -o ca.o
  trueline-check --provenance ca.o > ctable.txt
  contains "clang object stamped (line-tables-only forced)" ctable.txt 'clang .*forced -gline-tables-only'
else skip "clang not installed"; fi

# --- survival through the link and binutils ---
trueline-cc gcc -shared a.o b.o -o libab.so
trueline-cc gcc m.o a.o b.o -o exe
check "the executable linked through trueline-cc runs" ./exe
ld -r a.o b.o -o ab.o
ar rcs libab.a a.o b.o
check "ld -r keeps both records" [ "$(notes ab.o)" = 2 ]
check "ld -shared: 2 compile records + the link record" [ "$(notes libab.so)" = 3 ]
check "executable: 3 compile records + the link record" [ "$(notes exe)" = 4 ]
trueline-check --provenance libab.a libab.so > t2.txt
contains "ar: members keep their records" t2.txt 'libab\.a\(b\.o\): 1 provenance record'
contains "link record names the output" t2.txt 'link +libab\.so'
strip --strip-debug -o sdbg.so libab.so; strip --strip-all -o sall.so libab.so
objcopy --only-keep-debug libab.so kd.debug
check "strip --strip-debug keeps the records" [ "$(notes sdbg.so)" = 3 ]
check "objcopy --only-keep-debug keeps the records" [ "$(notes kd.debug)" = 3 ]
check "strip --strip-all keeps the records (binutils keeps non-allocated notes)" [ "$(notes sall.so)" = 3 ]
objcopy --remove-section=.note.trueline sall.so none.so
check "objcopy --remove-section removes them" [ "$(notes none.so)" = 0 ]
readelf -lW libab.so > segs.txt
lacks "no segment maps the notes" segs.txt 'note\.trueline' '^ +LOAD'

# --- the provenance check ---
trueline-check --checks provenance libab.so exe > chk.txt 2>&1; rc=$?
check "one toolchain: no error" sh -c '[ $0 -eq 0 ] && grep -q "^2 file(s) checked" chk.txt' $rc
# a second gcc whose driver differs by one byte; cc1 is found relative to it (../lib/gcc/...)
mkdir -p tc/bin && cp "$(command -v gcc | xargs readlink -f)" tc/bin/gcc && printf 'x' >> tc/bin/gcc
ln -s "$(dirname "$(dirname "$(gcc -print-prog-name=cc1)")")/../.." tc/lib
trueline-cc "$T/tc/bin/gcc" -fPIC -c b.c -o b2.o
trueline-cc gcc -shared a.o b2.o -o libmix.so
trueline-check --checks provenance libmix.so > mix.txt 2>&1; rc=$?
check "two gcc toolchains in one artifact: exit 1" [ $rc -eq 1 ]
contains "two gcc toolchains: named with both sources" mix.txt 'several gcc toolchains.*a\.c.*b\.c'
TRUELINE_WRAPPER_HOST_DEBUG=keep trueline-cc gcc -fPIC -c b.c -o b3.o
trueline-cc gcc -shared a.o b3.o -o libnoli.so
trueline-check --checks provenance --fail-on warning libnoli.so > noli.txt 2>&1
contains "object without forced line info reported" noli.txt 'b\.c was compiled without forced line info'
gcc -fPIC -g -c b.c -o b4.o
trueline-check --checks provenance --fail-on info b4.o > none.txt 2>&1
contains "object built outside the wrapper: no records" none.txt 'no provenance records'
trueline-cc gcc -shared a.o b4.o -o libpart.so
trueline-check --checks provenance --fail-on warning libpart.so > part.txt 2>&1
contains "a compile unit built outside the wrapper is found by its DWARF" part.txt \
  '1 of 2 compile units have no provenance record.*b\.c'
trueline-check --provenance libpart.so > part.tab
contains "--provenance lists the unit built outside the wrapper" part.tab '^  -    b\.c$'
check "--provenance does not list recorded units as missing (a.c has its record)" \
  sh -c '! grep -q "^  -    a\.c$" part.tab && grep -Eq "^  cc +a\.c +gcc " part.tab'
for fmt in json sarif junit; do
  trueline-check --checks provenance --format $fmt libmix.so > mix.$fmt 2>&1
  contains "$fmt report carries the provenance finding" mix.$fmt 'several gcc toolchains'
done
check "json report: finding under check id provenance" python3 -c '
import json,sys; d=json.load(open("mix.json"))
sys.exit(0 if any(f["check"]=="provenance" and f["severity"]=="error" for x in d["files"] for f in x["findings"]) else 1)'
# a damaged record: the file is still read, the damage is a finding, nothing crashes
cp a.o dmg.o
python3 - <<'PY'
import struct
d = bytearray(open("dmg.o", "rb").read())
shoff, = struct.unpack_from("<Q", d, 0x28); n, = struct.unpack_from("<H", d, 0x3c)
for i in range(n):
    o = shoff + 64 * i
    if struct.unpack_from("<I", d, o + 4)[0] == 7:          # SHT_NOTE: ours is the last one
        off, = struct.unpack_from("<Q", d, o + 24)
struct.pack_into("<I", d, off + 4, 0x7fffffff)             # descsz far past the section
open("dmg.o", "wb").write(d)
PY
trueline-check --checks provenance dmg.o > dmg.txt 2>&1; rc=$?
check "damaged record: findings, not a crash" [ $rc -eq 1 ]
contains "damaged record named" dmg.txt 'damaged provenance section.*extends past'

# --- through ccache: the stamping stage, verification, a poisoned entry ---
if have ccache; then
  export CCACHE_DIR="$T/ccache" CCACHE_NOHASHDIR=1
  trueline-cc --trueline-zero-stats >/dev/null
  trueline-cc ccache gcc -DV=1 -c v.c -o v1.o
  trueline-cc ccache gcc -DV=1 -c v.c -o v1b.o
  check "ccache miss: object stamped inside the cache's compile" [ "$(notes v1.o)" = 1 ]
  check "ccache hit: same stamped object" sh -c 'cmp -s v1.o v1b.o && [ "$(readelf -n v1b.o | grep -c "^  trueline")" = 1 ]'
  ccache -s > cs.txt
  contains "ccache direct mode still hits" cs.txt 'Direct: +1 /'
  trueline-cc --trueline-stats > st.txt
  contains "stats: 2 verified" st.txt 'verified: +2$'
  contains "stats: 0 mismatches" st.txt 'Mismatches: +0$'
  # the hit path's cost (docs/provenance.md "Cost on the hit path"): the wrapper opens the object once
  # (open or openat: musl's open() is the open system call, glibc's is openat)
  # (the ELF-type test is made on the header the verifier reads) and reads the configuration once
  if [ -n "${TRUELINE_SANITIZED:-}" ]; then skip "sanitized build: LeakSanitizer does not run under ptrace (strace)"
  elif have strace; then
    # a hit is verified inside ccache's own process (wrapper/provenance/verify_in_cache.c): the wrapper execs ccache
    # with libtrueline-hook.so preloaded, and no second process waits for it
    strace -f -e trace=execve,open,openat,access,vfork,clone,clone3 -o hit.st trueline-cc ccache gcc -DV=1 -c v.c -o v1c.o
    # the wrapper's pid: the process that execs trueline-cc (strace -f interleaves the children's lines)
    wp=$(grep -m1 'execve("[^"]*trueline-cc"' hit.st | awk '{print $1}')
    # execs_alone PID FILE: PID execs ccache and starts no process of its own
    execs_alone() { [ -n "$1" ] && grep -Eq "^$1 +execve\\(\"[^\"]*ccache\"" "$2" && ! grep -Eq "^$1 +(vfork|clone)" "$2"; }
    check "hit path: the wrapper execs ccache, no second process waits" execs_alone "$wp" hit.st
    check "hit path: ccache loads the hook" grep -Eq "^$wp +openat\\(.*libtrueline-hook\\.so\", O_RDONLY" hit.st
    lacks "hit path: the hook verifies the hit itself (no repair run)" hit.st 'trueline-hook-fixup' 'libtrueline-hook\.so'
    check "hit path: the object is read once, to verify it" [ "$(grep -Ec "^$wp +(open|openat)\\(.*\"v1c\.o\", O_RDONLY" hit.st)" = 1 ]
    n=$(grep -Ec "^$wp +access\\(.*trueline" hit.st)
    check "hit path: the configuration is looked up once ($n access calls, the hook library's one included)" \
      [ -n "$wp" -a "$n" -ge 1 -a "$n" -le 4 ]
    [ -n "$wp" ] && [ "$n" -ge 1 ] && [ "$n" -le 4 ] ||
      { echo "    wrapper pid '$wp'; its calls:"; grep -E "^$wp +|execve" hit.st | head -20 | sed 's/^/    | /'; }
    check "hit path: the object is verified (same bytes)" cmp -s v1.o v1c.o
    # [provenance] verify_in_cache = false: the wrapper waits for ccache and verifies itself, opening the
    # object once
    TRUELINE_PROVENANCE_VERIFY_IN_CACHE=false strace -f -e trace=execve,open,openat,vfork -o wait.st \
      trueline-cc ccache gcc -DV=1 -c v.c -o v1w.o
    wp=$(grep -m1 'execve("[^"]*trueline-cc"' wait.st | awk '{print $1}')
    waits_opens_once() { [ -n "$1" ] && grep -Eq "^$1 +vfork" "$2" && [ "$(grep -Ec "^$1 +(open|openat)\\(.*\"$3\"" "$2")" = 1 ]; }
    check "verify_in_cache = false: the wrapper waits (vfork) and opens the object once" waits_opens_once "$wp" wait.st 'v1w\.o'
    # posix_spawn's child reset all 64 signal dispositions (128 rt_sigaction calls on every hit); the waiting
    # wrapper runs ccache with vfork + execv, its child making no rt_sigaction call at all
    TRUELINE_PROVENANCE_VERIFY_IN_CACHE=false strace -f -e trace=execve,rt_sigaction,vfork,clone,clone3 -o sig.st \
      trueline-cc ccache gcc -DV=1 -c v.c -o v1s.o
    cp=$(grep -m1 'execve("[^"]*ccache"' sig.st | awk '{print $1}')
    # its rt_sigaction calls up to its execve of ccache (ccache installs its own handlers after the exec)
    before_exec() { awk -v p="$1" '$1 == p && /execve\("[^"]*ccache"/ { exit } $1 == p && / rt_sigaction\(/ { n++ } END { print n + 0 }' "$2"; }
    check "waiting wrapper: the child that runs ccache sets no signal disposition before exec ($(before_exec "$cp" sig.st) calls)" \
      [ -n "$cp" -a "$(before_exec "$cp" sig.st)" = 0 -a "$cp" != "$(grep -m1 'execve("[^"]*trueline-cc"' sig.st | awk '{print $1}')" ]
    # no hook library beside trueline-cc (a copy elsewhere): it waits and verifies, never hands ccache a
    # preload that is not there
    mkdir -p solo/bin && cp "$(command -v trueline-cc)" solo/bin/
    strace -f -e trace=execve,vfork -o solo.st solo/bin/trueline-cc ccache gcc -DV=1 -c v.c -o v1n.o
    wp=$(grep -m1 'execve("[^"]*trueline-cc"' solo.st | awk '{print $1}')
    check "no hook library: the wrapper waits for ccache" grep -Eq "^${wp:-none} +vfork" solo.st
    check "no hook library: the hit is still the verified object" cmp -s v1.o v1n.o
    # the user's own LD_PRELOAD: ccache loads it with the hook, and everything ccache starts (the stage,
    # gcc, cc1, as on this miss) gets exactly the user's value back, never the hook
    cat > mark.c <<'SRC'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void)
{
    const char *f = getenv("MARK_FILE"), *p = getenv("LD_PRELOAD");
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    FILE *o = f ? fopen(f, "a") : NULL;
    if (!o)
        return;
    exe[n > 0 ? n : 0] = 0;
    fprintf(o, "%s %s\n", exe, p ? p : "-");
    fclose(o);
}
SRC
    gcc -shared -fPIC -o mark.so mark.c
    LD_PRELOAD=$PWD/mark.so MARK_FILE=$PWD/mark.txt trueline-cc ccache gcc -DV=9 -c v.c -o v9.o
    contains "user LD_PRELOAD: ccache loaded it beside the hook" mark.txt 'ccache .*libtrueline-hook\.so:.*/mark\.so$'
    contains "user LD_PRELOAD: the compiler ccache ran got it" mark.txt "/cc1 $PWD/mark.so\$"
    lacks "user LD_PRELOAD: nothing ccache started loaded the hook" <(grep -v '/ccache ' mark.txt) 'libtrueline-hook' '/cc1 '
    # [provenance] verify = false: the stage still stamps on a miss, and with nothing to do after the
    # compile the wrapper execs ccache instead of waiting for it
    TRUELINE_PROVENANCE_VERIFY=false trueline-cc ccache gcc -DV=7 -c v.c -o nv1.o
    check "verify off: a miss is still stamped (by the stage)" bash -c "readelf -S nv1.o | grep -q '\.note\.trueline'"
    TRUELINE_PROVENANCE_VERIFY=false strace -f -e trace=execve,vfork,clone,clone3 -o nover.st trueline-cc ccache gcc -DV=7 -c v.c -o nv2.o
    wp=$(grep -m1 'execve("[^"]*trueline-cc"' nover.st | awk '{print $1}')
    check "verify off: the wrapper execs ccache (no second process)" execs_alone "$wp" nover.st
    check "verify off: the hit returns the stamped object" sh -c 'cmp -s nv1.o nv2.o && [ "$(readelf -n nv2.o | grep -c "^  trueline")" = 1 ]'
    # a failed compile is never verified against the object a previous build left there
    printf 'int broken(\n' > bad.c
    cp v1.o old.o
    trueline-cc ccache gcc -c bad.c -o old.o 2> bad.err; rc=$?
    gcc -c bad.c -o /dev/null 2> bad.gcc.err; grc=$?
    check "failed compile: the compiler's exit status ($rc, bare gcc $grc)" [ $rc -ne 0 -a $rc -eq $grc ]
    lacks "failed compile: the stale object is not verified or repaired" bad.err 'does not match|recompiling' 'error'
    check "failed compile: the stale object is left as it was" cmp -s v1.o old.o
  else skip "strace not installed: hit-path syscalls not checked"; fi
  CCACHE_DEPEND=1 trueline-cc ccache gcc -DV=3 -MD -c v.c -o d1.o
  CCACHE_DEPEND=1 trueline-cc ccache gcc -DV=3 -MD -c v.c -o d2.o 2> dep.err
  check "depend mode: hit, verified, identical" same_bytes d1.o d2.o
  check "depend mode: no mismatch (the hit written)" sh -c '[ -s d2.o ] && ! grep -q "does not match" dep.err'
  # poison: make the entry for -DV=2 -O1 hold the -O0 object of -DV=2 (what a shared cache with a bad key does;
  # an option the preprocessor reads would not do: for gcc the cache keys those by the preprocessed text)
  trueline-cc ccache gcc -DV=2 -c v.c -o v2o0.o
  r1=$(ls -t "$CCACHE_DIR"/*/*/*R | head -1)
  touch -d '1 minute ago' "$CCACHE_DIR"/*/*/*R
  trueline-cc ccache gcc -DV=2 -O1 -c v.c -o v2.o
  r2=$(find "$CCACHE_DIR" -name '*R' -newer "$r1" | head -1)
  premise "found both cache entries" [ -n "$r1" -a -n "$r2" -a "$r1" != "$r2" ]
  cp "$r1" "$r2"
  trueline-cc ccache gcc -DV=2 -O1 -c v.c -o v2.o 2> poison.err; rc=$?
  check "poisoned hit: compile still succeeds (recompiled)" [ $rc -eq 0 ]
  contains "poisoned hit: what differs is named" poison.err 'only in this invocation: -O1'
  objdump -d v2.o > v2.dis
  contains "poisoned hit: the object is the right one" v2.dis 'mov +\$0x2,'
  lacks "poisoned hit: no -O0 code left (a frame pointer pushed)" v2.dis 'push +%rbp' 'mov +\$0x2,'
  trueline-cc --trueline-stats > st2.txt
  contains "stats count the mismatch" st2.txt 'Mismatches: +1$'
  contains "stats count the recompile" st2.txt 'Recompiled after a mismatch: +1$'
  trueline-cc ccache gcc -DV=2 -O1 -c v.c -o v2h.o 2> healed.err
  lacks "the recompile replaced the bad entry: next hit verifies" healed.err 'does not match'
  check "the healed hit is the right object" cmp -s v2.o v2h.o
  cp "$r1" "$r2" # poison again
  TRUELINE_PROVENANCE_ON_MISMATCH=fail trueline-cc ccache gcc -DV=2 -O1 -c v.c -o v2f.o 2> fail.err; rc=$?
  check "on_mismatch=fail fails the compile" [ $rc -ne 0 ]
  contains "on_mismatch=fail says why" fail.err 'on_mismatch = fail'
  unset CCACHE_DIR CCACHE_NOHASHDIR
else skip "ccache not installed"; fi

# --- nvcc host object (fatbin inside), -G reported ---
if have_nvcc; then
  printf '__global__ void k(int *p){p[threadIdx.x]*=2;}\n' > k.cu
  trueline-cc nvcc -arch=sm_90 -G -Xcompiler=-fPIC -c k.cu -o kG.o
  trueline-check --provenance kG.o > kg.txt
  contains "nvcc object stamped, -G recorded" kg.txt 'cc +k\.cu +nvcc .* yes +matches$'
  trueline-check --checks provenance --fail-on warning kG.o > kgc.txt 2>&1
  contains "-G object reported" kgc.txt 'k\.cu was compiled with -G'
  trueline-check --checks provenance --release kG.o > kgr.txt 2>&1; rc=$?
  check "-G in a --release audit is an error" [ $rc -eq 1 ]
  trueline-cc g++ -shared kG.o a.o -o libcu.so
  trueline-check --checks provenance --fail-on warning libcu.so > kcu.txt 2>&1
  lacks "nvcc's host compile unit (tmpxft copy) matches its record" kcu.txt 'compile units have no provenance' 'k\.cu was compiled with -G'
else skip "nvcc not found: nvcc stamping not tested"; fi

# --- bad input ---
printf 'junk' > junk.o
trueline-check --provenance junk.o a.o > bad.txt 2> bad.err; rc=$?
check "--provenance: bad input exits 2" [ $rc -eq 2 ]
contains "--provenance: bad input named" bad.err 'junk\.o: not an ELF'
contains "--provenance: other inputs still printed" bad.txt '^a\.o: 1 provenance record'
