#!/usr/bin/env bash
# --symbolize with many locations in one process: every annotated instruction of cubins built here, asked at
# once (as arguments, and one per line on stdin), answered as nvdisasm -gi annotates it; --addr2line's output
# (function, then file:line, per frame) in step with the input, "??" for locations without an answer.
. "$(dirname "$0")/../lib/harness.sh"
have_nvcc || { skip "nvcc not found (CUDA_HOME / PATH)"; exit 0; }
NVDISASM=$(find_pypi_tool nvdisasm)
[ -n "$NVDISASM" ] || { skip "nvdisasm (pip install nvidia-cuda-nvdisasm) absent: nothing to compare with"; exit 0; }
L=$TRUELINE_ROOT/tests/lib
TC=trueline-check
cd "$T" || exit 1
# loops (unrolled) and two inline levels, so that the batch has several hundred annotated offsets
cat > loops.cu <<'EOF'
__device__ __forceinline__ float scale(float x) { return x * 3.0f + 1.0f; }
__device__ __forceinline__ float helper(float x) { return scale(x) * scale(x + 1.0f); }
__global__ void kernA(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = helper(p[i]); }
__global__ void kernL(float *p, const float *q, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
#pragma unroll 8
    for (int k = 0; k < n; k++)
        acc += helper(q[(i + k) % n]) - scale(p[k % n]);
    for (int k = 0; k < n; k += 3)
        acc = acc * helper(acc) + scale((float)k);
    if (i < n) p[i] = acc;
}
EOF
for j in 1 2 3 4; do # more kernels, each on lines of its own
  cat >> loops.cu <<EOF
__global__ void kernM$j(float *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = p[i];
#pragma unroll 16
    for (int k = 0; k < $((60 + j)); k++)
        acc = helper(acc) + scale(acc * (float)k);
    p[i] = acc;
}
EOF
done
premise "nvcc builds the cubin" nvcc -O3 -lineinfo -arch=sm_90 -cubin -o loops.cubin loops.cu
"$NVDISASM" -gi loops.cubin | python3 "$L/nvdisasm_chains.py" > loops.exp
premise "nvdisasm annotates more than 200 offsets of loops.cubin" test "$(wc -l < loops.exp)" -gt 200
awk '{ print $1 "+" $2 }' loops.exp > loops.locs

# stdin, --addr2line: per location, (function, file:line) pairs; compared frame by frame with nvdisasm's chain
"$TC" --symbolize loops.cubin --addr2line < loops.locs > a2l.txt 2> a2l.err; rc=$?
check "batch from stdin: exit 0, nothing on stderr, two lines a frame" sh -c \
  '[ '$rc' = 0 ] && [ ! -s a2l.err ] && [ "$(wc -l < a2l.txt)" = "$(($(cut -d" " -f3 loops.exp | tr , "\n" | wc -l) * 2))" ]'
check "--addr2line: every one of the $(wc -l < loops.exp) locations has nvdisasm -gi's chain (file:line per frame, innermost first)" python3 - <<'PY'
import sys
exp = [l.split() for l in open("loops.exp")]
out = open("a2l.txt").read().split("\n")
if out and out[-1] == "": out.pop()
# group the pairs: a location's frames end where the next location's begin; nvdisasm gives the depth
i, bad = 0, 0
for fn, off, chain in exp:
    want = chain.split(",")
    got = []
    for _ in want:
        if i + 1 >= len(out): bad += 1; break
        got.append(out[i + 1]); i += 2
    if got != want:
        bad += 1
        if bad <= 3: print("    |", fn, off, "nvdisasm", want, "trueline", got)
sys.exit(0 if bad == 0 and i == len(out) and len(exp) > 200 else 1)
PY
check "--addr2line: the outermost frame's function is the kernel (c++filt of nvdisasm's section name)" python3 - <<'PY'
import subprocess, sys
exp = [l.split() for l in open("loops.exp")]
out = open("a2l.txt").read().split("\n")
names = dict(zip(sorted({e[0] for e in exp}), subprocess.run(["c++filt"], input="\n".join(sorted({e[0] for e in exp})),
             capture_output=True, text=True).stdout.split("\n")))
i, bad = 0, 0
for fn, off, chain in exp:
    depth = len(chain.split(","))
    bad += out[i + 2 * (depth - 1)] != names[fn]
    i += 2 * depth
sys.exit(0 if bad == 0 else 1)
PY

# the same locations as arguments, in the default text form: one heading per location, as many as asked
"$TC" --symbolize loops.cubin $(cat loops.locs) > args.txt 2>&1; rc=$?
check "batch as arguments: one answer per location, exit 0" sh -c \
  '[ '$rc' = 0 ] && [ "$(grep -c "^_Z[^ ]*+0x[0-9a-f]* (cubin sm_90):$" args.txt)" = "$(wc -l < loops.locs)" ]'
check "batch as arguments: the file:line chains equal nvdisasm -gi's" python3 - <<'PY'
import re, sys
exp = {(f, int(o, 16)): c for f, o, c in (l.split() for l in open("loops.exp"))}
got, cur = {}, None
for line in open("args.txt"):
    m = re.match(r"^(\S+)\+0x([0-9a-f]+) \(", line)
    if m: cur = (m.group(1), int(m.group(2), 16)); got[cur] = []; continue
    m = re.match(r"^  #\d+ (\S+?:\d+)(?::\d+)? in ", line)
    if m and cur: got[cur].append(m.group(1))
bad = [k for k in exp if ",".join(got.get(k, [])) != exp[k]]
sys.exit(0 if not bad and len(exp) > 200 else 1)
PY

# JSON Lines: one object per location, naming the location asked
awk '{ print $1 "+" $2 }' loops.exp | head -50 | "$TC" --symbolize loops.cubin - --format json > j.jsonl
check "--format json: one object per location, in input order, with the location" python3 - <<'PY'
import json, sys
locs = [l.strip() for l in open("loops.locs")][:50]
objs = [json.loads(l) for l in open("j.jsonl")]
sys.exit(0 if [o["location"] for o in objs] == locs and all(o["frames"] for o in objs) else 1)
PY

# bad locations among good ones: answered in step ("??"), named on stderr, exit 2
printf '%s\nnot_a_kernel+0x10\n%s\nzz\n' "$(sed -n 1p loops.locs)" "$(sed -n 2p loops.locs)" |
  "$TC" --symbolize loops.cubin --addr2line > mix.txt 2> mix.err; rc=$?
check "bad locations: exit 2, each named on stderr, '??' pairs keep the output in step" python3 - "$rc" <<'PY'
import sys
out = open("mix.txt").read().split("\n"); err = open("mix.err").read()
if out and out[-1] == "": out.pop()
c1, c2 = ([x for x in l.split()[2].split(",")] for l in list(open("loops.exp"))[:2])
i, ok = 0, int(sys.argv[1]) == 2 and "not_a_kernel+0x10" in err and "'zz'" in err
for chain in (c1, None, c2, None):
    if chain is None:
        ok = ok and out[i:i + 2] == ["??", "??:0"]; i += 2
    else:
        ok = ok and out[i + 1:i + 2 * len(chain):2] == chain; i += 2 * len(chain)
sys.exit(0 if ok and i == len(out) else 1)
PY
