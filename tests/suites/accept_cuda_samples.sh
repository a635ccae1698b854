#!/usr/bin/env bash
# Acceptance: a project shaped like cuda-samples' mergeSort / simpleCooperativeGroups / simpleAtomicIntrinsics,
# built here through trueline-cc in front of ccache: cooperative groups, atomics, a __device__ function defined
# in one .cu and called from another, two -gencode targets (sm_80 and sm_90), -rdc=true, then the device link
# and the host link. What such a build used to get wrong, each compared with an independent oracle:
#   - its sm_80 relocatable cubins carry both .rel.debug_line and .rela.debug_line (readelf): they have line
#     rows (nvdisasm -gi annotates them) and --list / --symbolize / the audit must see them;
#   - nvcc names the host unit <stem>.compute_90.cudafe1.cpp (readelf): its provenance record must match it;
#   - host addresses of the executable are host code (addr2line), device images or not;
#   - dynamic parallelism (cdpSimpleQuicksort's shape: -rdc=true -lcudadevrt): NVIDIA's device runtime, host stubs
#     (nm on libcudadevrt.a) and device API in its own fatbin (readelf -s on its cubins), is reported as
#     libcudadevrt's, never as the user's missing line info;
#   - a __device__ virtual destructor deleted on the device (newdelete's shape): the deleting destructor (D0,
#     cuobjdump -elf) that cicc gives no .loc is the compiler's, while a build without -lineinfo still fails.
. "$(dirname "$0")/../lib/harness.sh"
have ccache || { skip "ccache not installed"; exit 0; }
have_nvcc || { skip "nvcc not found (CUDA_HOME / PATH)"; exit 0; }
have g++ && have addr2line && have readelf || { skip "g++ or binutils missing"; exit 0; }
W=$(command -v trueline-cc) || { fail "trueline-cc not on PATH"; exit 0; }
CUOBJDUMP=$(find_pypi_tool cuobjdump)
NVDISASM=$(find_pypi_tool nvdisasm)
L=$TRUELINE_ROOT/tests/lib
cd "$T" || exit 1
export CCACHE_DIR=$T/ccache

cat > reduce.cu <<'EOF'
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__device__ int reduce_sum(cg::thread_group g, int *temp, int val)
{
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        temp[lane] = val;
        g.sync();
        if (lane < i)
            val += temp[lane + i];
        g.sync();
    }
    return val;
}
EOF
cat > sample.cu <<'EOF'
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;
__device__ int reduce_sum(cg::thread_group g, int *temp, int val);
__global__ void sumKernel(int *out, const int *in, int n)
{
    extern __shared__ int temp[];
    cg::thread_block b = cg::this_thread_block();
    int v = threadIdx.x < n ? in[threadIdx.x] : 0;
    int s = reduce_sum(b, temp, v);
    if (b.thread_rank() == 0)
        atomicAdd(out, s);
    cg::thread_block_tile<32> t = cg::tiled_partition<32>(b);
    int x = t.shfl_down(v, 1);
    atomicMax(out + 1, x);
    atomicCAS(out + 2, 0, x);
}
int main()
{
    int *d = nullptr;
    if (cudaMalloc(&d, 64) != cudaSuccess) {
        printf("no device\n");
        return 0;
    }
    sumKernel<<<1, 64, 256>>>(d, d, 64);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
EOF
G="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
# shellcheck disable=SC2086
premise "the project builds: two .cu through trueline-cc ccache nvcc -rdc=true, device link, host link" sh -c "
  '$W' ccache nvcc $G -rdc=true -c sample.cu -o sample.o && '$W' ccache nvcc $G -rdc=true -c reduce.cu -o reduce.o &&
  nvcc $G -dlink sample.o reduce.o -o dlink.o &&
  g++ sample.o reduce.o dlink.o -L'$CUDA_HOME/lib64' -lcudart_static -lpthread -ldl -lrt -o sample" > build.log 2>&1 ||
  { sed 's/^/    | /' build.log | tail -20; }

# ---- the audit: no false error or warning on the executable or the objects
trueline-check --no-color sample sample.o reduce.o > audit.txt 2>&1; rc=$?
check "audit of the executable and both objects: exit 0, 0 errors, 0 warnings" sh -c \
  "[ $rc = 0 ] && grep -q '^3 file(s) checked: 0 error(s), 0 warning(s)' audit.txt" ||
  grep -E ': (error|warning) ' audit.txt | head -10 | sed 's/^/    | /'

# ---- item: both relocation sections on .debug_line
if [ -n "$CUOBJDUMP" ]; then
  mkdir -p x && (cd x && "$CUOBJDUMP" -xelf all ../sample.o > /dev/null)
  c80=$(ls x/*sm_80*.cubin 2>/dev/null | head -1)
  premise "sample.o's sm_80 cubin (cuobjdump -xelf) has both .rel.debug_line and .rela.debug_line (readelf)" sh -c \
    "[ -n '$c80' ] && readelf -SW '$c80' 2>/dev/null | grep -q ' \.rel\.debug_line ' &&
     readelf -SW '$c80' 2>/dev/null | grep -q ' \.rela\.debug_line '"
  # every cubin cuobjdump lists in the objects is said to have line info (trueline-cc forced -lineinfo)
  ncub=$(( $("$CUOBJDUMP" -lelf sample.o | grep -c 'ELF file') + $("$CUOBJDUMP" -lelf reduce.o | grep -c 'ELF file') ))
  trueline-check --list sample.o reduce.o > list.txt 2>&1
  check "--list: all $ncub cubins of the two objects (cuobjdump -lelf) say lineinfo=yes" sh -c \
    "[ $ncub = 4 ] && [ \$(grep -c ' cubin .*lineinfo=yes' list.txt) = $ncub ] && ! grep -q 'lineinfo=no' list.txt"
  trueline-check --list sample > list_exe.txt 2>&1
  check "--list sample: its linked and relocatable cubins all say lineinfo=yes" sh -c \
    "[ \$(grep -c ' cubin .*lineinfo=yes' list_exe.txt) -ge 6 ] && ! grep -q 'lineinfo=no' list_exe.txt"
  if [ -n "$NVDISASM" ]; then
    "$NVDISASM" -gi "$c80" | python3 "$L/nvdisasm_chains.py" > c80.exp
    premise "nvdisasm -gi annotates more than 10 offsets of the sm_80 relocatable cubin" test "$(wc -l < c80.exp)" -gt 10
    awk '{ print $1 "+" $2 }' c80.exp | trueline-check --symbolize sample.o --sm 80 --addr2line > c80.a2l 2> c80.err
    check "--symbolize sample.o --sm 80: each of the $(wc -l < c80.exp) offsets nvdisasm -gi annotates has its chain" python3 - <<'PY'
import sys
exp = [l.split() for l in open("c80.exp")]
out = open("c80.a2l").read().split("\n")
if out and out[-1] == "": out.pop()
i = bad = 0
for fn, off, chain in exp:
    want = chain.split(",")
    got = [out[i + 2 * k + 1] if i + 2 * k + 1 < len(out) else None for k in range(len(want))]
    i += 2 * len(want)
    if got != want:
        bad += 1
        if bad <= 3: print("    |", fn, off, "nvdisasm", want, "trueline", got)
sys.exit(0 if bad == 0 and i == len(out) else 1)
PY
  else
    skip "nvdisasm (pip install nvidia-cuda-nvdisasm) absent: line rows of the sm_80 cubin not compared"
  fi
  lacks "audit: no device function or kernel reported without line rows" audit.txt \
    'has no line rows in relfatbin|cubin built without line information' '^3 file\(s\) checked'
else
  skip "cuobjdump (pip install nvidia-cuda-cuobjdump) absent: the sm_80 cubins not compared"
fi

# ---- item: the host unit named after the last -gencode's virtual architecture
premise "sample.o's host unit is named tmpxft_..._sample.compute_90.cudafe1.cpp (readelf)" sh -c \
  "readelf --debug-dump=info sample.o | grep -Eq 'DW_AT_name.*tmpxft_[0-9a-f_]+-[0-9]+_sample\.compute_90\.cudafe1\.cpp'"
lacks "provenance: no unit called built outside the wrapper" audit.txt \
  'built outside the wrapper|no provenance record|not built through trueline-cc' '^3 file\(s\) checked'
trueline-check --provenance sample.o > prov.txt 2>&1
contains "--provenance sample.o lists the record of sample.cu" prov.txt 'sample\.cu'

# ---- item: host addresses of an executable with device code, as addr2line answers them
nm --defined-only sample | awk '$2 ~ /^[Tt]$/ { print "0x" $1 }' | sort -u > funcs.addrs
python3 - <<'PY' > host.cmp
import re, subprocess
addrs = open("funcs.addrs").read().split()
want = {}
for a in addrs:
    out = subprocess.run(["addr2line", "-f", "-i", "-C", "-e", "sample", a], capture_output=True, text=True).stdout
    lines = [re.sub(r" \(discriminator \d+\)$", "", l) for l in out.split("\n") if l]
    if len(lines) >= 2 and re.search(r"(sample|reduce)\.cu:\d+$", lines[1]):
        want[a] = lines  # the project's own host code, with a file and line
p = subprocess.run(["trueline-check", "--symbolize", "sample", "--addr2line"], input="\n".join(want) + "\n",
                   capture_output=True, text=True)
got = p.stdout.split("\n")
i = bad = 0
for a, w in want.items():
    g = got[i:i + len(w)]; i += len(w)
    if g != w:
        bad += 1
        if bad <= 3: print("    |", a, "addr2line", w, "trueline", g)
print(len(want), bad, p.returncode, "main" in {w[0] for w in want.values()})
PY
sed -n '/^    |/p' host.cmp
set -- $(tail -1 host.cmp)
check "--symbolize sample (an executable with device code): all $1 host functions of the project answer as addr2line -f -i -C does, main among them" \
  sh -c '[ "$1" -ge 3 ] && [ "$2" = 0 ] && [ "$3" = 0 ] && [ "$4" = True ]' _ "$@"
main=0x$(nm sample | awk '$3 == "main" { print $1 }' | sed 's/^0*//')
trueline-check --symbolize sample "$main" > main.txt 2> main.err; rc=$?
mline=$(addr2line -e sample "$main" | sed 's/.*://')
check "--symbolize sample $main: exit 0, host main at sample.cu:$mline, no 'no code section' per device image" sh -c \
  "[ $rc = 0 ] && grep -q '^$main (host, main+0x0):' main.txt && grep -q '#0 .*sample\.cu:$mline in main\$' main.txt &&
   ! grep -q 'no code section' main.err"

# ---- item: dynamic parallelism, linked with libcudadevrt (cdpSimpleQuicksort's shape)
cat > cdp.cu <<'EOF'
#include <cstdio>
__global__ void child(int *d, int n)
{
    if (threadIdx.x < n)
        d[threadIdx.x] *= 2;
}
__global__ void parent(int *d, int n)
{
    if (threadIdx.x == 0) {
        child<<<1, n>>>(d, n);
        cudaError_t e = cudaGetLastError();
        if (e != cudaSuccess)
            printf("launch failed %d\n", (int)e);
    }
}
int main()
{
    int *d = nullptr;
    if (cudaMalloc(&d, 64 * sizeof(int)) != cudaSuccess) {
        printf("no device\n");
        return 0;
    }
    parent<<<1, 1>>>(d, 64);
    cudaDeviceSynchronize();
    return 0;
}
EOF
DEVRT=$CUDA_HOME/lib64/libcudadevrt.a
# shellcheck disable=SC2086
if [ ! -f "$DEVRT" ]; then
  skip "libcudadevrt.a not in $CUDA_HOME/lib64: dynamic parallelism not built"
elif ! { "$W" ccache nvcc $G -rdc=true -c cdp.cu -o cdp.o && nvcc $G -dlink cdp.o -lcudadevrt -o cdp_dlink.o &&
         g++ cdp.o cdp_dlink.o -L"$CUDA_HOME/lib64" -lcudadevrt -lcudart_static -lpthread -ldl -lrt -o cdp; } > cdp.log 2>&1; then
  fail "dynamic parallelism: trueline-cc ccache nvcc -rdc=true, device link and host link with -lcudadevrt"
  sed 's/^/    | /' cdp.log | tail -20
else
  trueline-check --no-color --verbose cdp > cdp.txt 2>&1; rc=$?
  check "dynamic parallelism (-lcudadevrt): audit exits 0 with 0 errors, 0 warnings" sh -c \
    "[ $rc = 0 ] && grep -q '^1 file(s) checked: 0 error(s), 0 warning(s)' cdp.txt" ||
    grep -E ': (error|warning) ' cdp.txt | head -10 | sed 's/^/    | /'
  # oracle, host: the functions libcudadevrt.a defines (nm) that the executable carries (nm), less nvcc's own
  # registration code that every .cu gets (reported as nvcc's host stubs)
  nm --defined-only "$DEVRT" | awk '$2 ~ /^[Tt]$/ { print $3 }' | grep -Ev '^_ZL[0-9]+_*(__sti__|__nv_|nv_)' |
    sort -u > devrt_host.nm
  nm --defined-only cdp | awk '$2 ~ /^[Tt]$/ { print $3 }' | sort -u | comm -12 - devrt_host.nm > devrt_host.in
  nh=$(wc -l < devrt_host.in)
  ex=$(sed -n 's/.* functions of libcudadevrt have no line info;.*(e\.g\. \(.*\))$/\1/p' cdp.txt)
  check "host: '$nh functions of libcudadevrt' (nm on libcudadevrt.a and on the executable), e.g. one of nm -C's names" \
    sh -c "[ $nh -gt 0 ] && grep -q 'info \[line-tables\] $nh functions of libcudadevrt have no line info' cdp.txt &&
           [ -n \"\$1\" ] && nm -C --defined-only '$DEVRT' | grep -qF -- \"\$1\"" _ "$ex"
  if [ -n "$CUOBJDUMP" ]; then
    # oracle, device: the functions of libcudadevrt.a's own cubins (cuobjdump -xelf, readelf -s), less nvcc's
    # arithmetic helpers it carries too (reported as nvcc's)
    mkdir -p devrt && (cd devrt && ar x "$DEVRT" && "$CUOBJDUMP" -xelf all ./*.o > /dev/null 2>&1)
    for c in devrt/*.cubin; do readelf -sW "$c" 2>/dev/null | awk '$4 == "FUNC" && $0 !~ / UND / { print $NF }'; done |
      grep -v '^__cuda_sm[0-9]' | sort -u > devrt_dev.names
    nd=$(wc -l < devrt_dev.names)
    dex=$(sed -n 's/.* device functions\{0,1\} of libcudadevrt ha[sv]e\{0,1\} no line rows;.*(e\.g\. \(.*\))$/\1/p' cdp.txt)
    check "device: '$nd device functions of libcudadevrt' (readelf -s on its cubins), e.g. one of them" \
      sh -c "[ $nd -gt 10 ] && grep -q 'info \[line-tables\] $nd device functions of libcudadevrt have no line rows' cdp.txt &&
             [ -n \"\$1\" ] && grep -qxF -- \"\$1\" devrt_dev.names" _ "$dex"
    lacks "device: none of libcudadevrt's functions, nor its PTX without .loc, is the user's error" cdp.txt \
      'error .*(has no line rows|PTX image .* has no \.loc)' '^1 file\(s\) checked'
  else
    skip "cuobjdump (pip install nvidia-cuda-cuobjdump) absent: libcudadevrt's device functions not compared"
  fi
fi

# ---- item: a __device__ virtual destructor, deleted on the device (newdelete's shape)
cat > newdel.cu <<'EOF'
#include <cstdio>
template <typename T> class Container {
  public:
    __device__ Container() {}
    __device__ virtual ~Container() {}
    __device__ virtual void push(T e) = 0;
};
template <typename T> class Vector : public Container<T> {
  public:
    __device__ Vector(int max) : m_size(0), m_max(max) { m_data = new T[max]; }
    __device__ ~Vector() { delete[] m_data; }
    __device__ void push(T e) { if (m_size < m_max) m_data[m_size++] = e; }
  private:
    int m_size, m_max;
    T *m_data;
};
__global__ void vectorTest(int *out)
{
    Container<int> *c = new Vector<int>(4);
    c->push(threadIdx.x);
    delete c;
    out[threadIdx.x] = 1;
}
int main()
{
    int *d = nullptr;
    if (cudaMalloc(&d, 64) != cudaSuccess) {
        printf("no device\n");
        return 0;
    }
    vectorTest<<<1, 16>>>(d);
    cudaDeviceSynchronize();
    return 0;
}
EOF
LINK="-L$CUDA_HOME/lib64 -lcudart_static -lpthread -ldl -lrt"
# shellcheck disable=SC2086
# -rdc=true as CMake's CUDA_SEPARABLE_COMPILATION builds it: whole-program compilation inlines the D0 away
if ! { "$W" ccache nvcc $G -rdc=true -c newdel.cu -o newdel.o && nvcc $G -dlink newdel.o -o newdel_dlink.o &&
       g++ newdel.o newdel_dlink.o $LINK -o newdel &&
       nvcc $G -rdc=true -c newdel.cu -o newdel_plain.o && nvcc $G -dlink newdel_plain.o -o newdel_plain_dlink.o &&
       g++ newdel_plain.o newdel_plain_dlink.o $LINK -o newdel_plain; } > newdel.log 2>&1; then
  fail "virtual device destructor: trueline-cc ccache nvcc -rdc=true, and plain nvcc without -lineinfo"
  sed 's/^/    | /' newdel.log | tail -20
elif [ -z "$CUOBJDUMP" ]; then
  skip "cuobjdump (pip install nvidia-cuda-cuobjdump) absent: the deleting destructors not compared"
else
  trueline-check --no-color --verbose newdel > newdel.txt 2>&1; rc=$?
  # oracle: the deleting destructors (Itanium D0) among the cubins' functions, as cuobjdump -elf lists them
  "$CUOBJDUMP" -elf newdel | grep -oE '_Z[A-Za-z0-9_]*D0Ev' | sort -u > d0.names
  n0=$(wc -l < d0.names)
  check "virtual device destructor: audit exits 0 with 0 errors, 0 warnings" sh -c \
    "[ $rc = 0 ] && grep -q '^1 file(s) checked: 0 error(s), 0 warning(s)' newdel.txt" ||
    grep -E ': (error|warning) ' newdel.txt | head -10 | sed 's/^/    | /'
  dex=$(sed -n 's/.* of compiler-generated deleting destructors ha[sv]e\{0,1\} no line rows;.*(e\.g\. \(.*\))$/\1/p' newdel.txt)
  check "the $n0 deleting destructors (D0, cuobjdump -elf) are info of compiler-generated deleting destructors, e.g. one of them" \
    sh -c "[ $n0 -ge 1 ] && grep -Eq 'info \[line-tables\] $n0 device functions? of compiler-generated deleting destructors' newdel.txt &&
           [ -n \"\$1\" ] && grep -qxF -- \"\$1\" d0.names" _ "$dex"
  trueline-check --no-color newdel_plain > newdel_plain.txt 2>&1; rc=$?
  check "the same program built without -lineinfo (plain nvcc) still fails line-tables" sh -c \
    "[ $rc != 0 ] && grep -q 'error \[line-tables\] .*device code has no line information' newdel_plain.txt &&
     ! grep -q 'deleting destructors' newdel_plain.txt"
fi
