#!/usr/bin/env bash
# The package verdict on real wheels from PyPI (fetched with pip into a cache; SKIP offline): numpy, one CUDA
# wheel (nvidia-nvjpeg-cu12: one library, 165 cubins, 10 PTX images), and bitsandbytes (CUDA libraries that need
# libgomp.so.1, which no manylinux tag allows: auditwheel calls it linux_x86_64). Oracles: `auditwheel show` for the
# platform tag; cuobjdump -lelf / -lptx / -elf for each library's cubins, PTX images, kernels and archs;
# readelf for the host debug sections (stripped: none).
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1
CACHE=${TRUELINE_TEST_CACHE:-$HOME/.cache/trueline-tests}/wheels
mkdir -p "$CACHE" 2>/dev/null || CACHE=$T/wheels
mkdir -p "$CACHE"
# fetch SPEC GLOB: the wheel in the cache, downloaded once; empty when pip cannot get it
fetch() {
  local w
  w=$(ls "$CACHE"/$2 2>/dev/null | head -1)
  if [ -z "$w" ]; then
    timeout 120 pip download --only-binary=:all: --no-deps "$1" -d "$CACHE" -q > /dev/null 2>&1
    w=$(ls "$CACHE"/$2 2>/dev/null | head -1)
  fi
  echo "$w"
}
# field REPORT.json KEY...: a value of the first package's verdict, by path of keys
field() { python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["packages"][0]["verdict"]
for k in sys.argv[2:]: v = v[k]
print(v)' "$@"; }
# aw_tag WHEEL: the tag auditwheel show calls the wheel consistent with, without the arch
aw_tag() { timeout 300 auditwheel show "$1" 2>/dev/null | tr '\n' ' ' |
  sed -n 's/.*consistent with the following platform tag: *"\([a-z0-9_]*\)_x86_64".*/\1/p'; }

NP=$(fetch numpy==2.1.3 'numpy-2.1.3-*manylinux*x86_64*.whl')
NJ=$(fetch nvidia-nvjpeg-cu12==12.4.0.76 'nvidia_nvjpeg_cu12-12.4.0.76-*x86_64*.whl')
# a wheel whose libraries need libgomp.so.1 and others it does not ship: auditwheel's linux_x86_64
BB=$(fetch bitsandbytes==0.50.2 'bitsandbytes-0.50.2-*x86_64*.whl')
if [ -z "$NP" ] && [ -z "$NJ" ]; then
  skip "real wheels: offline (pip download failed)"
  exit 0
fi

for W in $NP $NJ $BB; do
  n=$(basename "$W")
  trueline-check --profile release --format json --output "$n.json" "$W" 2> err.txt
  trueline-check --profile release "$W" > "$n.txt" 2>&1
  if have auditwheel && tag=$(aw_tag "$W") && [ -n "$tag" ]; then
    same "$n: the tag the files satisfy is auditwheel's ($tag)" "$tag" "$(field "$n.json" platform satisfied)"
  else
    skip "$n: no auditwheel verdict"
  fi
  contains "$n: the closing table has its row" "$n.txt" "^  $(printf '%s' "$n" | sed 's/\./\\./g') "
  # stripped shipped libraries: readelf finds no debug sections, the verdict counts no host line-info bytes
  python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for i in z.infolist():
    if z.open(i).read(4) == b"\x7fELF": open("m_" + i.filename.replace("/", "_"), "wb").write(z.read(i))' "$W"
  dbg=$(for m in m_*; do readelf -SW "$m" 2>/dev/null | grep -c ' \.debug_'; done | paste -sd+ | bc)
  if [ "$dbg" = 0 ]; then
    same "$n: no .debug_* section in any member (readelf), none counted" 0 "$(field "$n.json" total line_info_bytes host_debug)"
  fi
  rm -f m_*
done

# The CUDA wheel's device inventory against cuobjdump, library by library.
CUOBJDUMP=$(find_pypi_tool cuobjdump)
[ -n "$CUOBJDUMP" ] || CUOBJDUMP=$(command -v cuobjdump)
if [ -z "$NJ" ] || [ -z "$CUOBJDUMP" ]; then
  skip "CUDA wheel inventory: no wheel or no cuobjdump"
  exit 0
fi
n=$(basename "$NJ")
mkdir lib && (cd lib && python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for i in z.infolist():
    if i.filename.endswith(".so") or ".so." in i.filename: z.extract(i)' "$NJ")
while read -r so; do
  rel=${so#lib/}
  "$CUOBJDUMP" -elf "$so" > elf.txt 2>/dev/null
  # cubins: those with a device function (FUNC), as the verdict and line-tables count them
  want="$(awk '/^Fatbin elf code:/ { if (f) n++; f = 0 } / FUNC / { f = 1 } END { if (f) n++; print n + 0 }' elf.txt) $("$CUOBJDUMP" -lptx "$so" 2>/dev/null | grep -c '^PTX file') $(grep -cE '\bFUNC\b.*\bENTRY\b' elf.txt) $(grep -cE 'PROGBITS.* \.debug_line$' elf.txt)"
  got=$(python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["packages"][0]["verdict"]["files"]:
    if f["path"].endswith("!" + sys.argv[2]): print(f["cubins"], f["ptx"], f["kernels"], f["cubins_with_lines"])' "$n.json" "$rel")
  same "$rel: cubins, PTX images, kernels, cubins with .debug_line as cuobjdump lists them ($want)" "$want" "$got"
done < <(find lib -type f | sort)
sass=$(find lib -type f -exec "$CUOBJDUMP" -lelf {} \; 2>/dev/null | grep -oE 'sm_[0-9]+[af]?' | sort -t_ -k2 -n -u | tr '\n' ' ' | sed 's/ $//')
ptx=$(find lib -type f -exec "$CUOBJDUMP" -lptx {} \; 2>/dev/null | grep -oE 'sm_[0-9]+[af]?' | sed 's/sm_/compute_/' | sort -t_ -k2 -n -u | tr '\n' ' ' | sed 's/ $//')
same "$n: SASS archs as cuobjdump lists them" "$sass" "$(field "$n.json" archs sass)"
same "$n: PTX archs as cuobjdump lists them" "$ptx" "$(field "$n.json" archs ptx)"
contains "$n, release profile: its kernels without line info are a line-tables error" "$n.txt" \
  'libnvjpeg\.so\.12: error \[line-tables\] device code has no line information'
lacks "$n, release profile: the stripped host code is no finding" "$n.txt" 'no \.debug_line' "^package "
