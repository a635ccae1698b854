#!/usr/bin/env python3
"""Writes a small ELF relocatable whose K `.nv_fatbin` section headers all point at one fatbin (FATBIN's bytes):
a shape no linker writes, made to have one fatbin read K times. Usage: shared_fatbin.py FATBIN K OUT."""
import struct, sys
fat = open(sys.argv[1], 'rb').read()
k = int(sys.argv[2])
shstr = b'\0.shstrtab\0.nv_fatbin\0'
data = bytearray(64)
o_str = len(data); data += shstr
while len(data) % 8: data += b'\0'
o_fat = len(data); data += fat
while len(data) % 8: data += b'\0'
sh = [bytes(64), struct.pack('<IIQQQQIIQQ', 1, 3, 0, 0, o_str, len(shstr), 0, 0, 1, 0)]
for _ in range(k):
    sh.append(struct.pack('<IIQQQQIIQQ', 11, 1, 0, 0, o_fat, len(fat), 0, 0, 8, 0))
shoff = len(data)
for s in sh: data += s
data[0:64] = b'\x7fELF' + bytes([2, 1, 1, 0]) + bytes(8) + struct.pack('<HHIQQQIHHHHHH', 1, 62, 1, 0, 0, shoff, 0,
                                                                          64, 0, 0, 64, len(sh), 1)
open(sys.argv[3], 'wb').write(data)
