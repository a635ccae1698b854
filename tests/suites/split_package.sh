#!/usr/bin/env bash
# --split on containers and device code: a wheel (tests/lib/mkwheel.py) gets every ELF member split, the same
# members in the same order with the same compression, and a RECORD whose sha256/size lines python's zipfile
# and hashlib agree with (pip installs it where a venv can be made); a static library keeps a symbol index whose
# offsets land on its members' headers, and links; with nvcc, a CUDA library's and object's device line info
# goes to the store as ELF files carrying a build-id note. Bad members (a .so that is not ELF, one without a
# build-id) exit 2 naming the member, and no package is written.
source "$(dirname "$0")/../lib/harness.sh"
have gcc && have readelf && have python3 && have ar || { skip "gcc/binutils/python3 missing"; exit 0; }
C=trueline-check
MKWHEEL="$TRUELINE_ROOT/tests/lib/mkwheel.py"
cd "$T" || exit 1
cat > lib.c <<'C'
static inline int sq(int x) { return x * x; }
int work(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
C
gcc -O2 -g -fPIC -shared -Wl,--build-id lib.c -o libw.so
gcc -O2 -g -fPIC -shared -Wl,--build-id=none lib.c -o libnoid.so
echo 'print("hi")' > init.py
W=pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
premise "wheel built" python3 "$MKWHEEL" "$W" pkg/libw.so=libw.so pkg/__init__.py=init.py

$C --split --debug-store store --output-dir out "$W" > w.out 2> w.err
check "wheel split exits 0" [ $? -eq 0 ]
contains "wheel summary" w.out "$W: [0-9]+ -> [0-9]+ bytes.*1 host debug files"
cat > verify.py <<'PY'
import base64, hashlib, sys, zipfile
a, b = zipfile.ZipFile(sys.argv[1]), zipfile.ZipFile(sys.argv[2])
what = sys.argv[3]
if what == 'layout':  # same members, same order, same compression
    sys.exit([(i.filename, i.compress_type) for i in a.infolist()] != [(i.filename, i.compress_type) for i in b.infolist()])
if what == 'record':  # every RECORD line's hash and size match the member's bytes
    rec = [n for n in b.namelist() if n.endswith('.dist-info/RECORD')][0]
    ok = True
    for line in b.read(rec).decode().splitlines():
        path, h, size = line.rsplit(',', 2)
        if not h:
            continue
        d = b.read(path)
        want = 'sha256=' + base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()
        ok &= h == want and int(size) == len(d)
    sys.exit(not ok)
if what == 'changed':  # the named member changed, the others are byte-identical
    sys.exit(not (a.read(sys.argv[4]) != b.read(sys.argv[4]) and
                  all(a.read(n) == b.read(n) for n in a.namelist() if n != sys.argv[4] and not n.endswith('RECORD'))))
PY
check "wheel: same members, order and compression" python3 verify.py "$W" "out/$W" layout
check "wheel: RECORD hashes and sizes match every member" python3 verify.py "$W" "out/$W" record
check "wheel: only the library (and RECORD) changed" python3 verify.py "$W" "out/$W" changed pkg/libw.so
mkdir x && (cd x && python3 -c 'import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extractall()' "../out/$W")
readelf -SW x/pkg/libw.so > member.sections 2>&1
lacks "wheel: the member lost its .debug_ sections" member.sections '\.debug_' '\.symtab'
id=$(readelf -n libw.so | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
check "wheel: the member's debug file is in the store" [ -s "store/.build-id/${id:0:2}/${id:2}.debug" ]
if python3 -m venv --without-pip venv-probe > /dev/null 2>&1 && python3 -m pip --version > /dev/null 2>&1 &&
   python3 -m venv venv > /dev/null 2>&1 && [ -x venv/bin/pip ]; then
  venv/bin/pip install --no-deps --no-index -q "out/$W" > pip.out 2>&1
  check "wheel: pip installs the split wheel (it checks RECORD)" sh -c "[ -s venv/lib/python3*/site-packages/pkg/libw.so ]"
else
  skip "wheel: no python venv with pip here"
fi

# The verdict of the split wheel audited with the store states what the split took out: the debug file's
# .debug_* sizes as readelf lists them, no more than the member shrank by (python's zipfile); without the
# store it says the host line info was split out and not counted
cat > secsum.py <<'PY'
# the summed sizes of the sections of argv[2:] whose names match argv[1], as readelf -SW lists them
import re, subprocess, sys
total = 0
for f in sys.argv[2:]:
    for line in subprocess.run(['readelf', '-SW', f], capture_output=True, text=True).stdout.splitlines():
        m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+\S+\s+\S+\s+([0-9a-f]+)', line)
        if m and re.search(sys.argv[1], m.group(1)) and m.group(2) != 'NOBITS':
            total += int(m.group(3), 16)
print(total)
PY
cat > splitjson.py <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["packages"][0]["verdict"]["total"]["split_out_bytes"][sys.argv[2]])
PY
$C --format json --debug-store store "out/$W" > vj.json 2> vj.err
host_oracle=$(python3 secsum.py '^\.debug_' "store/.build-id/${id:0:2}/${id:2}.debug")
same "verdict JSON: host bytes split out = the debug file's .debug_* (readelf)" "$(python3 splitjson.py vj.json host_debug)" "$host_oracle"
same "verdict JSON: host .debug_line split out = the debug file's (readelf)" \
  "$(python3 splitjson.py vj.json host_debug_line)" "$(python3 secsum.py '^\.debug_line$' "store/.build-id/${id:0:2}/${id:2}.debug")"
shrink=$(python3 -c 'import sys, zipfile; n = "pkg/libw.so"
print(zipfile.ZipFile(sys.argv[1]).getinfo(n).file_size - zipfile.ZipFile(sys.argv[2]).getinfo(n).file_size)' "$W" "out/$W")
check "verdict: the host bytes split out ($host_oracle) are no more than the member shrank by ($shrink)" \
  [ "$host_oracle" -gt 0 ] && [ "$host_oracle" -le "$shrink" ]
$C --debug-store store "out/$W" > vt.out 2> vt.err
contains "verdict text: the bytes split out, from the store" vt.out \
  "line info split out \(saved, in the debug store\): .*host \.debug_\* $host_oracle B"
$C --format junit --debug-store store "out/$W" > vju.xml 2> vju.err
contains "verdict JUnit: the line info item states the bytes split out" vju.xml \
  "name=\"line info\".*line info split out \(saved, in the debug store\): .*$host_oracle B"
$C "out/$W" > vn.out 2> vn.err
contains "verdict without the store: split out, not counted" vn.out \
  "line info split out .*not counted \(store not given.*host line info of 1 file"
$C "$W" > vo.out 2> vo.err
lacks "verdict of the unsplit wheel: nothing split out" vo.out "line info split out"

# Bad members: named, exit 2, no package written; the other input of the run is still split
echo 'not ELF' > fake.so
B1=bad-1.0-cp311-cp311-manylinux_2_17_x86_64.whl B2=noid-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
python3 "$MKWHEEL" "$B1" bad/libfake.so=fake.so
python3 "$MKWHEEL" "$B2" noid/libnoid.so=libnoid.so
$C --split --debug-store store --output-dir out2 "$B1" "$B2" "$W" > bad.out 2> bad.err
check "bad members: exit 2" [ $? -eq 2 ]
contains "a .so member that is not ELF: named" bad.err "$B1: member bad/libfake.so: .*not an ELF"
contains "a member without a build-id: named" bad.err "$B2: member noid/libnoid.so: .*build-id"
check "bad members: no package written for them" sh -c "[ ! -e out2/$B1 ] && [ ! -e out2/$B2 ]"
check "bad members: the good wheel is still split" [ -s "out2/$W" ]
check "bad members: no temporary file left" sh -c '! ls -A out2 | grep -q "\.tl-"'

# A conda .tar.bz2: the same members in the same order, bzip2 again, info/paths.json's sha256 and size_in_bytes
# as python's tarfile and hashlib compute them
premise "conda package built" python3 "$TRUELINE_ROOT/tests/lib/mkconda.py" pkg-1.0-0.tar.bz2 lib/libw.so=libw.so lib/x.py=init.py
$C --split --debug-store cstore --output-dir cout pkg-1.0-0.tar.bz2 > c.out 2> c.err
check "conda: split exits 0" [ $? -eq 0 ]
check "conda: bzip2 again" sh -c 'head -c3 cout/pkg-1.0-0.tar.bz2 | grep -q BZh'
check "conda: same members in the same order, modes kept, paths.json matches every member" python3 -c '
import hashlib, json, sys, tarfile
a, b = tarfile.open("pkg-1.0-0.tar.bz2"), tarfile.open("cout/pkg-1.0-0.tar.bz2")
ok = [(m.name, m.mode) for m in a.getmembers()] == [(m.name, m.mode) for m in b.getmembers()]
for e in json.load(b.extractfile("info/paths.json"))["paths"]:
    d = b.extractfile(e["_path"]).read()
    ok &= hashlib.sha256(d).hexdigest() == e["sha256"] and len(d) == e["size_in_bytes"]
ok &= a.extractfile("lib/libw.so").read() != b.extractfile("lib/libw.so").read()
sys.exit(not ok)'
check "conda: the library's debug file is in the store" [ -s "cstore/.build-id/${id:0:2}/${id:2}.debug" ]

# A static library: host objects stay as they are (a link needs their DWARF), the index still finds them
printf 'int hostonly(int x) { return x + 1; }\n' > h.c && gcc -O2 -g -c h.c -o h.o
printf 'int hostonly(int);\nint main(void) { return hostonly(-1); }\n' > m.c
cat > armap.py <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'!<arch>\n'
off, heads, offs = 8, set(), []
while off < len(d):
    h = d[off:off + 60]; sz = int(h[48:58]); heads.add(off)
    if h[:16].strip() == b'/':
        cnt, = struct.unpack('>I', d[off + 60:off + 64])
        offs = struct.unpack('>%dI' % cnt, d[off + 64:off + 64 + 4 * cnt])
    off += 60 + sz + (sz & 1)
sys.exit(not offs or any(o not in heads for o in offs))
PY

if have nvcc; then
  cat > kern.cu <<'CU'
__device__ __forceinline__ float scale(float x) { return x * 0.5f; }
__global__ void kernA(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = scale(in[i]) + 1.0f;
}
CU
  sed 's/kernA/kernB/; s/scale/scale2/g' kern.cu > kern2.cu
  ok=1
  nvcc -O3 -lineinfo -arch=sm_80 -Xcompiler -fPIC -c kern.cu -o k.o && nvcc -O3 -lineinfo -arch=sm_80 -Xcompiler -fPIC -c kern2.cu -o k2.o &&
    nvcc -O3 -lineinfo -g -arch=sm_80 -Xcompiler -fPIC -shared -Xlinker --build-id kern.cu -o libk.so || ok=0
  if [ $ok = 1 ]; then
    ar rcs libmix.a k.o h.o k2.o
    $C --split --debug-store dstore --output-dir dout libk.so k.o libmix.a > d.out 2> d.err
    check "CUDA: split exits 0" [ $? -eq 0 ]
    contains "CUDA: the library's device line info went to the store" d.out 'libk\.so: .*[1-9][0-9]* device line parts'
    fatbin_size() { readelf -SW "$1" | sed -n 's/.*\] \.nv_fatbin  *PROGBITS  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p'; }
    same "CUDA: the linked library's .nv_fatbin keeps its size (rewritten in place)" "$(fatbin_size libk.so)" "$(fatbin_size dout/libk.so)"
    a=$(fatbin_size k.o) b=$(fatbin_size dout/k.o)
    shrank() { [ -n "$a" ] && [ -n "$b" ] && [ $((16#$b)) -lt $((16#$a)) ]; }
    check "CUDA: the object's .nv_fatbin shrank (0x$a -> 0x$b)" shrank
    ndev=0
    for f in $(find dstore -name '*.debug'); do
      readelf -h "$f" 2>/dev/null | grep -q 'NVIDIA CUDA' || continue
      ndev=$((ndev + 1))
      readelf -n "$f" | grep -q 'Build ID' || { fail "CUDA: device part $f has no build-id note"; ndev=-999; }
    done
    check "CUDA: device parts in the store are cubins with a build-id note ($ndev)" [ $ndev -ge 2 ]
    if have eu-elflint; then
      check "CUDA: eu-elflint on the split library" eu-elflint --gnu-ld dout/libk.so
      check "CUDA: eu-elflint on the split object" eu-elflint dout/k.o
    fi
    # the verdict of a split wheel with device code: the store parts' line sections as readelf lists them
    python3 "$MKWHEEL" cu-1.0-cp311-cp311-manylinux_2_17_x86_64.whl cu/libk.so=libk.so
    $C --split --debug-store wstore --output-dir wout cu-1.0-cp311-cp311-manylinux_2_17_x86_64.whl > wk.out 2>&1
    $C --format json --debug-store wstore wout/cu-1.0-cp311-cp311-manylinux_2_17_x86_64.whl > wk.json 2> wk.err
    parts=$(for f in $(find wstore -name '*.debug'); do readelf -h "$f" | grep -q 'NVIDIA CUDA' && echo "$f"; done)
    dev_oracle=$(python3 secsum.py '^\.(debug_line|nv_debug_line_sass)$' $parts)
    check "CUDA verdict: device parts in the store ($dev_oracle bytes of line sections)" [ "${dev_oracle:-0}" -gt 0 ]
    same "CUDA verdict JSON: device line bytes split out = the store parts' line sections (readelf)" \
      "$(python3 splitjson.py wk.json cubin)" "$dev_oracle"
    same "CUDA verdict JSON: every split cubin's part found" "$(python3 splitjson.py wk.json split_cubins_not_found)" 0
    # an object whose fatbin is pointed into past its start cannot shrink: refused, named; at +0 it can
    objcopy --dump-section .nv_fatbin=fb.bin k.o k.copy
    printf '.section .nv_fatbin,"a"\nfb:\n.incbin "fb.bin"\n.data\n.quad fb+8\n' > inside.s
    printf '.section .nv_fatbin,"a"\nfb:\n.incbin "fb.bin"\n.data\n.quad fb\n' > atzero.s
    gcc -c inside.s -o inside.o && gcc -c atzero.s -o atzero.o
    $C --split --debug-store dstore --output-dir dout2 inside.o atzero.o > in.out 2> in.err
    check "fatbin pointed into: exit 2" [ $? -eq 2 ]
    contains "fatbin pointed into: named with the offset" in.err 'inside\.o: \.nv_fatbin: .*points inside it \(offset 8\)'
    check "fatbin pointed into: no output for it, the other object split" sh -c '[ ! -e dout2/inside.o ] && [ -s dout2/atzero.o ]'
    check "static library: its index lands on member headers" python3 armap.py dout/libmix.a
    check "static library: the host member is byte-identical" sh -c 'mkdir ax && cd ax && ar x ../dout/libmix.a h.o && cmp -s h.o ../h.o'
    check "static library: a program links against it and runs" sh -c 'gcc m.c dout/libmix.a -o m_split && ./m_split'
    check "static library: nvcc links the split objects into a library" nvcc -arch=sm_80 -shared dout/k.o -o relinked.so
  else
    fail "CUDA fixtures did not build with nvcc"
  fi
else
  skip "CUDA: nvcc missing"
  ar rcs libhost.a h.o
  $C --split --debug-store store --output-dir aout libhost.a > a.out 2>&1
  contains "static library without device code: copied unchanged" a.out 'libhost\.a: no line info to split'
  check "static library without device code: byte-identical" same_bytes libhost.a aout/libhost.a
fi
