#!/usr/bin/env python3
"""Compares trueline-check --coredump --format json with cuda-gdb's view of the same core.

Usage: cudagdb_frames.py [--inferred] CUDA_GDB_TXT TRUELINE_JSON
cuda-gdb's text is the oracle: its `p $pc` gives the focus lane's PC, its second `bt` the frames (function and
line). The stop of trueline's report at that PC must name the same functions, innermost first, with the same
file basename and line for each frame; kernels are compared by name (cuda-gdb prints `k<<<grid,block>>> ()`).
Callers marked inferred are left out: only what the dump holds is compared.
--inferred: the stop at that PC whose callers are all inferred (lanes whose unwound stack ended early) is
compared instead, its inferred callers standing for the frames cuda-gdb unwound for the focus lane.
Prints one line per frame compared and exits 1 on the first difference, 2 when either side has no frames."""
import json, re, sys

def gdb_frames(text):
    pc = re.search(r'^\$1 = \(void \(\*\)\(\)\) (0x[0-9a-f]+)', text, re.M)
    # the second backtrace (after `info cuda kernels`) is the one printed by `bt`
    blocks = re.split(r'^\s+Kernel Parent Dev Grid', text, flags=re.M)
    bt = blocks[-1] if len(blocks) > 1 else text
    frames = []
    for m in re.finditer(r'^#(\d+)\s+(?:0x[0-9a-f]+ in )?(.*?) \(\) at (\S+):(\d+)', bt, re.M):
        frames.append((m.group(2), m.group(3).rsplit('/', 1)[-1], int(m.group(4))))
    return (int(pc.group(1), 16) if pc else None), frames

def base(name):
    return re.split(r'<<<|\(', name, 1)[0].strip()

def tl_chain(stop, inferred=False):
    out = []
    f = stop['frames'][0] if stop.get('frames') else None
    if f:
        out.append((f['function'] or stop['kernel']['name'], f['file'].rsplit('/', 1)[-1], f['line']))
    for c in stop.get('callers') or []:
        if bool(c.get('inferred')) != inferred:
            continue
        g = c['frames'][0] if c.get('frames') else None
        if g:
            out.append((g['function'] or c['kernel']['name'], g['file'].rsplit('/', 1)[-1], g['line']))
    return out

args = sys.argv[1:]
inferred = args[0] == '--inferred'
if inferred:
    args = args[1:]
pc, want = gdb_frames(open(args[0]).read())
rep = json.load(open(args[1]))
stops = [s for c in rep['cores'] for s in c['stops'] if pc is not None and int(s['pc'], 16) == pc]
if inferred:
    stops = [s for s in stops if s['callers'] and all(c.get('inferred') for c in s['callers'])]
if not want or not stops:
    print('no frames to compare: cuda-gdb %d frames, trueline %d stops at pc %s' % (len(want), len(stops), pc and hex(pc)))
    sys.exit(2)
got = tl_chain(stops[0], inferred)
ok = len(got) == len(want)
for i, w in enumerate(want):
    g = got[i] if i < len(got) else None
    same = g is not None and (g[0] == w[0] or base(g[0]) == base(w[0])) and g[1:] == w[1:]
    print('%s #%d cuda-gdb %s %s:%d | trueline %s' % ('ok ' if same else 'BAD', i, w[0], w[1], w[2], g))
    ok = ok and same
if len(got) != len(want):
    print('frame count: cuda-gdb %d, trueline %d' % (len(want), len(got)))
sys.exit(0 if ok else 1)
