#!/usr/bin/env bash
# The device side of --split on the shapes nvcc 13 writes: whole-program objects (stored cubins, zstd PTX), -rdc
# objects for sm_80/sm_90/sm_100 (relocatable cubins with .rel and .rela line relocations, shared-memory
# sections without file bytes, sm_100's Mercury copies), their device link, a linked executable (in place) and
# every codec (--compress-mode=none|speed|size). Oracles: NVIDIA's cuobjdump (SASS byte-identical, no .loc left in
# the PTX), readelf (the store's build-id notes), and the same build without -lineinfo (what the split must
# approach). Skips without nvcc; the cuobjdump checks skip without it.
. "$(dirname "$0")/../lib/harness.sh"
have_nvcc || { skip "nvcc not found (CUDA_HOME or PATH)"; exit 0; }
CUOBJDUMP=$(find_pypi_tool cuobjdump)
[ -n "$CUOBJDUMP" ] || CUOBJDUMP=$(command -v cuobjdump || true)
cd "$T" || exit 1
cat > k.cu <<'EOF'
__device__ __forceinline__ float twice(float x) { return 2.0f * x; }
__device__ __noinline__ float sq(float x) { return x * x; }
__global__ void kern(float *o, const float *i, int n)
{
    __shared__ float tile[256];
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    tile[threadIdx.x] = t < n ? i[t] : 0.0f;
    __syncthreads();
    if (t < n)
        o[t] = twice(tile[threadIdx.x]) + sq(tile[threadIdx.x]);
}
EOF
cat > r.cu <<'EOF'
extern __device__ float sq(float x);
struct V { __device__ virtual float f(float x) const { return sq(x) + 1.0f; } };
__global__ void rkern(float *o, int n)
{
    __shared__ float acc[128];
    V *v = new V();
    acc[threadIdx.x % 128] = v->f(o[threadIdx.x % n]);
    __syncthreads();
    o[threadIdx.x % n] = acc[(threadIdx.x + 1) % 128];
    delete v;
}
EOF
cat > s.cu <<'EOF'
__device__ float sq(float x) { return x * x; }
EOF
cat > main.cu <<'EOF'
__global__ void kern(float *o, const float *i, int n);
int main() { kern<<<1, 1>>>(nullptr, nullptr, 0); return 0; }
EOF
build() { # NAME ARGS...: nvcc, output NAME
  local n=$1; shift
  nvcc "$@" -o "$n" > "$n.log" 2>&1 || { sed 's/^/    | /' "$n.log"; return 1; }
}
premise "whole-program objects" build k.o -c -arch=sm_90 -lineinfo -O3 k.cu
premise "whole-program objects without line info" build k0.o -c -arch=sm_90 -O3 k.cu
premise "-rdc objects for three archs" sh -c 'for f in r s; do nvcc -c -rdc=true -lineinfo -O3 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_100,code=[sm_100,compute_100] -o $f.o $f.cu || exit 1; done'
premise "their device link" build dl.o -dlink -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_100,code=sm_100 r.o s.o
premise "an executable" build app -arch=sm_90 -lineinfo -O3 -Xlinker --build-id k.cu main.cu
premise "an executable with uncompressed fatbin entries" build appn -arch=sm_90 -lineinfo -O3 --compress-mode=none \
  -Xlinker --build-id k.cu main.cu
for mode in none speed size; do
  premise "objects with --compress-mode=$mode" build k_$mode.o -c -arch=sm_90 -lineinfo -O3 --compress-mode=$mode -Xfatbin -compress-all k.cu
done

split() { trueline-check --split --device-only --debug-store store --output-dir out "$@" > split.out 2>&1; }
expect_rc "split of objects, -rdc objects, a device link and every codec exits 0" 0 \
  split k.o r.o s.o dl.o k_none.o k_speed.o k_size.o
sed 's/^/    | /' split.out | head -12
expect_rc "split of the linked executables (in place) exits 0" 0 \
  trueline-check --split --debug-store store --output-dir out app appn

size() { stat -c %s "$1"; }
check "a split object is smaller than the one built with line info" test "$(size out/k.o)" -lt "$(size k.o)"
# what remains over the build without -lineinfo: the emptied sections' headers and names, the fatbin entry's
# identifier and PTX options (a few hundred bytes per image), never the line tables themselves
over=$(( $(size out/k.o) - $(size k0.o) ))
check "the split object is within 2 KB of the build without -lineinfo (${over} bytes over)" test "$over" -lt 2048
check "the executable keeps its size (in place)" test "$(size out/app)" -eq "$(size app)"
smaller_xz() { [ -s "$1" ] && [ -s "$2" ] && [ "$(xz -9 -c "$1" | wc -c)" -lt "$(xz -9 -c "$2" | wc -c)" ] || { echo "    | xz: $1 $(xz -9 -c "$1" | wc -c), $2 $(xz -9 -c "$2" | wc -c)"; return 1; }; }
# In place, a compressed entry is compressed again without its line info, and on a line table this small xz gains
# or loses a few dozen bytes from build to build; an uncompressed entry's line info becomes zeros.
check "the executable compresses smaller once split (uncompressed entries)" smaller_xz out/appn appn

# The store: one file per image that had line info, each an ELF with a GNU build-id note naming its path.
parts=$(find store/.build-id -name '*.debug' | wc -l)
check "the store holds device parts ($parts)" test "$parts" -ge 8
ids_match() {
  local f id
  for f in $(find store/.build-id -name '*.debug'); do
    id=$(readelf -n "$f" 2>/dev/null | awk '/Build ID:/ {print $3}')
    [ -n "$id" ] && [ "$f" = "store/.build-id/${id:0:2}/${id:2}.debug" ] || { echo "    | $f: build-id '$id'"; return 1; }
  done
}
check "every store file is named by its build-id note (readelf -n)" ids_match

if [ -z "$CUOBJDUMP" ]; then
  skip "cuobjdump not found (pip install nvidia-cuda-cuobjdump): SASS and PTX comparisons"
  exit 0
fi
for f in k.o r.o s.o dl.o k_none.o k_speed.o k_size.o app; do
  "$CUOBJDUMP" -sass "$f" > "$f.sass" 2>&1
  "$CUOBJDUMP" -sass "out/$f" > "$f.split.sass" 2>&1
  check "$f: cuobjdump -sass of the split copy is byte-identical" same_bytes "$f.sass" "$f.split.sass"
done
grep -q 'Function :' k.o.sass || fail "premise: cuobjdump -sass printed no function for k.o"
"$CUOBJDUMP" -ptx k.o > k.ptx 2>&1; "$CUOBJDUMP" -ptx out/k.o > k.split.ptx 2>&1; "$CUOBJDUMP" -ptx k0.o > k0.ptx 2>&1
check "the PTX had .loc lines before the split" grep -q '\.loc' k.ptx
lacks "no .loc / .file line is left in the split PTX" k.split.ptx '^[[:space:]]*\.(loc|file)[[:space:]]' '\.entry'
# the entry header still names the source and ptxas' --generate-line-info option: headers are kept as built
grep -Ev '^(identifier|ptxasOptions) =|^$' k.split.ptx > k.split.body; grep -Ev '^(identifier|ptxasOptions) =|^$' k0.ptx > k0.body
check "the split PTX is the PTX built without -lineinfo" same_bytes k.split.body k0.body
"$CUOBJDUMP" -lelf -lptx r.o > r.list 2>&1; "$CUOBJDUMP" -lelf -lptx out/r.o > r.split.list 2>&1
check "the -rdc object keeps every image (cuobjdump -lelf -lptx)" same_bytes r.list r.split.list
