#!/usr/bin/env python3
"""Line-table oracle for host_lines_truth.sh, from binutils alone (no trueline code).

  lines_truth.py truth READELF FILE [OBJ...]   prints "with N" and one "none NAME" line per function without rows
                                               (with OBJs: only functions those objects define, which leaves
                                               out the C runtime's start files)
  lines_truth.py truth-obj READELF LINKED OBJ  the same for the functions of a relocatable OBJ, judged by the
                                               rows of LINKED, the file it was linked into (readelf cannot say
                                               which section a relocatable object's row is in)
  lines_truth.py report JSON             the same, from a trueline-check --format json report

Truth: the functions are readelf -sW's (.symtab, else .dynsym) defined FUNC/IFUNC symbols of non-zero size (linked files: addresses
are absolute). Rows are readelf --debug-dump=decodedline's; a row with a line number covers the addresses up to
the next row of its sequence (the "-" row ends a sequence), as addr2line reads them. A function has line rows
when one such range overlaps it. Names are printed mangled; the report side demangles through c++filt so both
sides print the same spelling (c++filt for both)."""
import bisect
import json
import re
import subprocess
import sys

ROW = re.compile(r'^(\S+)\s+(\d+|-)\s+(0x[0-9a-f]+|\d+)(?:\s+\d+)?(?:\s+x)?\s*$')


def functions(readelf, path):
    out = subprocess.run([readelf, '-sW', path], capture_output=True, text=True, check=True).stdout
    # .symtab when there is one, else .dynsym (readelf -s prints both; the functions are those of one table)
    table = '.symtab' if "Symbol table '.symtab'" in out else '.dynsym'
    funcs, cur = [], None
    for line in out.splitlines():
        if line.startswith('Symbol table '):
            cur = line.split("'")[1]
            continue
        f = line.split()
        if cur != table:
            continue
        # Num: Value Size Type Bind Vis Ndx Name
        if len(f) < 8 or f[3] not in ('FUNC', 'IFUNC') or f[6] in ('UND', 'ABS'):
            continue
        size = int(f[2], 0) if f[2].startswith('0x') else int(f[2])
        if size == 0:
            continue
        funcs.append((int(f[1], 16), size, f[7].split('@')[0]))
    return funcs


def ranges(readelf, path):
    out = subprocess.run([readelf, '--debug-dump=decodedline', '-W', path], capture_output=True, text=True,
                         check=True).stdout
    rs, prev = [], None
    for line in out.splitlines():
        m = ROW.match(line.strip())
        if not m:
            continue
        addr = int(m.group(3), 16) if m.group(3).startswith('0x') else int(m.group(3))
        if prev is not None and prev[1] != 0 and addr > prev[0]:
            rs.append((prev[0], addr))
        prev = None if m.group(2) == '-' else (addr, int(m.group(2)))
    # merged into disjoint ranges, so that each function is one binary search (large libraries)
    merged = []
    for a, b in sorted(rs):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return merged


def covered(rs, lo, hi):
    """Does a range of rs (disjoint, sorted) overlap [lo, hi)?"""
    k = bisect.bisect_right(rs, [lo, float('inf')]) - 1
    return (k >= 0 and rs[k][1] > lo) or (k + 1 < len(rs) and rs[k + 1][0] < hi)


def demangle(names):
    if not names:
        return []
    out = subprocess.run(['c++filt'], input='\n'.join(names) + '\n', capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def truth(readelf, path, objs):
    rs = ranges(readelf, path)
    own = {n for o in objs for _, _, n in functions(readelf, o)}
    with_rows, none = 0, []
    for lo, size, name in functions(readelf, path):
        if covered(rs, lo, lo + size):
            with_rows += 1
        elif not objs or name in own:
            none.append(name)
    print('with %d' % with_rows)
    for n in sorted(set(demangle(none))):
        print('none %s' % n)


def truth_obj(readelf, linked, obj):
    rs = ranges(readelf, linked)
    placed = {}
    for lo, size, name in functions(readelf, linked):
        placed[name] = placed.get(name, False) or covered(rs, lo, lo + size)
    with_rows, none = 0, []
    for _, _, name in functions(readelf, obj):
        if placed.get(name):
            with_rows += 1
        else:
            none.append(name)
    print('with %d' % with_rows)
    for n in sorted(set(demangle(none))):
        print('none %s' % n)


NOROWS = re.compile(r'^function \(\d+ bytes at 0x[0-9a-f]+\) has no line rows')


def report(path):
    rep = json.load(open(path))
    f = rep['files'][0]
    img = [i for i in f['images'] if i['kind'] == 'host'][0]
    print('with %d' % img['functions_with_lines'])
    none = {x['symbol'] for x in f.get('findings', []) if x['check'] == 'line-tables' and x['symbol']
            and NOROWS.match(x['message'])}
    for n in sorted(none):
        print('none %s' % n)


if __name__ == '__main__':
    if sys.argv[1] == 'truth':
        truth(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif sys.argv[1] == 'truth-obj':
        truth_obj(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        report(sys.argv[2])
