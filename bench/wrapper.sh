#!/usr/bin/env bash
# trueline-cc cost: (1) hit-path overhead, `trueline-cc ccache gcc` vs `ccache gcc` and the same for nvcc,
# median of PAIRS alternated pairs (the bare call gets the flags trueline-cc would force, so both do the
# same compile and both are cache hits), in wall time and in CPU time of each process tree (wait4 rusage:
# far less disturbed by other load than wall time on a shared 2-core machine); (2) the floor any extra
# program in front of ccache pays here, measured with a static do-nothing exec; (3) system calls per hit
# (strace counts: deterministic, load-independent); (4) the toolchain fingerprint cold and warm as measured
# inside trueline-cc (explain mode). Prints the "## wrapper" section. About a minute on 2 cores.
# PIN=N runs everything on CPU N (taskset): on a machine busy with other work this removes most of the
# cross-CPU scheduling noise (a waiting wrapper woken on a CPU another process holds).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
W=${TRUELINE_BUILD:-$root/build}/bin/trueline-cc
[ -x "$W" ] || { echo "bench/wrapper.sh: $W not built" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench-wrapper.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf 'int answer(int x) { return x * 42; }\n' > a.c
printf '__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }\n' > k.cu
# The floor: a static program that only execs its arguments, linked like trueline-cc (static, glibc).
cp "$root/bench/execit.c" execit.c
mkdir empty-dir # for the grown-memo row: a new PATH entry, so a new lookup that rewrites the memo
floors=()
if cc -O2 -static -o execit-glibc execit.c 2>/dev/null; then
  floors+=("$tmp/execit-glibc" 'a static do-nothing `execvp` program, linked like trueline-cc')
fi
[ ${#floors[@]} -gt 0 ] || floors=(/usr/bin/env '`/usr/bin/env` (dynamic: no static libc here)')
# The same without a C library (x86-64): what the kernel's exec costs alone, the rest of the first floor being
# the C library's start-up. The floor rows run ccache by its absolute path: this one searches no PATH.
if [ "$(uname -m)" = x86_64 ] && cc -O2 -static -nostdlib -fno-stack-protector -o rawexec "$root/bench/rawexec.c" 2>/dev/null; then
  floors+=("$tmp/rawexec" 'a static program that only makes the `execve` system call, no C library')
fi
# The design floor (bench/replay.py) is compiled like the floor program.
replay_cc=""
[ -x "$tmp/execit-glibc" ] && replay_cc="cc -O2 -static"
export CCACHE_DIR=$tmp/ccache XDG_CACHE_HOME=$tmp/xdg
unset NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS CCC_OVERRIDE_OPTIONS TRUELINE_EXPLAIN
have_nvcc=0; command -v nvcc >/dev/null 2>&1 && have_nvcc=1
have_ccache=0; command -v ccache >/dev/null 2>&1 && have_ccache=1
have_strace=0; command -v strace >/dev/null 2>&1 && have_strace=1
pin=(); [ -n "${PIN:-}" ] && command -v taskset >/dev/null && pin=(taskset -c "$PIN")
"${pin[@]}" env REPLAY_CC="$replay_cc" BENCH_DIR="$root/bench" \
  python3 - "$W" "${PAIRS:-201}" "$have_nvcc" "$have_ccache" "$have_strace" "${floors[@]}" <<'PY'
import os, re, shutil, statistics, subprocess, sys, time
sys.path.insert(0, os.environ["BENCH_DIR"])
import replay
W, PAIRS, NVCC, CCACHE, STRACE = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4] == "1", sys.argv[5] == "1"
FLOORS = list(zip(sys.argv[6::2], sys.argv[7::2]))  # (program, description); the first is linked like trueline-cc
NOPROV = dict(os.environ, TRUELINE_PROVENANCE_STAMP="false")
med = statistics.median

def run(cmd, env=None, capture=False):
    """Wall ms, CPU ms (user+sys of the process tree, from wait4), stderr."""
    t0 = time.perf_counter_ns()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE if capture else subprocess.DEVNULL, env=env)
    err = p.stderr.read().decode() if capture else ""
    _, status, ru = os.wait4(p.pid, 0)
    wall = (time.perf_counter_ns() - t0) / 1e6
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("bench: failed: " + " ".join(cmd))
    return wall, (ru.ru_utime + ru.ru_stime) * 1e3, err

def ccache_counts():
    out = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True).stdout
    c = dict(l.split("\t") for l in out.splitlines() if "\t" in l)
    return int(c.get("direct_cache_hit", 0)) + int(c.get("preprocessed_cache_hit", 0)), int(c.get("cache_miss", 0))

def rounds(base, cands, env=None):
    """Each round runs base and every candidate once, in an order that rotates and reverses from round to
    round, so that a slow moment of the host hits all alike; the rows of one call are compared within the
    same time. Per candidate: medians of the base's and the candidate's wall times, of the per-round
    differences in wall and in CPU time."""
    # Both sides get the same environment, the bare call too (ccache ignores trueline's variables): Python
    # turns an env dict into the child's environment on every call, ~35 us here, which env=None skips; given
    # to one side only, Python's work would be counted as the wrapper's.
    cmds = [base] + cands
    for _ in range(2):  # fill the cache, the memo and the page cache
        for c in cmds:
            run(c, env=env)
    h0, m0 = ccache_counts()
    res = [[] for _ in cmds]
    for i in range(PAIRS):
        order = list(range(len(cmds)))
        order = order[i % len(order):] + order[:i % len(order)]
        for k in (order if i % 2 == 0 else order[::-1]):
            res[k].append(run(cmds[k], env))
    h1, m1 = ccache_counts()
    assert m1 == m0 and h1 - h0 == len(cmds) * PAIRS, "not all timed calls were cache hits"
    out = []
    for k in range(1, len(cmds)):
        out.append((med(r[0] for r in res[0]), med(r[0] for r in res[k]),
                    med(a[0] - b[0] for a, b in zip(res[k], res[0])), med(a[1] - b[1] for a, b in zip(res[k], res[0]))))
    return out

def pairs(base, tl, env=None):
    return rounds(base, [tl], env)[0]

def syscalls(cmd, env=None, follow=False):
    """System calls of cmd (follow: with every child), counted in strace's log (strace -c also counted
    the vfork child's calls when not following)."""
    out = os.path.join(os.getcwd(), "strace.txt")
    run(["strace", "-qq", "-o", out] + (["-f"] if follow else []) + cmd, env)
    n = 0
    for line in open(out):
        body = re.sub(r"^\d+ +", "", line)
        if not body.startswith(("---", "+++", "<...")):
            n += 1
    return n

def replayed(cmd, tag):
    """The design floor for cmd (bench/replay.py): a static program making the system calls of a warm
    trueline-cc hit, then the same exec. (program, number of calls replayed) or None."""
    if not (STRACE and os.environ.get("REPLAY_CC")):
        return None
    for _ in range(2):
        run(cmd, NOPROV)  # the memo warm
    log = os.path.join(os.getcwd(), "replay-%s.log" % tag)
    run(["strace", "-qq", "-v", "-s", "1000000", "-o", log] + cmd, NOPROV)
    src, calls, skipped = replay.source(open(log, errors="replace").read())
    if skipped:
        print("bench: the design floor does not replay: " + ", ".join(skipped), file=sys.stderr)
    c, exe = "replay-%s.c" % tag, os.path.join(os.getcwd(), "replay-" + tag)
    open(c, "w").write(src)
    if subprocess.run(os.environ["REPLAY_CC"].split() + ["-o", exe, c]).returncode != 0:
        return None
    return exe, calls

BIG_MEMO = 3000

def big_memo(b, t):
    """pairs() with a memo file grown as by years of toolchains, PATHs and builds: BIG_MEMO records of other
    files' hashes are appended, then one run with another PATH (a new lookup) has trueline-cc write the whole
    file again, with its index; the timed runs then read it the way a long-lived cache is read."""
    memo = os.path.join(os.environ["XDG_CACHE_HOME"], "trueline", "memo-v2")
    run(t, NOPROV)
    with open(memo, "ab") as f:
        for i in range(BIG_MEMO):
            k = b"f:/opt/toolchain%d/lib/libx%d.so:fe00:%x:4d2:1700000000.000000000:1700000000.000000000" % (i % 9, i, 7 * i)
            v = b"%032x" % (i * 7919)
            f.write(b"%x:%x:" % (len(k), len(v)) + k + b"\t" + v + b"\n")
    # A file or directory changed (mtime or ctime) in the last 2 s is no dependency the memo keeps (it may still
    # be changing): a lookup through empty-dir is memoized, and the file rewritten, only once it is older than
    # that, however short PAIRS made the run so far. A toolchain file or PATH directory changed by other work
    # on the machine (a package installed) taints it alike, so the rewrite is tried once more after 3 s.
    empty = os.path.join(os.getcwd(), "empty-dir")
    for attempt in range(2):
        wait = os.stat(empty).st_ctime + 2.5 - time.time()
        if wait > 0:
            time.sleep(wait)
        run(t, dict(NOPROV, PATH=empty + ":" + os.environ["PATH"]))
        _, _, err = run([t[0], "--trueline-explain"] + t[1:], NOPROV, capture=True)
        if "(read through its index)" in err:
            break
        time.sleep(3)
    else:
        why = [l for l in err.splitlines() if "memo" in l and "component" not in l]
        sys.exit("bench: the grown memo was not rewritten with its index:\n" + "\n".join(why))
    r = pairs(b, t, NOPROV)
    os.unlink(memo)
    return r

def fp_ms(cmd, cold):
    memo = os.path.join(os.environ["XDG_CACHE_HOME"], "trueline", "memo-v2")
    if cold and os.path.exists(memo):
        os.unlink(memo)
    _, _, err = run([W, "--trueline-explain", "--trueline-print-fingerprint"] + cmd, capture=True)
    f = float(re.search(r"fingerprint: [0-9a-f]{32} \(([0-9.]+) ms\)", err).group(1))
    m = re.search(r"toolchain lookup: ([0-9.]+) ms", err)
    return f, (float(m.group(1)) if m else float("nan"))

rows, calls = [], []
if CCACHE:
    gcc_b = ["ccache", "gcc", "-c", "a.c", "-o", "b.o", "-g1"]
    gcc_t = [W, "ccache", "gcc", "-c", "a.c", "-o", "t.o"]
    nv_b = ["ccache", "nvcc", "-c", "-arch=sm_90", "k.cu", "-o", "b.o", "-lineinfo", "-Xcompiler=-g1"]
    nv_t = [W, "ccache", "nvcc", "-c", "-arch=sm_90", "k.cu", "-o", "t.o"]
    floor_b = [shutil.which("ccache")] + gcc_b[1:]  # absolute: the no-C-library floor searches no PATH
    for prog, what in FLOORS:
        rows.append(("floor: " + what + " in front of ccache gcc",) + pairs(floor_b, [prog] + floor_b))
    cases = [("gcc -c", gcc_b, gcc_t)] + ([("nvcc -c -arch=sm_90", nv_b, nv_t)] if NVCC else [])
    for name, b, t in cases:
        # The wrapper alone (provenance stamping off: it execs ccache), then as shipped (the cache runs the
        # stamping stage on misses; on a hit the wrapper waits for ccache and verifies the object's record).
        # The design floor and the wrapper in the same rounds: their difference is trueline-cc's own code.
        rp = replayed(t, name.split()[0])
        both = rounds(b, ([[rp[0]]] if rp else []) + [t], NOPROV)
        if rp:
            rows.append((name + ", design floor: trueline-cc's %d system calls replayed, nothing else" % rp[1],)
                        + both[0])
        rows.append((name + ", wrapper only (provenance stamp off)",) + both[-1])
        rows.append((name + ", as shipped (with provenance stage)",) + pairs(b, t))
        if STRACE:
            bare = syscalls(b, follow=True)
            calls.append((name, bare, syscalls(t, NOPROV, True) - bare, syscalls(t), syscalls(t, follow=True) - bare))
        if name.startswith("gcc"):  # last: it removes the memo it grew
            rows.append((name + ", wrapper only, the memo holding %d other records" % BIG_MEMO,) + big_memo(b, t))

fps = []
tools = [("gcc", ["gcc", "-c", "a.c"])] + ([("nvcc + host gcc", ["nvcc", "-c", "-arch=sm_90", "k.cu"])] if NVCC else [])
for name, cmd in tools:
    fp_ms(cmd, True)  # page cache
    cold = med(fp_ms(cmd, True)[0] for _ in range(9))
    fp_ms(cmd, True)
    warm = [fp_ms(cmd, False) for _ in range(PAIRS)]
    fps.append((name, cold, med(w[0] for w in warm), med(w[1] for w in warm)))

load = open("/proc/loadavg").read().split()[:3]
print("## wrapper")
print()
pinned = os.sched_getaffinity(0)
print(f"Machine: {os.cpu_count()} CPUs, load average {' '.join(load)} when the run ended; {PAIRS} pairs" +
      (f"; every process pinned to CPU {min(pinned)} (PIN={min(pinned)})." if len(pinned) == 1 else "."))
print("Command: `make bench` (or `BENCH=wrapper bash bench/run.sh`).")
print()
print("### Hit-path overhead (both calls are ccache hits; the bare call is given the flags trueline-cc forces)")
print()
print("Wall: medians of each side and of the pair differences. CPU: median of the pair differences in user +")
print("system time of the whole process tree (wait4), which other load on the machine disturbs far less.")
print("*Above the floor*: CPU difference minus the first floor row's (a program linked like trueline-cc), i.e.")
print("what trueline-cc does beyond being one more program that the kernel has to exec.")
print()
print("| compile (all timed calls are ccache hits) | bare ccache, median ms | trueline-cc ccache, median ms | ratio of the medians | wall: median of pair differences | CPU: median of pair differences | CPU above the floor | target |")
print("|---|---|---|---|---|---|---|---|")
floor_cpu = rows[0][4] if rows else 0.0
for i, (name, b, w, d, c) in enumerate(rows):
    is_floor = name.startswith("floor")
    target = "(floor)" if is_floor else "(design floor)" if "design floor" in name else \
        "+0.3 ms; a hit <= 1.15x"
    above = "" if is_floor else f"{c - floor_cpu:+.2f} ms"
    print(f"| {name} | {b:.2f} | {w:.2f} | {w / b:.3f}x | {d:+.2f} ms | {c:+.2f} ms | {above} | {target} |")
if not rows:
    print("| (ccache not installed: not measured) | | | | | | | |")
if calls:
    print()
    print("System calls per cache hit (counted in strace logs; deterministic): everything the call makes beyond what bare")
    print("`ccache` makes (ccache itself does less behind trueline-cc: it is handed the compiler's path and")
    print("`CCACHE_COMPILERCHECK=string:`), and as shipped the wrapper's process unfollowed (it execs ccache with the")
    print("verification hook, so this counts ccache's calls too):")
    print()
    print("| compile | bare ccache (whole tree) | extra in the tree, stamp off | extra in the tree, as shipped | trueline-cc's process unfollowed, as shipped |")
    print("|---|---|---|---|---|")
    for name, bare, extra_off, own_on, extra_on in calls:
        print(f"| {name} | {bare} | {extra_off:+d} | {extra_on:+d} | {own_on} |")
print()
print("### Toolchain fingerprint, measured inside trueline-cc")
print()
print("*Fingerprint*: family probe + closure + hashing (the closure memo's one lookup when warm). *Toolchain")
print("lookup*: the same plus finding the compiler on PATH (memoized too, validated by the PATH directories).")
print()
print("| toolchain | cold: memo empty, files in page cache (median of 9) | warm fingerprint (median) | warm toolchain lookup (median) | target |")
print("|---|---|---|---|---|")
for name, cold, warm, look in fps:
    print(f"| {name} | {cold:.1f} ms | {warm:.3f} ms | {look:.3f} ms | cold <= 120 ms, warm <= 0.2 ms |")
PY
