#!/usr/bin/env python3
"""Rewrites a CUDA GPU core in place, to make states a dump can be in without a GPU at hand:

  core_patch.py stale CORE     every backtrace row's (.cudbg.bt, SHT_LOUSER + 8) return address becomes 0x7f08,
                               in no image: stale call-return state, as a trap leaves for some lanes
  core_patch.py drop CORE      the backtrace rows disappear (their sections become SHT_PROGBITS, which the reader
                               ignores): lanes say they are inside calls but the dump has no call-return state
  core_patch.py image-sm N CORE  the SM in the ELF header of every relocated image (.cudbg.relfimg, SHT_LOUSER + 7)
                               becomes N (e_flags bits 8-15 from ABI version 8, bits 0-7 before)
Prints the number of rows, sections or images changed. Plain ELF64 section headers only (no extended numbering)."""
import struct, sys

SHT_LOUSER, RELFIMG, BT = 0x80000000, 7, 8
mode = sys.argv[1]
path = sys.argv[-1]
data = bytearray(open(path, 'rb').read())
shoff, = struct.unpack_from('<Q', data, 0x28)
shentsize, shnum = struct.unpack_from('<HH', data, 0x3a)
changed = 0
for i in range(shnum):
    h = shoff + i * shentsize
    sh_type, = struct.unpack_from('<I', data, h + 4)
    off, size = struct.unpack_from('<QQ', data, h + 0x18)
    entsize, = struct.unpack_from('<Q', data, h + 0x38)
    if mode == 'image-sm' and sh_type == SHT_LOUSER + RELFIMG:
        sm, flags = int(sys.argv[2]), struct.unpack_from('<I', data, off + 0x30)[0]
        if data[off + 8] >= 8:
            flags = (flags & ~0xff00) | sm << 8
        else:
            flags = (flags & ~0xff) | sm
        struct.pack_into('<I', data, off + 0x30, flags)
        changed += 1
    elif mode == 'drop' and sh_type == SHT_LOUSER + BT:
        struct.pack_into('<I', data, h + 4, 1)
        changed += 1
    elif mode == 'stale' and sh_type == SHT_LOUSER + BT:
        for r in range(size // entsize if entsize else 0):
            struct.pack_into('<Q', data, off + r * entsize + 8, 0x7f08)  # the return site's virtual address
            changed += 1
open(path, 'wb').write(data)
print(changed)
