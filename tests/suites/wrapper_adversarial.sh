#!/usr/bin/env bash
# trueline-cc against hostile command lines, configurations and file systems: each case is compared with what
# the bare compiler does with the same input (the oracle), never with trueline-cc's own earlier output.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
printf 'int answer(void) { return 42; }\n' > a.c

# --- a dangling option at the end must not take the forced -g1 as its value -----------------------------
for opt in -o -I -D -include; do
  rm -rf bare tl; mkdir -p bare tl; cp a.c bare/; cp a.c tl/
  (cd bare && gcc -c a.c $opt >/dev/null 2>&1); rc_bare=$?
  (cd tl && trueline-cc gcc -c a.c $opt >/dev/null 2>tl.err); rc_tl=$?
  check "dangling $opt: bare gcc fails ($rc_bare), trueline-cc fails the same ($rc_tl)" test "$rc_bare" != 0 -a "$rc_tl" = "$rc_bare"
  check "dangling $opt: no object named after the forced flag" test ! -e tl/-g1 -a ! -e tl/-gline-tables-only
  check "dangling $opt: trueline-cc leaves what bare gcc leaves" \
    sh -c "cd bare && ls -A | grep -v '\.err\$' | sort > ../b.ls; cd ../tl && ls -A | grep -v '\.err\$' | sort > ../t.ls; cmp -s ../b.ls ../t.ls"
done
rm -f tl/i.o
(cd tl && trueline-cc gcc -c a.c -o i.o -I 2>/dev/null); rc=$?
check "-o i.o then a dangling -I: no object stamped without line info ($rc)" test "$rc" = 1 -a ! -e tl/i.o

# --- --trueline-* spelled as an operand belongs to the compiler --------------------------------------------
rm -rf bare tl; mkdir -p bare tl; cp a.c bare/; cp a.c tl/
(cd bare && gcc -c a.c -o --trueline-explain 2>/dev/null); rc_bare=$?
(cd tl && trueline-cc gcc -c a.c -o --trueline-explain 2>../op.err); rc_tl=$?
premise "bare gcc writes an object named --trueline-explain ($rc_bare)" test "$rc_bare" = 0 -a -s bare/--trueline-explain
check "the value of -o is not taken as trueline-cc's option ($rc_tl): the object has that name" \
  test "$rc_tl" = 0 -a -s tl/--trueline-explain
lacks "... and no explain output" op.err 'forced:'
(cd bare && gcc -c a.c -o --trueline-bogus 2>/dev/null); rc_bare=$?
(cd tl && trueline-cc gcc -c a.c -o --trueline-bogus 2>../op2.err); rc_tl=$?
check "an unknown --trueline-* as the value of -o is not refused ($rc_bare / $rc_tl)" \
  test "$rc_bare" = 0 -a "$rc_tl" = 0 -a -s tl/--trueline-bogus
(cd tl && trueline-cc --trueline-explain gcc -c a.c -o own.o 2>../own.err); rc_tl=$?
check "trueline-cc's own option still taken where it is an option ($rc_tl)" test "$rc_tl" = 0 -a -s tl/own.o
contains "... its explain output printed" own.err 'forced:'

# --- a repository's .trueline.ini cannot silently drop a security setting made outside it ---------------------
# The user's configuration is $XDG_CONFIG_HOME/trueline/config.ini (the harness points XDG_CONFIG_HOME into $T).
rm -rf repo; mkdir -p repo "$XDG_CONFIG_HOME/trueline" key; cp a.c repo/
head -c 32 /dev/urandom > key/k1; head -c 32 /dev/urandom > key/k2; chmod 600 key/k1 key/k2
user_ini=$XDG_CONFIG_HOME/trueline/config.ini
printf '[provenance]\nkey_file = %s\n[wrapper]\nexplain = true\n' "$T/key/k1" > "$user_ini"
printf '[provenance]\nkey_file =\n' > repo/.trueline.ini
(cd repo && trueline-cc gcc -c a.c -o drop.o 2>../drop.err); rc=$?
check "repository's file empties the user's key_file: refused, exit 2 ($rc), nothing compiled" test "$rc" = 2 -a ! -e repo/drop.o
contains "... the message names both files and the key" drop.err '\.trueline\.ini:2: \[provenance\] key_file = .*config\.ini:2'
printf '[provenance]\nkey_file = %s\n' "$T/key/k2" > repo/.trueline.ini
(cd repo && trueline-cc gcc -c a.c -o swap.o 2>../swap.err); rc=$?
check "repository's file swaps the key for its own: refused ($rc)" test "$rc" = 2 -a ! -e repo/swap.o
printf '[wrapper]\non_error = passthrough\n[provenance]\nverify = false\n' > repo/.trueline.ini
printf '[provenance]\nkey_file = %s\nverify = true\n' "$T/key/k1" > "$user_ini"
(cd repo && trueline-cc gcc -c a.c -o loose.o 2>../loose.err); rc=$?
check "repository's file turns verify off (with on_error = passthrough): refused all the same ($rc)" \
  test "$rc" = 2 -a ! -e repo/loose.o
contains "... naming verify" loose.err '\[provenance\] verify = false would loosen'
# what stays allowed: tightening, settings of its own, and the merge itself (the user's explain still applies)
printf '[provenance]\nverify = false\n[wrapper]\nexplain = true\n' > "$user_ini"
printf '[provenance]\nverify = true\nkey_file = %s\n[wrapper]\nhost_debug = g2\n' "$T/key/k2" > repo/.trueline.ini
(cd repo && trueline-cc gcc -c a.c -o tight.o 2>../tight.err); rc=$?
check "repository's file tightens verify and adds a key: compiled ($rc)" test "$rc" = 0 -a -s repo/tight.o
contains "... the user's explain = true merged in (explain printed)" tight.err '^trueline-cc: forced: -g2$'
printf '[provenance]\nkey_file =\n' > repo/.trueline.ini
printf '[provenance]\nkey_file = %s\n' "$T/key/k1" > "$user_ini"
(cd repo && TRUELINE_PROVENANCE_KEY_FILE= trueline-cc gcc -c a.c -o envd.o 2>../envd.err); rc=$?
check "the environment is the user's own: TRUELINE_PROVENANCE_KEY_FILE= decides, compiled ($rc)" test "$rc" = 0 -a -s repo/envd.o
rm -f "$user_ini"
(cd repo && trueline-cc gcc -c a.c -o alone.o 2>../alone.err); rc=$?
check "no user or system setting: the repository's file is free to leave key_file empty ($rc)" test "$rc" = 0 -a -s repo/alone.o

# --- a FIFO where the memo (or a statistics counter) goes must not block the compile --------------------------
rm -rf fifo; mkdir -p fifo/cache/trueline/provenance-stats; cp a.c fifo/
mkfifo fifo/cache/trueline/memo-v2
(cd fifo && gcc -c a.c -o bare.o); premise "bare gcc compiles a.c" test -s fifo/bare.o
(cd fifo && XDG_CACHE_HOME=$T/fifo/cache timeout 20 trueline-cc gcc -c a.c -o f.o 2>../fifo.err); rc=$?
check "a FIFO as the memo file: the compile finishes (exit $rc, 124 = blocked) and writes its object" test "$rc" = 0 -a -s fifo/f.o
check "... the memo saved as a regular file over the FIFO" test -f fifo/cache/trueline/memo-v2 -a ! -p fifo/cache/trueline/memo-v2
(cd fifo && XDG_CACHE_HOME=$T/fifo/cache timeout 20 trueline-cc gcc -c a.c -o f2.o 2>/dev/null); rc=$?
check "... and the next compile reads it (exit $rc)" test "$rc" = 0 -a -s fifo/f2.o
rm -rf fifo/cache; mkdir -p fifo/cache/trueline/provenance-stats
for c in verified mismatch no_note recompiled stamped unbound; do mkfifo fifo/cache/trueline/provenance-stats/$c; done
(cd fifo && XDG_CACHE_HOME=$T/fifo/cache timeout 20 trueline-cc gcc -c a.c -o s.o 2>/dev/null); rc=$?
check "FIFOs as the statistics counters: the compile finishes (exit $rc, 124 = blocked)" test "$rc" = 0 -a -s fifo/s.o

# --- nvcc -optf naming an endless file: bounded memory, a clear error -----------------------------------------
if have_nvcc; then
  printf '__global__ void k(int *p) { *p = 1; }\n' > k.cu
  # a 4 GiB address-space cap keeps an unbounded reader from taking the machine; the bound must answer first
  # (not under make asan: ASan reserves terabytes of address space for its shadow at start-up)
  vcap() { [ -n "${TRUELINE_SANITIZED:-}" ] || ulimit -v 4194304; }
  ( vcap; timeout 60 trueline-cc nvcc -optf /dev/zero -c k.cu -o z.o 2>zero.err ); rc=$?
  check "nvcc -optf /dev/zero: trueline-cc stops with exit 2 ($rc; 124 = still reading)" test "$rc" = 2 -a ! -e z.o
  contains "... naming the file and the bound it hit" zero.err '/dev/zero: options file larger than [0-9]+ MiB'
  if [ -n "${TRUELINE_SANITIZED:-}" ]; then skip "peak memory of -optf /dev/zero: not measured under sanitizers (shadow memory)"
  elif [ -x /usr/bin/time ]; then
    ( vcap; /usr/bin/time -f %M -o zero.rss trueline-cc nvcc -optf /dev/zero -c k.cu -o z.o 2>/dev/null )
    kb=$(tail -1 zero.rss)
    check "... its peak memory stays under 256 MB (${kb} KB)" test "${kb:-999999999}" -lt 262144
  else skip "/usr/bin/time not installed: the peak memory of -optf /dev/zero"; fi
  head -c 2000000 /dev/zero | tr '\0' ' ' > big.optf; echo '-DBIG=1' >> big.optf
  trueline-cc --trueline-explain --trueline-print-fingerprint nvcc -optf big.optf -c k.cu >/dev/null 2>big.err; rc=$?
  check "a 2 MB options file (spaces, then -DBIG=1) is still read whole ($rc)" test "$rc" = 0
  contains "... its last word folded in" big.err 'folded: options file big.optf: -DBIG=1$'
else skip "nvcc not installed: -optf /dev/zero"; fi

# --- a full disk while stamping leaves no object behind (as the compiler leaves none) -------------------------
# The file size limit (ulimit -f, SIGXFSZ ignored: writes past it fail with EFBIG) stands in for a full disk:
# set between the compiler's object and the stamped one, the compiler's write fits and the stamp's does not.
rm -rf full; mkdir -p full; cp a.c full/
(cd full && trap '' XFSZ && ulimit -f 0 && gcc -c a.c -o bare.o 2>/dev/null); rc_bare=$?
premise "bare gcc that cannot write its object fails ($rc_bare) and leaves none" test "$rc_bare" != 0 -a ! -e full/bare.o
(cd full && TRUELINE_PROVENANCE_STAMP=false trueline-cc gcc -c a.c -o s0.o && trueline-cc gcc -c a.c -o s1.o)
s0=$(stat -c %s full/s0.o 2>/dev/null || echo 0); s1=$(stat -c %s full/s1.o 2>/dev/null || echo 0)
blocks=$(( (s0 + 1023) / 1024 ))
if [ "$s0" -gt 0 ] && [ "$s1" -gt $(( blocks * 1024 )) ]; then
  (cd full && trap '' XFSZ && ulimit -f "$blocks" && trueline-cc gcc -c a.c -o f.o 2>../full.err); rc=$?
  check "no room for the stamp (limit $blocks KiB, object $s0 B, stamped $s1 B): the compile fails ($rc)" test "$rc" != 0
  check "... and no object is left for make to call up to date" test ! -e full/f.o
  contains "... the message says the stamp failed and the output was removed" full.err 'f\.o: cannot add \.note\.trueline: .*f\.o removed'
else skip "the stamp does not cross a KiB boundary here (object $s0 B, stamped $s1 B)"; fi
