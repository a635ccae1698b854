#!/usr/bin/env bash
# Real device call stacks in GPU cores (tests/data/coredumps/calls/, made on an H100): every frame trueline-check
# names is compared with cuda-gdb's view of the same core (function, file, line, innermost first), clone symbols
# read as cuda-gdb reads them, and a return address the dump cannot support ends the stack with a reason instead
# of being printed as a frame.
. "$(dirname "$0")/../lib/harness.sh"
D=$TRUELINE_ROOT/tests/data/coredumps/calls
cd "$T" || exit 1
for c in assert_chain assert_chain-keeplocal two_callers several_callers recurse rank1 rank2 rank3; do
  xz -dc "$D/$c.core.xz" > $c.core || { fail "premise: $c.core.xz decompresses"; exit 1; }
done
for c in assert_chain assert_chain-keeplocal two_callers several_callers recurse rank1 rank2 rank3; do
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
check "JSON says it too (stack_end), and lists no unwound caller for that group" python3 - assert_chain.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
ends = [s for c in r['cores'] for s in c['stops'] if s.get('stack_end')]
sys.exit(0 if ends and all(not [k for k in s['callers'] if not k.get('inferred')] for s in ends) else 1)
PY

# --- callers inferred from the image's call instructions where the unwound stack ends early ----------------------
# lane 31 of assert_chain.core: the chain implied by the cubin's calls is the one cuda-gdb unwound for lane 10
python3 "$TRUELINE_ROOT/tests/lib/cudagdb_frames.py" --inferred "$D/assert_chain.cuda-gdb.txt" assert_chain.json > inferred.cmp 2>&1; rc=$?
n=$(grep -c '^ok ' inferred.cmp)
check "lane 31: the inferred chain has cuda-gdb's frames for the unwound lanes, function, file and line ($n)" sh -c "[ $rc -eq 0 ] && [ $n -eq 3 ]"
[ $rc -eq 0 ] || sed 's/^/    | /' inferred.cmp
# ... and the source's call sites (found by grep, not written here)
call_scaled=$(grep -n 'scaled(v, i, n, 3)' "$D/assert_chain.cu" | cut -d: -f1)
call_check=$(grep -n 'return k \* check_range(' "$D/assert_chain.cu" | cut -d: -f1)
contains "... the text marks them: scaled at the line calling check_range" assert.txt "^  line:    #1 \(inferred\) /tmp/cw/assert_chain\.cu:$call_check in scaled\(int const\*, int, int, int\) \[clone assert_kernel"
contains "... then the kernel at the line calling scaled" assert.txt "^  line:    #2 \(inferred\) /tmp/cw/assert_chain\.cu:$call_scaled in assert_kernel\(int const\*, int\*, int\)$"
check "JSON marks them inferred, with the CALL's address and one candidate each" python3 - assert_chain.json "$call_check" "$call_scaled" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
want = [int(sys.argv[2]), int(sys.argv[3])]
s = [s for c in r['cores'] for s in c['stops'] if s.get('stack_end')][0]
inf = [k for k in s['callers'] if k.get('inferred')]
ok = [k['frames'][-1]['line'] for k in inf] == want and all(k['return_pc'] is None and k['call_pc'].startswith('0x')
     and k['candidates'] == 1 and not k['recursion'] for k in inf) and s['inferred_note'] is None
sys.exit(0 if ok else 1)
PY
check "cores whose stacks reach a kernel gain no inferred frame" python3 - assert_chain-keeplocal.json two_callers.json several_callers.json recurse.json rank1.json rank2.json rank3.json assert_chain.json <<'PY'
import json, sys
def outermost(s):  # the function the shown stack ends in: a kernel, or a per-kernel clone ("[clone k]")
    shown = [s] + [k for k in s['callers'] if not k.get('inferred')]
    return (shown[-1]['kernel'] or {}).get('name', '')
stops = [s for f in sys.argv[1:] for c in json.load(open(f))['cores'] for s in c['stops']
         if s['kernel'] and '[clone ' not in outermost(s)]
sys.exit(0 if len(stops) >= 7 and not any(k.get('inferred') for s in stops for k in s['callers']) else 1)
PY

# several_callers.core: the warp's error PC is in load_at, which via_odd (odd lanes, the faulting ones) and
# via_even both call; the error-PC group (the whole warp) has no call-return state of its own, so both callers are
# candidates, at the source's call lines, and the walk stops there: nothing picks one
trueline-check --coredump several_callers.core > several.txt 2>&1
odd_line=$(grep -n 'load_at(p, i) + 1.0f' "$D/several_callers.cu" | cut -d: -f1)
even_line=$(grep -n 'load_at(p, i) \* 2.0f' "$D/several_callers.cu" | cut -d: -f1)
check "two caller functions: both candidates at their call lines ($odd_line, $even_line), the walk stops" python3 - several_callers.json "$odd_line" "$even_line" <<'PY'
import json, sys
s = [s for c in json.load(open(sys.argv[1]))['cores'] for s in c['stops'] if s['kind'] == 'error_pc'][0]
inf = [k for k in s['callers'] if k.get('inferred')]
got = sorted((k['frames'][-1]['function'].split('(')[0], k['frames'][-1]['line']) for k in inf)
want = sorted([('via_odd', int(sys.argv[2])), ('via_even', int(sys.argv[3]))])
ok = got == want and all(k['candidates'] == 2 and k['depth'] == 1 for k in inf) \
     and '2 functions call load_at' in (s['inferred_note'] or '')
sys.exit(0 if ok else 1)
PY
contains "... the text lists both, one of two each" several.txt "^  inferred caller, candidate [12] of 2: via_odd\(float const\*, long\) \[clone several_callers_kernel"
contains "... and says why it stops" several.txt '^  inferred chain ends: 2 functions call load_at\(float const\*, long\) \[clone several_callers_kernel.*every candidate is listed'

# every lane's call-return state made stale (as lane 31's): every group is inferred, and still matches cuda-gdb
cp assert_chain.core stale.core && cp two_callers.core two_stale.core && cp recurse.core recurse_drop.core
premise "backtrace rows rewritten" sh -c 'python3 "$TRUELINE_ROOT/tests/lib/core_patch.py" stale stale.core >/dev/null &&
  python3 "$TRUELINE_ROOT/tests/lib/core_patch.py" stale two_stale.core >/dev/null &&
  python3 "$TRUELINE_ROOT/tests/lib/core_patch.py" drop recurse_drop.core >/dev/null'
trueline-check --coredump stale.core --format json > stale.json 2>&1
python3 "$TRUELINE_ROOT/tests/lib/cudagdb_frames.py" --inferred "$D/assert_chain.cuda-gdb.txt" stale.json > stale.cmp 2>&1; rc=$?
check "all lanes stale: the focus lane's inferred chain is cuda-gdb's" [ $rc -eq 0 ]
[ $rc -eq 0 ] || sed 's/^/    | /' stale.cmp

# two call sites of load_at in one kernel: both listed as candidates, neither picked
trueline-check --coredump two_stale.core > two_stale.txt 2>&1
trueline-check --coredump two_stale.core --format json > two_stale.json 2>&1
sites=$(grep -n 'load_at(p, ' "$D/two_callers.cu" | cut -d: -f1 | tr '\n' ' ')
check "two call sites: both candidates, at the source's two call lines ($sites)" python3 - two_stale.json $sites <<'PY'
import json, sys
want = sorted(int(x) for x in sys.argv[2:])
r = json.load(open(sys.argv[1]))
ok = len(want) == 2
for s in r['cores'][0]['stops']:
    inf = [k for k in s['callers'] if k.get('inferred')]
    got = sorted(k['frames'][-1]['line'] for k in inf)
    ok = ok and got == want and all(k['candidates'] == 2 and k['depth'] == 1 for k in inf) \
         and sorted(k['candidate'] for k in inf) == [1, 2] \
         and all(k['kernel']['mangled'] == '_Z18two_callers_kernelPKfPfl' for k in inf)
sys.exit(0 if ok and r['cores'][0]['stops'] else 1)
PY
for l in $sites; do
  contains "... text: a candidate at two_callers.cu:$l" two_stale.txt "^  line:    #1 \(inferred\) /tmp/cw/two_callers\.cu:$l in two_callers_kernel"
done
contains "... each says it is one of two" two_stale.txt '^  inferred caller, candidate 2 of 2: two_callers_kernel'

# recursion without call-return state: walk's recursive call shown once (depth unknown), then the kernel's call
trueline-check --coredump recurse_drop.core > recurse_drop.txt 2>&1
rec_line=$(grep -n 'return walk(' "$D/recurse.cu" | cut -d: -f1)
kern_line=$(grep -n 'walk(v, 7, 0)' "$D/recurse.cu" | cut -d: -f1)
contains "no backtrace rows: walk's recursive call site, marked recursion" recurse_drop.txt "^  inferred caller, recursion \(repeats an unknown number of times\): walk\(int const\*, int, long\)"
contains "... at its source line" recurse_drop.txt "^  line:    #1 \(inferred\) /tmp/cw/recurse\.cu:$rec_line in walk"
contains "... then the kernel at the line calling walk" recurse_drop.txt "^  line:    #2 \(inferred\) /tmp/cw/recurse\.cu:$kern_line in recurse_kernel\(int const\*, int\*\)$"

# the core's images without line info, the program's cubin as --binary: the clones' lines, unwound and inferred,
# come from the cubin (found by the section they lie in, the kernel's) and still match cuda-gdb
premise "line info removed from the core's images" python3 "$TRUELINE_ROOT/tests/suites/coredump_mutate.py" assert_chain.core nolines.core no-lines
trueline-check --coredump nolines.core --binary "$D/assert_chain.sm_90.cubin" --format json > nolines.json 2>&1
for mode in "" --inferred; do
  python3 "$TRUELINE_ROOT/tests/lib/cudagdb_frames.py" $mode "$D/assert_chain.cuda-gdb.txt" nolines.json > nolines$mode.cmp 2>&1; rc=$?
  check "no lines in the core, --binary cubin: ${mode:-unwound} frames are cuda-gdb's" [ $rc -eq 0 ]
  [ $rc -eq 0 ] || sed 's/^/    | /' nolines$mode.cmp
done
check "... the inferred frames say where their lines came from" python3 - nolines.json <<'PY'
import json, sys
s = [s for c in json.load(open(sys.argv[1]))['cores'] for s in c['stops'] if s.get('stack_end')][0]
inf = [k for k in s['callers'] if k.get('inferred')]
sys.exit(0 if len(inf) == 2 and all(k['line_info_from'].endswith('assert_chain.sm_90.cubin') for k in inf) else 1)
PY

# an SM whose call encoding is not in the table: nothing inferred, and said
cp assert_chain.core sm52.core
premise "image SM rewritten" sh -c 'python3 "$TRUELINE_ROOT/tests/lib/core_patch.py" image-sm 52 sm52.core >/dev/null'
trueline-check --coredump sm52.core > sm52.txt 2>&1
contains "unknown SM: the callers are not inferred, and the text says why" sm52.txt '^  callers not inferred: calls are not decoded for sm_52'
lacks "... no inferred frame" sm52.txt '\(inferred\)' 'callers not inferred'

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
