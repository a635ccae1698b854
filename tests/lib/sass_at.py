#!/usr/bin/env python3
"""Reads `nvdisasm -c CUBIN` on stdin and prints the mnemonic of the instruction at SYMBOL + OFFSET, then the one
16 bytes before it: `AT BEFORE` ("-" where there is none); on a second line, the whole instruction at it.

usage: nvdisasm -c X.cubin | sass_at.py SYMBOL OFFSET
SYMBOL is a label nvdisasm prints (a kernel, or a `$kernel$function` clone), OFFSET in bytes from it (decimal or
0x...). nvdisasm numbers instructions by their offset in the code section, and a label stands just before the
first instruction it names; so SYMBOL + OFFSET is that instruction's number plus OFFSET, in the same section."""
import re
import sys

want, off = sys.argv[1], int(sys.argv[2], 0)
section, label_at, pending, insns, text = None, None, [], {}, {}
for line in sys.stdin:
    m = re.match(r'\s*(\.text\.\S+):\s*$', line)
    if m:
        section = m.group(1)  # a kernel's own label comes just before its section's
        continue
    m = re.match(r'\s*(\S+):\s*$', line)
    if m:
        pending.append(m.group(1))
        continue
    m = re.match(r'\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)', line)
    if m and section:
        at = int(m.group(1), 16)
        insns[(section, at)] = m.group(2)
        text[(section, at)] = line.split('*/', 1)[1].strip()
        if want in pending:
            label_at = (section, at)
        pending = []
if label_at is None:
    print('no label %s in the disassembly' % want, file=sys.stderr)
    sys.exit(2)
sec, base = label_at
print(insns.get((sec, base + off), '-'), insns.get((sec, base + off - 16), '-'))
print(text.get((sec, base + off), '-'))
