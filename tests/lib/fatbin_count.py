#!/usr/bin/env python3
"""Independent count of fatbin containers and entries (the oracle when NVIDIA's cuobjdump is absent).

Usage: fatbin_count.py FILE   (host ELF with .nv_fatbin/__nv_relfatbin sections, or a standalone .fatbin)
Prints: containers=N elf=N ptx=N other=N  and one line per kind+arch: "elf sm_90 3".
Written from docs/cuda-formats.md (container header 16 bytes: magic 0xBA55ED50, u16 version, u16 header size,
u64 payload size; entry: u16 kind, u16 version, u32 header size, u64 payload size, ..., u32 arch at 0x1C).
"""
import collections
import struct
import sys


def sections(data):
    if data[:4] == b"\x50\xed\x55\xba":
        return [data]
    if data[:4] != b"\x7fELF" or data[4] != 2:
        sys.exit("not an ELF64 file or fatbin")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    stro = hdrs[shstrndx][4]
    out = []
    for h in hdrs:
        name = data[stro + h[0]:data.index(b"\0", stro + h[0])].decode()
        if name in (".nv_fatbin", "__nv_relfatbin") and h[1] != 8:  # not NOBITS
            out.append(data[h[4]:h[4] + h[5]])
    return out


def main():
    data = open(sys.argv[1], "rb").read()
    containers, kinds, archs = 0, collections.Counter(), collections.Counter()
    for sec in sections(data):
        pos = 0
        while pos < len(sec):
            if sec[pos] == 0:
                pos += 1
                continue
            magic, _ver, hsize, fsize = struct.unpack_from("<IHHQ", sec, pos)
            assert magic == 0xBA55ED50, "bad container magic at %#x" % pos
            containers += 1
            e, end = pos + hsize, pos + hsize + fsize
            while e < end:
                kind, _v, ehsize, padded = struct.unpack_from("<HHIQ", sec, e)
                arch, = struct.unpack_from("<I", sec, e + 0x1C)
                name = {1: "ptx", 2: "elf"}.get(kind, "other")
                kinds[name] += 1
                archs[(name, arch)] += 1
                e += ehsize + padded
            pos = end
    print("containers=%d elf=%d ptx=%d other=%d" % (containers, kinds["elf"], kinds["ptx"], kinds["other"]))
    for (k, a), n in sorted(archs.items()):
        print("%s %s_%d %d" % (k, "sm" if k == "elf" else "compute", a, n))


main()
