#!/usr/bin/env bash
# Device code built here with nvcc: inventory (--list), codecs of every --compress-mode, -G/-rdc/-lineinfo,
# extraction, the device checks, symbolization against nvdisasm -gi, and damaged inputs.
. "$(dirname "$0")/../lib/harness.sh"
have_nvcc || { skip "nvcc not found (CUDA_HOME / PATH)"; exit 0; }
D=$TRUELINE_ROOT/tests/data/device
L=$TRUELINE_ROOT/tests/lib
TC=trueline-check
cd "$T" || exit 1
cp "$D"/kern.cu "$D"/kern_b.cu "$D"/main.cu .
# One .cu, many flavours. sm_90 + sm_100a SASS and a PTX-only compute_120 (no sm_120 cubin).
G="-gencode arch=compute_90,code=sm_90 -gencode arch=compute_100a,code=sm_100a -gencode arch=compute_120,code=compute_120"
PIC="-Xcompiler -fPIC"
build() { # name, nvcc args...: compiles in the background, logs to $1.log
  local n=$1; shift
  ( nvcc "$@" >"$n.log" 2>&1 || echo "nvcc failed: $*" >>"$n.log" ) &
}
build li   -c -lineinfo $PIC $G kern.cu -o li.o             # default compress mode
build bpl  -c $PIC $G kern_b.cu -o b_plain.o                 # no -lineinfo
wait
build dbg  -c -G -arch=sm_90 kern.cu -o dbg.o
build size -c -lineinfo --compress-mode=size -arch=sm_90 kern.cu -o size.o
wait
build rdc  -c -rdc=true -lineinfo --compress-mode=speed $PIC -arch=sm_90 kern.cu -o rdc_speed.o
build none -c --compress-mode=none -arch=sm_90 kern.cu -o none.o
wait
build bal  -c --compress-mode=balance -arch=sm_90 kern.cu -o balance.o
build so   -shared li.o b_plain.o -o libmix.so
wait
build app  -rdc=true -lineinfo --compress-mode=speed -arch=sm_90 main.cu rdc_speed.o -o app
wait
for f in li.o b_plain.o dbg.o size.o rdc_speed.o none.o balance.o libmix.so app; do
  [ -s "$f" ] || { fail "fixture $f not built"; cat "${f%%.*}.log" 2>/dev/null | head -5; }
done

# --- inventory: counts equal an independent count (cuobjdump -all when installed, else tests/lib script)
CUOBJDUMP=$(find_pypi_tool cuobjdump)
for f in li.o b_plain.o dbg.o size.o rdc_speed.o none.o balance.o libmix.so app; do
  $TC --list --format json "$f" >"$f.json" 2>"$f.err"; rc=$?
  [ $rc -eq 0 ] || fail "--list $f exit $rc: $(head -c 300 "$f.err")"
  mine=$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"][0]; k=[i["kind"] for i in f["images"]]; print(k.count("cubin"), k.count("ptx"), len({(i["section"], i["container"]) for i in f["images"]}))' "$f.json")
  indep=$(python3 "$L/fatbin_count.py" "$f" | sed -n 's/^containers=\([0-9]*\) elf=\([0-9]*\) ptx=\([0-9]*\).*/\2 \3 \1/p')
  if [ "$mine" = "$indep" ]; then pass "$f: cubin/ptx/container counts $mine match tests/lib/fatbin_count.py"
  else fail "$f: counts '$mine' vs script '$indep'"; fi
  if [ -n "$CUOBJDUMP" ]; then
    c=$("$CUOBJDUMP" -all -lelf -lptx "$f" 2>/dev/null | awk '/^ELF file/{e++} /^PTX file/{p++} END{print e+0, p+0}')
    if [ "$c" = "${mine% *}" ]; then pass "$f: ELF/PTX counts $c match cuobjdump -all -lelf -lptx"
    else fail "$f: counts '${mine% *}' vs cuobjdump '$c'"; fi
  fi
done
[ -n "$CUOBJDUMP" ] || skip "cuobjdump (pip install nvidia-cuda-cuobjdump) absent: counts checked by script only"

# --- the audit's JSON report describes device images like --list does, and validates against the schema
$TC --format json --checks cuda-arch li.o rdc_speed.o >audit.json 2>/dev/null
if python3 -c 'import jsonschema' 2>/dev/null; then
  python3 - audit.json "$TRUELINE_ROOT/docs/json-schema.json" <<'PY' && pass "audit JSON with device images validates against docs/json-schema.json" || fail "audit JSON does not validate"
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
PY
else
  skip "python3 jsonschema absent: audit JSON not validated"
fi
python3 - audit.json li.o.json <<'PY' && pass "audit JSON device images equal --list --format json images" || fail "audit JSON device images differ from --list"
import json, sys
a = [i for f in json.load(open(sys.argv[1]))["files"] if f["path"] == "li.o" for i in f["images"] if i["kind"] != "host"]
b = json.load(open(sys.argv[2]))["files"][0]["images"]
sys.exit(0 if a == b and len(a) == 3 else 1)
PY

# --- archive members and directories are inputs like files
ar rcs libk.a li.o b_plain.o && mkdir -p tree/sub && cp none.o tree/sub/
$TC --list libk.a tree >ar.txt 2>&1
contains "--list reads .a members" ar.txt '^libk\.a\(li\.o\): 2 cubin, 1 ptx'
contains "--list reads the second member" ar.txt '^libk\.a\(b_plain\.o\): 2 cubin, 1 ptx'
contains "--list walks directories" ar.txt '^tree/sub/none\.o: 1 cubin, 1 ptx'

# --- codecs and flags per build (docs/cuda-formats.md §3.1 table)
codecs() { python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"][0]; print(" ".join("%s:%s:%s" % (i["kind"], i["arch"], i["codec"]) for i in f["images"]))' "$1.json"; }
expect_codecs() { local got; got=$(codecs "$1"); if [ "$got" = "$2" ]; then pass "$1: $3"; else fail "$1: $3: got '$got' want '$2'"; fi; }
expect_codecs li.o "cubin:sm_90:none cubin:sm_100a:none ptx:compute_120:zstd" "default mode: stored cubins, zstd PTX, a/PTX-only archs"
expect_codecs balance.o "cubin:sm_90:none ptx:compute_90:zstd" "--compress-mode=balance"
expect_codecs size.o "cubin:sm_90:zstd ptx:compute_90:zstd" "--compress-mode=size compresses cubins with zstd"
expect_codecs rdc_speed.o "cubin:sm_90:lz4 ptx:compute_90:lz4" "--compress-mode=speed -rdc: LZ4 blocks"
expect_codecs none.o "cubin:sm_90:none ptx:compute_90:none" "--compress-mode=none"
expect_codecs dbg.o "cubin:sm_90:zstd ptx:compute_90:zstd" "-G images are zstd-compressed"
field() { python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"][0]; print(" ".join(str(i[sys.argv[2]]).lower() for i in f["images"]))' "$1.json" "$2"; }
expect_field() { local got; got=$(field "$1" "$2"); if [ "$got" = "$3" ]; then pass "$1: $2 = $3"; else fail "$1: $2 = '$got', want '$3'"; fi; }
expect_field li.o lineinfo "true true true"
expect_field b_plain.o lineinfo "false false false"
expect_field none.o lineinfo "false false"
expect_field dbg.o debug "true true"
expect_field li.o debug "false false false"
expect_field rdc_speed.o relocatable "true false"
expect_field li.o kernels "2 2 2"
expect_field li.o toolkit "$(nvcc --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p') $(nvcc --version | sed -n 's/.*release \([0-9.]*\),.*/\1/p') none"
python3 -c 'import json,sys; s={i["section"] for i in json.load(open(sys.argv[1]))["files"][0]["images"]}; sys.exit(0 if s=={".nv_fatbin","__nv_relfatbin"} else 1)' app.json \
  && pass "app: images from both .nv_fatbin and __nv_relfatbin" || fail "app: sections $(field app section)"
$TC --list li.o >li.txt 2>&1
contains "--list text names container/entry, arch and ptxas options" li.txt 'fatbin\[0\]\.entry\[1\] sm_100a +cubin .*ptxas-options="-lineinfo +-arch sm_100a'

# --- extraction: every image written, valid, re-readable; never outside DIR, never over an existing file
$TC --extract out app li.o >extract.txt 2>&1; rc=$?
check "--extract exits 0 (files written)" test $rc -eq 0 -a "$(ls out 2>/dev/null | wc -l)" -gt 0
# the truth: ELF and PTX images counted by tests/lib/fatbin_count.py, which parses the containers itself
images() { python3 "$L/fatbin_count.py" "$1" | sed -n 's/^containers=[0-9]* elf=\([0-9]*\) ptx=\([0-9]*\).*/\1 + \2/p'; }
n=$(ls out | wc -l); want=$(( $(images app) + $(images li.o) ))
check "--extract wrote $n files = images in app and li.o ($want)" test "$n" -eq "$want" -a "$want" -gt 0
bad=0 ncubin=0
for c in out/*.cubin; do
  [ -e "$c" ] || continue; ncubin=$((ncubin + 1))
  $TC --list "$c" 2>/dev/null | grep -q "^$c: 1 cubin" || bad=$((bad + 1))
done
check "every extracted cubin reads back as a cubin ($ncubin, $bad not)" test $bad -eq 0 -a $ncubin -gt 0
check "extracted PTX is text starting with .version" grep -q '^\.version' out/li.o.0.2.compute_120.ptx
nvcc -cubin -lineinfo -arch=sm_90 kern.cu -o ref_sm90.cubin
check "extracted sm_90 cubin is byte-identical to nvcc -cubin -lineinfo -arch=sm_90" cmp -s ref_sm90.cubin out/li.o.0.0.sm_90.cubin
if [ -n "$CUOBJDUMP" ]; then
  mkdir -p xelf && (cd xelf && "$CUOBJDUMP" -xelf all ../li.o >/dev/null 2>&1)
  check "extracted sm_100a cubin is byte-identical to cuobjdump -xelf's" cmp -s xelf/kern.sm_100a.cubin out/li.o.0.1.sm_100a.cubin
fi
mkdir -p out3; cp out/li.o.0.0.sm_90.cubin out3/
echo keep >victim; ln -s "$T/victim" out3/li.o.0.1.sm_100a.cubin
$TC --extract out3 li.o >/dev/null 2>extract2.err; rc=$?
check "--extract over existing files exits 2" test $rc -eq 2
check "--extract does not follow a planted symlink (the other image written)" test "$(cat victim)" = keep -a -s out3/li.o.0.2.compute_120.ptx
contains "--extract names the file it refused" extract2.err 'li.o.0.1.sm_100a.cubin: cannot create'
cp li.o 'we ird;..name.o'; mkdir -p out2
$TC --extract out2 'we ird;..name.o' >/dev/null 2>&1
check "--extract sanitizes names from the input" test -f 'out2/we_ird_..name.o.0.0.sm_90.cubin'
check "--extract writes nothing outside DIR" test "$(ls out2 | grep -vc '^we_ird_\.\.name\.o\.')" -eq 0 -a "$(ls out2 | wc -l)" -gt 0

# --- line-tables: the .so where one TU lacks -lineinfo names exactly that TU's kernels
$TC --checks line-tables libmix.so >mix.txt 2>&1
names=$(grep -oE '(kernel|device function) has no line rows' mix.txt | wc -l)
check "libmix.so: exactly 2 device functions without rows reported (got $names)" test "$names" -eq 2
contains "libmix.so: plainOne named with both archs" mix.txt 'plainOne\(float\*, int\): kernel has no line rows in fatbin\[[0-9]+\]\.entry\[0\] sm_90, fatbin\[[0-9]+\]\.entry\[1\] sm_100a'
contains "libmix.so: plainTwo named" mix.txt 'plainTwo\(int\*\)'
lacks "libmix.so: kernA/kernB (built with -lineinfo) not blamed" mix.txt 'kern[AB].*no line rows' 'file\(s\) checked'
contains "libmix.so: PTX without .loc reported" mix.txt 'PTX image fatbin\[[0-9]+\]\.entry\[2\] compute_120 has no \.loc'
# kernA, kernB, $kernA$notinl (with rows) and plainOne, plainTwo (without), each for sm_90 and sm_100a
contains "libmix.so: per-file device coverage" mix.txt 'device line coverage: 6 of 10 device functions \(60\.0%\)'
$TC --checks line-tables none.o >none.txt 2>&1
contains "none.o: one finding for device code without any line info" none.txt 'device code has no line information: none of its 1 cubins'
$TC --checks line-tables li.o size.o rdc_speed.o app >good.txt 2>&1
lacks "-lineinfo builds: no device line-table finding" good.txt '(kernel|device function) has no line rows|no line information: none' 'file\(s\) checked'

# --- cuda-arch policy
printf '[cuda-arch]\nsass = sm_90, sm_120\n' >arch.ini
$TC --config arch.ini --checks cuda-arch li.o >arch.txt 2>&1; rc=$?
check "cuda-arch: missing sm_120 SASS fails (exit 1)" test $rc -eq 1
contains "cuda-arch: names the container and the missing arch" arch.txt 'error \[cuda-arch\] fatbin\[0\] \(kernel _Z5kern.*\) lacks SASS for sm_120'
contains "cuda-arch: reports present and PTX-only archs" arch.txt 'SASS sm_90 sm_100a; PTX compute_120; PTX-only compute_120'
printf '[cuda-arch]\nsass = 90, 100a\nrequire-ptx = true\n' >arch2.ini
# rq COMMAND...: the command's exit status when it printed a report, 99 when it printed none
rq() { "$@" >rq.out 2>&1; local rc=$?; grep -q 'file(s) checked' rq.out && return $rc; return 99; }
expect_rc "cuda-arch: sm_90 + sm_100a + PTX present passes" 0 rq $TC --config arch2.ini --checks cuda-arch li.o
printf '[cuda-arch]\nsass = sm_100\n' >arch3.ini
expect_rc "cuda-arch: sm_100 is met by sm_100a (the base arch)" 0 rq $TC --config arch3.ini --checks cuda-arch li.o
printf '[cuda-arch]\nsass = sm_90a\n' >arch4.ini
expect_rc "cuda-arch: sm_90a required but only sm_90 built" 1 rq $TC --config arch4.ini --checks cuda-arch li.o
printf '[cuda-arch]\nrequire-ptx = yes\n' >arch5.ini
$TC --config arch5.ini --checks cuda-arch app >arch5.txt 2>&1
contains "cuda-arch: the device-link container has no PTX fallback" arch5.txt 'fatbin\[0\].*lacks a PTX fallback'
# Images without a device function: a .cu of host code only (nvcc -lineinfo gives its empty cubin and PTX no
# line rows) and nvlink's device-link container of a non-rdc shared library (no kernel, never PTX). Neither
# has code for a line table or for a GPU to run: no finding.
printf 'int host_only(int x) { return x + 1; }\n' > hostonly.cu
nvcc -c -lineinfo -arch=sm_90 hostonly.cu -o hostonly.o
$TC --checks line-tables hostonly.o >hostonly.txt 2>&1
lacks "line-tables: a .cu without device functions is no device finding" hostonly.txt 'device code has no line|PTX image .* has no \.loc' 'file\(s\) checked'
nvcc -shared -lineinfo $PIC -arch=sm_90 kern.cu -o libnolink.so
printf '[cuda-arch]\nsass = sm_90\nrequire-ptx = true\n' >arch7.ini
$TC --config arch7.ini --checks cuda-arch,line-tables libnolink.so >arch7.txt 2>&1
lacks "cuda-arch: nvlink's kernel-less device-link container needs no PTX or SASS" arch7.txt 'error \[cuda-arch\]' 'file\(s\) checked'
lacks "line-tables: ... nor line rows" arch7.txt '\[line-tables\].*(device code has no line|fatbin\[0\])' 'file\(s\) checked'
$TC --config arch7.ini --checks cuda-arch hostonly.o li.o >arch7b.txt 2>&1
lacks "cuda-arch: the host-only .cu's container is not held to the policy" arch7b.txt 'hostonly.o: error' 'file\(s\) checked'
$TC --release --checks cuda-arch dbg.o >rel.txt 2>&1
contains "--release warns on -G images" rel.txt 'warning \[cuda-arch\] 2 device-debug \(-G\) images'
$TC --checks cuda-arch dbg.o >norel.txt 2>&1
lacks "no -G warning outside --release" norel.txt 'device-debug' 'file\(s\) checked'
printf '[cuda-arch]\nsass = banana\n' >arch6.ini
$TC --config arch6.ini --checks cuda-arch li.o >arch6.txt 2>&1
contains "cuda-arch: a bad policy value is named" arch6.txt "sass = 'banana' is not a list"

# --- mixed-toolchain: two objects' cubins with different toolkit releases in one artifact
ver=$(strings -a none.o | grep -o 'release [0-9]*\.[0-9]*, V[0-9.]*' | head -1)
if [ -n "$ver" ]; then
  old=$(echo "$ver" | sed -E 's/release [0-9]+\.[0-9]+, V[0-9]+\.[0-9]+/release 11.9, V11.9/')
  # both places a ptxas 13 cubin states its release: the tkinfo string and the cuinfo note (type 1000, version 2,
  # u32 release x10 after the SM), which is what cuobjdump prints
  python3 - "$ver" "$old" <<'PY'
import re, sys
d = open("none.o", "rb").read().replace(sys.argv[1].encode(), sys.argv[2].encode())
d = re.sub(rb"(\xe8\x03\x00\x00NVIDIA Corp\x00\x02\x00.\x00)\x82\x00\x00\x00", lambda m: m.group(1) + b"\x77\x00\x00\x00", d,
           flags=re.S)
open("none_old.o", "wb").write(d)
PY
  # one artifact, two containers: fatbin sections are plain concatenations of containers (docs/cuda-formats.md)
  objcopy -O binary --only-section=.nv_fatbin none_old.o old.fatbin
  objcopy -O binary --only-section=.nv_fatbin li.o new.fatbin
  cat old.fatbin new.fatbin >combo.fatbin
  $TC --checks mixed-toolchain combo.fatbin >mix2.txt 2>&1
  contains "mixed-toolchain: two CUDA releases across one artifact's cubins" mix2.txt 'device code from 2 CUDA toolkit releases: CUDA 11.9: 1 cubins.*CUDA [0-9.]+: 2 cubins'
  $TC --checks mixed-toolchain li.o >mix3.txt 2>&1
  lacks "mixed-toolchain: one release is fine" mix3.txt 'toolkit releases' 'file\(s\) checked'
else
  fail "no tkinfo version string found in none.o"
fi

# --- symbolization vs nvdisasm -gi at every annotated instruction
NVDISASM=$(find_pypi_tool nvdisasm)
if [ -z "$NVDISASM" ]; then
  skip "nvdisasm (pip install nvidia-cuda-nvdisasm) absent: symbolization not compared"
else
  for c in out/li.o.0.0.sm_90.cubin out/li.o.0.1.sm_100a.cubin out/app.rel*.sm_90.cubin; do
    [ -f "$c" ] || { fail "no $c"; continue; }
    "$NVDISASM" -gi "$c" | python3 "$L/nvdisasm_chains.py" >"$c.exp"
    total=0 bad=0 deep=0
    while read -r fn off chain; do
      total=$((total + 1))
      got=$($TC --symbolize "$c" "$fn+$off" 2>&1 | sed -n 's/^  #[0-9]* \([^ ]*\) in .*/\1/p' | sed -E 's/^(.*:[0-9]+):[0-9]+$/\1/' | paste -sd,)
      [ "$got" = "$chain" ] || { bad=$((bad + 1)); [ $bad -le 3 ] && echo "    | $fn+$off nvdisasm=$chain trueline=$got"; }
      case "$chain" in *,*,*) deep=$((deep + 1));; esac
    done <"$c.exp"
    if [ $total -gt 0 ] && [ $bad -eq 0 ]; then pass "$(basename "$c"): $total annotated offsets equal nvdisasm -gi ($deep with 2-level inlining)"
    else fail "$(basename "$c"): $bad of $total offsets differ from nvdisasm -gi"; fi
    [ "$c" = out/li.o.0.0.sm_90.cubin ] && check "nvdisasm shows 2-level inline chains that were compared ($deep)" test "$deep" -gt 0
  done
fi
$TC --symbolize li.o _Z5kernBPfi+0xe0 --sm 90 >sym.txt 2>&1
contains "--symbolize in a host object picks the --sm image and names inlined functions" sym.txt '#0 .*kern\.cu:5 in scale\(float\) \(inlined\)'
contains "--symbolize: outermost frame is the kernel" sym.txt '#2 .*kern\.cu:22 in kernB\(float\*, int\)$'
check "--symbolize --sm 90 answers one image" test "$(grep -c '^_Z5kernBPfi+0xe0' sym.txt)" -eq 1
$TC --symbolize li.o _Z5kernBPfi+0xe0 --sm 90 --format json >sym.json 2>&1
python3 - sym.json <<'PY' && pass "--symbolize --format json: 3 frames, scale inlined in helper in kernB" || fail "--symbolize --format json: $(head -c 300 sym.json)"
import json, sys
o = json.loads(open(sys.argv[1]).read())
f = o["frames"]
assert o["symbol"] == "_Z5kernBPfi" and o["offset"] == 0xe0, o
assert [x["line"] for x in f] == [5, 9, 22], f
assert [x["inlined"] for x in f] == [True, True, False], f
assert f[0]["demangled"] == "scale(float)" and f[2]["function"] == "_Z5kernBPfi", f
PY
$TC --symbolize li.o _Z5kernBPfi+0xe0 >sym2.txt 2>&1
check "--symbolize without --sm answers every arch (2)" test "$(grep -c '^_Z5kernBPfi+0xe0' sym2.txt)" -eq 2
expect_rc "--symbolize of an unknown kernel exits 2" 2 $TC --symbolize li.o nosuch+0x10
expect_rc "--symbolize of an offset past the kernel exits 2" 2 $TC --symbolize li.o _Z5kernBPfi+0x100000
$TC --symbolize none.o _Z5kernBPfi+0x10 >nol.txt 2>&1
contains "--symbolize without line info says so" nol.txt 'no line information for this offset'
off=$(python3 - out/li.o.0.0.sm_90.cubin <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", d, 0x28); n, = struct.unpack_from("<H", d, 0x3C); si, = struct.unpack_from("<H", d, 0x3E)
h = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * 64) for i in range(n)]
s = h[si][4]
for x in h:
    if d[s + x[0]:].split(b"\0")[0] == b".text._Z5kernBPfi":
        print(hex(x[4] + 0xe0))
PY
)
$TC --symbolize out/li.o.0.0.sm_90.cubin "$off" >pc.txt 2>&1
contains "--symbolize PC form (file offset in the cubin) resolves to the kernel offset" pc.txt '^_Z5kernBPfi\+0xe0 .*' 
contains "--symbolize on a standalone cubin names its arch from the cubin's header (not sm_0)" pc.txt '^_Z5kernBPfi\+0xe0 \(cubin sm_90\)'

# --- damaged inputs: clear message naming the file, exit 2, other entries still listed
objcopy -O binary --only-section=.nv_fatbin li.o li.fatbin
$TC --list li.fatbin >fb.txt 2>&1
contains "standalone .fatbin is listed" fb.txt 'li.fatbin: 2 cubin, 1 ptx'
head -c 3000 li.fatbin >trunc.fatbin
$TC --list trunc.fatbin >trunc.txt 2>&1; rc=$?
check "truncated fatbin exits 2" test $rc -eq 2
contains "truncated fatbin: message names file and what is wrong" trunc.txt 'trunc.fatbin: .*runs past the end'
python3 - <<'PY'
import struct
d = bytearray(open("li.fatbin", "rb").read())
# corrupt the zstd payload of the PTX entry (entry 2): keep the frame magic, break the blocks
pos, hs = 16, 0
for _ in range(2):
    hs, pad = struct.unpack_from("<IQ", d, pos + 4)
    pos += hs + pad
hs, = struct.unpack_from("<I", d, pos + 4)
for i in range(pos + hs + 8, pos + hs + 60):
    d[i] ^= 0x5A
open("badzstd.fatbin", "wb").write(d)
PY
$TC --list badzstd.fatbin >bz.txt 2>&1; rc=$?
check "corrupt zstd entry exits 2" test $rc -eq 2
contains "corrupt zstd entry: per-entry error" bz.txt 'fatbin\[0\]\.entry\[2\] compute_120: zstd'
contains "corrupt zstd entry: the other entries are still listed" bz.txt 'fatbin\[0\]\.entry\[1\] sm_100a +cubin'
$TC --checks line-tables badzstd.fatbin >bz2.txt 2>&1; rc=$?
contains "audit reports the undecodable entry" bz2.txt 'device image fatbin\[0\]\.entry\[2\] compute_120 cannot be decoded'
printf 'garbage' >junk.cubin
expect_rc "junk input exits 2" 2 $TC --list junk.cubin
