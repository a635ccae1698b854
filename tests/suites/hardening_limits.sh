# Per-input bounds: --timeout gives up on one input (exit 2, named) and goes on with the others, whether
# the reader polls its deadline or is stuck where it cannot (the watchdog abandons it at twice the limit);
# --max-input-mb refuses oversized decompression. TRUELINE_TEST_STALL (checker/load.c) supplies the slow input.
. "$(dirname "$0")/../lib/harness.sh"

printf 'int f(void){return 1;}\n' >"$T/a.c"
gcc -g -c "$T/a.c" -o "$T/a.o"
cp "$T/a.o" "$T/slow.o"; cp "$T/a.o" "$T/z.o"

for mode in poll hang; do
  TRUELINE_TEST_STALL=$mode:slow timeout -k 5 60 trueline-check --timeout 1 -j1 "$T/a.o" "$T/slow.o" "$T/z.o" \
    >"$T/out" 2>"$T/err"; rc=$?
  # a stalled input that were not abandoned would hold the run until timeout's 60 s (exit 124)
  check "$mode: a stalled input gives exit 2 (got $rc)" [ $rc -eq 2 ]
  # the text report names an unreadable input (stderr repeats it only for other formats)
  contains "$mode: the stalled file is named with the limit" "$T/out" "slow\.o: error: cannot read: time limit of 1 s exceeded"
  contains "$mode: every input reported" "$T/out" "^3 file\(s\) checked: .* 1 unreadable"
  lacks "$mode: the other inputs are read" "$T/out" "(a|z)\.o: error: cannot read" "slow\.o: error: cannot read: time limit"
done

TRUELINE_TEST_STALL=hang:slow timeout -k 5 60 trueline-check --timeout 1 -j2 "$T/slow.o" "$T/a.o" "$T/z.o" \
  >"$T/out" 2>"$T/err"; rc=$?
check "hang with -j2: exit 2, others checked" [ $rc -eq 2 ]
contains "hang with -j2: every input reported" "$T/out" "^3 file\(s\) checked: .* 1 unreadable"

TRUELINE_TEST_STALL=poll:slow trueline-check "$T/a.o" "$T/z.o" >"$T/out" 2>&1; rc=$?
check "without --timeout nothing is limited (exit $rc)" sh -c '[ $0 -eq 0 ] && grep -q "^2 file(s) checked: .* 0 unreadable" "$1"' $rc "$T/out"

expect_rc "--timeout with a non-number is a usage error" 2 trueline-check --timeout abc "$T/a.o"
expect_rc "--max-input-mb with a non-number is a usage error" 2 trueline-check --max-input-mb -3 "$T/a.o"
trueline-check --timeout 30 --max-input-mb 64 "$T/a.o" >"$T/out" 2>&1; rc=$?
check "sane limits accept a good object (exit $rc)" sh -c '[ $0 -eq 0 ] && grep -q "^1 file(s) checked: .* 0 unreadable" "$1"' $rc "$T/out"

# --max-input-mb: a zlib-compressed debug section larger than the limit is refused by its declared size, before
# anything is allocated, and the input is reported as not fully read (hardening_regress checks the arithmetic).
python3 - "$T/big.c" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(25000):
        f.write('struct s%d { int a%d; long b%d; char c%d[3]; } v%d;\n' % (i, i, i, i, i))
PY
if gcc -g -c "$T/big.c" -o "$T/big.o" && objcopy --compress-debug-sections=zlib-gabi "$T/big.o" "$T/bigz.o"; then
  size=$(printf '%d' "0x$(readelf -S -W "$T/big.o" | sed -n 's/.*\] \.debug_info  *PROGBITS  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\).*/\1/p')")
  premise "fixture: .debug_info is over 1 MiB uncompressed ($size bytes)" [ "${size:-0}" -gt 1048576 ]
  trueline-check --max-input-mb 1 "$T/bigz.o" "$T/a.o" >"$T/out" 2>"$T/err"; rc=$?
  check "--max-input-mb 1: exit 2 for a section over the limit (got $rc)" [ $rc -eq 2 ]
  contains "... the file is named with the limit" "$T/out" "bigz\.o: error: cannot read: .*limit of 1 MiB \(--max-input-mb\)"
  contains "... and the other input is still checked" "$T/out" "^2 file\(s\) checked: .* 1 unreadable"
  trueline-check "$T/bigz.o" >"$T/out" 2>&1; rc=$?
  check "the same object under the default limit is readable (exit $rc)" sh -c '[ $0 -eq 0 ] && grep -q "^1 file(s) checked: .* 0 unreadable" "$1"' $rc "$T/out"
fi
