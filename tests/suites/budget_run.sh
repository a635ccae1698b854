#!/usr/bin/env bash
# One time and memory budget per package and per run: --timeout bounds a package with all its members (not each
# member anew); every codec a member can come in has a ratio bound (bzip2 and xz too), and the members of one
# package together are bounded by the bytes holding them, so an overlapping-member zip is an error; -j workers
# share one memory budget (--max-run-mb, by default --max-input-mb's 4 GiB), measured as max RSS.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1

mkwheel() { python3 "$TRUELINE_ROOT/tests/lib/mkwheel.py" "$@"; }
for i in 1 2 3 4; do printf 'int f%d(int x) { return x + %d; }\n' $i $i > f$i.c; done
premise "fixtures: four -g shared libraries (gcc)" sh -c 'for i in 1 2 3 4; do gcc -g -shared -fPIC f$i.c -o libf$i.so || exit 1; done'

# --- an overlapping-member zip: many central entries, one deflate stream -----------------------------------
OW=overlap-1.0-py3-none-manylinux_2_17_x86_64.whl
python3 "$TRUELINE_ROOT/tests/lib/overlap_zip.py" $OW 30 libf1.so 30
# the oracle: python's zipfile, as pip reads the wheel, gets every member in full out of a few KiB
python3 - $OW > oracle.txt <<'PY'
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
n = z.namelist()
print(len(n), sum(len(z.read(m)) for m in n[:2]) // os.path.getsize(sys.argv[1]))
PY
read -r members ratio < oracle.txt
premise "fixture: zipfile reads 30 members, two of them over 1032x the zip's size ($members, ${ratio}x)" \
  sh -c "[ '$members' = 30 ] && [ '$ratio' -gt 1032 ]"
start=$(date +%s)
timeout -k 5 120 trueline-check -j1 --timeout 2 $OW > out 2> err; rc=$?
took=$(( $(date +%s) - start ))
# (refused whole where the central directory is compared with the local headers, whose overlap it names;
# otherwise each member past the bound of the bytes they share is named)
exit_was "overlapping members: exit 2, not clean" 2 $rc out "decompression bomb|time limit|overlap"
contains "... an error naming the package (and a member)" out "^$OW(!pkg/m0[0-9]*\.so)?: error: cannot read: .*(decompression bomb|time limit|overlap)"
contains "... what is past the bound is unreadable" out "^[0-9]+ file\(s\) checked: .* [1-9][0-9]* unreadable"
check "... within the time limit's reach (${took} s)" [ "$took" -le 10 ]

# the same with the bytes stored as they are (method 0): a stored member gives 1 byte per byte, so two of them
# from one stretch of the zip are already one too many
OS=overlapstored-1.0-py3-none-manylinux_2_17_x86_64.whl
python3 "$TRUELINE_ROOT/tests/lib/overlap_zip.py" $OS 20 libf1.so 1 stored
python3 - $OS > oracle.txt <<'PY'
import os, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
print(sum(z.getinfo(m).file_size for m in z.namelist()[:2]) > os.path.getsize(sys.argv[1]))
PY
premise "fixture: zipfile reads two stored members holding more than the whole zip" grep -qx True oracle.txt
trueline-check -j1 $OS > out 2> err; rc=$?
exit_was "overlapping stored members: exit 2" 2 $rc out "decompression bomb|overlap"
contains "... the member past the 1:1 bound is named (or the overlap)" out "^$OS(!pkg/m0001\.so: error: cannot read: .*\(1:1\): members sharing their bytes|: error: cannot read: .*overlap)"
# an honest zip mixing codecs: a bzip2 member at about 3000:1 (within bzip2's bound), then a deflate one; the
# members together are held to the highest ratio of their codecs, so the second is not taken for a bomb
python3 - <<'PY'
import zipfile
so = open('libf1.so', 'rb').read()
with zipfile.ZipFile('mixed-1.0-py3-none-manylinux_2_17_x86_64.whl', 'w') as z:
    z.writestr(zipfile.ZipInfo('pkg/libzeros.so'), so + bytes(12 << 20), compress_type=zipfile.ZIP_BZIP2)
    z.writestr(zipfile.ZipInfo('pkg/libf1.so'), so, compress_type=zipfile.ZIP_DEFLATED)
PY
trueline-check -j1 mixed-1.0-py3-none-manylinux_2_17_x86_64.whl > out 2> err; rc=$?
exit_was "a zip mixing bzip2 and deflate members: both read (exit 0)" 0 $rc out "error"
contains "... both members checked" out "^2 file\(s\) checked: .* 0 unreadable"

# --- --timeout bounds a package with its members -----------------------------------------------------------
SW=slow-1.0-py3-none-manylinux_2_17_x86_64.whl
mkwheel $SW slow/libf1.so=libf1.so slow/libf2.so=libf2.so slow/libf3.so=libf3.so slow/libf4.so=libf4.so
start=$(date +%s)
# each member spins until its deadline (checker/load.c's TRUELINE_TEST_STALL): per member, 4 x 2 s
TRUELINE_TEST_STALL=poll:slow/ timeout -k 5 60 trueline-check -j1 --timeout 2 $SW libf4.so > out 2> err; rc=$?
took=$(( $(date +%s) - start ))
exit_was "members past the package's deadline: exit 2" 2 $rc out "time limit"
contains "... the member is named with the limit" out "^$SW!slow/libf1\.so: error: cannot read: time limit of 2 s exceeded"
contains "... the members after it are refused too" out "^$SW!slow/libf4\.so: error: cannot read: time limit of 2 s exceeded"
check "... one limit for the package, not one per member (${took} s for 4 members of 2 s)" [ "$took" -lt 6 ]
lacks "... the other input is still read" out "^libf4\.so: error" "error: cannot read: time limit"

# --- a ratio bound for every codec ---------------------------------------------------------------------------
head -c 50331648 /dev/zero > zeros
cat libf2.so zeros > padded.so
python3 "$TRUELINE_ROOT/tests/lib/mkconda.py" bomb-1.0-0.tar.bz2 lib/libpad.so=padded.so
python3 - > zips.txt <<'PY'
import os, tarfile, zipfile
# the oracle: python's own readers say what each member holds against the package's size
t = tarfile.open("bomb-1.0-0.tar.bz2")
m = t.getmember("lib/libpad.so")
print("bz2", m.size // os.path.getsize("bomb-1.0-0.tar.bz2"))
# (xz and lzma are bounded too, but near their format's own ratio: zeros cannot pass it)
for name, method in (("bzip2", zipfile.ZIP_BZIP2),):
    w = "z%s-1.0-py3-none-manylinux_2_17_x86_64.whl" % name
    with zipfile.ZipFile(w, "w", method) as z:
        z.write("padded.so", "pkg/libpad.so")
    print(name, zipfile.ZipFile(w).getinfo("pkg/libpad.so").file_size // os.path.getsize(w))
PY
while read -r codec r; do
  case $codec in bz2) f=bomb-1.0-0.tar.bz2 label=bzip2;; *) f=z$codec-1.0-py3-none-manylinux_2_17_x86_64.whl label=$codec;; esac
  premise "fixture $f: its member is over 8192x the package's size (${r}x)" [ "$r" -gt 8192 ]
  trueline-check $f > out 2> err; rc=$?
  exit_was "$label member past its ratio: exit 2" 2 $rc out "decompression bomb"
  contains "... an error naming the member and the codec" out "^$f(![a-z]+/libpad\.so)?: error: cannot read: .*\($label, [0-9]+:1\): a decompression bomb"
done < zips.txt
# the same codecs on an honest member: read, no bound in the way
python3 "$TRUELINE_ROOT/tests/lib/mkconda.py" fine-1.0-0.tar.bz2 lib/libf3.so=libf3.so
python3 -c 'import zipfile; zipfile.ZipFile("fine-1.0-py3-none-manylinux_2_17_x86_64.whl", "w", zipfile.ZIP_BZIP2).write("libf3.so", "pkg/libf3.so")
zipfile.ZipFile("finx-1.0-py3-none-manylinux_2_17_x86_64.whl", "w", zipfile.ZIP_LZMA).write("libf3.so", "pkg/libf3.so")'
trueline-check fine-1.0-0.tar.bz2 fine-1.0-py3-none-manylinux_2_17_x86_64.whl finx-1.0-py3-none-manylinux_2_17_x86_64.whl \
  > out 2> err; rc=$?
exit_was "honest bzip2 and lzma members: read (exit 0)" 0 $rc out "error"
contains "... all three members checked" out "^3 file\(s\) checked: .* 0 unreadable"

# --- one memory budget for the run, shared by the -j workers ---------------------------------------------------
head -c 41943040 /dev/zero > zeros40
for i in 1 2 3; do
  cat libf$i.so zeros40 > big$i.so
  mkwheel big$i-1.0-py3-none-manylinux_2_17_x86_64.whl big/libbig$i.so=big$i.so
done
BIG="big1-1.0-py3-none-manylinux_2_17_x86_64.whl big2-1.0-py3-none-manylinux_2_17_x86_64.whl big3-1.0-py3-none-manylinux_2_17_x86_64.whl"
# each member's 40 MiB stays on the heap while its load waits 3 s (TRUELINE_TEST_STALL=wait): three workers
# would hold 120 MiB at once; a 100 MiB budget lets two of them
maxrss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
if [ -x /usr/bin/time ] && /usr/bin/time -v true 2>&1 | grep -q "Maximum resident"; then
  TRUELINE_TEST_STALL=wait:big/ /usr/bin/time -v trueline-check -j1 --max-input-mb 100 $BIG > out1 2> time1; rc1=$?
  TRUELINE_TEST_STALL=wait:big/ /usr/bin/time -v trueline-check -j3 --max-input-mb 100 $BIG > out3 2> time3; rc3=$?
  r1=$(maxrss time1); r3=$(maxrss time3)
  premise "fixture: -j1 reads the three members (exit $rc1, max RSS ${r1} KiB)" sh -c "[ $rc1 -eq 0 ] && [ '${r1:-0}' -gt 40960 ]"
  exit_was "-j3 under one 100 MiB budget: every input read (the third waits)" 0 $rc3 out3 "error"
  check "-j3 holds at most two 40 MiB members at once (max RSS ${r3} KiB, -j1 ${r1} KiB)" \
    [ "${r3:-999999999}" -lt $(( ${r1:-0} + 61440 )) ]
  check "-j3's report is -j1's" same_bytes out1 out3
else
  skip "max RSS under -j3: /usr/bin/time -v (GNU time) not found"
fi
TRUELINE_TEST_STALL=wait:big/ trueline-check -j3 --max-input-mb 100 --max-run-mb 200 $BIG > out3b 2>&1; rc=$?
exit_was "--max-run-mb raises the run's budget (exit 0)" 0 $rc out3b "error"
# Two inputs that each hold part of an 11 MiB run budget (a 4.9 MiB member) and each want more (.debug_info,
# zlib, over 2 MiB): the first waits for the second, which gives way and is read again alone once the first is
# done. TRUELINE_TEST_STALL=wait pauses the second 3 s after each mapping, so being read twice shows in the time.
python3 - "$T/bigdbg.c" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(25000):
        f.write('struct s%d { int a%d; long b%d; char c%d[3]; } v%d;\n' % (i, i, i, i, i))
PY
if gcc -g -c bigdbg.c -o bigdbg.o && objcopy --compress-debug-sections=zlib-gabi bigdbg.o bigdbgz.o; then
  AW=adefer-1.0-py3-none-manylinux_2_17_x86_64.whl BW=bdefer-1.0-py3-none-manylinux_2_17_x86_64.whl
  mkwheel $AW a/big.o=bigdbgz.o; mkwheel $BW b/big.o=bigdbgz.o
  size=$(stat -c %s bigdbgz.o)
  info=$(printf '%d' "0x$(readelf -S -W bigdbg.o | sed -n 's/.*\] \.debug_info  *PROGBITS  *[0-9a-f]*  *[0-9a-f]*  *\([0-9a-f]*\).*/\1/p')")
  # two members fit in 11 MiB, two members and one .debug_info do not, one member and its .debug_info do
  premise "fixture: 2 x $size + $info bytes over 11 MiB, $size + $info within it" \
    sh -c "[ $((2 * size)) -le 11534336 ] && [ $((2 * size + info)) -gt 11534336 ] && [ $((size + info)) -le 11534336 ]"
  trueline-check -j1 --max-input-mb 11 $AW $BW > d1 2>&1; rc1=$?
  start=$(date +%s)
  TRUELINE_TEST_STALL=wait:bdefer timeout -k 5 60 trueline-check -j2 --max-input-mb 11 $AW $BW > d2 2>&1; rc=$?
  took=$(( $(date +%s) - start ))
  exit_was "two inputs wanting more than the run's budget at once: both read, no deadlock (-j1 gave $rc1)" 0 $rc d2 "error"
  check "... the report is -j1's" same_bytes d1 d2
  check "... the one that gave way was read again, alone (${took} s: two 3 s pauses)" [ "$took" -ge 6 ]
else
  skip "an input giving way: gcc or objcopy cannot build the compressed-debug object"
fi
trueline-check --max-run-mb 10 big1-1.0-py3-none-manylinux_2_17_x86_64.whl > out 2> err; rc=$?
exit_was "an input over the run's budget: exit 2" 2 $rc out "MiB"
contains "... named with the run's limit and its option" out "^big1-1\.0-py3-none-manylinux_2_17_x86_64\.whl!big/libbig1\.so: error: cannot read: .*(limit|bound) of 10 MiB \(--max-run-mb\)"
expect_rc "--max-run-mb 0 is a usage error" 2 trueline-check --max-run-mb 0 libf1.so
