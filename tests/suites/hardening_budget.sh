#!/usr/bin/env bash
# One budget per input for what its sections decompress to: three SHF_COMPRESSED sections sharing one
# payload of 40 MiB of zeros are each under --max-input-mb 64, together over it. The input must be reported
# unreadable (exit 2, named, the bound stated), the other inputs still checked; and fatbin entries get the
# same ratio check as sections.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1
have zstd || { skip "no zstd command to build the shared-payload bomb"; exit 0; }
python3 "$TRUELINE_ROOT/tests/lib/shared_payload_bomb.py" 40 bomb.o || { fail "premise: bomb.o written"; exit 1; }
n=$(readelf -S -W bomb.o | grep -c '\.debug_[a-z]* .* C ')
[ "$n" -eq 3 ] || { fail "premise: bomb.o has 3 compressed sections (readelf: $n)"; exit 1; }
printf 'int f(void) { return 1; }\n' > a.c && gcc -g -c a.c -o a.o || { fail "premise: gcc"; exit 1; }
trueline-check --max-input-mb 64 bomb.o a.o > out.txt 2>err.txt; rc=$?
check "sections over the per-input budget together: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "... the input is named with the bound it passed" out.txt "bomb.o: .*over the limit of 64 MiB for one input"
contains "... the other input is still checked" out.txt '^a\.o: '
contains "... 1 unreadable of 2" out.txt '2 file\(s\) checked.* 1 unreadable'
# under a budget that holds all three, the same file reads (the bound is what trips it, nothing else)
trueline-check --max-input-mb 200 bomb.o > ok.txt 2>&1; rc=$?
lacks "with a budget of 200 MiB the same file is not refused for its size" ok.txt 'over the limit' '^1 file\(s\) checked' 
# its sections are zeros: read whole, they are a .debug_info that holds no unit, which is damage (exit 2)
check "... and is read to its DWARF: unreadable only as a zero-filled .debug_info (exit $rc)" sh -c \
    "[ $rc -eq 2 ] && grep -q '^bomb.o: error: cannot read: malformed .debug_info: its units end at offset 0' ok.txt"
