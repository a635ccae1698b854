#!/usr/bin/env bash
# trueline-check --coredump on the four study cores (tests/data/coredumps/README.md: made on an H200 with
# driver 580 / CUDA 13.0; *.cuda-gdb.txt is what cuda-gdb printed) and on cores damaged on purpose.
. "$(dirname "$0")/../lib/harness.sh"
D=$TRUELINE_ROOT/tests/data/coredumps
MUTATE="$TRUELINE_ROOT/tests/suites/coredump_mutate.py"
if ! have xz || ! have python3; then
  skip "xz and python3 are needed to unpack and derive the test cores"
  exit 0
fi
cd "$T" || exit 1
for c in oob hang triton_hang torch_ima; do xz -dc "$D/$c.core.xz" >"$c.core"; done
tar xJf "$D/triton_cache.tar.xz"

# cd_run NAME ARGS...: trueline-check --coredump ARGS > NAME.out, 2> NAME.err, status in NAME.rc
cd_run() { local n=$1; shift; trueline-check --coredump "$@" >"$n.out" 2>"$n.err"; echo $? >"$n.rc"; }
# rc_is NAME RUN WANT: the run's exit status is WANT; a clean exit (0) counts only with a report written
rc_is() {
  local got; got=$(cat "$2.rc")
  if [ "$got" = "$3" ] && { [ "$3" != 0 ] || [ -s "$2.out" ]; }; then pass "$1"
  else fail "$1 (exit $got, want $3$([ -s "$2.out" ] || echo ', no report'))"; sed 's/^/    | /' "$2.err" | head -5; fi
}
# Line assertions wait for the shared cubin line lookup (read/cubin_lines.h) while this branch lacks it.
no_lookup() { grep -q 'cubin line lookup (read/cubin_lines.h) is not in this build yet' oob.out; }
lines() { if no_lookup; then skip "$1 (cubin line lookup not merged yet)"; else contains "$@"; fi; }
# block FILE HEADER-REGEX > OUT: the report block that starts at the header line (up to the blank line).
block() { awk -v pat="$2" '$0 ~ pat {p=1} p && /^$/ {exit} p' "$1" >"$3"; }

# --- oob.core: Warp Illegal Address through two __forceinline__ helpers -----------------------------------
cd_run oob oob.core
rc_is "oob: exit 0" oob 0
block oob.out '^CUDA Exception' oob.err_pc
contains "oob: exception and error PC" oob.err_pc '^CUDA Exception: Warp Illegal Address \(14\), triggered at PC 0x7f39f77a0090$'
contains "oob: kernel + offset, demangled, as cuda-gdb's info symbol" oob.err_pc 'kernel: +bad_kernel\(float const\*, float\*, long\) \+ 144  \[\.text\._Z10bad_kernelPKfPfl, module 9 of context 0'
contains "oob: device/SM/CTA/warp/lanes/threads" oob.err_pc 'where: +device 0 sm 124 cta 0 blockIdx \(0,0,0\) warp 0 lanes 0-31 threadIdx \(0,0,0\)\.\.\(31,0,0\)$'
contains "oob: grid and block dims" oob.err_pc 'grid: +1, gridDim \(1,1,1\) blockDim \(32,1,1\)'
lines "oob: innermost frame load_it at oob.cu:2" oob.err_pc '#0 /opt/trueline-demo/oob.cu:2 in load_it\(float const\*, long\)'
lines "oob: inlined from twice at oob.cu:3" oob.err_pc '#1 /opt/trueline-demo/oob.cu:3 in twice\(float const\*, long\)'
lines "oob: outermost frame oob.cu:6 (deeper than cuda-gdb)" oob.err_pc '#2 /opt/trueline-demo/oob.cu:6( in bad_kernel|$)'
block oob.out '^Lanes now at PC' oob.lanes
contains "oob: lanes ran on to +176, as cuda-gdb's \$pc" oob.lanes 'bad_kernel\(float const\*, float\*, long\) \+ 176 '
lines "oob: lane PC line oob.cu:3 in twice" oob.lanes '#0 /opt/trueline-demo/oob.cu:3 in twice'
lacks "oob: exited lanes add no other PC" oob.out 'Warps at PC' '^Lanes now at PC'

mkdir -p src && cp "$D/oob.cu" src/
cd_run oobsrc oob.core --source-dir "$T/src"
lines "oob --source-dir: source text of the faulting line" oobsrc.out '^ +2 \| __device__ __forceinline__ float load_it'
lines "oob --source-dir: source text of the call site" oobsrc.out '^ +6 \|   out\[i\] = twice'

# --- hang.core: user-triggered dump of a spinning kernel -----------------------------------------------------
cd_run hang hang.core
rc_is "hang: exit 0" hang 0
contains "hang: recognised as a dump with no exception" hang.out '^dump with no exception \(user-triggered'
lacks "hang: no exception is invented" hang.out 'CUDA Exception' '^dump with no exception'
contains "hang: spinning warp at hang_kernel + 208" hang.out 'kernel: +hang_kernel\(int volatile\*, float\*\) \+ 208 '
lines "hang: hang.cu:2 in spin" hang.out '#0 /opt/trueline-demo/hang.cu:2 in spin\(int volatile\*, float\*\)'
lines "hang: inlined from hang.cu:3" hang.out '#1 /opt/trueline-demo/hang.cu:3'

# --- triton_hang.core: Triton JIT kernel, one warp diverged at a convergence barrier ------------------------
cd_run triton triton_hang.core
rc_is "triton: exit 0" triton 0
block triton.out 'at PC 0x7f9ff77f9920' triton.544
contains "triton: blocked lanes at conditional_hang_kernel + 544" triton.544 'kernel: +conditional_hang_kernel \+ 544 '
contains "triton: those are warp 0 lanes 0-15, parked on B0" triton.544 'warp 0 lanes 0-15 threadIdx \(0,0,0\)\.\.\(15,0,0\), inactive, blocked on convergence barrier B0'
lines "triton: + 544 is conditional_hang.py:18 (tl.store)" triton.544 '#0 /opt/trueline-demo/conditional_hang.py:18( in conditional_hang_kernel)?$'
block triton.out 'at PC 0x7f9ff77f9900' triton.512
contains "triton: spinning lanes at + 512" triton.512 'conditional_hang_kernel \+ 512 '
contains "triton: warp 3 spins too (grouped by PC)" triton.512 'warp 3 lanes 0-31 threadIdx \(96,0,0\)\.\.\(127,0,0\)'
lines "triton: + 512 is conditional_hang.py:17" triton.512 '#0 /opt/trueline-demo/conditional_hang.py:17( in conditional_hang_kernel)?$'

# --- torch_ima.core: PyTorch kernel without line info ----------------------------------------------------------
cd_run torch torch_ima.core
rc_is "torch: exit 0" torch 0
block torch.out '^CUDA Exception' torch.err_pc
contains "torch: error PC in index_elementwise_kernel + 11472" torch.err_pc 'kernel: +void at::native::index_elementwise_kernel<128, 4, .* \+ 11472  \[\.text\._ZN2at6native24index_elementwise_kernel'
contains "torch: warp 3 (hardware id, not the row)" torch.err_pc 'sm 124 cta 0 blockIdx \(0,0,0\) warp 3 '
contains "torch: honest: no line info in this image" torch.err_pc 'line: +none: no line info in this image'
contains "torch: lanes 0-9 active at + 11536" torch.out 'index_elementwise_kernel.* \+ 11536 '
cd_run torchbin torch_ima.core --binary "$T/triton_cache"
contains "torch --binary elsewhere: says the kernel is not there" torchbin.out 'no sm_90 copy of _ZN2at6native24index_elementwise.* among its [1-9][0-9]* device images'
contains "torch --binary elsewhere: says nothing has line info" torchbin.out 'nothing has line info for this kernel: rebuilding through trueline-cc'

# --- --binary: the core's image has no line info, the shipped artifact has ---------------------------------------
python3 "$MUTATE" triton_hang.core triton_nolines.core no-lines
cd_run tnl triton_nolines.core
contains "no-lines core: says the image has none" tnl.out 'no line info in this image'
cd_run tnlbin triton_nolines.core --binary "$T/triton_cache"
block tnlbin.out 'at PC 0x7f9ff77f9920' tnlbin.544
lines "--binary Triton cache: the same kernel's line table is used" tnlbin.544 '#0 /opt/trueline-demo/conditional_hang.py:18( in conditional_hang_kernel)?$'
lines "--binary Triton cache: the copy with the matching code size (2KM5...)" tnlbin.544 'line info from .*/2KM5PB3NJ62GKBSQDDNDRNOT2NVPCDPM62XSTR5Z34L25BXHXHSA/conditional_hang_kernel\.cubin'

# --- --binary with an executable's fatbin, rebuilt here from oob.cu (the same nvcc major as the core's) ---------
if have_nvcc; then
  python3 "$MUTATE" oob.core oob_nolines.core no-lines
  cp "$D/oob.cu" .
  if nvcc -arch=sm_90 -lineinfo oob.cu -o oob_exe >nvcc.log 2>&1 && nvcc -arch=sm_90 oob.cu -o oob_bare >>nvcc.log 2>&1; then
    cd_run oobexe oob_nolines.core --binary oob_exe
    block oobexe.out '^CUDA Exception' oobexe.err_pc
    if grep -q 'no sm_90 copy of _Z10bad_kernelPKfPfl with 384 bytes' oobexe.out; then
      skip "--binary executable: this nvcc emits different code for bad_kernel than the core's CUDA 13.0 did"
    else
      lines "--binary executable: full chain from its fatbin" oobexe.err_pc "#0 $T/oob.cu:2 in load_it"
      lines "--binary executable: ... down to oob.cu:6" oobexe.err_pc "#2 $T/oob.cu:6"
      lines "--binary executable: says where the lines came from" oobexe.err_pc 'line info from oob_exe \(fatbin entry [0-9.]+, sm_90\): the image in the core has none'
      lines "--binary executable: source text from the recorded path" oobexe.err_pc '^ +2 \| __device__ __forceinline__ float load_it'
      cd_run oobbare oob_nolines.core --binary oob_bare
      contains "--binary without -lineinfo: found, says it has no line info either" oobbare.out 'the same kernel \(sm_90, 384 bytes of code\) is in oob_bare .*without line info either; nothing has line info for this kernel: rebuilding through trueline-cc'
    fi
  else
    fail "nvcc could not build oob.cu"; tail -5 nvcc.log
  fi
else
  skip "--binary executable: nvcc not found"
fi

# --- JSON ----------------------------------------------------------------------------------------------------------
cd_run json --format json oob.core triton_hang.core torch_ima.core
rc_is "json: exit 0" json 0
if python3 - json.out >json.check 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "trueline-coredump-report" and d["schema_version"] == 1, d.get("schema")
oob, tri, tor = d["cores"]
s = oob["stops"][0]
assert s["kind"] == "error_pc" and s["pc"] == "0x7f39f77a0090", s
assert s["exception"] == {"code": 14, "name": "Warp Illegal Address"}, s["exception"]
assert s["kernel"]["offset"] == 144 and s["kernel"]["mangled"] == "_Z10bad_kernelPKfPfl", s["kernel"]
f = s["frames"]
assert [x["line"] for x in f] == [2, 3, 6], f
assert f[0]["function"].startswith("load_it") and f[1]["function"].startswith("twice"), f
assert s["warps"][0]["sm"] == 124 and s["warps"][0]["lanes"] == "0xffffffff", s["warps"]
assert tri["dump"] == "user" and tri["resident_warps"] == 4, tri["dump"]
assert any(x["frames"] and x["frames"][0]["line"] == 18 for x in tri["stops"]), tri["stops"]
e = tor["stops"][0]
assert e["kernel"]["offset"] == 11472 and not e["frames"] and "no line info" in e["note"], e
print("ok")
PY
then pass "json: parses; oob chain 2,3,6; triton line 18; torch offset and note"
elif no_lookup; then skip "json: content (cubin line lookup not merged yet)"; else fail "json: content"; sed 's/^/    | /' json.check | tail -5; fi

# --- rows longer than these cores' (newer drivers append fields) ----------------------------------------------
python3 "$MUTATE" oob.core wide.core widen
cd_run wide wide.core
rc_is "wider warp/lane rows: accepted" wide 0
if [ -s wide.out ] && diff <(sed 1d oob.out) <(sed 1d wide.out) >wide.diff; then pass "wider rows: same report as the original"; else fail "wider rows: report differs"; head -10 wide.diff; fi

# --- lanes inside non-inlined calls (synthetic: no study core has one; rows as cudacoredump.h describes them) ----
python3 "$MUTATE" hang.core deep.core call-depth
cd_run deep deep.core
contains "callDepth > 0 without backtrace rows: said, not hidden" deep.out 'warp 0 lanes 0-31 .*, 2 non-inlined calls deep \(the core has no backtrace rows for it: callers not shown\)$'
lacks "callDepth 0: nothing said" hang.out 'non-inlined call|called from' 'kernel: +hang_kernel'
python3 "$MUTATE" hang.core bt.core backtrace
cd_run bt bt.core
contains "backtrace row: the caller by its return address" bt.out '^  called from hang_kernel\(int volatile\*, float\*\) \+ 96 \(return address 0x7fce6b7a0060\)'
lines "backtrace row: the call's line chain continues the numbering" bt.out '#3 /opt/trueline-demo/hang.cu:3 in hang_kernel'
cd_run btjson --format json bt.core
if python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["cores"][0]["stops"][0]["callers"]; assert len(c)==1 and c[0]["return_pc"]=="0x7fce6b7a0060" and c[0]["kernel"]["offset"]==96, c' btjson.out 2>btjson.check
then pass "backtrace row: JSON callers"; else fail "backtrace row: JSON callers"; tail -3 btjson.check; fi

# --- a full-GPU-sized dump: 70000 warps, more sections than e_shnum can count (ELF extended numbering) ---------
python3 "$MUTATE" hang.core many.core many-warps
cd_run many many.core
rc_is "70000 warps, extended section numbering: read" many 0
contains "70000 warps: all counted" many.out '70000 resident warps, grouped by PC'
block many.out 'at PC 0x7fce6b7a00d0' many.208
contains "70000 warps: 4376 at + 208 (warp 0 and every 16th from 13), 8 listed" many.208 '^ +\.\.\. and 4368 more warps at this PC$'
check "70000 warps: 16 PC groups ($(grep -c '^Warps at PC' many.out))" [ "$(grep -c '^Warps at PC' many.out)" -eq 16 ]

# --- damaged cores: a clear message naming the file, exit 2, the other inputs still read ------------------------
bad() { # NAME MESSAGE-REGEX (the core is NAME.core)
  cd_run "$1" "$1.core"
  rc_is "$1: exit 2" "$1" 2
  contains "$1: names the file and the problem" "$1.err" "^trueline-check: $1\\.core: .*$2"
}
python3 "$MUTATE" oob.core short-lanes.core short-lanes; bad short-lanes 'lntbl rows are 40 bytes, at least 48'
python3 "$MUTATE" oob.core bad-link.core bad-link; bad bad-link 'sh_link 1 is not a ctatbl table'
python3 "$MUTATE" oob.core bad-info.core bad-info; bad bad-info 'sh_info 999 is past'
python3 "$MUTATE" oob.core ragged.core ragged; bad ragged 'not a multiple of its row size'
head -c 200000 oob.core >cut.core; bad cut 'truncated core'
head -c 30 oob.core >stub.core; bad stub 'not (a valid |an )ELF file'
cp "$(command -v trueline-check)" host.core; bad host 'not a CUDA GPU coredump'
cd_run nobin hang.core --binary "$T/no-such.so"
rc_is "missing --binary: exit 2" nobin 2
contains "missing --binary: named" nobin.err "no-such\.so: --binary: cannot read"
contains "missing --binary: the core is still reported" nobin.out 'hang_kernel\(int volatile\*, float\*\) \+ 208'
cd_run mixed cut.core hang.core
rc_is "bad + good core: exit 2" mixed 2
contains "bad + good core: the good one is still reported" mixed.out 'hang_kernel\(int volatile\*, float\*\) \+ 208'

# --- cores of binaries built through trueline-cc on the GPU machine (no -lineinfo given: the wrapper forced it) ----
for c in tl_oob tl_hang; do xz -dc "$D/$c.core.xz" >"$c.core"; done
cd_run tloob tl_oob.core
rc_is "trueline-cc build, fault: exit 0" tloob 0
contains "trueline-cc build, fault: bad_kernel + 144" tloob.out 'kernel: +bad_kernel\(float const\*, float\*, long\) \+ 144 '
contains "trueline-cc build, fault: forced line info gives load_it at oob.cu:2" tloob.out '#0 /tmp/cw/oob.cu:2 in load_it\(float const\*, long\)'
contains "trueline-cc build, fault: ... inlined from twice at oob.cu:3" tloob.out '#1 /tmp/cw/oob.cu:3 in twice\(float const\*, long\)'
contains "trueline-cc build, fault: ... from bad_kernel at oob.cu:6" tloob.out '#2 /tmp/cw/oob.cu:6 in bad_kernel'
cd_run tlhang tl_hang.core
rc_is "trueline-cc build, hang: exit 0" tlhang 0
contains "trueline-cc build, hang: hang_kernel + 208" tlhang.out 'kernel: +hang_kernel\(int volatile\*, float\*\) \+ 208 '
contains "trueline-cc build, hang: spin at hang.cu:2 inlined from hang.cu:3" tlhang.out '#0 /tmp/cw/hang.cu:2 in spin'
