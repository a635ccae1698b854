#!/usr/bin/env python3
"""elf_loads.py A B: exit 0 when every PT_LOAD segment's file bytes (and the program headers) of ELF file A are
byte-identical in B (but the ELF header, whose section-table fields may change): what the loader maps did not move or change. Reads the headers itself (ELF64/ELF32, either
byte order), so that it is an oracle independent of libelf."""
import struct
import sys


def loads(path):
    d = open(path, 'rb').read()
    if d[:4] != b'\x7fELF':
        sys.exit(f'{path}: not ELF')
    e = '<' if d[5] == 1 else '>'
    if d[4] == 2:
        phoff, = struct.unpack_from(e + 'Q', d, 32)
        phentsize, phnum = struct.unpack_from(e + 'HH', d, 54)
        fmt, idx = e + 'IIQQQQQQ', (2, 5)
    else:
        phoff, = struct.unpack_from(e + 'I', d, 28)
        phentsize, phnum = struct.unpack_from(e + 'HH', d, 42)
        fmt, idx = e + 'IIIIIIII', (1, 4)
    segs, phdrs = [], []
    for i in range(phnum):
        f = struct.unpack_from(fmt, d, phoff + i * phentsize)
        phdrs.append(f)
        if f[0] == 1:  # PT_LOAD
            off, filesz = f[idx[0]], f[idx[1]]
            # the ELF header itself is not compared: its section-header fields follow the section table
            ehsize = 64 if d[4] == 2 else 52
            skip = max(0, ehsize - off)
            segs.append(d[off + skip:off + filesz])
    return phdrs, segs


pa, sa = loads(sys.argv[1])
pb, sb = loads(sys.argv[2])
if pa != pb:
    sys.exit('program headers differ')
if not sa:
    sys.exit('no PT_LOAD')
for i, (x, y) in enumerate(zip(sa, sb)):
    if x != y:
        sys.exit(f'PT_LOAD {i} differs')
