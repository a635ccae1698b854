#!/usr/bin/env bash
# Wheels and conda packages as inputs: members read in memory through libarchive, ELF members audited and shown
# as pkg.whl!path (pkg.conda!pkg-x.tar.zst!path one level down), bad members named while the rest is checked,
# and the manylinux tag in a wheel's file name judged by symbol versions; static archives in a package read by
# the archive reader (members shown as pkg.whl!lib.a(x.o); more in packages_nested.sh); a zip bomb of overlapping entries. Oracles: python's
# zipfile/tarfile (and ar t, or a few lines of ar parsing) for the member lists, the fixture's source for the symbol versions, auditwheel for a real wheel's tag.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1
printf '#include <stdio.h>\nint hello(void) { puts("hi"); return 1; }\n' > f.c
printf '#include <sys/random.h>\nint r(void) { char b[4]; return (int)getrandom(b, 4, 0); }\n' > g.c
gcc -g -shared -fPIC f.c -o libf.so && gcc -g -shared -fPIC g.c -o libg.so || { fail "premise: gcc"; exit 1; }
# getrandom is GLIBC_2.25 in the fixture: the premise of the tag checks below
premise "libg.so needs GLIBC_2.25 (objdump)" sh -c 'objdump -T libg.so | grep -q "GLIBC_2.25.*getrandom"'

python3 - <<'PY' || { fail "premise: python fixtures"; exit 1; }
import io, zipfile, tarfile
so = open('libf.so', 'rb').read(); sg = open('libg.so', 'rb').read()
inner = io.BytesIO()
with zipfile.ZipFile(inner, 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('in/libn.so', so)
W = 'demo-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl'
with zipfile.ZipFile(W, 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('demo/libf.so', so); z.writestr('demo/libg.so', sg); z.writestr('demo/__init__.py', 'x = 1\n')
    z.writestr('../evil.so', so); z.writestr('nested.zip', inner.getvalue())
with zipfile.ZipFile('corrupt.whl', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('a/libf.so', so); z.writestr('a/bad.so', so)
b = bytearray(open('corrupt.whl', 'rb').read())
i = zipfile.ZipFile('corrupt.whl').getinfo('a/bad.so')
off = i.header_offset + 30 + len(i.filename) + len(i.extra)
for k in range(off + 2, off + 200): b[k] ^= 0x5a
open('corrupt.whl', 'wb').write(b)
with zipfile.ZipFile('bomb.whl', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('a/libf.so', so); z.writestr('a/big.so', b'\x7fELF' + bytes(64 << 20))
import struct
with zipfile.ZipFile('liar.whl', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('a/libf.so', so); z.writestr('a/liar.so', so)
b = bytearray(open('liar.whl', 'rb').read()); i = zipfile.ZipFile('liar.whl').getinfo('a/liar.so')
struct.pack_into('<I', b, i.header_offset + 22, 200 << 20)  # the local header declares 200 MiB
cd = b.find(b'PK\x01\x02')
while cd != -1:
    if b[cd + 46:cd + 46 + struct.unpack_from('<H', b, cd + 28)[0]] == b'a/liar.so':
        struct.pack_into('<I', b, cd + 24, 200 << 20)  # and so does the central directory
    cd = b.find(b'PK\x01\x02', cd + 4)
open('liar.whl', 'wb').write(b)
with zipfile.ZipFile('m-1.0-cp311-cp311-musllinux_1_2_x86_64.whl', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('m/libf.so', so)
d = open(W, 'rb').read(); open('trunc.whl', 'wb').write(d[:len(d) // 2])
# the wheel cut before its end record holds no nested zip: a stored deflate block would carry that zip's own end
# record verbatim, and zipfile (pip) would then read the nested zip's directory instead of refusing
with zipfile.ZipFile('plain.whl', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('demo/libf.so', so); z.writestr('demo/libg.so', sg); z.writestr('demo/__init__.py', 'x = 1\n')
open('nocd.whl', 'wb').write(open('plain.whl', 'rb').read()[:-30])
with tarfile.open('foo-1.0-0.tar.bz2', 'w:bz2') as tf:
    ti = tarfile.TarInfo('lib/libfoo.so'); ti.size = len(so); tf.addfile(ti, io.BytesIO(so))
    ti = tarfile.TarInfo('info/index.json'); ti.size = 2; tf.addfile(ti, io.BytesIO(b'{}'))
t = io.BytesIO()
with tarfile.open(fileobj=t, mode='w') as tf:
    ti = tarfile.TarInfo('lib/libfoo.so'); ti.size = len(so); tf.addfile(ti, io.BytesIO(so))
open('pkg-foo.tar', 'wb').write(t.getvalue())
# the oracle: members whose bytes start with the ELF magic, as trueline should name them
names = [f'{W}!{n}' for n in zipfile.ZipFile(W).namelist() if zipfile.ZipFile(W).read(n)[:4] == b'\x7fELF']
names.append(f'{W}!nested.zip!in/libn.so')
open('want.txt', 'w').write('\n'.join(sorted(names)) + '\n')
PY
W=demo-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
# audited REPORT.json: the files the report lists (the text report says a finding repeated in several members
# once, for the package; JSON lists every file)
audited() { python3 -c 'import json, sys
print("\n".join(sorted(f["path"] for f in json.load(open(sys.argv[1]))["files"])))' "$1"; }
# finding REPORT.json FILE-SUFFIX CHECK SEVERITY REGEX: exit 0 when the file's findings include one that matches
finding() { python3 -c 'import json, re, sys
r, suf, chk, sev, rx = sys.argv[1:]
sys.exit(0 if any(x["check"] == chk and x["severity"] == sev and re.search(rx, x["message"])
                  for f in json.load(open(r))["files"] if f["path"].endswith(suf) for x in f["findings"]) else 1)' "$@"; }

trueline-check "$W" > out.txt 2> err.txt; rc=$?
trueline-check --format json --output w.json "$W" > /dev/null 2>&1
audited w.json > got.txt
check "wheel: the ELF members zipfile lists (incl. '..' and one nested zip) are the ones audited" same_bytes want.txt got.txt
lacks "wheel: the non-ELF member is not audited" out.txt '__init__\.py' 'demo/libf\.so'
contains "wheel tag: libg.so needs GLIBC_2.25, over manylinux_2_17's GLIBC_2.17: an error" out.txt \
  'demo/libg\.so: error \[symbol-versions\] needs GLIBC_2\.25.*manylinux_2_17 allows at most GLIBC_2\.17'
check "wheel tag: libf.so is within manylinux_2_17" finding w.json demo/libf.so symbol-versions info 'within manylinux_2_17'
check "wheel with a finding: exit 1 (got $rc)" [ $rc -eq 1 ]
# oracle: the oldest manylinux policy in auditwheel's own data whose GLIBC versions include GLIBC_2.25
want_tag=$(python3 -c '
import json, os, auditwheel
d = json.load(open(os.path.join(os.path.dirname(auditwheel.__file__), "policy", "manylinux-policy.json")))
ok = [p for p in d if "2.25" in p.get("symbol_versions", {}).get("x86_64", {}).get("GLIBC", [])]
print(min(ok, key=lambda p: p["priority"] * -1)["name"])' 2>/dev/null)
if [ -n "$want_tag" ]; then
  contains "package line: the oldest tag libg.so's GLIBC_2.25 allows is auditwheel's $want_tag" out.txt \
    "^package $W: 4 file\\(s\\) audited, 0 unreadable; symbol versions allow $want_tag and newer; the file name claims manylinux_2_17\$"
else
  skip "package line: no auditwheel policy data"
fi
trueline-check --format json "$W" foo-1.0-0.tar.bz2 > rep.json 2> err.txt
check "JSON: one object per package, its members as in files[].path, the tags" python3 -c '
import json, sys
d = json.load(open("rep.json")); p = d["packages"]; W, want = sys.argv[1], sys.argv[2]
files = sorted(f["path"] for f in d["files"])
assert [x["path"] for x in p] == [W, "foo-1.0-0.tar.bz2"], p
assert sorted(p[0]["members"] + p[1]["members"]) == files and len(files) == 5, (p, files)
assert p[0]["claimed_tag"] == "manylinux_2_17" and p[1]["claimed_tag"] is None, p
assert (not want) or p[0]["manylinux"] == want, p' "$W" "$want_tag"
if python3 -c 'import jsonschema' 2>/dev/null; then
  check "JSON: valid against docs/json-schema.json" python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open("rep.json")), json.load(open(sys.argv[1])))' "$TRUELINE_ROOT/docs/json-schema.json"
fi

trueline-check corrupt.whl > out.txt 2> err.txt; rc=$?
check "corrupt member: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "... the corrupt member is named" err.txt 'corrupt\.whl!a/bad\.so: .*decompress'
contains "... the other member is still checked" out.txt 'corrupt\.whl!a/libf\.so: info'

trueline-check --max-input-mb 16 bomb.whl > out.txt 2> err.txt; rc=$?
check "member over --max-input-mb: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "... named with the bound" err.txt 'bomb\.whl!a/big\.so: .*--max-input-mb'
contains "... the small member still checked" out.txt 'bomb\.whl!a/libf\.so: info'

trueline-check liar.whl > out.txt 2> err.txt; rc=$?
check "member declaring 200 MiB for 16 KiB of data: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "... named" err.txt 'liar\.whl!a/liar\.so: .*(size|bomb)'
contains "... the honest member still checked" out.txt 'liar\.whl!a/libf\.so: info'

M=m-1.0-cp311-cp311-musllinux_1_2_x86_64.whl
trueline-check "$M" > out.txt 2> err.txt
contains "musllinux wheel: its library is audited" out.txt "^$M!m/libf\\.so: info"
lacks "... but gets no manylinux verdict (musl's symbols carry no versions)" out.txt 'symbol versions allow' "^package $M: 1 file"

trueline-check trunc.whl > out.txt 2> err.txt; rc=$?
check "truncated wheel: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "... says where reading stopped" err.txt 'trunc\.whl.*(cannot read|cannot decompress)'
contains "... the members before the cut are checked" out.txt 'trunc\.whl!demo/libf\.so: info'

# the oracle that the cut wheel is broken: python's zipfile (pip's reader) refuses it
premise "zipfile refuses the wheel without its central directory's end" python3 -c '
import sys, zipfile
try: zipfile.ZipFile("nocd.whl")
except zipfile.BadZipFile: sys.exit(0)
sys.exit(1)'
trueline-check nocd.whl > out.txt 2> err.txt; rc=$?
check "wheel without its central directory's end: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "... named as such" err.txt '^trueline-check: nocd\.whl: the zip.s central directory is missing or cut short'
contains "... its members still checked from their local headers" out.txt 'nocd\.whl!demo/libg\.so: info \[symbol-versions\].*GLIBC_2\.25'

trueline-check foo-1.0-0.tar.bz2 > out.txt 2> err.txt; rc=$?
check ".tar.bz2 conda package: exit 0 (got $rc), its report written" sh -c "[ $rc -eq 0 ] && grep -q '^[0-9]* file(s) checked' out.txt"
contains "... its library is audited as pkg!path" out.txt '^foo-1\.0-0\.tar\.bz2!lib/libfoo\.so: info'

if have zstd; then
  zstd -q -f pkg-foo.tar -o pkg-foo-1.0-0.tar.zst && printf '{}' > metadata.json &&
    python3 -c 'import zipfile; z=zipfile.ZipFile("foo-1.0-0.conda","w"); z.write("metadata.json"); z.write("pkg-foo-1.0-0.tar.zst"); z.close()'
  trueline-check foo-1.0-0.conda > out.txt 2> err.txt; rc=$?
  check ".conda: exit 0 (got $rc), its report written" sh -c "[ $rc -eq 0 ] && grep -q '^[0-9]* file(s) checked' out.txt"
  contains "... the library in its tar.zst is audited, named through both levels" out.txt \
    '^foo-1\.0-0\.conda!pkg-foo-1\.0-0\.tar\.zst!lib/libfoo\.so: info'
else
  skip ".conda: no zstd CLI"
fi

mkdir dist && cp "$W" foo-1.0-0.tar.bz2 dist/ && echo hello | bzip2 > dist/notes.bz2
trueline-check dist > out.txt 2> err.txt; rc=$?
check "directory scan: packages found by magic, a plain .bz2 left out (exit 1 from the wheel's finding, got $rc)" [ $rc -eq 1 ]
contains "... the conda package's library is audited" out.txt '^dist/foo-1\.0-0\.tar\.bz2!lib/libfoo\.so: info'
trueline-check --format json --output dist.json dist > /dev/null 2>&1
audited dist.json > dist.json.list
check "... the wheel's libraries are audited" grep -qx "dist/$W!demo/libf.so" dist.json.list

# A real wheel: auditwheel's tag is the oracle for the symbol versions of its members.
mkdir wheels
if timeout 60 pip download --only-binary=:all: --no-deps numpy==2.1.3 -d wheels -q > /dev/null 2>&1 && have auditwheel; then
  RW=$(ls wheels/*.whl | head -1)
  tag=$(timeout 120 auditwheel show "$RW" 2>/dev/null | tr -d '\n' | sed -n 's/.*consistent with the following platform tag: *"\(manylinux_[0-9_]*\)_x86_64".*/\1/p')
  if [ -n "$tag" ]; then
    trueline-check "$RW" > out.txt 2> err.txt
    trueline-check --format json --output rw.json "$RW" > /dev/null 2>&1
    # the oracle: zipfile's ELF members, and the ELF members of its static archives (read with a few lines of ar)
    python3 -c '
import sys, zipfile
def ar_members(d):
    pos, longnames, out = 8, b"", []
    while pos + 60 <= len(d):
        name, size = d[pos:pos + 16].decode().strip(), int(d[pos + 48:pos + 58].decode().strip())
        body = d[pos + 60:pos + 60 + size]
        if name == "//": longnames = body
        elif name.startswith("/") and name[1:].isdigit():
            o = int(name[1:]); name = longnames[o:longnames.index(b"/\n", o)].decode()
        if name not in ("/", "//", "/SYM64/") and body[:4] == b"\x7fELF": out.append(name.rstrip("/"))
        pos += 60 + size + (size & 1)
    return out
z = zipfile.ZipFile(sys.argv[1]); names = []
for n in z.namelist():
    d = z.read(n)
    if d[:4] == b"\x7fELF": names.append(sys.argv[1] + "!" + n)
    elif d[:8] == b"!<arch>\n": names += [sys.argv[1] + "!" + n + "(" + m + ")" for m in ar_members(d)]
print("\n".join(sorted(names)))' "$RW" > want.txt
    # (the text report says a finding repeated in several members once, for the package: the JSON lists each file)
    python3 -c 'import json, sys; print("\n".join(sorted(f["path"] for f in json.load(open(sys.argv[1]))["files"])))' \
      rw.json > got.txt
    check "numpy wheel: the ELF members zipfile lists (and those of its static archives) are the ones audited" same_bytes want.txt got.txt
    trueline-check --policy "$tag" --checks symbol-versions "$RW" > pol.txt 2>&1
    lacks "numpy wheel: no symbol-versions error under auditwheel's tag $tag" pol.txt 'error \[symbol-versions\]' 'symbol-versions'
    contains "numpy wheel: the package line names auditwheel's tag $tag" out.txt "^package $RW: .*symbol versions allow $tag and newer"
  else
    skip "numpy wheel: auditwheel gave no manylinux tag"
  fi
else
  skip "numpy wheel: offline (pip download failed) or no auditwheel"
fi

# A static archive inside a package: its ELF members audited as pkg.whl!path/lib.a(member.o); oracle: ar t.
printf 'int one(void) { return 1; }\n' > a1.c && printf 'int two(void) { return 2; }\n' > a2.c
premise "fixtures: a static archive of two -g objects" sh -c 'gcc -g -c a1.c && gcc -g -c a2.c && ar rcs libtwo.a a1.o a2.o'
python3 -c 'import zipfile; z = zipfile.ZipFile("st-1.0-py3-none-manylinux_2_17_x86_64.whl", "w", zipfile.ZIP_DEFLATED)
z.write("libtwo.a", "st/lib/libtwo.a"); z.write("libf.so", "st/libf.so"); z.close()'
S=st-1.0-py3-none-manylinux_2_17_x86_64.whl
trueline-check "$S" > out.txt 2> err.txt
trueline-check --format json --output st.json "$S" > /dev/null 2>&1
ar t libtwo.a | sed "s|^|$S!st/lib/libtwo.a(|; s|\$|)|" > want.txt
python3 -c 'import json, sys
print("\n".join(sorted(f["path"] for f in json.load(open(sys.argv[1]))["files"] if f["path"].endswith(")"))))' st.json > got.txt
check "static archive in a wheel: its members (ar t) are audited as pkg.whl!lib.a(member.o)" same_bytes want.txt got.txt
contains "... the package counts them as its files" out.txt "^package $S: 3 file\\(s\\) audited"
lacks "... members built with -g have line rows (no line-tables error)" out.txt 'libtwo\.a\([^)]*\): error \[line-tables\]' "^package $S"

# A zip bomb of overlapping entries: 60 central-directory entries name one 40 MiB member (59 KiB on disk).
# pip reads the central directory, whose entries here point into one member's bytes under other names: the
# package is an error naming the first such member, and nothing of it is decompressed (more in package_zip_cd.sh).
python3 - <<'PY' || { fail "premise: overlap bomb fixture"; exit 1; }
import struct, zlib
so = open('libf.so', 'rb').read(); data = b'\x7fELF' + bytes(40 << 20)
co = zlib.compressobj(9, zlib.DEFLATED, -15); c = co.compress(data) + co.flush()
def local(name, body, size, crc, m):
    return struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, m, 0, 0, crc, len(body), size, len(name), 0) + name + body
def central(name, off, clen, size, crc, m):
    return struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, m, 0, 0, crc, clen, size, len(name), 0, 0, 0, 0,
                       0, off) + name
out = local(b'a/libf.so', so, len(so), zlib.crc32(so), 0)
cd = central(b'a/libf.so', 0, len(so), len(so), zlib.crc32(so), 0)
k = len(out); out += local(b'a/k0.so', c, len(data), zlib.crc32(data), 8)
for i in range(60):
    cd += central(b'a/k%d.so' % i, k, len(c), len(data), zlib.crc32(data), 8)
out += cd + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 61, 61, len(cd), len(out), 0)
open('overlap.whl', 'wb').write(out)
PY
premise "zipfile lists 61 members of 40 MiB in the bomb" python3 -c '
import zipfile, sys; z = zipfile.ZipFile("overlap.whl"); sys.exit(not (len(z.infolist()) == 61 and sum(i.file_size for i in z.infolist()) > 2 << 30))'
trueline-check overlap.whl > out.txt 2> err.txt; rc=$?
check "overlap bomb: exit 2, the zeros are no ELF file (got $rc)" [ $rc -eq 2 ]
# oracle: python's zipfile (pip's reader) refuses the second entry, whose local header names another member
premise "zipfile refuses a/k1.so of the bomb" python3 -c '
import zipfile, sys
try: zipfile.ZipFile("overlap.whl").read("a/k1.so")
except zipfile.BadZipFile: sys.exit(0)
sys.exit(1)'
contains "... the package and the member are named" err.txt \
  '^trueline-check: overlap\.whl: ambiguous zip .*member a/k1\.so, its local header a/k0\.so; none of its members is checked'
lacks "... no member of it is read" out.txt '^overlap\.whl!' '^1 file\(s\) checked: .* 1 unreadable'
