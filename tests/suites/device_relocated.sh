#!/usr/bin/env bash
# Symbolization on images relocated by the CUDA driver (taken from a real GPU core dump in tests/data/coredumps,
# made on an H200): symbols, section addresses and line rows hold device addresses there, and the PC form
# must resolve them to kernel+offset with the full inline chain (oob.cu: load_it inlined in twice in bad_kernel).
. "$(dirname "$0")/../lib/harness.sh"
core=$TRUELINE_ROOT/tests/data/coredumps/oob.core.xz
[ -f "$core" ] || { skip "no $core"; exit 0; }
xz -dc "$core" >"$T/oob.core" || { fail "cannot decompress $core"; exit 0; }
python3 - "$T/oob.core" "$T" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", d, 0x28); n, = struct.unpack_from("<H", d, 0x3C); si, = struct.unpack_from("<H", d, 0x3E)
h = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * 64) for i in range(n)]
s = h[si][4]
for i, x in enumerate(h):
    if d[s + x[0]:].split(b"\0")[0].startswith(b".cudbg.relfimg."):
        open("%s/img%03d.cubin" % (sys.argv[2], i), "wb").write(d[x[4]:x[4] + x[5]])
PY
pc=0x7f39f77a0090 # the exception PC cuda-gdb printed for this core (tests/data/coredumps/oob.cuda-gdb.txt)
answers=0
for img in "$T"/img*.cubin; do
  if trueline-check --symbolize "$img" "$pc" >"$img.txt" 2>/dev/null; then answers=$((answers + 1)); cp "$img.txt" "$T/hit.txt"; fi
done
check "exactly one relocated image holds PC $pc ($answers)" test "$answers" -eq 1
contains "PC resolves to kernel+offset" "$T/hit.txt" '^_Z10bad_kernelPKfPfl\+0x90 '
contains "innermost frame: oob.cu:2 in load_it" "$T/hit.txt" '#0 .*/oob\.cu:2 in load_it\(float const\*, long\) \(inlined\)'
contains "middle frame: oob.cu:3 in twice" "$T/hit.txt" '#1 .*/oob\.cu:3 in twice\(float const\*, long\) \(inlined\)'
contains "outermost frame: oob.cu:6 in bad_kernel" "$T/hit.txt" '#2 .*/oob\.cu:6 in bad_kernel\(float const\*, float\*, long\)$'
hit=$(grep -l '^_Z10bad_kernel' "$T"/img*.txt | head -1)
trueline-check --symbolize "${hit%.txt}" _Z10bad_kernelPKfPfl+0x90 >"$T/byname.txt" 2>&1
check "kernel+offset gives the same chain as the PC in a relocated image" same_bytes "$T/byname.txt" "$T/hit.txt"
