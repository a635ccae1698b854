#!/usr/bin/env bash
# Large .debug_info sections are walked in two halves side by side, each on a libdwarf handle of its own
# (checker/read/dwarf_info.c). The host suites whose oracles are binutils (readelf, nm, addr2line) and the
# compilers' own output, and the damaged-DWARF suite, run again with the split forced on every file
# (TRUELINE_TEST_DWARF_SPLIT_BYTES=1): each of their checks must still hold. Then a real large library, when the
# CUDA toolkit is here, reports the same either way.
. "$(dirname "$0")/../lib/harness.sh"
[ "$(nproc)" -gt 1 ] || { skip "one CPU: the walk is never split"; exit 0; }
for s in host_dwarf_symbols_real host_lines_truth host_checks hardening_malformed; do
  TRUELINE_TEST_DWARF_SPLIT_BYTES=1 bash "$TRUELINE_ROOT/tests/suites/$s.sh" 2>&1 |
    grep -E '^(PASS|FAIL|SKIP) ' | sed "s/^\(PASS\|FAIL\|SKIP\) [a-z_]*:/\1 $SUITE: [$s, split]/"
done
nccl=${CUDA_HOME:+$CUDA_HOME/lib64/libnccl.so.2}
if [ -n "$nccl" ] && [ -f "$nccl" ]; then
  cd "$T" || exit 1
  TRUELINE_TEST_DWARF_SPLIT_BYTES=999999999999 trueline-check --host-only --format json "$nccl" >whole.json 2>&1
  trueline-check --host-only --format json "$nccl" >split.json 2>&1
  check "libnccl.so.2 (12.5 MB of .debug_info, split by default): the same report as one walk" \
    sh -c 'cmp -s whole.json split.json && grep -q "\"findings\"" split.json'
else
  skip "libnccl.so.2 of the CUDA toolkit not found"
fi
