#!/usr/bin/env python3
"""What a line-split cubin still carries beyond the same cubin built without -lineinfo, by structure alone.

Usage: cubin_overhead.py SPLIT.cubin BARE.cubin [SPLIT.cubin BARE.cubin ...]
Prints one line per pair and a last line "total N": the bytes of the section header table and of the name
tables (.shstrtab, .strtab) above the bare cubin's, and of .note.nv.tkinfo (ptxas records its options, with
--generate-line-info, there). A line split empties the line sections but keeps their headers and names, so
this is the part of the size gap that is not line info. Parsed from the ELF64 headers (no readelf)."""
import struct
import sys


def layout(path):
    d = open(path, "rb").read()
    if d[:4] != b"\x7fELF" or d[4] != 2:
        sys.exit("%s: not an ELF64 file" % path)
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    secs = []
    for i in range(shnum):
        name, _t, _f, _a, _o, size = struct.unpack_from("<IIQQQQ", d, shoff + i * shentsize)
        secs.append((name, size))
    stroff = struct.unpack_from("<Q", d, shoff + shstrndx * shentsize + 0x18)[0]
    sizes = {}
    for name, size in secs:
        end = d.index(b"\0", stroff + name)
        sizes[d[stroff + name:end].decode("latin-1")] = size
    return shnum * shentsize, sizes


total = 0
args = sys.argv[1:]
if not args or len(args) % 2:
    sys.exit(__doc__)
for split, bare in zip(args[0::2], args[1::2]):
    (hs, ss), (hb, sb) = layout(split), layout(bare)
    extra = max(hs - hb, 0)
    for name in (".shstrtab", ".strtab", ".note.nv.tkinfo"):
        extra += max(ss.get(name, 0) - sb.get(name, 0), 0)
    print("%s %s %d" % (split, bare, extra))
    total += extra
print("total %d" % total)
