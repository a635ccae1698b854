#!/usr/bin/env python3
"""Builds the trueline wheel from a finished build (the Makefile's `wheel` target calls it).

The wheel holds no Python: pip installs its `.data/scripts/` into the environment's bin/ and its `.data/data/`
under the environment's prefix, so the tools find their data where an installed PREFIX has it
(bin/../share/trueline/manylinux.tsv, bin/../lib/trueline/libtrueline-hook.so).

The platform tag is derived from the files, never assumed: every ELF file may need only libraries that the
manylinux policies let a wheel take from the system (glibc's), and the tag claims the newest GLIBC_x.y symbol
version any of them needs. Anything else (a dynamically linked libelf, say) stops the build with the file named.
Standard library only (zipfile, hashlib); readelf, which comes with the compiler, reads the ELF dynamic sections.
"""
import argparse
import base64
import hashlib
import os
import re
import struct
import subprocess
import sys
import zipfile

# What a manylinux wheel may need from the system: glibc's libraries and the dynamic loader (PEP 600 leaves the
# list to the policies; auditwheel's policy.json holds the same for every manylinux_2_x).
ALLOWED_NEEDED = {
    "libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1", "libresolv.so.2", "libutil.so.1",
    "libgcc_s.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}
# e_machine -> the architecture's name in a platform tag
MACHINES = {62: "x86_64", 183: "aarch64"}
# The oldest glibc a manylinux tag of these architectures names (manylinux2014 = manylinux_2_17).
GLIBC_FLOOR = (2, 17)
# Zip entries get one fixed time so that two builds of the same files give the same wheel.
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def fail(msg):
    print(f"make_wheel: {msg}", file=sys.stderr)
    sys.exit(1)


def elf_machine(path):
    with open(path, "rb") as f:
        head = f.read(20)
    if len(head) < 20 or head[:4] != b"\x7fELF":
        return None
    endian = "<" if head[5] == 1 else ">"
    return struct.unpack(endian + "H", head[18:20])[0]


def elf_needs(path):
    """(DT_NEEDED names, the newest GLIBC_x.y version it needs) of one ELF file."""
    out = subprocess.run(["readelf", "--wide", "--dynamic", "--version-info", path], capture_output=True,
                         text=True)
    if out.returncode != 0:
        fail(f"{path}: readelf failed: {out.stderr.strip()}")
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out.stdout)
    versions = [tuple(int(x) for x in v.split(".")) for v in re.findall(r"Name: GLIBC_([0-9]+(?:\.[0-9]+)+)", out.stdout)]
    return needed, max(versions, default=GLIBC_FLOOR)


def platform_tag(elves):
    arches = set()
    newest = GLIBC_FLOOR
    for path in elves:
        m = elf_machine(path)
        if m not in MACHINES:
            fail(f"{path}: not an ELF file of a supported architecture (e_machine {m})")
        arches.add(MACHINES[m])
        needed, glibc = elf_needs(path)
        foreign = [n for n in needed if n not in ALLOWED_NEEDED]
        if foreign:
            fail(f"{path}: needs {', '.join(foreign)}, which a manylinux wheel cannot take from the system "
                 "(link it statically)")
        newest = max(newest, glibc[:2])
    if len(arches) != 1:
        fail(f"files of several architectures: {', '.join(sorted(arches))}")
    return f"manylinux_{newest[0]}_{newest[1]}_{arches.pop()}"


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True, help="directory the wheel is written to")
    ap.add_argument("--cc", required=True, help="trueline-cc")
    ap.add_argument("--check", required=True, help="trueline-check (linked for the wheel)")
    ap.add_argument("--hook", required=True, help="libtrueline-hook.so")
    ap.add_argument("--data", nargs="+", default=[], help="files for share/trueline/")
    ap.add_argument("--man", nargs="+", default=[], help="man pages for share/man/man1/")
    a = ap.parse_args()

    name, version = "trueline", a.version
    data_dir = f"{name}-{version}.data"
    info_dir = f"{name}-{version}.dist-info"
    # (path in the wheel, file on disk, executable)
    members = [(f"{data_dir}/scripts/trueline-cc", a.cc, True),
               (f"{data_dir}/scripts/trueline-check", a.check, True),
               (f"{data_dir}/data/lib/trueline/libtrueline-hook.so", a.hook, False)]
    members += [(f"{data_dir}/data/share/trueline/{os.path.basename(f)}", f, False) for f in a.data]
    members += [(f"{data_dir}/data/share/man/man1/{os.path.basename(f)}", f, False) for f in a.man]
    for _, path, _ in members:
        if not os.path.isfile(path):
            fail(f"{path}: no such file (run make first)")

    plat = platform_tag([path for _, path, _ in members if elf_machine(path) is not None])
    tag = f"py3-none-{plat}"
    metadata = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                "Summary: Build integrity for C, C++ and CUDA: trueline-cc (compiler wrapper) and trueline-check "
                "(ELF, cubin and package audit)\n"
                "Requires-Python: >=3.6\n")
    wheel = f"Wheel-Version: 1.0\nGenerator: trueline make_wheel.py\nRoot-Is-Purelib: false\nTag: {tag}\n"

    os.makedirs(a.out, exist_ok=True)
    out = os.path.join(a.out, f"{name}-{version}-{tag}.whl")
    tmp = out + ".tmp"
    records = []
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
        def add(arcname, data, executable):
            zi = zipfile.ZipInfo(arcname, ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = ((0o100755 if executable else 0o100644) << 16)
            z.writestr(zi, data)
            records.append(record_line(arcname, data))
        for arcname, path, executable in members:
            with open(path, "rb") as f:
                add(arcname, f.read(), executable)
        add(f"{info_dir}/METADATA", metadata.encode(), False)
        add(f"{info_dir}/WHEEL", wheel.encode(), False)
        records.append(f"{info_dir}/RECORD,,")
        zi = zipfile.ZipInfo(f"{info_dir}/RECORD", ZIP_TIME)
        zi.compress_type = zipfile.ZIP_DEFLATED
        zi.external_attr = 0o100644 << 16
        z.writestr(zi, "\n".join(records) + "\n")
    os.replace(tmp, out)
    print(out)


if __name__ == "__main__":
    main()
