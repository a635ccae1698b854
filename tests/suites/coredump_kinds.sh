#!/usr/bin/env bash
# Cores of exception kinds and stack shapes (tests/data/coredumps/kinds/, made on an H100 with cuda-gdb 13.0's view
# of each): traps read as SIGTRAP with the trap instruction named, a 100-deep recursion unwound frame by frame,
# calls through a function pointer and a virtual call (with the dump's call-return state, and inferred without
# it), the other resident warps of an exception dump, and a core the driver cut short. The oracles: cuda-gdb's
# text, nvdisasm on the programs' cubins, the sources.
. "$(dirname "$0")/../lib/harness.sh"
D=$TRUELINE_ROOT/tests/data/coredumps/kinds
L=$TRUELINE_ROOT/tests/lib
MUTATE="$TRUELINE_ROOT/tests/suites/coredump_mutate.py"
if ! have xz || ! have python3; then
  skip "xz and python3 are needed to unpack the test cores"
  exit 0
fi
cd "$T" || exit 1
for c in trap_builtin trap_asm trap_brkpt deep fptr virt virt-full; do
  premise "$c.core.xz decompresses" sh -c "xz -dc '$D/$c.core.xz' > $c.core"
done
NVDISASM=$(find_pypi_tool nvdisasm)
# frames NAME GDB JSON [--inferred]: every frame cuda-gdb shows, same function, file and line (cudagdb_frames.py)
frames() {
  python3 "$L/cudagdb_frames.py" ${4:-} "$2" "$3" > "$1.cmp" 2>&1; local rc=$?
  echo $(grep -c '^ok ' "$1.cmp") > "$1.n"
  check "$1: every frame cuda-gdb shows ($(cat "$1.n")) has the same function, file and line" [ $rc -eq 0 ]
  [ $rc -eq 0 ] || sed 's/^/    | /' "$1.cmp"
}
# json_stop JSON KIND EXPR: python expression on the first stop s of that kind (c: the core) must hold
json_stop() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))['cores'][0]
st = [s for s in c['stops'] if s['kind'] == sys.argv[2]]
sys.exit(0 if st and eval(sys.argv[3], {'s': st[0], 'c': c, 'st': st}) else 1)
PY
}

# --- traps: __trap(), asm("trap;"), asm("brkpt;") ---------------------------------------------------------------
for c in trap_builtin trap_asm trap_brkpt; do
  premise "cuda-gdb says SIGTRAP for $c" grep -q 'Program terminated with signal SIGTRAP' "$D/$c.cuda-gdb.txt"
  trueline-check --coredump $c.core > $c.txt 2>&1; rc=$?
  trueline-check --coredump $c.core --format json > $c.json 2>/dev/null
  check "$c: read with exit 0 (got $rc)" [ $rc -eq 0 ]
  contains "$c: a trap dump, not a hang" $c.txt '^dump taken on a trap or breakpoint \(SIGTRAP\)'
  lacks "$c: not read as user-triggered" $c.txt 'no exception \(user-triggered' '^SIGTRAP: '
  contains "$c: the warp's stop says SIGTRAP" $c.txt '^SIGTRAP: the warp stopped at a trap or breakpoint, lanes at PC 0x'
  check "$c: JSON: dump trap, a trap stop with signal SIGTRAP and no exception code" json_stop $c.json trap \
    "c['dump'] == 'trap' and c['trapped_warps'] == 1 and s['signal'] == 'SIGTRAP' and s['exception'] is None"
  gdb_pc=$(sed -n 's/^\$1 = .* \(0x[0-9a-f]*\) <.*/\1/p' "$D/$c.cuda-gdb.txt")
  check "$c: the stop's PC is cuda-gdb's \$pc ($gdb_pc)" json_stop $c.json trap "int(s['pc'], 16) == $gdb_pc"
  frames "$c" "$D/$c.cuda-gdb.txt" $c.json
  if [ -z "$NVDISASM" ]; then
    skip "$c: the trap instruction against nvdisasm (pip install nvidia-cuda-nvdisasm)"
    continue
  fi
  read -r sym off < <(python3 -c "import json,sys; s=[s for s in json.load(open('$c.json'))['cores'][0]['stops'] if s['kind']=='trap'][0]; print(s['kernel']['mangled'], s['kernel']['offset'])")
  "$NVDISASM" -c "$D/traps.1.0.sm_90.cubin" 2>/dev/null | python3 "$L/sass_at.py" "$sym" "$off" > $c.sass
  read -r at before < $c.sass
  gdb_at=$(sed -n 's/^=> [^:]*:[[:space:]]*\([A-Z][A-Z0-9_.]*\).*/\1/p' "$D/$c.cuda-gdb.txt")
  same "$c: nvdisasm's instruction at the PC is the one cuda-gdb shows there (x/2i)" "$at" "$gdb_at"
  same "$c: nvdisasm's instruction before the PC is the trap we name" "$before" \
    "$(python3 -c "import json; s=[s for s in json.load(open('$c.json'))['cores'][0]['stops'] if s['kind']=='trap'][0]; t=s['trap_instruction']; print(t['name'] if t and int(t['pc'],16)+16 == int(s['pc'],16) else '')")"
  contains "$c: the text names it and says the PC is the next instruction" $c.txt "^  trap: +$before at 0x[0-9a-f]+, the instruction before this PC"
done
# several cores: a trap is its own state in the table, at cuda-gdb's function and line
trueline-check --coredump trap_asm.core fptr.core > traps_many.txt 2>&1
gdb_line=$(sed -n 's|^#0 .* in trap_asm<<<.*>>> () at /tmp/kw/\(traps\.cu:[0-9]*\)$|\1|p' "$D/trap_asm.cuda-gdb.txt" | head -1)
contains "several cores: trap_asm's state is SIGTRAP at cuda-gdb's $gdb_line" traps_many.txt "^.*1 core: SIGTRAP \(trap or breakpoint\) in trap_asm\(int\*\) at $gdb_line$"
contains "trap_builtin: the caller cuda-gdb unwinds (trap_builtin at traps.cu:5)" trap_builtin.txt '^  line: +#1 /tmp/kw/traps\.cu:5 in trap_builtin\(int\*\)$'
check "trap_builtin: two frames compared" [ "$(cat trap_builtin.n)" -eq 2 ]

# --- a 100-deep recursion: every frame, folded in text ----------------------------------------------------------
trueline-check --coredump deep.core > deep.txt 2>&1
trueline-check --coredump deep.core --format json > deep.json 2>/dev/null
frames deep "$D/deep.cuda-gdb.txt" deep.json
gdb_n=$(grep -c '^#[0-9]' "$D/deep.cuda-gdb.txt")
check "deep: as many frames as cuda-gdb's bt (#0..#$(( $(grep '^#[0-9]' "$D/deep.cuda-gdb.txt" | tail -1 | sed 's/^#\([0-9]*\).*/\1/') )))" \
  [ "$(cat deep.n)" -eq "$(grep '^#[0-9]' "$D/deep.cuda-gdb.txt" | tail -1 | sed 's/^#\([0-9]*\).*/\1/' | awk '{print $1+1}')" ]
[ "$gdb_n" -gt 0 ] || fail "deep: cuda-gdb's view has frames"
rep=$(grep -c '^#[0-9]* .* in descend.* at /tmp/kw/deep.cu:7$' "$D/deep.cuda-gdb.txt")
contains "deep: the repeated caller is folded as (x$rep), cuda-gdb's count of descend frames at deep.cu:7" deep.txt \
  "called from descend\(int\*, int, long\) \[clone deep_kernel\(int\*, long\)\] \+ [0-9]+ \(return address 0x[0-9a-f]+\) \(x$rep\)"
contains "deep: the folded frames are numbered #1..#$rep" deep.txt "^  line: +#1\.\.#$rep /tmp/kw/deep\.cu:7 in descend"
contains "deep: then the kernel, #$((rep + 1)) at deep.cu:9" deep.txt "^  line: +#$((rep + 1)) /tmp/kw/deep\.cu:9 in deep_kernel\(int\*, long\)$"
check "deep: JSON keeps every frame, no stack end, nothing inferred" json_stop deep.json error_pc \
  "len(s['callers']) == $rep + 1 and s['callers_in_dump'] == $rep + 1 and s['stack_end'] is None and not any(k['inferred'] for k in s['callers'])"
lacks "deep: no frame bound hit" deep.txt 'stack ends:' 'deep_kernel'
# a row count far past any real stack: cut, and the cut says where
premise "a 5001-row backtrace table is made" python3 "$MUTATE" deep.core deepbt.core deep-bt
trueline-check --coredump deepbt.core > deepbt.txt 2>&1
trueline-check --coredump deepbt.core --format json > deepbt.json 2>/dev/null
contains "deep-bt: the cut is said, with where and how many" deepbt.txt '^  stack ends: cut after frame #4096: the dump holds 5001 return addresses'
check "deep-bt: JSON has the 4096 kept frames, each with its line, and nothing inferred after the cut" json_stop deepbt.json error_pc \
  "len(s['callers']) == 4096 and s['callers_in_dump'] == 5001 and all(k['frames'] and k['frames'][0]['line'] == 7 for k in s['callers'])"

# --- calls through a function pointer and a virtual call --------------------------------------------------------
for c in fptr virt; do
  trueline-check --coredump $c.core --format json > $c.json 2>/dev/null
  frames "$c" "$D/$c.cuda-gdb.txt" $c.json
  check "$c: two frames compared (the target, then its caller)" [ "$(cat $c.n)" -eq 2 ]
  # the dump without call-return state: the caller is inferred from the image's indirect call site
  cp $c.core ${c}_drop.core
  premise "$c: backtrace rows dropped" sh -c "python3 '$L/core_patch.py' drop ${c}_drop.core >/dev/null"
  trueline-check --coredump ${c}_drop.core > ${c}_drop.txt 2>&1
  trueline-check --coredump ${c}_drop.core --format json > ${c}_drop.json 2>/dev/null
  frames "${c}_drop" "$D/$c.cuda-gdb.txt" ${c}_drop.json --inferred
  check "$c without backtrace rows: the inferred caller is the indirect call site, marked, one candidate" json_stop ${c}_drop.json error_pc \
    "[(k['inferred'], k['indirect'], k['candidates']) for k in s['callers']] == [(True, True, 1)] and s['inferred_note'] is None"
  contains "$c without backtrace rows: the text marks the candidate as an indirect call" ${c}_drop.txt \
    '^  inferred caller, candidate 1 of 1, an indirect call \(through a pointer'
  lacks "$c without backtrace rows: no 'callers not inferred'" ${c}_drop.txt 'callers not inferred|no call to' '^  inferred caller'
  if [ -n "$NVDISASM" ]; then
    read -r sym off < <(python3 -c "import json; s=json.load(open('${c}_drop.json'))['cores'][0]['stops'][0]; k=s['callers'][0]['kernel']; print(k['mangled'], k['offset'])")
    "$NVDISASM" -c "$D/$c.1.0.sm_90.cubin" 2>/dev/null | python3 "$L/sass_at.py" "$sym" "$off" > ${c}_call.sass
    contains "$c: nvdisasm shows a call through a register at the inferred call site" ${c}_call.sass '^CALL\.[A-Z.]* R[0-9]+ '
  else
    skip "$c: the indirect call site against nvdisasm (pip install nvidia-cuda-nvdisasm)"
  fi
done

# --- other resident warps in an exception dump ------------------------------------------------------------------
# triton_hang.core (a user dump of one kernel, 4 warps) with its first warp made to fault: warps 1-3 are now the
# other resident warps of an exception dump, spinning at the line nvdisasm -gi gives for their PC.
xz -dc "$TRUELINE_ROOT/tests/data/coredumps/triton_hang.core.xz" > triton_hang.core
premise "triton_hang's first warp made to fault" python3 "$MUTATE" triton_hang.core resident.core fault-first
trueline-check --coredump resident.core > resident.txt 2>&1
trueline-check --coredump resident.core --format json > resident.json 2>/dev/null
contains "resident: the header counts the other resident warps" resident.txt '^dump taken on an exception: the faulting warps, then the 3 other resident warps by kernel \(4 resident warps in all\)'
check "resident: JSON lists warps 1-3 as resident, after every faulting stop" python3 - resident.json <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))['cores'][0]['stops']
kinds = [s['kind'] for s in st]
res = [s for s in st if s['kind'] == 'resident']
warps = sorted(w['warp'] for s in res for w in s['warps'])
first = kinds.index('resident')
sys.exit(0 if warps == [1, 2, 3] and all(k == 'resident' for k in kinds[first:]) and kinds[0] == 'error_pc' and all(s['exception'] is None for s in res) else 1)
PY
contains "resident: the text heads them as resident, no exception" resident.txt '^Resident, no exception: warps at PC 0x'
if [ -n "$NVDISASM" ]; then
  tar xJf "$TRUELINE_ROOT/tests/data/coredumps/triton_cache.tar.xz"
  read -r off line < <(python3 -c "import json; s=[s for s in json.load(open('resident.json'))['cores'][0]['stops'] if s['kind']=='resident'][0]; print(s['kernel']['offset'], s['frames'][0]['line'])")
  # the cache holds two builds of the kernel: the core's is the one whose line at cuda-gdb's focus PC is cuda-gdb's
  G=$TRUELINE_ROOT/tests/data/coredumps/triton_hang.cuda-gdb.txt
  gdb_off=$(sed -n 's/^\$1 = .*<conditional_hang_kernel+\([0-9]*\)>.*/\1/p' "$G")
  gdb_line=$(sed -n 's/^#0 .*conditional_hang\.py:\([0-9]*\)$/\1/p' "$G" | head -1)
  want=
  for cubin in $(find triton_cache -name 'conditional_hang_kernel.cubin'); do
    "$NVDISASM" -gi "$cubin" 2>/dev/null | python3 "$L/nvdisasm_chains.py" > triton.chains
    pair=$(python3 - triton.chains "$gdb_off" "$off" <<'PY'
import sys
def line_at(o):
    line = ''
    for f, at, chain in (l.split() for l in open(sys.argv[1])):
        if f == 'conditional_hang_kernel' and int(at, 16) <= o:
            line = chain.split(',')[0].rsplit(':', 1)[1]
    return line
print(line_at(int(sys.argv[2])), line_at(int(sys.argv[3])))
PY
)
    [ "${pair% *}" = "$gdb_line" ] && want=${pair#* }
  done
  same "resident: their line is nvdisasm -gi's for conditional_hang_kernel + $off" "$line" "$want"
else
  skip "resident: their line against nvdisasm -gi (pip install nvidia-cuda-nvdisasm)"
fi
# the single-warp cores show no resident section
lacks "deep: a one-warp exception dump has no resident warps" deep.txt '^Resident' '^CUDA Exception'

# streams.core (made when the GPU machine writes one): a fault in one stream while another stream's kernel spins
if [ -f "$D/streams.core.xz" ]; then
  xz -dc "$D/streams.core.xz" > streams.core
  trueline-check --coredump streams.core --format json > streams.json 2>streams.err; rc=$?
  check "streams: read with exit 0 (got $rc)" [ $rc -eq 0 ]
  peek=$(grep -n 'int peek(' "$D/streams.cu" | cut -d: -f1); spin=$(grep -n 'while (peek(flag)' "$D/streams.cu" | cut -d: -f1)
  check "streams: faulter faults, spinner is resident at its spin (streams.cu:$peek or :$spin)" python3 - streams.json "$peek" "$spin" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))['cores'][0]['stops']
fault = [s for s in st if s['exception'] and s['kernel'] and s['kernel']['name'].startswith('faulter')]
spin = [s for s in st if s['kind'] == 'resident' and s['kernel'] and s['kernel']['name'].startswith('spinner')]
ok = fault and spin and all(s['frames'] and s['frames'][0]['file'].endswith('streams.cu') and
                            s['frames'][0]['line'] in (int(sys.argv[2]), int(sys.argv[3])) for s in spin)
sys.exit(0 if ok else 1)
PY
  if [ -f "$D/streams.cuda-gdb.txt" ]; then
    for k in $(sed -n 's/.* \([a-z_]*\)() *$/\1/p' "$D/streams.cuda-gdb.txt" | sort -u); do
      contains "streams: cuda-gdb's kernel $k is named" streams.json "\"name\": ?\"$k\\("
    done
  fi
else
  skip "streams: tests/data/coredumps/kinds/streams.core.xz not made yet (a fault in one stream while another spins)"
fi

# --- a core the driver cut short: named, exit 2, the other cores still read -------------------------------------
trueline-check --coredump virt-full.core fptr.core > cut.txt 2> cut.err; rc=$?
check "virt-full: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "virt-full: the message names the file and says truncated" cut.err 'virt-full\.core: truncated core: its section header table .* ends past the end of the file'
contains "virt-full: fptr.core beside it is still read" cut.txt 'Warp Illegal Address'
