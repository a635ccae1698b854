#!/usr/bin/env bash
# Real device call stacks in GPU cores (tests/data/coredumps/calls/, made on an H100): every frame trueline-check
# names is compared with cuda-gdb's view of the same core (function, file, line, innermost first), clone symbols
# read as cuda-gdb reads them, and a return address the dump cannot support ends the stack with a reason instead
# of being printed as a frame.
. "$(dirname "$0")/../lib/harness.sh"
D=$TRUELINE_ROOT/tests/data/coredumps/calls
cd "$T" || exit 1
for c in assert_chain assert_chain-keeplocal two_callers recurse rank1 rank2 rank3; do
  xz -dc "$D/$c.core.xz" > $c.core || { fail "premise: $c.core.xz decompresses"; exit 1; }
done
for c in assert_chain assert_chain-keeplocal two_callers recurse rank1 rank2 rank3; do
  trueline-check --coredump $c.core --format json > $c.json 2> $c.err; rc=$?
  check "$c: read with exit 0 into a report naming it (got $rc)" sh -c "[ $rc -eq 0 ] && grep -q '\"core\": *\"$c.core\"' $c.json"
  python3 "$TRUELINE_ROOT/tests/lib/cudagdb_frames.py" "$D/$c.cuda-gdb.txt" $c.json > $c.cmp 2>&1; rc=$?
  n=$(grep -c '^ok ' $c.cmp)
  check "$c: every frame cuda-gdb shows ($n) has the same function, file and line, none more" [ $rc -eq 0 ]
  [ $rc -eq 0 ] || sed 's/^/    | /' $c.cmp
done
# deep enough to mean something: the recursion has nine frames in cuda-gdb's view
n=$(grep -c '^ok ' recurse.cmp)
check "recursion: nine frames compared ($n)" [ "$n" -eq 9 ]

trueline-check --coredump assert_chain.core > assert.txt 2>&1
contains "a clone symbol reads as cuda-gdb names it" assert.txt 'in check_range\(int const\*, int, int\) \[clone assert_kernel\(int const\*, int\*, int\)\]'
lacks "no raw \$kernel\$function symbol in the text" assert.txt 'in \$_Z' 'in check_range' 
contains "the raw symbol stays in JSON" assert_chain.json '"mangled": ?"\$_Z13assert_kernelPKiPii\$_Z11check_rangePKiii"'
# lane 31: its only backtrace row returns to the kernel's first instruction
contains "lane 31's unsupported return address ends the stack with a reason" assert.txt 'stack ends: the next return address, 0x[0-9a-f]+, is the first instruction of assert_kernel'
lacks "... and is not printed as a frame" assert.txt 'called from assert_kernel\(int const\*, int\*, int\) \+ 0 ' 'stack ends:' 
check "JSON says it too (stack_end), and lists no caller for that group" python3 - assert_chain.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ends = [s for c in r['cores'] for s in c['stops'] if s.get('stack_end')]
sys.exit(0 if ends and all(not s['callers'] for s in ends) else 1)
PY

# --- several cores: one per rank ------------------------------------------------------------------------------
mkdir ranks && cp rank1.core rank2.core rank3.core ranks/ && echo 'not a core' > ranks/notes.txt
trueline-check --coredump ranks > ranks.txt 2>&1; rc=$?
check "a directory of rank cores: exit 0 with a report (got $rc)" sh -c "[ $rc -eq 0 ] && [ -s ranks.txt ]"
contains "one table: 3 cores in 2 states, 1 odd one out" ranks.txt '^3 cores, 2 states; 1 odd one out'
contains "... the two waiting ranks grouped, named by the function they wait in and its line" ranks.txt '^  2 cores: running \(no exception\) in wait_for_peers\(int volatile\*\) \[clone allreduce_wait_kernel.* at ranks\.cu:6'
contains "... the faulting rank flagged, with its exception, kernel and line" ranks.txt '^! 1 core: Warp Illegal Address in gemm_like_kernel\(float const\*, float\*, long\) at ranks\.cu:10'
check "... then only the odd core in detail (rank3, not rank1 or rank2)" sh -c \
  "grep -q '^ranks/rank3.core: CUDA GPU coredump' ranks.txt && ! grep -q '^ranks/rank[12].core: CUDA GPU coredump' ranks.txt"
trueline-check --coredump --format json ranks > ranks.json 2>&1
check "JSON: the groups (odd flagged) and every core's detail" python3 - ranks.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
g = d['groups']
ok = len(g) == 2 and [x['odd'] for x in g] == [False, True] and g[1]['cores'] == ['ranks/rank3.core'] \
     and len(g[0]['cores']) == 2 and len(d['cores']) == 3
sys.exit(0 if ok else 1)
PY
trueline-check --coredump rank1.core rank2.core > same.txt 2>&1
contains "cores all in one state: no odd one, the first shown in detail" same.txt '^2 cores, 1 state$'
cp rank1.core broken.core && truncate -s 1000 broken.core
trueline-check --coredump rank1.core broken.core rank3.core > mixed.txt 2> mixed.err; rc=$?
check "an unreadable core among others: exit 2, the others still summed up (got $rc)" sh -c \
  "[ $rc -eq 2 ] && grep -q '^3 cores' mixed.txt && grep -q 'unreadable: broken.core' mixed.txt && grep -q broken.core mixed.err"
