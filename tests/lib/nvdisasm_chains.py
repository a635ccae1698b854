#!/usr/bin/env python3
"""Turns `nvdisasm -gi CUBIN` output into one line per annotated instruction:
    FUNCTION OFFSET FILE:LINE[,FILE:LINE...]   (innermost first)
nvdisasm prints, before an instruction whose line row changes, one `//## File "F", line N inlined at "G", line M`
line per inlined level and a last `//## File "F", line N` for the function itself: together, the inline chain.
"""
import re
import sys

func, block = None, []
for line in sys.stdin:
    m = re.match(r"\s*\.text\.(\S+):\s*$", line)
    if m:
        func, block = m.group(1), []
        continue
    m = re.match(r'\s*//## File "([^"]*)", line (\d+)', line)
    if m:
        block.append("%s:%s" % (m.group(1), m.group(2)))
        continue
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+\S", line)
    if m and func and block:
        print(func, "0x%x" % int(m.group(1), 16), ",".join(block))
        block = []
