#!/usr/bin/env bash
# trueline-cc cost: (1) hit-path overhead, `trueline-cc ccache gcc` vs `ccache gcc` and the same for nvcc,
# median of PAIRS alternated pairs (the bare call gets the flags trueline-cc would force, so both do
# the same compile and both are cache hits); (2) fingerprint cold (memo cache empty, files in page
# cache) and warm, as measured inside trueline-cc (explain mode). Prints the "## wrapper" section.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
W=${TRUELINE_BUILD:-$root/build}/bin/trueline-cc
[ -x "$W" ] || { echo "bench/wrapper.sh: $W not built" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench-wrapper.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf 'int answer(int x) { return x * 42; }\n' > a.c
printf '__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }\n' > k.cu
export CCACHE_DIR=$tmp/ccache XDG_CACHE_HOME=$tmp/xdg
unset NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS CCC_OVERRIDE_OPTIONS TRUELINE_EXPLAIN
have_nvcc=0; command -v nvcc >/dev/null 2>&1 && have_nvcc=1
have_ccache=0; command -v ccache >/dev/null 2>&1 && have_ccache=1
python3 - "$W" "${PAIRS:-31}" "$have_nvcc" "$have_ccache" <<'PY'
import os, re, statistics, subprocess, sys, time
W, PAIRS, NVCC, CCACHE = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4] == "1"

NOPROV = dict(os.environ, TRUELINE_PROVENANCE_STAMP="false")

def run(cmd, capture=False, env=None):
    t0 = time.perf_counter_ns()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE if capture else subprocess.DEVNULL, env=env)
    dt = (time.perf_counter_ns() - t0) / 1e6
    if r.returncode != 0:
        sys.exit("bench: failed: " + " ".join(cmd))
    return dt, (r.stderr.decode() if capture else "")

def ccache_counts():
    out = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True).stdout
    c = dict(l.split("\t") for l in out.splitlines() if "\t" in l)
    hits = int(c.get("direct_cache_hit", 0)) + int(c.get("preprocessed_cache_hit", 0))
    return hits, int(c.get("cache_miss", 0))

def pairs(base, tl, env=None):
    for c in (base, tl, base, tl):  # fill the cache and the page cache
        run(c, env=env if c is tl else None)
    h0, m0 = ccache_counts()
    b, w = [], []
    for i in range(PAIRS):  # alternate which goes first so drift hits both alike
        if i % 2 == 0:
            b.append(run(base)[0]); w.append(run(tl, env=env)[0])
        else:
            w.append(run(tl, env=env)[0]); b.append(run(base)[0])
    h1, m1 = ccache_counts()
    assert m1 == m0 and h1 - h0 == 2 * PAIRS, "not all timed calls were cache hits"
    d = [x - y for x, y in zip(w, b)]
    return statistics.median(b), statistics.median(w), statistics.median(d)

def fp_ms(cmd, cold):
    memo = os.path.join(os.environ["XDG_CACHE_HOME"], "trueline", "memo-v1")
    if cold and os.path.exists(memo):
        os.unlink(memo)
    _, err = run([W, "--trueline-explain", "--trueline-print-fingerprint"] + cmd, capture=True)
    m = re.search(r"fingerprint: [0-9a-f]{32} \(([0-9.]+) ms\)", err)
    return float(m.group(1))

rows = []
if CCACHE:
    gcc_b = ["ccache", "gcc", "-c", "a.c", "-o", "b.o", "-g1"]
    gcc_t = [W, "ccache", "gcc", "-c", "a.c", "-o", "t.o"]
    nv_b = ["ccache", "nvcc", "-c", "-arch=sm_90", "k.cu", "-o", "b.o", "-lineinfo", "-Xcompiler=-g1"]
    nv_t = [W, "ccache", "nvcc", "-c", "-arch=sm_90", "k.cu", "-o", "t.o"]
    # The wrapper alone (provenance stamping off), then as shipped (stamping stage + hit verification).
    # Reference: the cost of any one extra process in front of ccache on this machine.
    rows.append(("reference: `/usr/bin/env` in front of ccache gcc",) + pairs(gcc_b, ["/usr/bin/env"] + gcc_b))
    rows.append(("gcc -c, wrapper only (provenance stamp off)",) + pairs(gcc_b, gcc_t, NOPROV))
    rows.append(("gcc -c, as shipped (with provenance stage)",) + pairs(gcc_b, gcc_t))
    if NVCC:
        rows.append(("nvcc -c -arch=sm_90, wrapper only (provenance stamp off)",) + pairs(nv_b, nv_t, NOPROV))
        rows.append(("nvcc -c -arch=sm_90, as shipped (with provenance stage)",) + pairs(nv_b, nv_t))

fps = []
tools = [("gcc", ["gcc", "-c", "a.c"])]
if NVCC:
    tools.append(("nvcc + host gcc", ["nvcc", "-c", "-arch=sm_90", "k.cu"]))
for name, cmd in tools:
    fp_ms(cmd, True)  # page cache
    cold = statistics.median(fp_ms(cmd, True) for _ in range(9))
    fp_ms(cmd, True)
    warm = statistics.median(fp_ms(cmd, False) for _ in range(PAIRS))
    fps.append((name, cold, warm))

load = open("/proc/loadavg").read().split()[:3]
print("## wrapper")
print()
print(f"Machine: {os.cpu_count()} CPUs, load average {' '.join(load)} when the run ended; {PAIRS} pairs.")
print("Command: `make bench` (or `BENCH=wrapper bash bench/run.sh`).")
print()
print("### Hit-path overhead (both calls are ccache hits; the bare call is given the flags trueline-cc forces)")
print()
print("| compile (all timed calls are ccache hits) | bare ccache, median ms | trueline-cc ccache, median ms | median of pair differences | ratio | target |")
print("|---|---|---|---|---|---|")
targets = {"gcc": "+0.3 ms, ~1.05x", "nvcc": "+0.3 ms, ~1.03x", "reference:": "(floor)"}
for name, b, w, d in rows:
    print(f"| {name} | {b:.2f} | {w:.2f} | {d:+.2f} ms | {w / b:.3f}x | {targets[name.split()[0]]} |")
print()
print("trueline-cc's own user-space work on the warm path is ~0.2 M instructions (valgrind --tool=callgrind,")
print("about 0.05 ms); the rest of the wrapper-only difference is the kernel's cost of one more (static) exec,")
print("which the reference row measures for a dynamically linked /usr/bin/env.")
if not rows:
    print("| (ccache not installed: not measured) | | | | | |")
print()
print("### Toolchain fingerprint, measured inside trueline-cc (family probe + closure + hashing)")
print()
print("| toolchain | cold: memo empty, files in page cache (median of 9) | warm: memo hit (median) | target |")
print("|---|---|---|---|")
for name, cold, warm in fps:
    print(f"| {name} | {cold:.1f} ms | {warm:.3f} ms | cold <= 120 ms, warm <= 0.2 ms |")
PY
