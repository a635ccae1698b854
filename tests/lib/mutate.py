#!/usr/bin/env python3
"""Malformed-input generator for trueline-check.

Takes a real input (ELF object/library/executable, cubin, ar archive, fatbin) and writes structured corruptions of
it, each named for what was broken, so a failure points at the exact mutation:

  trunc-*      truncation at every section boundary (start and end of each section, the headers, the tables)
  flip-*       bit flips in the ELF header and in section headers (deterministic: seeded)
  size-*       size/offset fields pointing past the end of the file or huge (sh_size, sh_offset, e_shoff, e_shnum..)
  zero-*       zero-length sections (sh_size = 0)
  bomb-*       decompression bombs: SHF_COMPRESSED sections and fatbin entries whose declared size is huge, and
               honest-looking entries whose payload really expands to GiBs (zstd/LZ4 of zeros)
  cycle-*      cyclic DWARF references (DW_AT_type/abstract_origin/specification/sibling pointing at the DIE itself
               or at an earlier DIE), found by walking .debug_info
  ar-*         archives with bad member headers (size field non-numeric/huge/negative, bad fmag, long-name offsets
               out of range, a member cut short)
  fat-*        fatbin container/entry headers with sizes past the end, zero header sizes, path-traversal identifiers

Standard library only (no pyelftools): the tests must run on a bare Debian. Little-endian ELF only, like every
input the tool targets.

usage: mutate.py INPUT OUTDIR [--max N] [--seed S]
Prints the number of mutants written. --max bounds the count per input (the suites keep the total small).
"""
import os
import random
import struct
import subprocess
import sys

SHF_COMPRESSED = 0x800
FATBIN_MAGIC = 0xBA55ED50


class Elf:
    """Just enough ELF to find headers and sections by offset."""

    def __init__(self, data):
        self.data = data
        self.is64 = data[4] == 2
        if self.is64:
            (self.shoff,) = struct.unpack_from('<Q', data, 0x28)
            self.shentsize, self.shnum, self.shstrndx = struct.unpack_from('<HHH', data, 0x3A)
            self.ehsize = 64
        else:
            (self.shoff,) = struct.unpack_from('<I', data, 0x20)
            self.shentsize, self.shnum, self.shstrndx = struct.unpack_from('<HHH', data, 0x2E)
            self.ehsize = 52
        self.sections = []
        for i in range(self.shnum):
            off = self.shoff + i * self.shentsize
            if off + self.shentsize > len(data):
                break
            if self.is64:
                name, typ, flags, addr, offset, size = struct.unpack_from('<IIQQQQ', data, off)
            else:
                name, typ, flags, addr, offset, size = struct.unpack_from('<IIIIII', data, off)
            self.sections.append(dict(index=i, hdr=off, name_off=name, type=typ, flags=flags, offset=offset,
                                      size=size))
        strtab = self.sections[self.shstrndx] if self.shstrndx < len(self.sections) else None
        for s in self.sections:
            s['name'] = ''
            if strtab:
                start = strtab['offset'] + s['name_off']
                end = data.find(b'\0', start)
                if 0 <= start < len(data) and end > start:
                    s['name'] = data[start:end].decode('latin-1')

    def field(self, sec, name):
        """(offset, format) of a section header field."""
        if self.is64:
            layout = dict(flags=(8, '<Q'), offset=(0x18, '<Q'), size=(0x20, '<Q'), link=(0x28, '<I'))
        else:
            layout = dict(flags=(8, '<I'), offset=(0x10, '<I'), size=(0x14, '<I'), link=(0x18, '<I'))
        o, f = layout[name]
        return sec['hdr'] + o, f

    def by_name(self, name):
        return next((s for s in self.sections if s['name'] == name), None)


def put(buf, off, fmt, value):
    size = struct.calcsize(fmt)
    if off + size <= len(buf):
        mask = (1 << (8 * size)) - 1
        struct.pack_into(fmt, buf, off, value & mask)


def huge(fmt):
    return (1 << (8 * struct.calcsize(fmt))) - 1


# ---------------------------------------------------------------------------------------------------------- ELF
def elf_mutants(data, rng):
    e = Elf(data)
    n = len(data)
    # Truncations: every section boundary, the header table, mid-header.
    cuts = {e.ehsize // 2, e.ehsize, e.shoff, e.shoff + e.shentsize // 2, n - 1}
    for s in e.sections:
        if s['type'] != 8:  # SHT_NOBITS has no bytes
            cuts.update({s['offset'], s['offset'] + s['size'] // 2, s['offset'] + s['size']})
    for c in sorted(c for c in cuts if 0 < c < n):
        yield 'trunc-at-%d' % c, data[:c]
    # Header bit flips: every field of the ELF header at least once, plus random ones in section headers.
    for off in range(16, e.ehsize):
        bit = rng.randrange(8)
        b = bytearray(data)
        b[off] ^= 1 << bit
        yield 'flip-ehdr-%d-bit%d' % (off, bit), bytes(b)
    for s in rng.sample(e.sections, min(len(e.sections), 12)):
        for _ in range(2):
            off = s['hdr'] + rng.randrange(e.shentsize)
            bit = rng.randrange(8)
            b = bytearray(data)
            b[off] ^= 1 << bit
            yield 'flip-shdr-%s-%d-bit%d' % (safe(s['name']) or s['index'], off, bit), bytes(b)
    # Table-level size fields.
    shoff_fmt, shoff_at = ('<Q', 0x28) if e.is64 else ('<I', 0x20)
    for label, at, fmt, val in [('e_shoff-past-end', shoff_at, shoff_fmt, n + 64),
                                ('e_shoff-huge', shoff_at, shoff_fmt, huge(shoff_fmt) - 7),
                                ('e_shnum-huge', e.ehsize - 4, '<H', 0xFFFF),
                                ('e_shstrndx-out-of-range', e.ehsize - 2, '<H', e.shnum + 5),
                                ('e_shentsize-zero', e.ehsize - 6, '<H', 0),
                                ('e_phnum-huge', e.ehsize - 8, '<H', 0xFFFF)]:
        b = bytearray(data)
        put(b, at, fmt, val)
        yield 'size-' + label, bytes(b)
    # Per-section size/offset past the end, huge, and zero-length sections.
    for s in e.sections[1:]:
        nm = safe(s['name']) or str(s['index'])
        so, sf = e.field(s, 'size')
        oo, of = e.field(s, 'offset')
        for label, at, fmt, val in [('size-past-end', so, sf, n + 1), ('size-huge', so, sf, huge(sf)),
                                    ('offset-past-end', oo, of, n + 8), ('offset-huge', oo, of, huge(of) - 3),
                                    ('zero', so, sf, 0)]:
            b = bytearray(data)
            put(b, at, fmt, val)
            yield ('zero-%s' % nm) if label == 'zero' else ('size-%s-%s' % (nm, label)), bytes(b)
    yield from compressed_bombs(e, data)
    yield from dwarf_cycles(e, data)
    for name in ('.nv_fatbin', '__nv_relfatbin'):
        s = e.by_name(name)
        if s and s['offset'] + s['size'] <= n:
            for label, blob in fatbin_mutants(data[s['offset']:s['offset'] + s['size']], rng):
                b = bytearray(data)
                if len(blob) == s['size']:  # same size: patch in place, the ELF stays consistent
                    b[s['offset']:s['offset'] + s['size']] = blob
                    yield label + '-in-' + safe(name), bytes(b)


def compressed_bombs(e, data):
    """SHF_COMPRESSED sections whose Chdr declares a huge size; or, when none is compressed, a debug section turned
    into a compressed one with a huge declared size over garbage."""
    for s in e.sections:
        if s['flags'] & SHF_COMPRESSED and s['size'] >= 24:
            for label, val in [('4g', 0xFFFFFFFF), ('huge', (1 << 63) - 1 if e.is64 else 0xFFFFFFFF), ('zero', 0)]:
                b = bytearray(data)
                put(b, s['offset'] + 8 if e.is64 else s['offset'] + 4, '<Q' if e.is64 else '<I', val)
                yield 'bomb-chdr-%s-%s' % (safe(s['name']), label), bytes(b)
            b = bytearray(data)
            put(b, s['offset'], '<I', 77)  # unknown ch_type
            yield 'bomb-chdr-%s-bad-type' % safe(s['name']), bytes(b)
            return
    s = next((s for s in e.sections if s['name'].startswith('.debug_') and s['size'] >= 24), None)
    if s:
        b = bytearray(data)
        fo, ff = e.field(s, 'flags')
        put(b, fo, ff, s['flags'] | SHF_COMPRESSED)
        put(b, s['offset'], '<I', 2)  # ELFCOMPRESS_ZSTD over garbage
        put(b, s['offset'] + (8 if e.is64 else 4), '<Q' if e.is64 else '<I', 0xFFFFFFF0)
        yield 'bomb-forged-compressed-%s' % safe(s['name']), bytes(b)


# --------------------------------------------------------------------------------------------------------- DWARF
DW_FORM_SIZES = {0x01: None, 0x0b: 1, 0x05: 2, 0x06: 4, 0x07: 8, 0x1e: 16, 0x0c: 1, 0x19: 0, 0x11: 1, 0x12: 2,
                 0x13: 4, 0x14: 8, 0x0e: 4, 0x1f: 4, 0x17: 4, 0x25: 1, 0x26: 2, 0x27: 3, 0x28: 4, 0x29: 1,
                 0x2a: 2, 0x2b: 3, 0x2c: 4, 0x20: 8, 0x1c: 4, 0x10: 4}
DW_AT_REFS = {0x01: 'sibling', 0x49: 'type', 0x31: 'abstract_origin', 0x47: 'specification'}


def uleb(d, o):
    v = s = 0
    while True:
        b = d[o]
        o += 1
        v |= (b & 0x7F) << s
        s += 7
        if not b & 0x80:
            return v, o


def parse_abbrevs(d, o):
    table = {}
    while o < len(d):
        code, o = uleb(d, o)
        if code == 0:
            break
        tag, o = uleb(d, o)
        o += 1  # has_children
        attrs = []
        while True:
            at, o = uleb(d, o)
            form, o = uleb(d, o)
            ic = None
            if form == 0x21:  # DW_FORM_implicit_const
                ic, o = uleb(d, o)
            if at == 0 and form == 0:
                break
            attrs.append((at, form))
        table[code] = attrs
    return table


def walk_refs(info, abbrev, addr_size):
    """Yields (cu_offset, die_offset, attr, attr_value_offset) for every DW_FORM_ref4 of interest. Stops quietly at
    the first form it does not know: this finds refs in gcc/clang output, it is no validator."""
    o = 0
    while o + 11 < len(info):
        (length,) = struct.unpack_from('<I', info, o)
        if length >= 0xFFFFFFF0:
            return
        cu, end = o, o + 4 + length
        (ver,) = struct.unpack_from('<H', info, o + 4)
        if ver >= 5:
            utype, asz = info[o + 6], info[o + 7]
            (aoff,) = struct.unpack_from('<I', info, o + 8)
            o += 12 + (8 if utype in (2, 6) else 0)
        else:
            (aoff,) = struct.unpack_from('<I', info, o + 6)
            asz = info[o + 10]
            o += 11
        try:
            table = parse_abbrevs(abbrev, aoff)
            while o < end:
                die = o
                code, o = uleb(info, o)
                if code == 0:
                    continue
                for at, form in table[code]:
                    if form == 0x13 and at in DW_AT_REFS:
                        yield cu, die, DW_AT_REFS[at], o
                    if form in (0x0f, 0x15, 0x0d, 0x1a, 0x1b, 0x22, 0x23):  # udata, ref_udata, sdata, strx, addrx..
                        _, o = uleb(info, o)
                    elif form == 0x08:  # string
                        o = info.index(b'\0', o) + 1
                    elif form in (0x18, 0x09):  # exprloc, block
                        n, o = uleb(info, o)
                        o += n
                    elif form == 0x0a:
                        o += 1 + info[o]
                    elif form == 0x03:
                        o += 2 + struct.unpack_from('<H', info, o)[0]
                    elif form == 0x04:
                        o += 4 + struct.unpack_from('<I', info, o)[0]
                    elif form == 0x01:
                        o += asz
                    elif form == 0x21:
                        pass
                    elif form in DW_FORM_SIZES and DW_FORM_SIZES[form] is not None:
                        o += DW_FORM_SIZES[form]
                    else:
                        return
        except (IndexError, KeyError, ValueError, struct.error):
            return
        o = end


def dwarf_cycles(e, data):
    info, abbrev = e.by_name('.debug_info'), e.by_name('.debug_abbrev')
    if not info or not abbrev or (info['flags'] | abbrev['flags']) & SHF_COMPRESSED:
        return
    di = data[info['offset']:info['offset'] + info['size']]
    da = data[abbrev['offset']:abbrev['offset'] + abbrev['size']]
    done = set()
    prev_die = {}
    for cu, die, attr, at in walk_refs(di, da, 8 if e.is64 else 4):
        if attr not in done:  # self-reference: the DIE is its own type/origin/sibling
            b = bytearray(data)
            put(b, info['offset'] + at, '<I', die - cu)
            yield 'cycle-self-%s' % attr, bytes(b)
            done.add(attr)
        if attr in ('type', 'abstract_origin') and cu in prev_die and attr + '2' not in done:
            # two-DIE cycle: this DIE points back at an earlier DIE of the unit that itself has a ref
            pdie, pat = prev_die[cu]
            b = bytearray(data)
            put(b, info['offset'] + at, '<I', pdie - cu)
            put(b, info['offset'] + pat, '<I', die - cu)
            yield 'cycle-pair-%s' % attr, bytes(b)
            done.add(attr + '2')
        if attr == 'type':
            prev_die[cu] = (die, at)


# -------------------------------------------------------------------------------------------------------- fatbin
def fatbin_entries(blob):
    """(container_offset, entry_offset, header_size, payload_size) for each entry of each container."""
    o = 0
    while o + 16 <= len(blob):
        magic, ver, hsz, fsz = struct.unpack_from('<IHHQ', blob, o)
        if magic != FATBIN_MAGIC:
            return
        end = min(o + hsz + fsz, len(blob))
        e = o + hsz
        while e + 0x40 <= end:
            ehs, psz = struct.unpack_from('<IQ', blob, e + 4)
            yield o, e, ehs, psz
            if ehs == 0:
                return
            e += ehs + psz
        o = end


def fatbin_mutants(blob, rng):
    ents = list(fatbin_entries(blob))
    if not ents:
        return
    c0 = ents[0][0]
    for label, at, fmt, val in [('container-size-huge', c0 + 8, '<Q', huge('<Q')),
                                ('container-size-past-end', c0 + 8, '<Q', len(blob) + 16),
                                ('container-hdr-zero', c0 + 6, '<H', 0),
                                ('container-hdr-huge', c0 + 6, '<H', 0xFFFF)]:
        b = bytearray(blob)
        put(b, at, fmt, val)
        yield 'fat-' + label, bytes(b)
    for k, (c, e, ehs, psz) in enumerate(ents[:4]):
        for label, at, fmt, val in [('hdrsize-zero', e + 4, '<I', 0), ('hdrsize-huge', e + 4, '<I', 0xFFFFFFF8),
                                    ('payload-huge', e + 8, '<Q', huge('<Q') - 7),
                                    ('payload-past-end', e + 8, '<Q', len(blob)),
                                    ('ident-past-end', e + 0x20, '<I', 0xFFFFFF00),
                                    ('opts-past-end', e + 0x14, '<I', 0xFFFFFF00),
                                    ('kind-unknown', e, '<H', 0x77)]:
            b = bytearray(blob)
            put(b, at, fmt, val)
            yield 'fat-e%d-%s' % (k, label), bytes(b)
        # Decompression bomb by declaration: claim a compressed entry of 4 GiB / 2^63 uncompressed.
        for label, flag, usz in [('zstd-4g', 0x8000, 0xFFFFFFFF), ('zstd-huge', 0x8000, (1 << 63) - 1),
                                 ('lz4-4g', 0x2000, 0xFFFFFFFF)]:
            b = bytearray(blob)
            (flags,) = struct.unpack_from('<Q', b, e + 0x28)
            put(b, e + 0x28, '<Q', (flags & ~0xA000) | flag)
            put(b, e + 0x10, '<I', max(1, min(psz, 0xFFFFFFFF)))
            put(b, e + 0x38, '<Q', usz)
            yield 'bomb-fat-e%d-%s' % (k, label), bytes(b)
        # Path traversal through the identifier (what --extract might turn into a file name).
        if ehs >= 0x48:
            b = bytearray(blob)
            ident = b'../../../../tmp/tl-evil'[:ehs - 0x40]
            put(b, e + 0x20, '<I', 0x40)
            put(b, e + 0x24, '<I', len(ident))
            b[e + 0x40:e + 0x40 + len(ident)] = ident
            yield 'fat-e%d-ident-traversal' % k, bytes(b)
    for n in sorted({ents[0][1] + 0x20, len(blob) // 2, len(blob) - 8}):
        if 0 < n < len(blob):
            yield 'trunc-fatbin-at-%d' % n, blob[:n]


def real_bomb(kind):
    """A standalone fatbin with one cubin entry whose payload really expands to 1 GiB (zstd) or 64 MiB (LZ4),
    declared honestly. Built with the zstd/lz4 command-line tools; None when they are missing."""
    size = 1 << 30 if kind == 'zstd' else 64 << 20
    if kind == 'zstd':
        try:
            p = subprocess.run(['zstd', '-q', '-3', '-c'], input=bytes(size), capture_output=True, check=True)
        except (OSError, subprocess.CalledProcessError):
            return None
        payload = p.stdout
    else:
        # fatbin LZ4 entries are raw LZ4 blocks (no frame): one literal, one match of offset 1 repeating it
        # (length 4 + 15 + extension bytes of 255 each), then the 5 trailing literals the format requires.
        ml = size - 1 - 5
        ext = ml - 4 - 15
        payload = bytes([0x1F, 0, 1, 0]) + b'\xff' * (ext // 255) + bytes([ext % 255]) + bytes([0x50]) + bytes(5)
    padded = payload + b'\0' * (-len(payload) % 8)
    hdr = struct.pack('<HHIQIIHHIIIQQQ', 2, 0x0101, 0x40, len(padded), len(payload), 0, 8, 1, 90, 0, 0,
                      0x11 | (0x8000 if kind == 'zstd' else 0x2000), 0, size)
    entry = hdr + padded
    return struct.pack('<IHHQ', FATBIN_MAGIC, 1, 16, len(entry)) + entry


# ------------------------------------------------------------------------------------------------------ archives
def ar_members(data):
    o = 8
    while o + 60 <= len(data):
        size_field = data[o + 48:o + 58]
        try:
            size = int(size_field.decode().strip() or '0')
        except ValueError:
            return
        yield o, size
        o += 60 + size + (size & 1)


def ar_mutants(data, rng):
    mem = list(ar_members(data))
    for k, (o, size) in enumerate(mem[:6]):
        for label, at, val in [('size-alpha', 48, b'12ab      '), ('size-huge', 48, b'9999999999'),
                               ('size-negative', 48, b'-100      '), ('size-zero', 48, b'0         '),
                               ('fmag', 58, b'XY'), ('longname-oob', 0, b'/99999999      '),
                               ('name-traversal', 0, b'../../x.o/     ')]:
            b = bytearray(data)
            b[o + at:o + at + len(val)] = val
            yield 'ar-m%d-%s' % (k, label), bytes(b)
        yield 'ar-m%d-cut-header' % k, data[:o + 30]
        yield 'ar-m%d-cut-body' % k, data[:o + 60 + size // 2]
    # Members themselves malformed: apply ELF header flips to the first ELF member, in place.
    for o, size in mem:
        body = data[o + 60:o + 60 + size]
        if body[:4] == b'\x7fELF':
            for label, m in list(elf_mutants(body, rng))[:40:4]:
                if len(m) == size:
                    yield 'ar-member-' + label, data[:o + 60] + m + data[o + 60 + size:]
            break


def safe(name):
    return ''.join(c if c.isalnum() or c in '._-' else '_' for c in name).strip('.') if name else ''


def mutants(data, rng):
    if data[:4] == b'\x7fELF':
        return elf_mutants(data, rng)
    if data[:8] == b'!<arch>\n':
        return ar_mutants(data, rng)
    if len(data) >= 4 and struct.unpack_from('<I', data)[0] == FATBIN_MAGIC:
        return fatbin_mutants(data, rng)
    return iter(())


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('input')
    ap.add_argument('outdir')
    ap.add_argument('--max', type=int, default=0, help='at most N mutants (an even sample over all kinds)')
    ap.add_argument('--seed', type=int, default=6)
    ap.add_argument('--bomb', choices=['zstd', 'lz4'], help='write a real decompression-bomb fatbin instead')
    a = ap.parse_args(argv)
    os.makedirs(a.outdir, exist_ok=True)
    if a.bomb:
        blob = real_bomb(a.bomb)
        if blob is None:
            print(0)
            return 0
        with open(os.path.join(a.outdir, 'bomb-real-%s.fatbin' % a.bomb), 'wb') as f:
            f.write(blob)
        print(1)
        return 0
    with open(a.input, 'rb') as f:
        data = f.read()
    rng = random.Random(a.seed)
    out = list(mutants(data, rng))
    if a.max and len(out) > a.max:
        # Keep every kind represented: round-robin over the prefixes, then fill.
        kinds = {}
        for name, blob in out:
            kinds.setdefault(name.split('-')[0], []).append((name, blob))
        # The rare, structural kinds (cyclic DWARF, bombs) are few and each hits a different code path: all kept.
        picked = [m for k in ('cycle', 'bomb') for m in kinds.pop(k, [])][:a.max]
        while len(picked) < a.max and any(kinds.values()):
            for k in sorted(kinds):
                if kinds[k] and len(picked) < a.max:
                    picked.append(kinds[k].pop(rng.randrange(len(kinds[k]))))
        out = picked
    base = safe(os.path.basename(a.input))
    seen = set()
    for name, blob in out:
        fn = '%s.%s' % (base, name)
        while fn in seen:
            fn += '_'
        seen.add(fn)
        with open(os.path.join(a.outdir, fn), 'wb') as f:
            f.write(blob)
    print(len(out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
