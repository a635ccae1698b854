# trueline-cc under load and faults, beyond what wrapper_basic.sh covers (its memo race uses
# --trueline-print-fingerprint; status 7, SIGTERM and SIGSEGV; an unwritable memo dir; a missing compiler):
# 64 real parallel compiles through ccache sharing one memo and one ccache dir, kill -9 storms while the memo is
# written, full and read-only cache filesystems, a compiler that is not executable, masquerade symlink loops,
# awkward argument bytes in argv and response files, every exit status 0-255 and every catchable signal, and
# stdout/stderr byte-for-byte with the bare compiler.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
W=$(command -v trueline-cc)
export XDG_CACHE_HOME=$T/cache
has_debug_line() { readelf -S "$1" 2>/dev/null | grep -q '\.debug_line'; }
memo_valid() { # memo file: header, then key<TAB>value lines only
  local m=$1
  [ -f "$m" ] && [ "$(head -1 "$m")" = "trueline-memo 2" ] && [ "$(tail -n +2 "$m" | grep -vc $'^[0-9a-f]\+:[0-9a-f]\+:[^\t]\+\t[^\t]*$')" = 0 ]
}
printf 'int answer(void) { return 42; }\n' > a.c

# --- 64 parallel compiles, one memo, one ccache dir: no corruption, no lost objects ------------------------------
if have ccache; then
  export CCACHE_DIR=$T/ccache CCACHE_NOHASHDIR=1 CCACHE_BASEDIR=$T
  mkdir -p par
  for i in $(seq 64); do printf 'int f%d(int x) { return x * %d; }\n' "$i" "$i" > "par/s$i.c"; done
  round() { # $1: tag
    local pids=() bad=0
    for i in $(seq 64); do
      trueline-cc ccache gcc -c "par/s$i.c" -o "par/s$i.$1.o" 2>"par/e$i.$1" & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
    for i in $(seq 64); do [ -s "par/s$i.$1.o" ] || bad=$((bad + 1)); done # a success writes its object
    echo $bad
  }
  ccache -z >/dev/null 2>&1
  check "64 parallel compiles through ccache: all succeed" test "$(round 1)" = 0
  missing=0; nodebug=0
  for i in $(seq 64); do
    [ -s "par/s$i.1.o" ] || missing=$((missing + 1))
    has_debug_line "par/s$i.1.o" || nodebug=$((nodebug + 1))
  done
  check "... no object lost ($missing missing)" test $missing = 0
  check "... every object has the forced line info ($nodebug without)" test $nodebug = 0
  check "... no error output (and every object written)" test -z "$(cat par/e*.1)" -a $missing = 0
  check "... the shared memo is intact" memo_valid "$XDG_CACHE_HOME/trueline/memo-v2"
  check "second round: all succeed" test "$(round 2)" = 0
  same=0; for i in $(seq 64); do cmp -s "par/s$i.1.o" "par/s$i.2.o" && same=$((same + 1)); done
  check "... each object identical to the first round's ($same of 64)" test $same = 64
  hits=$(ccache -s 2>/dev/null | sed -n 's/^ *\(Hits\|cache hit (direct)\|Direct\): *\([0-9]*\).*/\2/p' | head -1)
  check "... served from ccache (hits: ${hits:-?})" test "${hits:-0}" -ge 64
  unset CCACHE_DIR CCACHE_NOHASHDIR CCACHE_BASEDIR
else
  skip "64 parallel compiles through ccache (no ccache)"
fi

# --- kill -9 while the memo is being written: the next run recovers silently ------------------------------------
export XDG_CACHE_HOME=$T/killcache
memo=$XDG_CACHE_HOME/trueline/memo-v2
landed=0
for i in $(seq 40); do
  rm -f "$memo" # cold: every run has to write the memo
  trueline-cc gcc -c a.c -o k.o 2>/dev/null &
  pid=$!
  sleep "0.0$((RANDOM % 10))$((RANDOM % 10))"
  kill -9 $pid 2>/dev/null && landed=$((landed + 1))
  wait $pid 2>/dev/null
done
premise "kill -9 landed mid-run in $landed of 40 runs" test $landed -gt 0
# What a writer killed between its temp file and the rename leaves (deterministic, whatever the timing above did):
# a half-written temp of a process that no longer exists, next to a live writer's that must not be touched.
mkdir -p "$XDG_CACHE_HOME/trueline"
printf 'trueline-memo 2\n12:4:f:/usr/bin/gcc:1:2\tdead' > "$XDG_CACHE_HOME/trueline/.memo-v2.999999999.1.tmp"
sleep 30 & live=$!
printf 'trueline-memo 2\n' > "$XDG_CACHE_HOME/trueline/.memo-v2.$live.1.tmp"
# leave the debris of killed writers in place, then one normal compile
trueline-cc gcc -c a.c -o after.o 2>after.err; rc=$?
check "after 40 kill -9s: the next compile succeeds" test $rc = 0 -a -s after.o
check "... silently (no stderr)" test -s after.o -a ! -s after.err
check "... with the forced line info" has_debug_line after.o
check "... and the memo it leaves is intact" memo_valid "$memo"
printf 'trueline-memo 2\n12:8:f:/usr/bin/gcc:1:2\tdeadbeef' > "$memo"   # cut mid-line by a crash
trueline-cc --trueline-print-fingerprint gcc -c a.c >fp.cut 2>fp.err; rc=$?
trueline-cc --trueline-print-fingerprint gcc -c a.c >fp.fresh
check "a memo cut mid-line: compile goes on silently" test $rc = 0 -a -s fp.cut -a ! -s fp.err
check "... and its truncated entry is not trusted (same fingerprint as a fresh run)" same_bytes fp.cut fp.fresh
check "the temp file of a killed writer is swept by the next writer, a live writer's left alone" \
  test ! -e "$XDG_CACHE_HOME/trueline/.memo-v2.999999999.1.tmp" -a -e "$XDG_CACHE_HOME/trueline/.memo-v2.$live.1.tmp"
kill $live 2>/dev/null; wait $live 2>/dev/null

# --- full and read-only cache filesystems (root: a small tmpfs; otherwise skipped) -----------------------------
if [ "$(id -u)" = 0 ] && mkdir -p "$T/full" && mount -t tmpfs -o size=32k tmpfs "$T/full" 2>/dev/null; then
  trap 'umount "$T/full" "$T/ro" 2>/dev/null; rm -rf "$T"' EXIT
  mkdir -p "$T/full/trueline"
  dd if=/dev/zero of="$T/full/fill" bs=4k count=64 2>/dev/null   # ENOSPC: the tmpfs is now full
  # the unwritable memo is said once an hour (a marker under TMPDIR): a fresh TMPDIR makes this run the one
  mkdir -p "$T/tmp-full" "$T/tmp-ro"
  only_memo_warning() { # ERR-FILE REASON: the one line says why the memo cache cannot be written, nothing else
    [ "$(grep -c . "$1")" = 1 ] && grep -q "^trueline-cc: warning: $T/.*/trueline/[^ ]*memo-v2[^ ]*: cannot write memo cache: $2" "$1"; }
  TMPDIR=$T/tmp-full XDG_CACHE_HOME=$T/full trueline-cc gcc -c a.c -o full.o 2>full.err; rc=$?
  check "full cache filesystem: compile succeeds" test $rc = 0 -a -s full.o
  check "... with line info" has_debug_line full.o
  check "... and says only why the memo cache is not written (a cache is an optimisation)" only_memo_warning full.err 'No space left on device'
  check "... leaves no partial temp file" test -s full.o -a -z "$(ls -A "$T/full/trueline" | grep '\.tmp$')"
  umount "$T/full"
  mkdir -p "$T/ro"
  if mount -t tmpfs -o size=64k tmpfs "$T/ro" && mkdir -p "$T/ro/trueline" && mount -o remount,ro "$T/ro"; then
    TMPDIR=$T/tmp-ro XDG_CACHE_HOME=$T/ro trueline-cc gcc -c a.c -o ro.o 2>ro.err; rc=$?
    check "read-only cache filesystem: compile succeeds" test $rc = 0 -a -s ro.o
    check "... saying only why the memo cache is not written" only_memo_warning ro.err 'Read-only file system'
    umount "$T/ro"
  else
    skip "read-only cache filesystem (remount refused)"
  fi
else
  skip "full/read-only cache filesystems (needs root to mount a small tmpfs)"
  ( ulimit -f 1; XDG_CACHE_HOME=$T/fsize trueline-cc --trueline-print-fingerprint gcc -c a.c >/dev/null 2>&1 )
  check "file-size limit while writing the memo: no crash" test $? -lt 128
fi

# --- compiler missing or not executable --------------------------------------------------------------------------
printf '#!/bin/sh\nexit 0\n' > notexec.sh   # no x bit
trueline-cc ./notexec.sh -c a.c 2>nx.err; rc=$?
check "non-executable compiler: fails (status $rc), no crash" test $rc -ne 0 -a $rc -lt 128
contains "... the message names it" nx.err 'notexec\.sh'
trueline-cc "$T/no/such/gcc" -c a.c 2>ms.err; rc=$?
check "missing compiler by path: status 127 like a shell" test $rc = 127
contains "... the message names it" ms.err 'no/such/gcc'
mkdir -p emptybin
PATH=$T/emptybin "$W" gcc -c a.c 2>np.err; rc=$?
check "compiler absent from PATH: status 127" test $rc = 127

# --- masquerade symlink loops ----------------------------------------------------------------------------------
mkdir -p masq loop1 loop2 selfloop
ln -sf "$W" masq/gcc
ln -sf gcc selfloop/gcc                          # gcc -> gcc (ELOOP)
ln -sf "$T/loop2/gcc" loop1/gcc; ln -sf "$T/loop1/gcc" loop2/gcc   # a two-link cycle
ln -sf "$T/masq/gcc" loop1/cc                    # a link back to the masquerade itself
realgcc=$(command -v gcc); TO=$(command -v timeout)
PATH=$T/masq:$T/selfloop:$T/loop1:$T/loop2:$(dirname "$realgcc") "$TO" 20 gcc -c a.c -o masq.o 2>masq.err; rc=$?
check "masquerade past symlink loops on PATH: finds the real gcc (status $rc)" test $rc = 0 -a -s masq.o
check "... with line info" has_debug_line masq.o
ln -sf "$T/masq/gcc" loop2/gcc                   # now every gcc on PATH leads back to trueline-cc
PATH=$T/masq:$T/loop2 "$TO" 20 gcc -c a.c -o none.o 2>none.err; rc=$?
check "only loops and itself on PATH: fails cleanly (status $rc), no recursion, no hang" test $rc -ne 0 -a $rc -ne 124 -a $rc -lt 128
contains "... with a message" none.err 'trueline-cc'

# --- awkward bytes: spaces, quotes, newlines, non-UTF-8 in argv and in response files ------------------------------
cat > dump.sh <<'SH'
#!/bin/sh
# a compiler that records the exact argv it got, one NUL-terminated element each
for a in "$@"; do printf '%s\0' "$a"; done > "$DUMP"
SH
chmod +x dump.sh
args=(-c 'two words' "quote'single" 'quote"double' $'new\nline' $'tab\there' $'\xff\xfe-not-utf8' '' '*' '$HOME' '\back\slash')
DUMP=$T/bare.argv ./dump.sh "${args[@]}"
DUMP=$T/tl.argv trueline-cc ./dump.sh "${args[@]}"
check "argv bytes reach the compiler unchanged (spaces, quotes, newline, 0xff, empty, glob, \$)" cmp -s bare.argv tl.argv
printf '%s\n' '-DA="two words"' "-DB='single q'" '-DC=back\\slash' "-DD=$(printf '\xe9\xff')" '@nested.rsp' > top.rsp
printf '%s\n' '-DE="n e s t e d"' > nested.rsp
printf 'A B C D E\n' > m.c
gcc -E -P @top.rsp m.c > rsp.bare 2>rsp.bare.err; rc1=$?
trueline-cc gcc -E -P @top.rsp m.c > rsp.tl 2>rsp.tl.err; rc2=$?
check "response files with quotes, backslashes, non-UTF-8, nesting: same preprocessed output as gcc" \
  sh -c '[ $1 = $2 ] && [ -s rsp.bare ] && cmp -s rsp.bare rsp.tl' _ $rc1 $rc2
touch $'odd \xff name.c' && printf 'int g(void){return 1;}\n' > $'odd \xff name.c'
trueline-cc gcc -c $'odd \xff name.c' -o $'odd \xff name.o'; rc=$?
check "non-UTF-8 file names: compiled (status $rc)" test $rc = 0 -a -s $'odd \xff name.o'

# --- every exit status 0-255, and death by every catchable signal --------------------------------------------
printf '#!/bin/sh\nexit "$1"\n' > st.sh; chmod +x st.sh
bad=""
for s in $(seq 0 255); do trueline-cc ./st.sh "$s"; r=$?; [ $r = "$s" ] || bad="$bad $s->$r"; done
check "exit statuses 0-255 pass through exactly${bad:+ (wrong:$bad)}" test -z "$bad"
printf '#!/bin/bash\nkill -"$1" $$\nsleep 5\n' > sig.sh; chmod +x sig.sh
bad=""
for sig in HUP INT QUIT ILL TRAP ABRT BUS FPE USR1 SEGV USR2 PIPE ALRM TERM XCPU XFSZ SYS KILL; do
  { bash -c '"$@"' _ ./sig.sh $sig; } 2>/dev/null; want=$?
  { bash -c '"$@"' _ trueline-cc ./sig.sh $sig; } 2>/dev/null; got=$?
  [ "$want" = "$got" ] || bad="$bad $sig:$want/$got"
done
check "death by signal propagates as the same signal (18 signals)${bad:+ (wrong:$bad)}" test -z "$bad"

# --- stdout/stderr identical to the bare compiler's, byte for byte ------------------------------------------
cat > noisy.sh <<'SH'
#!/bin/sh
# large, binary, interleaved output on both streams, then a failure status
i=0; while [ $i -lt 50 ]; do printf 'out %d\0\377\n' $i; printf 'err %d\r\n' $i >&2; i=$((i+1)); done
cat "$0.out.bin"; cat "$0.out.bin" >&2
exit 3
SH
chmod +x noisy.sh
head -c 300000 /dev/urandom > noisy.sh.out.bin
./noisy.sh > o.bare 2> e.bare; r1=$?
trueline-cc ./noisy.sh > o.tl 2> e.tl; r2=$?
check "300 KB binary stdout identical" cmp -s o.bare o.tl
check "300 KB binary stderr identical" cmp -s e.bare e.tl
check "... and the same status ($r1/$r2)" test $r1 = $r2
printf 'int main(void) { int x; unsigned u = -1; return x + (u < 0) + "a"; }\n' > warn.c
gcc -Wall -Wextra -fdiagnostics-color=always -c warn.c -o w1.o > wo.bare 2> we.bare; r1=$?
trueline-cc gcc -Wall -Wextra -fdiagnostics-color=always -c warn.c -o w2.o > wo.tl 2> we.tl; r2=$?
check "gcc warnings (colored) byte-identical on stderr" cmp -s we.bare we.tl
check "... stdout identical and same status ($r1/$r2), the object written" sh -c '[ $1 = $2 ] && cmp -s wo.bare wo.tl && [ -s w2.o ]' _ $r1 $r2
