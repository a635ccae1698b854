#!/usr/bin/env bash
# The device-image cache: a second audit of the same library takes its images' summaries from the cache and
# reports exactly what a run without the cache reports; anything that could make a stored summary wrong (other
# bytes, another trueline-check, other bounds, a damaged cache file) is a miss; settings and size cap.
. "$(dirname "$0")/../lib/harness.sh"
have_nvcc || { skip "nvcc not found (CUDA_HOME / PATH)"; exit 0; }
D=$TRUELINE_ROOT/tests/data/device
TC=trueline-check
cd "$T" || exit 1
cp "$D"/kern.cu "$D"/kern_b.cu .
# --compress-mode=size: cubins and PTX zstd-compressed, as NVIDIA's libraries ship them
nvcc -shared -Xcompiler -fPIC --compress-mode=size -lineinfo -gencode arch=compute_90,code=sm_90 \
  -gencode arch=compute_90,code=compute_90 kern.cu kern_b.cu -o libk.so >nvcc.log 2>&1 \
  || { fail "premise: nvcc builds libk.so ($(head -3 nvcc.log))"; exit 0; }
nvcc -shared -Xcompiler -fPIC --compress-mode=size -gencode arch=compute_90,code=sm_90 kern.cu kern_b.cu \
  -o libk_plain.so >>nvcc.log 2>&1 || { fail "premise: nvcc builds libk_plain.so"; exit 0; }
C=$T/cache
audit() { # OUT ARGS...: JSON report to OUT.json, stderr to OUT.err
  local out=$1; shift
  $TC --verbose --format json "$@" >"$out.json" 2>"$out.err"; echo $? >"$out.rc"
}
# same_report A B: A.json is a report of a library (so that two empty outputs never agree) and B.json is the same
same_report() { grep -q '"path": "libk' "$1.json" && cmp -s "$1.json" "$2.json"; }
stat_line() { grep -o '[0-9]* hits, [0-9]* misses, [0-9]* stored' "$1.err"; }
entries() { find "$C" -type f ! -name '*.tmp' 2>/dev/null | wc -l; }

audit nocache --no-image-cache libk.so
audit cold --image-cache "$C" libk.so
audit warm --image-cache "$C" libk.so
check "premise: the library has compressed device images" grep -q '"codec": *"zstd"' nocache.json
check "a first run stores one entry for the library" sh -c "[ '$(stat_line cold)' = '0 hits, 1 misses, 1 stored' ] && [ $(entries) -eq 1 ]"
check "a second run takes it from the cache" sh -c "[ '$(stat_line warm)' = '1 hits, 0 misses, 0 stored' ]"
check "a hit reports exactly what a run without the cache reports" same_report nocache warm
check "and exits the same" sh -c "[ \$(cat nocache.rc) = \$(cat warm.rc) ] && grep -q '\"path\": \"libk.so\"' warm.json"
check "no cache line without a cache" sh -c "! grep -q 'image cache' nocache.err && grep -q '\"path\": \"libk.so\"' nocache.json"
# the inventory from the cache agrees with NVIDIA's own tool on the same file
CUOBJDUMP=$(find_pypi_tool cuobjdump)
if [ -n "$CUOBJDUMP" ]; then
  $TC --list --image-cache "$C" --verbose libk.so >list.txt 2>list.err
  n_nv=$("$CUOBJDUMP" -lelf libk.so 2>/dev/null | grep -c 'ELF file')
  n_tl=$(grep -c ' cubin ' list.txt)
  check "--list from the cache: as many cubins as cuobjdump -lelf ($n_nv)" sh -c "[ $n_nv -gt 0 ] && [ $n_tl -eq $n_nv ] && grep -q '1 hits' list.err"
else
  skip "cuobjdump (nvidia-cuda-cuobjdump from PyPI) not installed"
fi

# other bytes: a library built without -lineinfo is a miss, and its own findings are reported
audit plain --image-cache "$C" libk_plain.so
audit plain_nc --no-image-cache libk_plain.so
check "another library is a miss" sh -c "[ '$(stat_line plain)' = '0 hits, 1 misses, 1 stored' ]"
check "which reports what it is (no device line info)" sh -c "cmp -s plain.json plain_nc.json && ! cmp -s plain.json warm.json"

# another trueline-check binary (a rebuild, an upgrade) never reads this one's summaries
cp "$(command -v $TC)" tc2 && printf '\0' >>tc2
./tc2 --verbose --format json --image-cache "$C" libk.so >other.json 2>other.err
check "another trueline-check binary misses" grep -q '0 hits, 1 misses' other.err

# other bounds: a summary stored under the default bounds does not hide what a tighter one refuses
audit tight_nc --no-image-cache --max-input-mb 1 libk.so
audit tight --image-cache "$C" --max-input-mb 1 libk.so
check "a tighter --max-input-mb is a miss, with the same report as without the cache" sh -c "grep -q ' misses' tight.err && ! grep -q '[1-9][0-9]* hits' tight.err && cmp -s tight.json tight_nc.json"

# a damaged cache file is a miss, and is replaced
for e in $(find "$C" -type f ! -name '*.tmp'); do
  head -c 100 "$e" >"$e.cut" && mv "$e.cut" "$e"
done
audit damaged --image-cache "$C" libk.so
check "a truncated cache file is a miss, and the report is unchanged" sh -c "grep -q '0 hits, 1 misses, 1 stored' damaged.err && cmp -s damaged.json nocache.json"
audit repaired --image-cache "$C" libk.so
check "and the entry was written again" grep -q '1 hits' repaired.err

# settings: [audit] image_cache = off; a bad size; a misspelt key; a directory that cannot be made
mkdir -p cfg && printf '[audit]\nimage_cache = off\n' >cfg/off.ini
audit off --config cfg/off.ini libk.so
check "[audit] image_cache = off: no cache, same report" sh -c "! grep -q 'image cache' off.err && grep -q '\"path\": \"libk.so\"' off.json && cmp -s off.json nocache.json"
printf '[audit]\nimage_cache = %s/cfgdir\n' "$T" >cfg/dir.ini
audit cfgdir --config cfg/dir.ini libk.so
check "[audit] image_cache = DIR is used" sh -c "grep -q 'image cache $T/cfgdir' cfgdir.err && [ -n \"\$(find $T/cfgdir -type f)\" ]"
audit cliwins --config cfg/off.ini --image-cache "$C" libk.so
check "--image-cache overrides the configuration" grep -q "image cache $C: 1 hits" cliwins.err
printf '[audit]\nimage_cache_max_mb = 0\n' >cfg/bad.ini
audit bad --config cfg/bad.ini libk.so
check "image_cache_max_mb = 0 is a usage error naming the file (exit 2)" sh -c "[ \$(cat bad.rc) = 2 ] && grep -q 'bad.ini' bad.err && grep -q 'image_cache_max_mb' bad.err"
printf '[audit]\nimage_cahce = off\n' >cfg/typo.ini
audit typo --config cfg/typo.ini libk.so
check "a misspelt [audit] key is a usage error (exit 2)" sh -c "[ \$(cat typo.rc) = 2 ] && grep -q 'image_cahce' typo.err"
: >notadir
audit unusable --image-cache "$T/notadir/sub" libk.so
check "a cache directory that cannot be made: the audit runs without it, same report and exit" sh -c "grep -q '\"path\": \"libk.so\"' unusable.json && cmp -s unusable.json nocache.json && [ \$(cat unusable.rc) = \$(cat nocache.rc) ] && ! grep -q 'image cache' unusable.err"

# the size cap: old entries go first until the cache fits
C2=$T/capped
mkdir -p "$C2/aa" && head -c 1500000 /dev/zero >"$C2/aa/$(printf '%030d' 1)" && touch -d '2020-01-01' "$C2/aa/$(printf '%030d' 1)"
printf '[audit]\nimage_cache_max_mb = 1\n' >cfg/cap.ini
audit capped --config cfg/cap.ini --image-cache "$C2" libk.so
check "over the cap, the oldest entry is removed and the new one kept" sh -c "[ ! -e '$C2/aa/$(printf '%030d' 1)' ] && [ \$(find '$C2' -type f | wc -l) -eq 1 ]"

# damaged device images are never stored: they must be found, and said, again on the next run
python3 - libk.so broken.so <<'EOF'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.find(b'\x28\xb5\x2f\xfd')  # the first zstd frame of a compressed image
d[i + 40:i + 240] = b'\xff' * 200
open(sys.argv[2], 'wb').write(d)
EOF
audit broken --image-cache "$T/c3" broken.so
audit broken2 --image-cache "$T/c3" broken.so
check "an input with an undecodable image is not stored, and the error is reported again" sh -c "grep -q '0 stored' broken.err && grep -q '0 hits' broken2.err && grep -q 'zstd' broken2.json"
