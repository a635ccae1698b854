#!/usr/bin/env bash
# A zip is read as pip reads it, by its central directory, and any disagreement between the central directory and
# the local headers (what a reader front to back sees) is an error of the package (exit 2) naming it and the
# member; the other inputs are still checked. The shape that passed before: an end record saying "disk 1" and a
# stray central-directory signature after the clean members, so that a reader of the local headers saw a clean
# _ext.so while pip installs a hidden one needing GLIBC_2.36. Oracles: python's zipfile (pip's reader) for what
# pip installs, objdump for what the installed library needs; ordinary wheels (tests/lib/mkwheel.py, data
# descriptors, zip64 records, a comment) still pass, their members as zipfile lists them.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1
LIB=$TRUELINE_ROOT/tests/lib

# The clean library, and the hidden one: it needs GLIBC_2.36 from libc.so.6, a version a stub libc defines here
# (so the fixture does not depend on the host's glibc).
printf 'int ext(void) { return 1; }\n' > clean.c
printf 'int newer(void);\nint ext(void) { return newer(); }\n' > hidden.c
printf 'int newer(void) { return 2; }\n' > stub.c
printf 'GLIBC_2.36 { global: newer; local: *; };\n' > stub.map
mkdir -p stub
gcc -shared -fPIC -Wl,-soname,libc.so.6 -Wl,--version-script=stub.map stub.c -o stub/libc.so.6 &&
  gcc -shared -fPIC clean.c -o clean.so &&
  gcc -shared -fPIC hidden.c stub/libc.so.6 -o hidden.so || { fail "premise: gcc"; exit 1; }
premise "hidden.so needs GLIBC_2.36 (objdump)" sh -c 'objdump -T hidden.so | grep -q "GLIBC_2\.36.*newer"'
premise "clean.so needs no GLIBC_2.36 (objdump)" sh -c 'objdump -T clean.so | grep -q "ext" && ! objdump -T clean.so | grep -q "GLIBC_2\.3[0-9]"'

W=pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
python3 "$LIB/mkwheel.py" "$W" pkg/_ext.so=clean.so pkg/__init__.py=clean.c &&
  mkdir -p h && python3 "$LIB/mkwheel.py" "h/$W" pkg/_ext.so=hidden.so pkg/__init__.py=clean.c ||
  { fail "premise: mkwheel"; exit 1; }

python3 - "$W" "h/$W" <<'PY' || { fail "premise: hostile zips"; exit 1; }
import io, struct, sys, zipfile, zlib
clean, hidden = open(sys.argv[1], 'rb').read(), open(sys.argv[2], 'rb').read()
def end(b):  # (offset of the end record, its fields)
    e = b.rfind(b'PK\x05\x06')
    return e, list(struct.unpack_from('<IHHHHIIH', b, e))
def directory(b):
    e, f = end(b)
    return b[f[6]:f[6] + f[5]], f
def shifted(cd, by):  # the central directory with every local header offset moved by `by`
    cd = bytearray(cd); at = 0
    while at < len(cd):
        struct.pack_into('<I', cd, at + 42, struct.unpack_from('<I', cd, at + 42)[0] + by)
        at += 46 + sum(struct.unpack_from('<HHH', cd, at + 28))
    return bytes(cd)
def hostile(disk):
    # the clean wheel's members, a stray central-directory signature, then the hidden wheel as pip reads it
    cd_c, f_c = directory(clean)
    prefix = clean[:f_c[6]] + b'PK\x01\x02' + bytes(42)
    cd_h, f_h = directory(hidden)
    members = hidden[:f_h[6]]
    cd = shifted(cd_h, len(prefix))
    f = f_h[:]; f[1] = f[2] = disk; f[6] = len(prefix) + len(members); f[7] = 0
    return prefix + members + cd + struct.pack('<IHHHHIIH', *f)
open('disk1.whl', 'wb').write(hostile(1))
open('stray.whl', 'wb').write(hostile(0))
# a member only in the local headers: one more local entry between the members and the central directory
cd, f = directory(clean)
extra = io.BytesIO()
with zipfile.ZipFile(extra, 'w') as z:
    z.writestr('pkg/extra.so', open('hidden.so', 'rb').read())
x = extra.getvalue(); x = x[:end(x)[1][6]]
f[6] += len(x)
open('localonly.whl', 'wb').write(clean[:end(clean)[1][6]] + x + cd + struct.pack('<IHHHHIIH', *f))
# another CRC, another size in the local header than in the central directory
i = zipfile.ZipFile(io.BytesIO(clean)).getinfo('pkg/_ext.so')
b = bytearray(clean); struct.pack_into('<I', b, i.header_offset + 14, i.CRC ^ 1); open('crc.whl', 'wb').write(b)
b = bytearray(clean); struct.pack_into('<I', b, i.header_offset + 22, i.file_size + 4096); open('size.whl', 'wb').write(b)
# overlapping members: a stored member whose data holds the local header and data of another
so = open('hidden.so', 'rb').read()
def local(name, body, crc, usize, m=0):
    return struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, m, 0, 0, crc, len(body), usize, len(name), 0) + name + body
def central(name, off, clen, usize, crc, m=0):
    return struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, m, 0, 0, crc, clen, usize, len(name), 0, 0, 0, 0,
                       0, off) + name
inner = local(b'pkg/_ext.so', so, zlib.crc32(so), len(so))
outer = local(b'pkg/a.txt', inner, zlib.crc32(inner), len(inner))
cd = central(b'pkg/a.txt', 0, len(inner), len(inner), zlib.crc32(inner)) + \
     central(b'pkg/_ext.so', len(outer) - len(inner), len(so), len(so), zlib.crc32(so))
open('overlap.whl', 'wb').write(outer + cd + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 2, 2, len(cd), len(outer), 0))
# a central-directory entry past the count of the end record (the directory's size still covers it)
cd, f = directory(clean)
dup = central(b'pkg/_ext.so', 0, 0, 0, 0)
f[5] += len(dup)
open('trailing.whl', 'wb').write(clean[:f[6]] + cd + dup + struct.pack('<IHHHHIIH', *f))
# a second end record, in the comment of the last central-directory entry: zipfile takes the one at the very end,
# a reader that searches forward this one
cd, f = directory(clean)
cd = bytearray(cd); at = last = 0
while at < len(cd):
    last = at; at += 46 + sum(struct.unpack_from('<HHH', cd, at + 28))
other = struct.pack('<IHHHHIIH', *f)
struct.pack_into('<H', cd, last + 32, struct.unpack_from('<H', cd, last + 32)[0] + len(other))
cd += other; f[5] = len(cd)
open('second.whl', 'wb').write(clean[:f[6]] + bytes(cd) + struct.pack('<IHHHHIIH', *f))
# ordinary zips that must pass: data descriptors (written to a stream that cannot seek), zip64 records, a comment
class Stream(io.RawIOBase):
    def __init__(self): self.b = bytearray()
    def writable(self): return True
    def write(self, d): self.b += d; return len(d)
z = zipfile.ZipFile(sys.argv[1]); names = z.namelist()
s = Stream()
with zipfile.ZipFile(s, 'w', zipfile.ZIP_DEFLATED) as o:
    for n in names: o.writestr(n, z.read(n))
open('dd-1.0-cp311-cp311-manylinux_2_17_x86_64.whl', 'wb').write(s.b)
limits = zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT
zipfile.ZIP64_LIMIT = zipfile.ZIP_FILECOUNT_LIMIT = 1  # every size, offset and count in zip64 fields and records
with zipfile.ZipFile('z64-1.0-cp311-cp311-manylinux_2_17_x86_64.whl', 'w', zipfile.ZIP_DEFLATED) as o:
    for n in names:
        with o.open(n, 'w', force_zip64=True) as w: w.write(z.read(n))
zipfile.ZIP64_LIMIT, zipfile.ZIP_FILECOUNT_LIMIT = limits
with zipfile.ZipFile('comment-1.0-cp311-cp311-manylinux_2_17_x86_64.whl', 'w', zipfile.ZIP_DEFLATED) as o:
    for n in names: o.writestr(n, z.read(n))
    o.comment = b'built by a test'
PY

# what pip installs from the hostile wheel: the hidden library (zipfile's bytes, objdump's versions)
for h in disk1 stray; do
  python3 -c 'import sys, zipfile; open(sys.argv[2], "wb").write(zipfile.ZipFile(sys.argv[1]).read("pkg/_ext.so"))' \
    "$h.whl" "$h-installed.so" 2>/dev/null
  premise "$h.whl: zipfile (pip) reads a pkg/_ext.so that needs GLIBC_2.36" \
    sh -c "objdump -T $h-installed.so | grep -q 'GLIBC_2\\.36.*newer'"
done
premise "disk1.whl: its end record says disk 1" python3 -c '
import struct, sys; b = open("disk1.whl", "rb").read(); sys.exit(struct.unpack_from("<H", b, b.rfind(b"PK\x05\x06") + 4)[0] != 1)'

# elf_members ZIP: how many members zipfile lists that start with the ELF magic (what the audit must read)
elf_members() { python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1])
print(sum(z.read(n)[:4] == b"\x7fELF" for n in z.namelist()))' "$1"; }
n_clean=$(elf_members "$W")

# the clean wheel passes, with its library audited and its claim met
trueline-check "$W" > out.txt 2> err.txt; rc=$?
exit_was "clean wheel: exit 0" 0 $rc out.txt "^package $W: "
contains "... its $n_clean library audited (zipfile's count)" out.txt "^package $W: $n_clean file\\(s\\) audited, 0 unreadable"
contains "... the claim is met" out.txt "the file name claims manylinux_2_17_x86_64: met"

# the issue's shape, named with the clean wheel after it: exit 2, the package and the problem named, the clean
# wheel still checked, and nothing of the hostile one called clean
trueline-check disk1.whl "$W" > out.txt 2> err.txt; rc=$?
exit_was "disk 1 and a stray central-directory signature: exit 2" 2 $rc out.txt "^package $W: "
contains "... named: the end record says disk 1, and the member a reader of the local headers sees instead" err.txt \
  '^trueline-check: disk1\.whl: ambiguous zip .*end record says disk 1.*local header at offset 0, before the first member, holds member pkg/_ext\.so.*none of its members is checked'
contains "... the other input is still checked" out.txt "^package $W: $n_clean file\\(s\\) audited, 0 unreadable"
lacks "... no member of the hostile wheel is audited" out.txt '^disk1\.whl!' "^package $W: "

# each shape, and the member its message names (mkwheel's members: the oracle is zipfile's list of the wheel)
shape() { # NAME FILE PATTERN: exit 2 and the message
  trueline-check "$2" > out.txt 2> err.txt; local rc=$?
  exit_was "$1: exit 2" 2 $rc out.txt '^1 file\(s\) checked: .* 1 unreadable'
  contains "... $1: the package and the member named" err.txt "^trueline-check: ${2//./\\.}: ambiguous zip .*$3"
}
shape "stray central-directory signature after the clean members (end record on disk 0)" stray.whl \
  'local header at offset 0, before the first member, holds member pkg/_ext\.so, which no entry of the central directory points at'
shape "a member only in the local headers" localonly.whl 'holds member pkg/extra\.so, which no entry of the central directory points at'
shape "another CRC in the local header" crc.whl 'member pkg/_ext\.so has another size or CRC'
shape "another size in the local header" size.whl 'member pkg/_ext\.so has another size or CRC'
shape "overlapping members" overlap.whl 'members pkg/a\.txt and pkg/_ext\.so overlap'
shape "a central-directory entry past the end record's count" trailing.whl 'more entries than the [0-9]+ its end record counts'
shape "a second end record" second.whl 'a second end record at offset'
# the oracle that these are not one zip for every reader: zipfile refuses the overlap (python >= 3.12, else SKIP)
PY12=
for p in python3 python3.13 python3.12; do
  if "$p" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then PY12=$p; break; fi
done
if [ -n "$PY12" ]; then
  premise "zipfile ($PY12) refuses the overlapping members" "$PY12" -c '
import sys, zipfile
try: [zipfile.ZipFile("overlap.whl").read(n) for n in ("pkg/a.txt", "pkg/_ext.so")]
except zipfile.BadZipFile as e: sys.exit("verlap" not in str(e))
sys.exit(1)'
else skip "zipfile's overlap oracle: no python >= 3.12"; fi

# a wheel inside a zip is read as pip would read it once unpacked: the hostile one named, the clean one audited
python3 -c 'import sys, zipfile
with zipfile.ZipFile("dist.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for f in sys.argv[1:]: z.write(f)' disk1.whl "$W" || fail "premise: dist.zip"
trueline-check dist.zip > out.txt 2> err.txt; rc=$?
exit_was "a zip holding the hostile wheel and the clean one: exit 2" 2 $rc out.txt '^package dist\.zip: '
contains "... the nested hostile wheel is named" err.txt '^trueline-check: dist\.zip!disk1\.whl: ambiguous zip .*end record says disk 1'
lacks "... none of its members is audited" out.txt '^dist\.zip!disk1\.whl!' '^package dist\.zip: '
contains "... the nested clean wheel's $n_clean library is audited" out.txt "^package dist\\.zip: $n_clean file\\(s\\) audited, 1 unreadable"

# ordinary zips pass, every member zipfile lists that is a library audited
premise "dd: its members carry data descriptors (zipfile's flag bit 3)" python3 -c '
import sys, zipfile; sys.exit(not all(i.flag_bits & 8 for i in zipfile.ZipFile(sys.argv[1]).infolist()))' \
  dd-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
premise "z64: its end has zip64 records" python3 -c '
import sys; sys.exit(b"PK\x06\x06" not in open(sys.argv[1], "rb").read()[-200:])' z64-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
for w in dd z64 comment; do
  f=$w-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
  trueline-check "$f" > out.txt 2> err.txt; rc=$?
  exit_was "$w: an ordinary wheel passes (exit 0)" 0 $rc out.txt "^package $f: "
  want=$(elf_members "$f")
  contains "... $w: its $want librar(y|ies) audited" out.txt "^package $f: $want file\\(s\\) audited"
done
# an empty zip (only its end record) has nothing to disagree about: no error of its own, as before
python3 -c 'import zipfile; zipfile.ZipFile("empty.zip", "w").close()'
premise "zipfile lists no member in empty.zip" python3 -c 'import sys, zipfile; sys.exit(len(zipfile.ZipFile("empty.zip").namelist()))'
trueline-check --allow-empty empty.zip > out.txt 2> err.txt; rc=$?
exit_was "an empty zip under --allow-empty: exit 0" 0 $rc out.txt '^0 file\(s\) checked: .* 0 unreadable'
check "... and nothing said on stderr" [ ! -s err.txt ]

# an LZMA member declares the dictionary its decoder allocates before reading a byte: 2 GiB from a few hundred
# bytes is refused, with or without a central directory (the package fuzz target's out-of-memory input)
python3 - <<'PY'
import struct, zipfile
with zipfile.ZipFile('lz.whl', 'w', zipfile.ZIP_LZMA) as z:
    z.writestr('demo/x.txt', 'hello ' * 1000)
b = bytearray(open('lz.whl', 'rb').read())
nl, xl = struct.unpack_from('<HH', b, 26)
struct.pack_into('<I', b, 30 + nl + xl + 5, 2 << 30)  # LZMA SDK version, props size, lc/lp/pb, then the dictionary
open('lzbig.whl', 'wb').write(b)
PY
premise "zipfile reads lz.whl's LZMA member" python3 -c 'import zipfile; zipfile.ZipFile("lz.whl").read("demo/x.txt")'
trueline-check --allow-empty lz.whl > out.txt 2> err.txt; rc=$?
exit_was "an honest LZMA member (8 MiB dictionary): exit 0" 0 $rc out.txt 'file\(s\) checked'
trueline-check lzbig.whl > out.txt 2> err.txt; rc=$?
exit_was "an LZMA member declaring a 2 GiB dictionary: exit 2" 2 $rc out.txt 'file\(s\) checked'
contains "... named, with the bound" out.txt 'member demo/x\.txt declares a LZMA dictionary of 2048 MiB \(at most 128 MiB'
trueline-check "$TRUELINE_ROOT/tests/data/regress/package/oom-lzma-dictionary-2GiB" > out.txt 2> err.txt; rc=$?
exit_was "... and without a central directory (the fuzz input): exit 2" 2 $rc out.txt 'file\(s\) checked'
contains "... named" out.txt 'demo/liba\.so declares a LZMA dictionary of 2182 MiB'
