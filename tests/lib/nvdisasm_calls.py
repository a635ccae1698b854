#!/usr/bin/env python3
"""Every CALL instruction nvdisasm shows in a cubin, one per line, in the form the sass_calls unit binary's
`--calls` mode prints: `<section> 0x<offset> <REL|ABS> <callee symbol | indirect>`.

Usage: nvdisasm_calls.py NVDISASM CUBIN
A call through a register (`CALL.REL.NOINC R8 \`(base)`, `CALL.ABS.NOINC R2`) is `indirect`: its target is in the
register, nvdisasm's backquoted symbol is only the base it is relative to."""
import re, subprocess, sys

nvdisasm, cubin = sys.argv[1], sys.argv[2]
out = subprocess.run([nvdisasm, '-c', cubin], capture_output=True, text=True)
if out.returncode != 0:
    sys.stderr.write(out.stderr)
    sys.exit(2)
section = None
for line in out.stdout.splitlines():
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
    print('%s 0x%04x %s %s' % (section, int(m.group(1), 16), m.group(2), target))
