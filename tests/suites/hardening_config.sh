#!/usr/bin/env bash
# Configuration files that are not regular files, and trueline-cc reaching itself through a script: both
# tools must stop with a message naming the path (exit 2) instead of reading forever or recursing.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1
printf 'int f(void) { return 1; }\n' > a.c
gcc -g -c a.c -o a.o || { fail "premise: gcc builds a.o"; exit 1; }
mkfifo fifo || { fail "premise: mkfifo"; exit 1; }
mkdir confdir

# run_both NAME ENV...: both tools under `timeout` (a hang is exit 124), stderr kept per tool
for tool in trueline-cc trueline-check; do
  for case in dotfile-devzero fifo directory; do
    rm -f .trueline.ini; unset TRUELINE_CONFIG
    case $case in
      dotfile-devzero) ln -s /dev/zero .trueline.ini; want=.trueline.ini;;
      fifo) export TRUELINE_CONFIG=$T/fifo; want=$T/fifo;;
      directory) export TRUELINE_CONFIG=$T/confdir; want=$T/confdir;;
    esac
    if [ $tool = trueline-cc ]; then timeout 20 trueline-cc gcc -c a.c -o out.o 2>err.txt; rc=$?
    else timeout 20 trueline-check a.o >/dev/null 2>err.txt; rc=$?; fi
    check "$tool, config $case: exit 2, not a hang (got $rc)" [ $rc -eq 2 ]
    contains "$tool, config $case: the message names $want and says why" err.txt "$want: (is not a regular file|is a directory)"
  done
done
rm -f .trueline.ini; unset TRUELINE_CONFIG
# the wrapper's documented escape still works for a bad config: on_error = passthrough runs the compiler
ln -s /dev/zero .trueline.ini
timeout 20 env TRUELINE_WRAPPER_ON_ERROR=passthrough trueline-cc gcc -c a.c -o pass.o 2>err.txt; rc=$?
check "on_error=passthrough with a /dev/zero config: the compile runs (status $rc, pass.o written)" sh -c "[ $rc -eq 0 ] && [ -s pass.o ]"
rm -f .trueline.ini
timeout 20 env TRUELINE_FINGERPRINT_EXTRA_FILES=/dev/zero trueline-cc gcc -c a.c -o x.o 2>err.txt; rc=$?
check "extra_files = /dev/zero: exit 2, not a hang (got $rc)" [ $rc -eq 2 ]
contains "... naming /dev/zero" err.txt '/dev/zero: is not a regular file'

# --- recursion through a script --------------------------------------------------------------------------
W=$(command -v trueline-cc)
mkdir sbin
printf '#!/bin/sh\nexec "%s" gcc "$@"\n' "$W" > sbin/gcc; chmod +x sbin/gcc
# every level also probes `gcc --version` through the script (a chain of its own): some 40 processes in all,
# which under ASan (TRUELINE_SANITIZED) start slowly
to=30; [ -n "${TRUELINE_SANITIZED:-}" ] && to=300
timeout $to env PATH="$T/sbin:$PATH" trueline-cc gcc -c a.c -o r.o 2>err.txt; rc=$?
check "a gcc script calling trueline-cc gcc: stops with exit 2, no runaway (got $rc)" [ $rc -eq 2 ]
contains "... saying that trueline-cc runs inside itself, naming gcc" err.txt "running inside itself [0-9]+ times: 'gcc' leads back"
n=$(grep -c 'running inside itself' err.txt)
check "... said once, by the innermost process ($n)" [ "$n" -eq 1 ]
# a stray depth value cannot switch the guard off, nor trip it
timeout $to env PATH="$T/sbin:$PATH" TRUELINE_CC_DEPTH="0:0 -5" trueline-cc gcc -c a.c -o r.o 2>err.txt; rc=$?
check "a stray TRUELINE_CC_DEPTH does not switch the guard off (got $rc)" [ $rc -eq 2 ]
TRUELINE_CC_DEPTH="0:0 99" trueline-cc gcc -c a.c -o d.o 2>err.txt; rc=$?
check "a stray TRUELINE_CC_DEPTH naming another executable does not trip it (got $rc)" sh -c "[ $rc -eq 0 ] && [ -s d.o ]"
# real nesting stays allowed: a -ccbin-like script that calls trueline-cc once, run under trueline-cc
printf '#!/bin/sh\nexec "%s" gcc "$@"\n' "$W" > wrapgcc; chmod +x wrapgcc
timeout 30 trueline-cc "$T/wrapgcc" -c a.c -o n.o 2>err.txt; rc=$?
check "one level of legitimate nesting (a script calling trueline-cc gcc) compiles (got $rc)" sh -c "[ $rc -eq 0 ] && [ -s n.o ]"

# --- a leaked TRUELINE_CC_ACTIVE no longer turns masquerade wrapping off ------------------------------------
mkdir masq; ln -s "$W" masq/gcc
TRUELINE_CC_ACTIVE="deadbeef:1234" PATH="$T/masq:$PATH" gcc --trueline-explain -c a.c -o leak.o 2>err.txt
contains "a leaked TRUELINE_CC_ACTIVE naming another executable: still wrapped (explain shows masquerade mode)" err.txt 'mode: masquerade'
check "... and the object has line info although the compile asked for none (readelf)" sh -c 'readelf -S leak.o | grep -q "\.debug_line"'
