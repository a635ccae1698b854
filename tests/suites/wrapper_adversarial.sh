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
