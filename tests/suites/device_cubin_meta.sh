#!/usr/bin/env bash
# Cubin metadata for every producer: arch (with the arch-specific `a` / family `f` suffix) and CUDA toolkit
# release, compared with cuobjdump -elf and with values known for each file: real nvasm_internal and ptxas 12.9
# cubins from the flashinfer-cubin wheel (tests/data/device/flashinfer), cubins nvcc builds here for sm_90a,
# sm_100a, sm_100f and sm_103a, and the ABI 7 cubins inside the toolkit's libcublas (no notes; the release is in
# e_version). Then what depends on them: cuda-arch's `sass = sm_100a` and mixed-toolchain across releases.
source "$(dirname "$0")/../lib/harness.sh"
D=$TRUELINE_ROOT/tests/data/device/flashinfer
C=trueline-check
cd "$T" || exit 1
CUOBJDUMP=$(find_pypi_tool cuobjdump)

# "sm_100a 12.9" for the one cubin of a file, from trueline-check --list
tl_meta() {
  "$C" --list "$1" | awk 'NR == 2 { a = $2; c = ""; for (i = 3; i <= NF; i++) if ($i ~ /^cuda=/) c = substr($i, 6); print a, c }'
}
# "100a 12.9" from cuobjdump -elf's header line (ABI 7 cubins print toolkit=123 for 12.3)
co_meta() {
  "$CUOBJDUMP" -elf "$1" 2>/dev/null | grep -m1 -iE '^64-?bit elf' |
    sed -nE 's/.*sm=([0-9]+[af]?).*toolkit=([0-9.]+).*/\1 \2/p' |
    awk '{ t = $2; if (t !~ /\./) t = int(t / 10) "." t % 10; print $1, t }'
}
# trueline's arch as cuobjdump names it: cuobjdump shows no `f` (a family build leaves no mark in the ELF header)
as_co() { echo "$1" | sed -E 's/^sm_//; s/^([0-9]+)f /\1 /'; }

# The wheel's cubins: known values (cuobjdump 13.0 on these files, and the ptxas options for the `f` build)
while read -r f want; do
  got=$(tl_meta "$D/$f")
  check "$f: arch and toolkit '$want' (got '$got')" test "$got" = "$want"
done <<'E'
nvasm_sm100a.cubin sm_100a 12.9
nvasm_sm103a.cubin sm_103a 12.9
nvasm_sm100.cubin sm_100 12.9
ptxas129_sm100f.cubin sm_100f 12.9
E
check "the nvasm_internal cubins name their producer" \
  sh -c "$C --list '$D/nvasm_sm100a.cubin' | grep -q 'producer=\"nvasm_internal Cuda compilation tools, release 12.9'"

if [ -n "$CUOBJDUMP" ]; then
  for f in "$D"/*.cubin; do
    co=$(co_meta "$f"); tl=$(as_co "$(tl_meta "$f")")
    check "$(basename "$f"): cuobjdump says '$co', trueline '$tl'" sh -c "[ -n '$co' ] && [ '$co' = '$tl' ]"
  done
else
  skip "cuobjdump (nvidia-cuda-cuobjdump from PyPI) not installed"
fi

# nvcc-built cubins for the suffixed targets this nvcc knows
if have_nvcc; then
  printf '__global__ void k(float *p) { p[threadIdx.x] *= 2.0f; }\n' > k.cu
  rel=$(nvcc --version | sed -nE 's/.*release ([0-9]+\.[0-9]+).*/\1/p')
  known=$(nvcc --list-gpu-arch 2>/dev/null)
  for a in sm_90a sm_100a sm_100f sm_103a; do
    base=compute_$(echo "$a" | sed -E 's/^sm_([0-9]+).*/\1/')
    echo "$known" | grep -qx "$base" || { skip "nvcc has no $base"; continue; }
    if ! nvcc -cubin -arch="$a" -o "k_$a.cubin" k.cu 2>nvcc_$a.err; then skip "nvcc cannot build $a"; continue; fi
    got=$(tl_meta "k_$a.cubin")
    check "nvcc -arch=$a: trueline reads '$a $rel' (got '$got')" test "$got" = "$a $rel"
    if [ -n "$CUOBJDUMP" ]; then
      co=$(co_meta "k_$a.cubin"); tl=$(as_co "$got")
      check "nvcc -arch=$a: cuobjdump says '$co', trueline '$tl'" sh -c "[ -n '$co' ] && [ '$co' = '$tl' ]"
    fi
  done

  # cuda-arch: an nvasm_internal sm_100a cubin meets `sass = sm_100a`; its sm_100 sibling does not
  printf '[cuda-arch]\nsass = sm_100a\n' > a100.ini
  "$C" --no-color --config a100.ini --checks cuda-arch "$D/nvasm_sm100a.cubin" "$D/nvasm_sm100.cubin" >ca.txt 2>&1
  lacks "cuda-arch: sass = sm_100a met by the nvasm_internal sm_100a cubin" ca.txt 'nvasm_sm100a\.cubin: error' \
    '^2 file\(s\) checked'
  contains "cuda-arch: ... and not by the sm_100 one" ca.txt 'nvasm_sm100\.cubin: error \[cuda-arch\] cubin \(kernel [^)]+\) lacks SASS for sm_100a'

  # mixed-toolchain: an nvasm_internal 12.9 cubin next to one of this nvcc in one fatbin
  nvcc -cubin -arch=sm_90 -o k90.cubin k.cu &&
    fatbinary --create=mix.fatbin -64 --image3=kind=elf,sm=100,file="$D/nvasm_sm100a.cubin" \
      --image3=kind=elf,sm=90,file=k90.cubin 2>/dev/null
  if [ -s mix.fatbin ] && [ "$rel" != 12.9 ]; then
    "$C" --no-color --checks mixed-toolchain mix.fatbin >mt.txt 2>&1
    contains "mixed-toolchain: CUDA 12.9 (nvasm_internal) and $rel (nvcc) told apart" mt.txt \
      "device code from 2 CUDA toolkit releases: .*CUDA 12\\.9: 1 cubins.*CUDA $rel: 1 cubins|CUDA $rel: 1 cubins.*CUDA 12\\.9: 1 cubins"
  else
    skip "fatbinary could not pack the mixed fatbin"
  fi
else
  skip "nvcc not found: suffixed nvcc builds, cuda-arch and mixed-toolchain cases"
fi

# ABI 7 cubins (CUDA 12.x ptxas) carry their release only in e_version: the toolkit's libcublas has a few
LIB=${CUDA_HOME:+$CUDA_HOME/lib64/libcublas.so.13}
if [ -n "$CUOBJDUMP" ] && [ -n "$LIB" ] && [ -f "$LIB" ]; then
  mkdir x && "$C" --extract x "$LIB" >/dev/null 2>&1
  python3 - x >v7.txt <<'PY'
import os, struct, sys
for n in sorted(os.listdir(sys.argv[1])):
    with open(os.path.join(sys.argv[1], n), 'rb') as f:
        h = f.read(64)
    if n.endswith('.cubin') and len(h) == 64 and h[8] == 7:
        v = struct.unpack_from('<I', h, 0x14)[0]
        print(n, '%d.%d' % (v // 10, v % 10))
PY
  if [ -s v7.txt ]; then
    bad=0; n=0
    while read -r f ev; do
      n=$((n + 1)); co=$(co_meta "x/$f"); tl=$(as_co "$(tl_meta "x/$f")")
      [ -n "$co" ] && [ "$co" = "$tl" ] && [ "${tl#* }" = "$ev" ] || { bad=$((bad + 1)); echo "    | $f: cuobjdump '$co', trueline '$tl', e_version $ev"; }
    done <v7.txt
    check "$(basename "$LIB"): $n ABI 7 cubins, toolkit as cuobjdump and e_version say" test "$bad" = 0
  else
    skip "$(basename "$LIB") has no ABI 7 cubin"
  fi
  rm -rf x
else
  skip "cuobjdump or the toolkit's libcublas.so.13 missing: ABI 7 cubins"
fi
