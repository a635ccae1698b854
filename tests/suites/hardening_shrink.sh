#!/usr/bin/env bash
# An input that shrinks while trueline-check reads it: the pages past its new end used to raise SIGBUS and
# kill the process with every other input's result. Now that input is reported as changed while being read
# (exit 2, named) and the others are still checked. TRUELINE_TEST_STALL=wait:NAME holds the read of NAME for
# 3 s after it is mapped, so that the truncation lands in between.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1
cat > big.c <<'C'
#define F(n) int f##n(int x) { return x * n + (x >> 3); }
#define G(n) F(n##0) F(n##1) F(n##2) F(n##3) F(n##4) F(n##5) F(n##6) F(n##7) F(n##8) F(n##9)
G(1) G(2) G(3) G(4) G(5) G(6) G(7) G(8) G(9)
C
gcc -g -O0 -shared -fPIC big.c -o lt.so && cp lt.so other.so || { fail "premise: gcc builds lt.so"; exit 1; }
size=$(stat -c %s lt.so)
[ "$size" -gt 16384 ] || { fail "premise: lt.so spans more than four pages ($size bytes)"; exit 1; }
TRUELINE_TEST_STALL=wait:lt.so trueline-check lt.so other.so >out.txt 2>err.txt & pid=$!
sleep 1
truncate -s 4096 lt.so
wait $pid; rc=$?
check "an input that shrank while read: exit 2, not SIGBUS (exit $rc)" [ $rc -eq 2 ]
contains "... reported as changed while being read, by name" out.txt 'lt.so.*changed \(shrank\) while it was being read'
contains "... the other input is still checked" out.txt '^other.so: '
contains "... and counted as 1 unreadable of 2" out.txt '2 file\(s\) checked.* 1 unreadable'
# the same input unchanged reads normally (the guard itself changes nothing)
cp other.so lt2.so
TRUELINE_TEST_STALL=wait:lt2.so trueline-check lt2.so >out2.txt 2>&1; rc=$?
lacks "an input that did not change is not reported as changed" out2.txt 'changed \(shrank\)' '^1 file\(s\) checked' 
check "... and audits with its usual exit status, 0 unreadable (got $rc, want 0 or 1)" sh -c "[ $rc -le 1 ] && grep -q ' 0 unreadable' out2.txt"
