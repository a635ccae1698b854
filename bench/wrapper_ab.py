#!/usr/bin/env python3
"""Two trueline-cc builds against each other on the same ccache hits: bare ccache, OLD and NEW alternated
(the order reversed every round), the wrapper alone (provenance stamping off), each build with its own warm
memo. Prints each build's median difference to bare ccache (wall and CPU of the process tree) and the median
of NEW - OLD. The host's speed drifts by up to ~1.5x between runs here, so a change is judged only against a
build measured in the same run. Usage: bench/wrapper_ab.py ROUNDS OLD/trueline-cc NEW/trueline-cc"""
import os, statistics, subprocess, sys, tempfile, time
N = int(sys.argv[1])
old, new = sys.argv[2], sys.argv[3]
tmp = tempfile.mkdtemp(prefix="tl-ab.")
os.chdir(tmp)
open("a.c","w").write("int answer(int x) { return x * 42; }\n")
open("k.cu","w").write("__global__ void k(int *p) { p[threadIdx.x] = threadIdx.x; }\n")
env = dict(os.environ, CCACHE_DIR=tmp + "/cc", TRUELINE_PROVENANCE_STAMP="false")
envo = dict(env, XDG_CACHE_HOME=tmp + "/old"); envn = dict(env, XDG_CACHE_HOME=tmp + "/new")
def run(cmd, e):
    t0 = time.perf_counter_ns()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=e)
    _, st, ru = os.wait4(p.pid, 0)
    assert st == 0, cmd
    return (time.perf_counter_ns() - t0) / 1e6, (ru.ru_utime + ru.ru_stime) * 1e3
for name, bare, tl in [("gcc", ["ccache","gcc","-c","a.c","-o","b.o","-g1"], ["ccache","gcc","-c","a.c","-o","t.o"]),
                       ("nvcc", ["ccache","nvcc","-c","-arch=sm_90","k.cu","-o","b.o","-lineinfo","-Xcompiler=-g1"], ["ccache","nvcc","-c","-arch=sm_90","k.cu","-o","t.o"])]:
    seq = [("bare", bare, env), ("old", [old]+tl, envo), ("new", [new]+tl, envn)]
    for _ in range(3):
        for k, c, e in seq: run(c, e)
    time.sleep(3)  # files younger than 2 s are never memoized (wrapper/fingerprint/deps.h): warm both memos again
    for _ in range(2):
        for k, c, e in seq: run(c, e)
    res = {k: [] for k, _, _ in seq}
    for i in range(N):
        order = seq if i % 2 == 0 else seq[::-1]
        for k, c, e in order: res[k].append(run(c, e))
    for k in ("old", "new"):
        dw = statistics.median(a[0]-b[0] for a, b in zip(res[k], res["bare"]))
        dc = statistics.median(a[1]-b[1] for a, b in zip(res[k], res["bare"]))
        print(f"{name} {k}: wall {dw:+.3f} ms  cpu {dc:+.3f} ms")
    dn = statistics.median(a[0]-b[0] for a, b in zip(res["new"], res["old"]))
    print(f"{name} new-old wall {dn:+.3f} ms")
import shutil
shutil.rmtree(tmp, ignore_errors=True)
