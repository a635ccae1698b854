#!/usr/bin/env bash
# --symbolize, batch against one process per location: every instruction nvdisasm -gi annotates in device code
# built here (a standalone cubin, and the same code in a host object whose fatbin is compressed, so that each
# process decompresses it again), and every instruction address of a host program built here (-O2 -g, read
# from its DWARF), asked once in one process (stdin, --addr2line) and once as a process per location (what a
# crash-report pipeline did before batches); binutils' addr2line on the same host addresses beside them.
# Prints a markdown section (bench/recorded/benchmarks.md "symbolize").
#   BENCH_CPUS=0,1 pins every command to those CPUs     BENCH_RUNS=N repetitions, best kept (default 3)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TRUELINE_BUILD:-$root/build}
TC=$build/bin/trueline-check
[ -x "$TC" ] || { echo "build first: $TC missing" >&2; exit 2; }
runs=${BENCH_RUNS:-3}
pin=()
[ -n "${BENCH_CPUS:-}" ] && pin=(taskset -c "$BENCH_CPUS")
command -v nvcc >/dev/null || { echo "nvcc not found" >&2; exit 2; }
NVDISASM=$(source "$root/tests/lib/harness.sh" >/dev/null 2>&1; find_pypi_tool nvdisasm)
[ -n "$NVDISASM" ] || { echo "nvdisasm not found (pip install nvidia-cuda-nvdisasm)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench-sym.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
{
  echo '__device__ __forceinline__ float scale(float x) { return x * 3.0f + 1.0f; }'
  echo '__device__ __forceinline__ float helper(float x) { return scale(x) * scale(x + 1.0f); }'
  for j in 1 2 3 4 5 6 7 8; do
    printf '__global__ void kern%d(float *p, int n)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n' "$j"
    printf '    float acc = p[i];\n#pragma unroll 16\n    for (int k = 0; k < %d; k++)\n' $((60 + j))
    printf '        acc = helper(acc) + scale(acc * (float)k);\n    p[i] = acc;\n}\n'
  done
} > k.cu
nvcc -O3 -lineinfo -arch=sm_90 -cubin -o k.cubin k.cu && nvcc -O3 -lineinfo -arch=sm_90 -Xcompiler -fPIC -c -o k.o k.cu ||
  { echo "nvcc failed" >&2; exit 2; }
"$NVDISASM" -gi k.cubin | python3 "$root/tests/lib/nvdisasm_chains.py" | awk '{ print $1 "+" $2 }' > k.cubin.locs
cp k.cubin.locs k.o.locs
n=$(wc -l < k.cubin.locs)
[ "$n" -gt 100 ] || { echo "only $n locations" >&2; exit 2; }
# host: a C++ program with std::sort and friends inlined; the addresses addr2line answers from DWARF
cat > h.cpp <<'EOF'
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>
struct P { double x, y; std::string tag; };
static inline double sq(double v) { return v * v; }
int main(int argc, char **argv)
{
    std::vector<P> ps;
    std::map<std::string, int> seen;
    for (int i = 0; i < argc * 100; i++)
        ps.push_back({(double)i, (double)(i * i % 7), std::to_string(i % 13)});
    std::sort(ps.begin(), ps.end(), [](const P &a, const P &b) { return sq(a.y) < sq(b.y); });
    for (const P &p : ps)
        seen[p.tag]++;
    std::printf("%zu\n", seen.size());
}
EOF
g++ -O2 -g -o h h.cpp || { echo "g++ failed" >&2; exit 2; }
objdump -d --no-show-raw-insn h | awk '/^ *[0-9a-f]+:/ { sub(":", "", $1); print "0x" $1 }' |
  while read -r a; do addr2line -e h "$a" | head -1 | grep -q '^[^?].*:[0-9]' && echo "$a"; done > h.locs
# row FILE: the two ways, best of $runs each; one line of the table
row() {
  python3 - "$runs" "$1" "$TC" "${pin[@]}" <<'PY'
import subprocess, sys, time
runs, f, tc, pin = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
locs = open(f + ".locs").read().split()
data = "\n".join(locs) + "\n"
def best(fn):
    b = None
    for _ in range(runs):
        t = time.perf_counter(); fn(); w = time.perf_counter() - t
        b = w if b is None or w < b else b
    return b
def batch():
    p = subprocess.run(pin + [tc, "--symbolize", f, "--addr2line"], input=data, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[:200]
def each():
    for l in locs:
        p = subprocess.run(pin + [tc, "--symbolize", f, l, "--addr2line"], capture_output=True)
        assert p.returncode == 0
def binutils():
    p = subprocess.run(pin + ["addr2line", "-f", "-i", "-C", "-e", f], input=data, capture_output=True, text=True)
    assert p.returncode == 0
one, many = best(batch), best(each)
a2l = f"{best(binutils) * 1000:.0f} ms" if not f.endswith(("cubin", ".o")) else "—"
print(f"| {f} | {len(locs)} | {one * 1000:.0f} ms ({one * 1e6 / len(locs):.0f} µs each) | "
      f"{many * 1000:.0f} ms ({many * 1000 / len(locs):.2f} ms each) | {many / one:.0f}x | {a2l} |")
PY
}
echo "## symbolize"
echo
echo "\`trueline-check --symbolize FILE --addr2line\` with the locations on stdin, against one process per location;"
echo "$(nproc) CPUs$([ -n "${BENCH_CPUS:-}" ] && echo ", pinned to $BENCH_CPUS"), load $(cut -d' ' -f1 /proc/loadavg) at the start, best of $runs, $(date -u +%Y-%m-%d)."
echo "The locations: every instruction \`nvdisasm -gi\` annotates in 8 kernels built here (sm_90, -O3 -lineinfo);"
echo "for the host program h (g++ -O2 -g, std::sort and std::map inlined), every instruction address addr2line"
echo "answers from DWARF, with binutils' \`addr2line -f -i -C\` over the same addresses in one process beside it."
echo
echo "| file | locations | one process | a process per location | speedup | binutils addr2line |"
echo "|---|---|---|---|---|---|"
row k.cubin || exit 1
row k.o || exit 1
row h || exit 1
echo
echo "k.o holds the same cubin in a compressed fatbin: each process decompresses it again, the batch once."
