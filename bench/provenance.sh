#!/usr/bin/env bash
# Provenance cost on the cache-hit path: `trueline-cc ccache COMPILER -c` with provenance on (the cache
# runs the stamping stage, the hook preloaded into ccache verifies the record) vs off
# (TRUELINE_PROVENANCE_STAMP=false: the wrapper execs ccache directly), and bare `ccache COMPILER`.
# PAIRS (default 200) rounds of every variant in rotating order, after warm-up; medians of the per-round
# differences. Prints the "provenance" section of bench/recorded/benchmarks.md (markdown) on stdout. Not part of
# `make test`. About 30 s on 2 cores. PIN=N runs everything on CPU N (taskset; see bench/wrapper.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
BUILD=${TRUELINE_BUILD:-$here/../build}
export PATH="$BUILD/bin:$PATH"
PAIRS=${PAIRS:-200}
W=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench-prov.XXXXXX")
trap 'rm -rf "$W"' EXIT
export XDG_CACHE_HOME="$W/xdg" CCACHE_DIR="$W/ccache"
cd "$W"
printf 'int f(int x){return x*3+1;}\n' > a.c
printf '__global__ void k(float *p){p[threadIdx.x]*=2.0f;}\n' > k.cu
if ! command -v ccache >/dev/null; then
  printf '## provenance\n\n(ccache not installed: the hit path was not measured.)\n'
  exit 0
fi
# The floor of verifying after the cache from a waiting process (what trueline-cc does with sccache or
# verify_in_cache = false; ccache has no hook after a hit): two do-nothing static programs in front of the
# same hit, one that execs ccache and one that runs it as a vfork child and waits, measure that cost alone.
floor_cc=cc # linked like trueline-cc: static, glibc
floor=0
$floor_cc -O2 -static -o execit "$here/execit.c" 2>/dev/null && $floor_cc -O2 -static -o waitit "$here/waitit.c" 2>/dev/null &&
  floor=1
cases=("gcc -c a.c -o a.o")
command -v nvcc >/dev/null && cases+=("nvcc -arch=sm_90 -c k.cu -o k.o")
pin=(); [ -n "${PIN:-}" ] && command -v taskset >/dev/null && pin=(taskset -c "$PIN")
"${pin[@]}" python3 - "$PAIRS" "$floor" "$W" "${cases[@]}" <<'PY'
import os, statistics, subprocess, sys, time
pairs, floor, W = int(sys.argv[1]), sys.argv[2] == "1", sys.argv[3]
med = statistics.median
def run(argv, env):
    """Wall ms and CPU ms (user + system of this process tree, wait4)."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        sys.exit("bench: failed: " + " ".join(argv))
    return (time.perf_counter() - t) * 1e3, (ru.ru_utime + ru.ru_stime) * 1e3
on = dict(os.environ)
off = dict(os.environ, TRUELINE_PROVENANCE_STAMP="false")
nover = dict(os.environ, TRUELINE_PROVENANCE_VERIFY="false")
waiting = dict(os.environ, TRUELINE_PROVENANCE_VERIFY_IN_CACHE="false")
print("## provenance\n")
print("Cache-hit path, %d rounds; each round runs every variant once, in an order that rotates from round to "
      "round, so that drift and other load hit all variants alike. *on*: the hit goes through trueline-cc "
      "with provenance (ccache is handed the stamping stage and, preloaded, the hook that verifies the record "
      "in ccache's own process when ccache is done, statistics updated; the stage itself only runs on "
      "misses); *waiting*: `TRUELINE_PROVENANCE_VERIFY_IN_CACHE=false` (the wrapper runs ccache as a child, "
      "waits for it and verifies itself); *off*: `TRUELINE_PROVENANCE_STAMP="
      "false` (the wrapper execs ccache with the real compiler); *verify off*: `TRUELINE_PROVENANCE_VERIFY="
      "false` (ccache still runs the stamping stage on misses, but with nothing left to do after the "
      "compile the wrapper execs ccache), so *on - verify off* is what verifying costs: loading the hook "
      "into ccache, reading the record, the statistics. Differences are medians of the per-round differences; CPU is "
      "user + system time of each process tree (wait4), much less disturbed by other load than wall time. "
      "Target: on - off <= 0.3 ms.\n" % pairs)
print("| compile | bare ccache, wall | provenance off, wall | provenance on, wall | on - off, wall | on - off, CPU | on - verify off, CPU | waiting - off, wall |")
print("|---|---|---|---|---|---|---|---|")
for case in sys.argv[4:]:
    args = case.split()
    tl = ["trueline-cc", "ccache"] + args
    variants = [("bare", ["ccache"] + args, on), ("off", tl, off), ("on", tl, on), ("nover", tl, nover),
                ("waiting", tl, waiting)]
    for _ in range(3):  # warm: memo, stage link, cache entries for every variant
        for _, argv, env in variants:
            run(argv, env)
    r = {k: [] for k, _, _ in variants}
    for i in range(pairs):
        order = variants[i % len(variants):] + variants[:i % len(variants)]
        for k, argv, env in order:
            r[k].append(run(argv, env))
    d = lambda a, b, j: med(x[j] - y[j] for x, y in zip(r[a], r[b]))
    print("| `%s` | %.2f | %.2f | %.2f | %+.2f ms | %+.2f ms | %+.2f ms | %+.2f ms |" % (
        case.split(" -o")[0], med(x[0] for x in r["bare"]), med(x[0] for x in r["off"]), med(x[0] for x in r["on"]),
        d("on", "off", 0), d("on", "off", 1), d("on", "nover", 1), d("waiting", "off", 0)))
if floor:
    import shutil
    hit = [shutil.which("ccache"), shutil.which("gcc"), "-c", "a.c", "-o", "a.o"]
    fv = [("exec", [W + "/execit"] + hit), ("wait", [W + "/waitit"] + hit)]
    for _ in range(3):
        for _, argv in fv:
            run(argv, on)
    f = {"exec": [], "wait": []}
    for i in range(pairs):
        for k, argv in (fv if i % 2 else fv[::-1]):
            f[k].append(run(argv, on))
    fd = lambda j: med(x[j] - y[j] for x, y in zip(f["wait"], f["exec"]))
    print("\nThe floor of waiting at all (what the *waiting* variant cannot avoid, and why a hit is verified inside ccache): "
          "two static do-nothing programs in front of `ccache gcc -c a.c`, one execs ccache, the other runs it as "
          "a vfork child and waits, %d alternated pairs: wait - exec %+.2f ms wall, %+.2f ms CPU." % (pairs, fd(0), fd(1)))
PY
echo
[ ${#pin[@]} -gt 0 ] && echo "Every process pinned to CPU $PIN (PIN=$PIN)."
echo "Measured on $(nproc) cores, $(uname -m), $(ccache --version | head -1); load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
