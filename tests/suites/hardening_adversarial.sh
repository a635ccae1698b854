#!/usr/bin/env bash
# The checker items of the third adversarial round: inputs built to pass while something was never read.
# Each part states the shape, an independent oracle where there is one (readelf), and what trueline-check must say.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1

# Overwrites the bytes of one section of an ELF file (from its 5th byte with 'ff', or all of it with 'zero'),
# located by readelf, not by our reader.
mutate_section() { # FILE SECTION MODE OUT
    python3 - "$@" <<'PY'
import re, subprocess, sys
f, name, mode, out = sys.argv[1:5]
for l in subprocess.check_output(['readelf', '-SW', f], text=True).splitlines():
    m = re.search(r'\]\s+' + re.escape(name) + r'\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)', l)
    if m:
        off, size = int(m.group(1), 16), int(m.group(2), 16)
        break
else:
    sys.exit('no section ' + name)
b = bytearray(open(f, 'rb').read())
if mode == 'zero':
    b[off:off + size] = bytes(size)
else:
    b[off + 4:off + size] = b'\xff' * (size - 4)
open(out, 'wb').write(b)
PY
}

# --- a zero-filled or corrupt .debug_info is an unreadable input (exit 2), as readelf calls it corrupt ---
cat > dw.c <<'C'
int f(int x) { return x * 2; }
int g(int x) { return f(x) + 1; }
C
premise "gcc -g builds dw.o" gcc -g -O0 -c dw.c -o dw.o
premise "readelf reads dw.o's .debug_info without a complaint" sh -c '[ -z "$(readelf --debug-dump=info dw.o 2>&1 >/dev/null)" ]'
for mode in zero ff; do
    premise "dw_$mode.o: .debug_info overwritten ($mode)" mutate_section dw.o .debug_info $mode dw_$mode.o
    premise "... readelf reports it corrupt" sh -c "[ -n \"\$(readelf --debug-dump=info dw_$mode.o 2>&1 >/dev/null)\" ]"
    trueline-check dw_$mode.o dw.o >dw_$mode.txt 2>&1; rc=$?
    exit_was "a $mode-filled .debug_info: exit 2" 2 $rc dw_$mode.txt 'file\(s\) checked'
    contains "... dw_$mode.o named unreadable, saying .debug_info is malformed" dw_$mode.txt \
        '^dw_'$mode'.o: error: cannot read: malformed .debug_info'
    contains "... the intact dw.o is still checked" dw_$mode.txt '^2 file\(s\) checked: .* 1 unreadable'
done
trueline-check dw.o >dw_ok.txt 2>&1; rc=$?
check "the intact object reads with 0 unreadable (exit $rc)" sh -c "[ $rc -le 1 ] && grep -q ' 0 unreadable' dw_ok.txt"
