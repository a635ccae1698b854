#!/usr/bin/env python3
"""Test fixtures for split-out device line info, written without trueline (an independent path):

  strip IN OUT            every CUDA ELF image in IN (a cubin, or a host ELF / fatbin holding uncompressed
                          images) with its line sections emptied in place (sh_size 0, as the split keeps them)
  strip-core IN OUT       the same for each relocated image (.cudbg.relfimg) of a GPU coredump: a core of a
                          build that shipped without line info
  relfimgs CORE DIR       writes each .cudbg.relfimg of CORE as DIR/relfimg.N.cubin
  store-part IN HEX STORE STORE/.build-id/NN/REST.debug: the cubin IN with a .note.gnu.build-id (id HEX) appended
"""
import os
import struct
import sys

LINE_SECTIONS = {".debug_line", ".debug_str", ".nv_debug_line_sass", ".nv_debug_ptx_txt"}
EM_CUDA = 190
SHT_RELFIMG = 0x80000000 + 7


def sections(buf, base):
    """(header offset, name, fields) of each section of the 64-bit LE ELF at buf[base:]."""
    shoff, = struct.unpack_from("<Q", buf, base + 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", buf, base + 0x3A)
    hdr = lambda i: base + shoff + i * shentsize
    strtab_off = struct.unpack_from("<Q", buf, hdr(shstrndx) + 0x18)[0]
    out = []
    for i in range(shnum):
        h = hdr(i)
        name_off, typ, flags, addr, off, size = struct.unpack_from("<IIQQQQ", buf, h)
        s = base + strtab_off + name_off
        name = bytes(buf[s:buf.index(b"\0", s)]).decode()
        out.append((h, name, typ, off, size))
    return out


def is_line_section(name):
    for prefix in ("", ".rel", ".rela"):
        if name.startswith(prefix) and name[len(prefix):] in LINE_SECTIONS:
            return True
    return False


def strip_image(buf, base):
    n = 0
    for h, name, _typ, _off, _size in sections(buf, base):
        if is_line_section(name):
            struct.pack_into("<Q", buf, h + 0x20, 0)
            n += 1
    return n


def cuda_images(buf):
    """Offsets of CUDA ELF images inside buf (the file itself, or embedded in a fatbin)."""
    at = 0
    while True:
        at = buf.find(b"\x7fELF\x02\x01", at)
        if at < 0:
            return
        if struct.unpack_from("<H", buf, at + 0x12)[0] == EM_CUDA:
            yield at
        at += 4


def cmd_strip(src, dst):
    buf = bytearray(open(src, "rb").read())
    n = sum(strip_image(buf, base) for base in cuda_images(buf))
    if n == 0:
        sys.exit(f"{src}: no line sections in an uncompressed CUDA image")
    open(dst, "wb").write(buf)


def relfimg_sections(buf):
    return [(off, size) for _h, _n, typ, off, size in sections(buf, 0) if typ == SHT_RELFIMG]


def cmd_strip_core(src, dst):
    buf = bytearray(open(src, "rb").read())
    n = sum(strip_image(buf, off) for off, _size in relfimg_sections(buf))
    if n == 0:
        sys.exit(f"{src}: no relocated image with line sections")
    open(dst, "wb").write(buf)


def cmd_relfimgs(core, outdir):
    buf = open(core, "rb").read()
    os.makedirs(outdir, exist_ok=True)
    for i, (off, size) in enumerate(relfimg_sections(buf)):
        open(os.path.join(outdir, f"relfimg.{i}.cubin"), "wb").write(buf[off:off + size])


def cmd_store_part(src, hexid, store):
    """Appends the note's data, a copy of .shstrtab naming it and a new section header table."""
    buf = bytearray(open(src, "rb").read())
    ident = bytes.fromhex(hexid)
    shoff, = struct.unpack_from("<Q", buf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", buf, 0x3A)
    old_hdrs = bytes(buf[shoff:shoff + shnum * shentsize])
    strh = shoff + shstrndx * shentsize
    str_off, str_size = struct.unpack_from("<QQ", buf, strh + 0x18)
    note = struct.pack("<III", 4, len(ident), 3) + b"GNU\0" + ident

    def align(n):
        buf.extend(b"\0" * (-len(buf) % n))
    align(8)
    note_at = len(buf)
    buf += note
    new_strtab = bytes(buf[str_off:str_off + str_size]) + b".note.gnu.build-id\0"
    name_off = str_size
    str_at = len(buf)
    buf += new_strtab
    align(8)
    hdr_at = len(buf)
    hdrs = bytearray(old_hdrs)
    struct.pack_into("<QQ", hdrs, shstrndx * shentsize + 0x18, str_at, len(new_strtab))
    hdrs += struct.pack("<IIQQQQIIQQ", name_off, 7, 2, 0, note_at, len(note), 0, 0, 4, 0)  # SHT_NOTE, SHF_ALLOC
    buf += hdrs
    struct.pack_into("<Q", buf, 0x28, hdr_at)
    struct.pack_into("<H", buf, 0x3C, shnum + 1)
    path = os.path.join(store, ".build-id", hexid[:2], hexid[2:] + ".debug")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").write(buf)
    print(path)


if __name__ == "__main__":
    cmds = {"strip": cmd_strip, "strip-core": cmd_strip_core, "relfimgs": cmd_relfimgs, "store-part": cmd_store_part}
    if len(sys.argv) < 2 or sys.argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[sys.argv[1]](*sys.argv[2:])
