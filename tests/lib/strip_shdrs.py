#!/usr/bin/env python3
"""Removes an ELF file's section header table the way a hostile packager would, leaving what the loader reads.

strip_shdrs.py IN OUT MODE
  MODE header: e_shoff, e_shnum and e_shstrndx set to 0 (the table's bytes stay, nothing points at them)
  MODE zero:   the header left as it is, the table's bytes overwritten with zeros
Only 64-bit and 32-bit ELF of either byte order; the file otherwise is copied byte for byte."""
import struct
import sys


def main():
    src, dst, mode = sys.argv[1:4]
    data = bytearray(open(src, 'rb').read())
    if data[:4] != b'\x7fELF':
        sys.exit('%s: not an ELF file' % src)
    is64 = data[4] == 2
    end = '<' if data[5] == 1 else '>'
    # e_shoff, e_shentsize, e_shnum, e_shstrndx
    shoff_at, shoff_fmt = (0x28, 'Q') if is64 else (0x20, 'I')
    shentsize_at = 0x3a if is64 else 0x2e
    shoff = struct.unpack_from(end + shoff_fmt, data, shoff_at)[0]
    shentsize, shnum, shstrndx = struct.unpack_from(end + 'HHH', data, shentsize_at)
    if mode == 'header':
        struct.pack_into(end + shoff_fmt, data, shoff_at, 0)
        struct.pack_into(end + 'HH', data, shentsize_at + 2, 0, 0)
    elif mode == 'zero':
        data[shoff:shoff + shentsize * shnum] = bytes(shentsize * shnum)
    else:
        sys.exit('mode must be header or zero')
    open(dst, 'wb').write(bytes(data))


if __name__ == '__main__':
    main()
