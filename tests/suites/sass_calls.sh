#!/usr/bin/env bash
# The SASS call decoder (checker/read/sass_calls.c) against nvdisasm: for every committed cubin, the images inside
# the committed GPU cores, and programs compiled here for every SM in the decoder's table (a __noinline__ chain, a
# function called from two kernels, recursion, a call through a function pointer, a device assert; a cross-file
# call under -rdc, before and after nvlink), every CALL nvdisasm shows is decoded at the same address with the
# same callee (or as indirect, through a register), and nothing else is.
. "$(dirname "$0")/../lib/harness.sh"
ND=$(find_pypi_tool nvdisasm)
LIST=$TRUELINE_BUILD/tests/sass_calls
[ -n "$ND" ] || { skip "nvdisasm not installed (pip install nvidia-cuda-nvdisasm)"; exit 0; }
[ -x "$LIST" ] || { skip "no $LIST (make unit builds it)"; exit 0; }
cd "$T" || exit 1

# nvdisasm_all CUBIN...: nvdisasm's listing of each, two at a time, into CUBIN.nvdisasm (CUBIN.nvdisasm-failed)
nvdisasm_all() {
  printf '%s\0' "$@" | xargs -0 -n1 -P2 sh -c \
    'python3 "$0" "$1" "$2" > "$2.nvdisasm" 2> "$2.nvdisasm.err" || touch "$2.nvdisasm-failed"' \
    "$TRUELINE_ROOT/tests/lib/nvdisasm_calls.py" "$ND"
}
# same_calls NAME CUBIN: nvdisasm read it (nvdisasm_all) and shows at least one CALL, and the decoder lists
# exactly those.
same_calls() {
  [ -f "$2.nvdisasm" ] && [ ! -f "$2.nvdisasm-failed" ] || { sed 's/^/    | /' "$2.nvdisasm.err"; return 1; }
  cp "$2.nvdisasm" "$1.nvdisasm" && "$LIST" --calls "$2" > "$1.decoded" || return 1
  sort "$1.nvdisasm" > "$1.want" && sort "$1.decoded" > "$1.got" || return 1
  [ -s "$1.want" ] && cmp -s "$1.want" "$1.got" && return 0
  diff "$1.want" "$1.got" | sed 's/^/    | /' | head -20
  return 1
}

mkdir committed && cp $(find "$TRUELINE_ROOT/tests/data" -name '*.cubin') committed/ || exit 1
nvdisasm_all committed/*.cubin
for f in committed/*.cubin; do
  n=$(basename "$f" .cubin)
  check "committed $n: every CALL nvdisasm shows, same callee, none more" same_calls "$n" "$f"
done

# the relocated images a GPU core holds (device addresses in sh_addr and symbols)
for c in assert_chain two_callers several_callers recurse; do
  xz -dc "$TRUELINE_ROOT/tests/data/coredumps/calls/$c.core.xz" > $c.core || { fail "premise: $c.core.xz decompresses"; continue; }
  python3 - $c.core $c <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", d, 0x28); n, = struct.unpack_from("<H", d, 0x3C)
for i in range(n):
    x = struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * 64)
    if x[1] == 0x80000007 and b".text._Z" in d[x[4]:x[4] + x[5]]:  # .cudbg.relfimg of the program, not the driver's
        open("%s.img%03d.cubin" % (sys.argv[2], i), "wb").write(d[x[4]:x[4] + x[5]])
PY
  nvdisasm_all $c.img*.cubin
  for img in $c.img*.cubin; do
    [ -f "$img" ] || { fail "$c.core: no relocated image of the program found"; break; }
    check "image in $c.core (${img#$c.}): every CALL nvdisasm shows, same callee, none more" same_calls "${img%.cubin}" "$img"
  done
done

if ! have nvcc && [ -z "$(cuda_home)" ]; then skip "nvcc not found: no cubins compiled here"; exit 0; fi
NVCC=$(command -v nvcc || echo "$(cuda_home)/bin/nvcc")
cat > calls.cu <<'CU'
#include <cassert>
__device__ __noinline__ int leaf(const int *v, int i) { assert(i >= 0); return v[i] * 3 + 1; }
__device__ __noinline__ int mid(const int *v, int i) {
  int s = 0;
#pragma unroll
  for (int k = 0; k < 64; k++) s += v[(i * k) & 1023] ^ k;
  return s + leaf(v, i);
}
__device__ __noinline__ int rec(const int *v, int i) { return i <= 0 ? v[0] : rec(v, i - 1) + leaf(v, i); }
__device__ __noinline__ int top(const int *v, int i) { return mid(v, i) + leaf(v, i + 1) + rec(v, i); }
__global__ void k1(const int *v, int *o) { o[threadIdx.x] = top(v, threadIdx.x) + leaf(v, 2); }
__global__ void k2(const int *v, int *o) { o[threadIdx.x] = leaf(v, threadIdx.x) + mid(v, 5); }
typedef int (*fp)(const int *, int);
__device__ fp table[2] = { leaf, mid };
__global__ void k3(const int *v, int *o) { o[threadIdx.x] = table[threadIdx.x & 1](v, threadIdx.x); }
CU
cat > caller.cu <<'CU'
extern __device__ int ext_fn(const int *v, int i);
__device__ __noinline__ int local_fn(const int *v, int i) { return v[i] + ext_fn(v, i + 1); }
__global__ void ka(const int *v, int *o) { o[threadIdx.x] = local_fn(v, threadIdx.x) + ext_fn(v, 3); }
CU
echo '__device__ __noinline__ int ext_fn(const int *v, int i) { return v[i] * 7; }' > callee.cu
# the SMs of the decoder's table that this nvcc compiles for, two compiles at a time
archs=$("$NVCC" --list-gpu-arch 2>/dev/null | sed -n 's/^compute_//p' | tr '\n' ' ')
built=()
for sm in 75 80 86 87 88 89 90 100 103 110 120 121; do
  case " $archs " in *" $sm "*) ;; *) skip "this nvcc does not compile for sm_$sm"; continue;; esac
  "$NVCC" -cubin -arch=sm_$sm -lineinfo -O3 -o calls.sm_$sm.cubin calls.cu 2> calls.sm_$sm.err &
  built+=("$sm")
  [ $(( ${#built[@]} % 2 )) -eq 0 ] && wait
done
wait
nvdisasm_all $(for sm in "${built[@]}"; do echo calls.sm_$sm.cubin; done)
for sm in "${built[@]}"; do
  check "sm_$sm compiled here: every CALL nvdisasm shows, same callee, none more" same_calls calls.sm_$sm calls.sm_$sm.cubin
done
for sm in 75 90; do
  case " $archs " in *" $sm "*) ;; *) continue;; esac
  "$NVCC" -cubin -rdc=true -arch=sm_$sm -o caller.sm_$sm.cubin caller.cu &&
    "$NVCC" -cubin -rdc=true -arch=sm_$sm -o callee.sm_$sm.cubin callee.cu || { fail "premise: -rdc cubins for sm_$sm"; continue; }
  nvdisasm_all caller.sm_$sm.cubin
  check "sm_$sm -rdc, before linking: CALL.ABS followed by relocation to the same callee" same_calls rdc.sm_$sm caller.sm_$sm.cubin
  NVLINK=$(dirname "$NVCC")/nvlink
  [ -x "$NVLINK" ] || { skip "no nvlink next to nvcc"; continue; }
  "$NVLINK" -arch=sm_$sm caller.sm_$sm.cubin callee.sm_$sm.cubin -o linked.sm_$sm.cubin || { fail "premise: nvlink sm_$sm"; continue; }
  nvdisasm_all linked.sm_$sm.cubin
  check "sm_$sm -rdc, linked by nvlink: the same" same_calls linked.sm_$sm linked.sm_$sm.cubin
done
