#!/usr/bin/env python3
"""Removes an ELF file's section header table the way a hostile packager would, leaving what the loader reads.

strip_shdrs.py IN OUT MODE [EDIT ...]
  MODE header: e_shoff, e_shnum and e_shstrndx set to 0 (the table's bytes stay, nothing points at them)
  MODE zero:   the header left as it is, the table's bytes overwritten with zeros
  MODE sstrip: as header, and the file cut after the last segment's bytes (what ELFkickers' sstrip does)
  MODE keep:   the table left as it is (for the edits alone)
  EDIT (lies told to the reader of the dynamic segment, applied after MODE):
    DT_NAME=VALUE    the value of the first dynamic entry with that tag (DT_STRSZ, DT_SYMTAB, DT_VERNEEDNUM, ...)
    gnu_bucket=V     DT_GNU_HASH's first bucket (a symbol index its chain starts at)
    sysv_nchain=V    DT_HASH's nchain (the number of symbols)
    dynamic_offset=V PT_DYNAMIC's p_offset
    type:NAME=V      the sh_type of the section named NAME (the table kept, one section hidden from its readers)
64-bit little-endian ELF only (what the audit reads); the file otherwise is copied byte for byte."""
import struct
import sys

TAGS = {'DT_NEEDED': 1, 'DT_HASH': 4, 'DT_STRTAB': 5, 'DT_SYMTAB': 6, 'DT_STRSZ': 10, 'DT_SYMENT': 11,
        'DT_SONAME': 14, 'DT_GNU_HASH': 0x6ffffef5, 'DT_VERSYM': 0x6ffffff0, 'DT_VERNEED': 0x6ffffffe,
        'DT_VERNEEDNUM': 0x6fffffff, 'DT_VERDEF': 0x6ffffffc, 'DT_VERDEFNUM': 0x6ffffffd}


def phdrs(data):
    phoff, = struct.unpack_from('<Q', data, 0x20)
    phentsize, phnum = struct.unpack_from('<HH', data, 0x36)
    for i in range(phnum):
        yield phoff + i * phentsize, struct.unpack_from('<IIQQQQQQ', data, phoff + i * phentsize)


def to_offset(data, addr):
    for _, (ptype, _f, off, vaddr, _p, filesz, _m, _a) in phdrs(data):
        if ptype == 1 and vaddr <= addr < vaddr + filesz:
            return off + addr - vaddr
    sys.exit('address 0x%x is in no PT_LOAD' % addr)


def dynamic(data):
    for _, (ptype, _f, off, _v, _p, filesz, _m, _a) in phdrs(data):
        if ptype == 2:
            return [(off + i, ) + struct.unpack_from('<qQ', data, off + i) for i in range(0, filesz, 16)]
    sys.exit('no PT_DYNAMIC')


def tag_value(data, tag):
    for at, t, v in dynamic(data):
        if t == tag:
            return at, v
    sys.exit('no dynamic tag 0x%x' % tag)


def edit(data, what, value):
    if what in TAGS:
        at, _ = tag_value(data, TAGS[what])
        struct.pack_into('<Q', data, at + 8, value)
    elif what == 'gnu_bucket':
        table = to_offset(data, tag_value(data, TAGS['DT_GNU_HASH'])[1])
        nbuckets, _symoffset, nbloom = struct.unpack_from('<III', data, table)
        struct.pack_into('<I', data, table + 16 + 8 * nbloom, value)
    elif what == 'sysv_nchain':
        table = to_offset(data, tag_value(data, TAGS['DT_HASH'])[1])
        struct.pack_into('<I', data, table + 4, value)
    elif what.startswith('type:'):
        shoff, = struct.unpack_from('<Q', data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
        names = struct.unpack_from('<Q', data, shoff + shstrndx * shentsize + 24)[0]
        for i in range(shnum):
            at = shoff + i * shentsize
            name = struct.unpack_from('<I', data, at)[0]
            if data[names + name:data.index(b'\0', names + name)].decode() == what[5:]:
                struct.pack_into('<I', data, at + 4, value)
                return
        sys.exit('no section %s' % what[5:])
    elif what == 'dynamic_offset':
        for at, (ptype, *_rest) in phdrs(data):
            if ptype == 2:
                struct.pack_into('<Q', data, at + 8, value)
    else:
        sys.exit('unknown edit %s' % what)


def main():
    src, dst, mode = sys.argv[1:4]
    data = bytearray(open(src, 'rb').read())
    if data[:6] != b'\x7fELF\x02\x01':
        sys.exit('%s: not a 64-bit little-endian ELF file' % src)
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum = struct.unpack_from('<HH', data, 0x3a)
    if mode in ('header', 'sstrip'):
        struct.pack_into('<Q', data, 0x28, 0)
        struct.pack_into('<HH', data, 0x3c, 0, 0)
        if mode == 'sstrip':
            del data[max(off + filesz for _, (_t, _f, off, _v, _p, filesz, _m, _a) in phdrs(data)):]
    elif mode == 'zero':
        data[shoff:shoff + shentsize * shnum] = bytes(shentsize * shnum)
    elif mode != 'keep':
        sys.exit('mode must be header, zero, sstrip or keep')
    for e in sys.argv[4:]:
        what, value = e.split('=', 1)
        edit(data, what, int(value, 0))
    open(dst, 'wb').write(bytes(data))


if __name__ == '__main__':
    main()
