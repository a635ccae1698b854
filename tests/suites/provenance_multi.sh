# Provenance for commands that write more than one object or no object at all: `-c` with several sources
# (every object stamped with its own source, launcher and chained through ccache, which runs such compiles
# itself), nvcc's -odir, and compile-and-link in one command (compile records written into the output).
. "$(dirname "$0")/../lib/harness.sh"

cd "$T" || exit 1
mkdir -p sub od
printf 'int a(void){return 1;}\n' > a.c
printf 'int b(void){return 2;}\n' > b.c
printf 'int c(void){return 3;}\n' > sub/c.c
printf 'int a(void);int b(void);int c(void);int main(void){return a()+b()+c()-6;}\n' > m.c
records() { [ -s "$1" ] || { echo missing; return; }; readelf -n "$1" 2>/dev/null | grep -c '^  trueline'; }
# source recorded in the object's (only) compile record
src_of() { trueline-check --provenance --format json "$1" | python3 -c '
import json,sys; r=[x for x in json.load(sys.stdin)[0]["records"] if x["kind"]=="compile"]
print(r[0]["source"] if len(r)==1 else "%d compile records" % len(r))'; }

# --- launcher: gcc -c with several sources, no -o: objects named after the sources, in the cwd ---
trueline-cc gcc -c a.c b.c sub/c.c; rc=$?
check "gcc -c a.c b.c sub/c.c: exit 0, a.o b.o c.o written" sh -c '[ $0 -eq 0 ] && [ -s a.o ] && [ -s b.o ] && [ -s c.o ]' $rc
for s in a:a.c b:b.c c:sub/c.c; do
  o=${s%%:*}.o want=${s#*:}
  check "launcher: $o carries one record" [ "$(records $o)" = 1 ]
  check "launcher: $o's record names its own source ($want)" [ "$(src_of $o)" = "$want" ]
done

# --- chained through ccache: ccache counts "multiple source files" and runs the compiler itself ---
if have ccache; then
  export CCACHE_DIR="$T/ccache" CCACHE_NOHASHDIR=1
  rm -f a.o b.o c.o
  trueline-cc --trueline-zero-stats >/dev/null
  trueline-cc ccache gcc -c a.c b.c sub/c.c 2> chained.err; rc=$?
  check "ccache gcc -c with three sources: exit 0, a.o b.o c.o written, no verification complaint" \
    sh -c '[ $0 -eq 0 ] && [ -s a.o ] && [ -s b.o ] && [ -s c.o ] && ! grep -Eq "does not match|recompiling|error" chained.err' $rc
  ccache --print-stats > ccs.txt
  contains "ccache did not cache it (multiple_source_files)" ccs.txt '^multiple_source_files[[:space:]]+1$'
  for s in a:a.c b:b.c c:sub/c.c; do
    o=${s%%:*}.o want=${s#*:}
    check "ccache multi-source: $o stamped once, source $want" [ "$(records $o):$(src_of $o)" = "1:$want" ]
  done
  trueline-cc --trueline-stats > st.txt
  contains "stats: three objects stamped" st.txt 'Objects stamped: +3$'
  contains "stats: nothing to verify (no cache hit possible)" st.txt 'verified: +0$'
  # a one-source compile in the same cache still goes through the stage and verifies
  trueline-cc ccache gcc -c a.c -o a1.o && trueline-cc ccache gcc -c a.c -o a2.o 2> one.err
  check "one-source compile next to it: hit is byte-identical" same_bytes a1.o a2.o
  check "one-source compile: verified (no mismatch reported for the hit)" sh -c '[ -s a2.o ] && ! grep -q "does not match" one.err'
  unset CCACHE_DIR CCACHE_NOHASHDIR
else skip "ccache not installed"; fi

# --- compile-and-link in one command: compile records (cl=1) + the link record in the output ---
trueline-cc gcc -c b.c -o b.o
trueline-cc gcc a.c b.o sub/c.c m.c -o app; rc=$?
check "compile-and-link: exit 0 and the program runs" sh -c '[ $0 -eq 0 ] && ./app' $rc
check "app: 3 compile records at the link + b.o's record + the link record" [ "$(records app)" = 5 ]
trueline-check --provenance app > app.txt
for s in a.c sub/c.c m.c; do
  contains "table: $s recorded at the link (cc@l)" app.txt "^  cc@l +${s//./\\.} +gcc "
done
contains "table: b.o keeps its own compile record" app.txt '^  cc +b\.c +gcc '
contains "table: the link record names the output" app.txt '^  link +app +gcc '
check "table: every row's fingerprint starts under the FINGERPRINT header (columns as wide as their values)" \
  awk '/ KIND /{c = index($0, "FINGERPRINT")} /^  (cc|cc@l|link) /{n++; if (substr($0, c, 17) !~ /^[0-9a-f]+ $/) bad++}
       END {exit !(c > 0 && n == 5 && !bad)}' app.txt
trueline-check --provenance --format json app > app.json
check "json: at_link set on exactly the three records, argv left out of them, kept in the link record" python3 -c '
import json,sys; r=json.load(open("app.json"))[0]["records"]
at=[x["source"] for x in r if x["at_link"]]
link=[x for x in r if x["kind"]=="link"]
ok = sorted(at)==["a.c","m.c","sub/c.c"] and all(x["argv"] is None for x in r if x["at_link"]) \
     and len(link)==1 and "sub/c.c" in link[0]["argv"] and len({x["argv_hash"] for x in r if x["at_link"]})==1
sys.exit(0 if ok else 1)'
trueline-check --checks provenance --fail-on info app > appchk.txt 2>&1; rc=$?
check "provenance check: every compile unit of app has a record (exit 0)" sh -c '[ $0 -eq 0 ] && grep -q "file(s) checked" appchk.txt' $rc
lacks "provenance check: no unit reported as built outside the wrapper" appchk.txt 'no provenance record' 'file\(s\) checked'
if have ccache; then
  CCACHE_DIR="$T/ccache" trueline-cc ccache gcc a.c b.o sub/c.c m.c -o app2; rc=$?
  check "ccache compile-and-link: exit 0, same records" [ $rc -eq 0 -a "$(records app2)" = 5 ]
fi

# --- nvcc: several sources, -odir, launcher and chained ---
if have_nvcc; then
  printf '__global__ void k(int *p){p[0]=1;}\n' > k.cu
  printf '__global__ void j(int *p){p[0]=2;}\n' > j.cu
  trueline-cc nvcc -arch=sm_90 -c k.cu j.cu -odir od; rc=$?
  check "nvcc -c k.cu j.cu -odir od: exit 0, od/k.o and od/j.o written" sh -c '[ $0 -eq 0 ] && [ -s od/k.o ] && [ -s od/j.o ]' $rc
  check "nvcc -odir: both objects stamped with their own source" \
    [ "$(src_of od/k.o),$(src_of od/j.o)" = "k.cu,j.cu" ]
  check "nvcc -odir: nothing stamped in the cwd (the objects in od/ are)" [ ! -e k.o -a ! -e j.o -a "$(records od/k.o)" = 1 ]
  trueline-check --provenance od/k.o > nvtable.txt
  contains "table: nvcc's version string whole, not cut to a column" nvtable.txt \
    '^  cc +k\.cu +nvcc +Cuda compilation tools, release [0-9]+\.[0-9]+, V[0-9]+\.[0-9]+\.[0-9]+ +[0-9a-f]{16} '
  if have ccache; then
    CCACHE_DIR="$T/ccache" trueline-cc ccache nvcc -arch=sm_90 -c k.cu j.cu 2> nv.err; rc=$?
    check "ccache nvcc -c k.cu j.cu: exit 0, k.o and j.o written" sh -c '[ $0 -eq 0 ] && [ -s k.o ] && [ -s j.o ]' $rc
    check "ccache nvcc multi-source: both objects stamped once, own source" \
      [ "$(records k.o)$(src_of k.o),$(records j.o)$(src_of j.o)" = "1k.cu,1j.cu" ]
    check "ccache nvcc multi-source: no complaint (the objects written)" sh -c '[ -s k.o ] && [ -s j.o ] && ! grep -Eq "does not match|error" nv.err'
  fi
else skip "nvcc not found: nvcc multi-source not tested"; fi
