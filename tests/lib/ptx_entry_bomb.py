#!/usr/bin/env python3
"""Writes a standalone fatbin with one zstd-compressed PTX entry that is nothing but N `.entry` lines: a few
KB that expand to N functions in the reader. Usage: ptx_entry_bomb.py N OUT (needs the zstd command)."""
import struct, subprocess, sys
FATBIN_MAGIC = 0xBA55ED50
n = int(sys.argv[1])
ptx = b'.version 8.0\n.target sm_90\n.address_size 64\n' + b'.entry a\n' * n + b'\0'
payload = subprocess.run(['zstd', '-q', '-19', '-c'], input=ptx, capture_output=True, check=True).stdout
padded = payload + b'\0' * (-len(payload) % 8)
# the entry header as tests/lib/mutate.py's real_bomb writes it, kind 1 (PTX)
hdr = struct.pack('<HHIQIIHHIIIQQQ', 1, 0x0101, 0x40, len(padded), len(payload), 0, 8, 1, 90, 0, 0,
                  0x11 | 0x8000, 0, len(ptx))
entry = hdr + padded
open(sys.argv[2], 'wb').write(struct.pack('<IHHQ', FATBIN_MAGIC, 1, 16, len(entry)) + entry)
