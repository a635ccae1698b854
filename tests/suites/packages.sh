#!/usr/bin/env bash
# Wheels and conda packages as inputs: members read in memory through libarchive, ELF members audited and shown
# as pkg.whl!path (pkg.conda!pkg-x.tar.zst!path one level down), bad members named while the rest is checked,
# and the manylinux tag in a wheel's file name judged by symbol versions. Oracles: python's zipfile/tarfile for
# the member lists, the fixture's source for the symbol versions, auditwheel for a real wheel's tag.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1
printf '#include <stdio.h>\nint hello(void) { puts("hi"); return 1; }\n' > f.c
printf '#include <sys/random.h>\nint r(void) { char b[4]; return (int)getrandom(b, 4, 0); }\n' > g.c
gcc -g -shared -fPIC f.c -o libf.so && gcc -g -shared -fPIC g.c -o libg.so || { fail "premise: gcc"; exit 1; }
# getrandom is GLIBC_2.25 in the fixture: the premise of the tag checks below
check "premise: libg.so needs GLIBC_2.25 (objdump)" sh -c 'objdump -T libg.so | grep -q "GLIBC_2.25.*getrandom"'

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
d = open(W, 'rb').read(); open('trunc.whl', 'wb').write(d[:len(d) // 2]); open('nocd.whl', 'wb').write(d[:-30])
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
audited() { sed -n 's/^\(.*\.so\): \(info\|error\|warning\) .*/\1/p' "$1" | sort -u; }

trueline-check "$W" > out.txt 2> err.txt; rc=$?
audited out.txt > got.txt
check "wheel: the ELF members zipfile lists (incl. '..' and one nested zip) are the ones audited" same_bytes want.txt got.txt
lacks "wheel: the non-ELF member is not audited" out.txt '__init__\.py' 'demo/libf\.so'
contains "wheel tag: libg.so needs GLIBC_2.25, over manylinux_2_17's GLIBC_2.17: an error" out.txt \
  'demo/libg\.so: error \[symbol-versions\] needs GLIBC_2\.25.*manylinux_2_17 allows at most GLIBC_2\.17'
contains "wheel tag: libf.so is within manylinux_2_17" out.txt 'demo/libf\.so: info \[symbol-versions\].*within manylinux_2_17'
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
check "premise: zipfile refuses the wheel without its central directory's end" python3 -c '
import sys, zipfile
try: zipfile.ZipFile("nocd.whl")
except zipfile.BadZipFile: sys.exit(0)
sys.exit(1)'
trueline-check nocd.whl > out.txt 2> err.txt; rc=$?
check "wheel without its central directory's end: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "... named as such" err.txt '^trueline-check: nocd\.whl: the zip.s central directory is missing or cut short'
contains "... its members still checked from their local headers" out.txt 'nocd\.whl!demo/libg\.so: info \[symbol-versions\].*GLIBC_2\.25'

trueline-check foo-1.0-0.tar.bz2 > out.txt 2> err.txt; rc=$?
check ".tar.bz2 conda package: exit 0 (got $rc)" [ $rc -eq 0 ]
contains "... its library is audited as pkg!path" out.txt '^foo-1\.0-0\.tar\.bz2!lib/libfoo\.so: info'

if have zstd; then
  zstd -q -f pkg-foo.tar -o pkg-foo-1.0-0.tar.zst && printf '{}' > metadata.json &&
    python3 -c 'import zipfile; z=zipfile.ZipFile("foo-1.0-0.conda","w"); z.write("metadata.json"); z.write("pkg-foo-1.0-0.tar.zst"); z.close()'
  trueline-check foo-1.0-0.conda > out.txt 2> err.txt; rc=$?
  check ".conda: exit 0 (got $rc)" [ $rc -eq 0 ]
  contains "... the library in its tar.zst is audited, named through both levels" out.txt \
    '^foo-1\.0-0\.conda!pkg-foo-1\.0-0\.tar\.zst!lib/libfoo\.so: info'
else
  skip ".conda: no zstd CLI"
fi

mkdir dist && cp "$W" foo-1.0-0.tar.bz2 dist/ && echo hello | bzip2 > dist/notes.bz2
trueline-check dist > out.txt 2> err.txt; rc=$?
check "directory scan: packages found by magic, a plain .bz2 left out (exit 1 from the wheel's finding, got $rc)" [ $rc -eq 1 ]
contains "... the conda package's library is audited" out.txt '^dist/foo-1\.0-0\.tar\.bz2!lib/libfoo\.so: info'
contains "... the wheel's libraries are audited" out.txt "^dist/$W!demo/libf\\.so: info"

# A real wheel: auditwheel's tag is the oracle for the symbol versions of its members.
mkdir wheels
if timeout 60 pip download --only-binary=:all: --no-deps numpy==2.1.3 -d wheels -q > /dev/null 2>&1 && have auditwheel; then
  RW=$(ls wheels/*.whl | head -1)
  tag=$(timeout 120 auditwheel show "$RW" 2>/dev/null | tr -d '\n' | sed -n 's/.*consistent with the following platform tag: *"\(manylinux_[0-9_]*\)_x86_64".*/\1/p')
  if [ -n "$tag" ]; then
    trueline-check "$RW" > out.txt 2> err.txt
    python3 -c 'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); print("\n".join(sorted(sys.argv[1]+"!"+n for n in z.namelist() if z.open(n).read(4)==b"\x7fELF")))' "$RW" > want.txt
    sed -n 's/^\([^ ]*\.whl![^ ]*\): \(info\|error\|warning\) .*/\1/p' out.txt | sort -u > got.txt
    check "numpy wheel: the ELF members zipfile lists are the ones audited" same_bytes want.txt got.txt
    trueline-check --policy "$tag" --checks symbol-versions "$RW" > pol.txt 2>&1
    lacks "numpy wheel: no symbol-versions error under auditwheel's tag $tag" pol.txt 'error \[symbol-versions\]' 'symbol-versions'
    contains "numpy wheel: the package line names auditwheel's tag $tag" out.txt "^package $RW: .*symbol versions allow $tag and newer"
  else
    skip "numpy wheel: auditwheel gave no manylinux tag"
  fi
else
  skip "numpy wheel: offline (pip download failed) or no auditwheel"
fi
