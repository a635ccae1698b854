#!/usr/bin/env python3
"""Every CALL instruction nvdisasm shows in a cubin, one per line, in the form the sass_calls unit binary's
`--calls` mode prints: `<section> 0x<address> <REL|ABS> <callee symbol | 0x<address> | indirect>`; a callee that
is a label inside a function (ptxas calls such internal subroutines too) is given by its address.

Usage: nvdisasm_calls.py NVDISASM CUBIN
A call through a register (`CALL.REL.NOINC R8 \`(base)`, `CALL.ABS.NOINC R2`) is `indirect`: its target is in the
register, nvdisasm's backquoted symbol is only the base it is relative to. Where a cubin has several local
symbols of one name (NCCL links 88 copies of __cuda_sm20_div_u64, each in its own section), nvdisasm makes the
names unique with a `__N` suffix; such a name is given as the symbol's own (readelf lists the real names)."""
import re, subprocess, sys

nvdisasm, cubin = sys.argv[1], sys.argv[2]
out = subprocess.run([nvdisasm, '-c', cubin], capture_output=True, text=True)
if out.returncode != 0:
    sys.stderr.write(out.stderr)
    sys.exit(2)
lines = out.stdout.splitlines()
syms = subprocess.run(['readelf', '-sW', cubin], capture_output=True, text=True).stdout
names = {f[7] for f in (l.split() for l in syms.splitlines()) if len(f) >= 8}
# labels: the address of the first instruction after each `.L_x_N:` line
labels, pending = {}, []
for line in lines:
    m = re.match(r'^(\.L\w+):', line)
    if m:
        pending.append(m.group(1))
        continue
    m = re.match(r'\s*/\*([0-9a-f]+)\*/', line)
    if m and pending:
        for p in pending:
            labels[p] = int(m.group(1), 16)
        pending = []
section = None
for line in lines:
    m = re.match(r'\s*\.section\s+([^,\s]+)', line)
    if m:
        section = m.group(1)
        continue
    m = re.match(r'\s*/\*([0-9a-f]+)\*/\s+(?:@!?U?P\w+\s+)?CALL\.(REL|ABS)\S*\s+(.*?)\s*;', line)
    if not m:
        continue
    operands = m.group(3)
    if re.match(r'(R\d+|RZ)\b', operands):
        target = 'indirect'
    else:
        t = re.search(r'`\(([^)]*)\)', operands)
        target = t.group(1) if t else '?'
        if target in labels:
            target = '0x%04x' % labels[target]
        elif target not in names and re.sub(r'__\d+$', '', target) in names:
            target = re.sub(r'__\d+$', '', target)
    print('%s 0x%04x %s %s' % (section, int(m.group(1), 16), m.group(2), target))
