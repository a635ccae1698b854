#!/usr/bin/env python3
"""Derives test cores from a real CUDA GPU coredump (used by tests/suites/coredump.sh).

usage: coredump_mutate.py IN OUT MODE
  widen        warp rows 64 -> 80 and lane rows 56 -> 64 bytes, filled with 0xab (stand-ins for the r590/r615 layouts)
  short-lanes  lane tables claim 40-byte rows (below the baseline 48)
  bad-link     the first warp table's sh_link names the device table
  bad-info     the first lane table's sh_info points past its warp table
  ragged       the first non-empty SM table is one byte short of whole rows
  no-lines     every device image's .debug_line is renamed, as if built without line info
  call-depth   every lane of the first lane table claims to be 2 non-inlined calls deep (no backtrace rows)
  backtrace    ... 1 call deep, each with one backtrace row: return to the grid's kernel entry + 0x60
  fault-first  warp row 0 of the first warp table faults: errorPCValid 1, errorPC = its first lane's PC, and its lanes
               carry exception 14 (Warp Illegal Address); the table's other warps stay as they were (running)
  deep-bt      the first non-empty backtrace table grows to 5001 rows (its first row 5000 times, then its last):
               deeper than any stack the reader keeps
  many-warps   the first warp table grows to 70000 warps (one lane table of lane 0 each, at 16 distinct PCs of the
               kernel): past 65280 sections, so the file needs ELF extended section numbering
"""
import struct
import sys

LOUSER = 0x80000000
T_RELFIMG, T_BT, T_DEVTBL, T_SMTBL, T_GRIDTBL, T_WPTBL, T_LNTBL = 7, 8, 9, 11, 12, 14, 15


def shdrs(d):
    shoff, = struct.unpack_from('<Q', d, 0x28)
    shnum, = struct.unpack_from('<H', d, 0x3c)
    return shoff, [list(struct.unpack_from('<IIQQQQIIQQ', d, shoff + i * 64)) for i in range(shnum)]


def write(d, shoff, sh):
    for i, s in enumerate(sh):
        struct.pack_into('<IIQQQQIIQQ', d, shoff + i * 64, *s)


def typ(s):
    return s[1] - LOUSER if s[1] > LOUSER else 0


def widen(d):
    shoff, sh = shdrs(d)
    out = bytearray(d[:shoff])
    for s in sh:
        new = {T_WPTBL: 80, T_LNTBL: 64}.get(typ(s))
        if not new or not s[9]:
            continue
        old, rows = s[9], s[5] // s[9]
        data = b''.join(bytes(d[s[4] + r * old:s[4] + (r + 1) * old]) + b'\xab' * (new - old) for r in range(rows))
        s[4], s[5], s[9] = len(out), len(data), new
        out += data
    while len(out) % 8:
        out.append(0)
    struct.pack_into('<Q', out, 0x28, len(out))
    out += bytes(64 * len(sh))
    write(out, len(out) - 64 * len(sh), sh)
    return out


def first(sh, t, nonempty=True):
    return next(s for s in sh if typ(s) == t and (s[5] or not nonempty))


def no_lines(d):
    shoff, sh = shdrs(d)
    for s in sh:
        if typ(s) != T_RELFIMG:
            continue
        base = s[4]
        ishoff, = struct.unpack_from('<Q', d, base + 0x28)
        istr, = struct.unpack_from('<H', d, base + 0x3e)
        off, size = struct.unpack_from('<QQ', d, base + ishoff + istr * 64 + 24)
        lo = base + off
        d[lo:lo + size] = bytes(d[lo:lo + size]).replace(b'.debug_line\0', b'.nodbg_line\0')
    return d


def backtrace(d):
    """Points each lane's (empty) .cudbg.bt section at one new 24-byte row appended to the file."""
    shoff, sh = shdrs(d)
    ln = first(sh, T_LNTBL)
    ln_index = sh.index(ln)
    entry, = struct.unpack_from('<Q', d, first(sh, T_GRIDTBL)[4] + 24)
    out = bytearray(d[:shoff])
    for r in range(ln[5] // ln[9]):
        struct.pack_into('<I', out, ln[4] + r * ln[9] + 36, 1)
        bt = next(s for s in sh if typ(s) == T_BT and s[6] == ln_index and s[7] == r)
        bt[4], bt[5] = len(out), 24
        out += struct.pack('<QQII', 0x60, entry + 0x60, 0, 0)
    while len(out) % 8:
        out.append(0)
    struct.pack_into('<Q', out, 0x28, len(out))
    out += bytes(64 * len(sh))
    write(out, len(out) - 64 * len(sh), sh)
    return out


def many_warps(d, nwarps=70000, npcs=16):
    shoff, sh = shdrs(d)
    wp = first(sh, T_WPTBL)
    ln = first(sh, T_LNTBL)
    wp_index = sh.index(wp)
    entry, = struct.unpack_from('<Q', d, first(sh, T_GRIDTBL)[4] + 24)
    out = bytearray(d[:shoff])
    rows = bytearray()
    for i in range(nwarps):
        row = bytearray(d[wp[4]:wp[4] + wp[9]])
        struct.pack_into('<I', row, 8, i % 64)
        rows += row
    wp[4], wp[5] = len(out), len(rows)
    out += rows
    lane0 = bytes(d[ln[4]:ln[4] + ln[9]])  # lane 0 only: keeps the file small
    for i in range(1, nwarps):
        data = bytearray(lane0)
        struct.pack_into('<Q', data, 0, entry + 16 * (i % npcs))
        sh.append([ln[0], ln[1], ln[2], 0, len(out), len(data), wp_index, i, 0, ln[9]])
        out += data
    while len(out) % 8:
        out.append(0)
    shstrndx, = struct.unpack_from('<H', d, 0x3e)
    sh[0][5], sh[0][6] = len(sh), shstrndx   # extended numbering: count and string-table index in shdr 0
    struct.pack_into('<QHH', out, 0x28, len(out), 0, 0)
    struct.pack_into('<HH', out, 0x3c, 0, 0xffff)
    out += bytes(64 * len(sh))
    write(out, len(out) - 64 * len(sh), sh)
    return out


def fault_first(d):
    shoff, sh = shdrs(d)
    wp = first(sh, T_WPTBL)
    wp_index = sh.index(wp)
    ln = next(s for s in sh if typ(s) == T_LNTBL and s[6] == wp_index and s[7] == 0)
    pc, = struct.unpack_from('<Q', d, ln[4])
    struct.pack_into('<Q', d, wp[4], pc)
    struct.pack_into('<I', d, wp[4] + 24, 1)
    for r in range(ln[5] // ln[9]):
        struct.pack_into('<I', d, ln[4] + r * ln[9] + 32, 14)
    return d


def deep_bt(d, n=5000):
    shoff, sh = shdrs(d)
    bt = first(sh, T_BT)
    es = bt[9]
    rows = bytes(d[bt[4]:bt[4] + es]) * n + bytes(d[bt[4] + bt[5] - es:bt[4] + bt[5]])
    out = bytearray(d[:shoff])
    bt[4], bt[5] = len(out), len(rows)
    out += rows
    while len(out) % 8:
        out.append(0)
    struct.pack_into('<Q', out, 0x28, len(out))
    out += bytes(64 * len(sh))
    write(out, len(out) - 64 * len(sh), sh)
    return out


def main():
    src, dst, mode = sys.argv[1:4]
    d = bytearray(open(src, 'rb').read())
    if mode == 'widen':
        d = widen(d)
    elif mode == 'no-lines':
        d = no_lines(d)
    elif mode == 'backtrace':
        d = backtrace(d)
    elif mode == 'many-warps':
        d = many_warps(d)
    elif mode == 'fault-first':
        d = fault_first(d)
    elif mode == 'deep-bt':
        d = deep_bt(d)
    else:
        shoff, sh = shdrs(d)
        if mode == 'short-lanes':
            for s in sh:
                if typ(s) == T_LNTBL:
                    s[9] = 40
        elif mode == 'bad-link':
            first(sh, T_WPTBL)[6] = sh.index(first(sh, T_DEVTBL))
        elif mode == 'bad-info':
            first(sh, T_LNTBL)[7] = 999
        elif mode == 'call-depth':
            s = first(sh, T_LNTBL)
            for r in range(s[5] // s[9]):
                struct.pack_into('<I', d, s[4] + r * s[9] + 36, 2)
        elif mode == 'ragged':
            first(sh, T_SMTBL)[5] -= 1
        else:
            sys.exit('unknown mode ' + mode)
        write(d, shoff, sh)
    open(dst, 'wb').write(d)


main()
