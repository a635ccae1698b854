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
# damage inside a unit's entries, not its header: the first parameter's abbreviation code (found with readelf)
# becomes one the table lacks; readelf cannot read that entry, and the walk stops there
premise "dw_abbrev.o: the abbreviation code of f's first parameter made 127" python3 - <<'PY'
import re, subprocess
sec = [l for l in subprocess.check_output(['readelf', '-SW', 'dw.o'], text=True).splitlines() if re.search(r'\] \.debug_info ', l)][0]
off = int(sec.split(']')[1].split()[3], 16)
die = [l for l in subprocess.check_output(['readelf', '--debug-dump=info', 'dw.o'], text=True).splitlines()
       if 'DW_TAG_formal_parameter' in l][0]
at = int(re.search(r'<2><([0-9a-f]+)>', die).group(1), 16)
b = bytearray(open('dw.o', 'rb').read()); b[off + at] = 127; open('dw_abbrev.o', 'wb').write(b)
PY
premise "... readelf cannot find abbreviation 127" sh -c "readelf --debug-dump=info dw_abbrev.o 2>&1 >/dev/null | grep -Eq 'abbreviation (number )?127'"
trueline-check dw_abbrev.o dw.o >dw_abbrev.txt 2>&1; rc=$?
exit_was "an unknown abbreviation code inside a unit: exit 2" 2 $rc dw_abbrev.txt 'file\(s\) checked'
contains "... named unreadable, saying where" dw_abbrev.txt '^dw_abbrev\.o: error: cannot read: malformed \.debug_info: at the entry at offset 0x[0-9a-f]+, '
trueline-check dw.o >dw_ok.txt 2>&1; rc=$?
check "the intact object reads with 0 unreadable (exit $rc)" sh -c "[ $rc -le 1 ] && grep -q ' 0 unreadable' dw_ok.txt"

# --- --provenance checks the record's content binding, as --attest does: a tampered object is not genuine ---
premise "trueline-cc gcc stamps st.o" trueline-cc gcc -c dw.c -o st.o
premise "tampered.o: one byte of st.o's .text (located by readelf) flipped" python3 - <<'PY'
import re, subprocess
for l in subprocess.check_output(['readelf', '-SW', 'st.o'], text=True).splitlines():
    m = re.search(r'\]\s+\.text\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)\s+([0-9a-f]+)', l)
    if m and int(m.group(2), 16):
        off = int(m.group(1), 16)
        break
b = bytearray(open('st.o', 'rb').read()); b[off] ^= 0xff; open('tampered.o', 'wb').write(b)
PY
premise "... objdump disassembles different code in the two" bash -c \
    '! cmp -s <(objdump -d st.o | tail -n +4) <(objdump -d tampered.o | tail -n +4)'
trueline-check --provenance st.o >prov_ok.txt 2>&1; rc=$?
exit_was "--provenance of the object as stamped: exit 0" 0 $rc prov_ok.txt 'provenance record'
contains "... its record binds its bytes (content matches)" prov_ok.txt '^  cc .* matches$'
trueline-check --provenance tampered.o st.o >prov_bad.txt 2>&1; rc=$?
exit_was "--provenance of a tampered object: exit 1, not a genuine record" 1 $rc prov_bad.txt 'provenance record'
contains "... its record is shown as not binding (content differs)" prov_bad.txt '^  cc .* differs$'
contains "... and said in words" prov_bad.txt 'changed after its record was written'
trueline-check --provenance --format json tampered.o >prov_bad.json 2>&1
check "... JSON says content differs" python3 -c '
import json, sys
d = json.load(open("prov_bad.json"))
sys.exit(0 if d[0]["records"][0]["content"] == "differs" else 1)'

# --- control characters in a member's name are escaped in the text report, never written raw ---
evil=$'ev\033[2K\rok.o'
premise "an archive whose member name holds ESC [2K and CR" sh -c "cp dw.o \"\$0\" && ar rc evil.a \"\$0\"" "$evil"
premise "... ar t lists that name with its control bytes (the oracle)" sh -c 'ar t evil.a | grep -q "$(printf "\033")"'
trueline-check evil.a >evil.txt 2>/dev/null
check "the text report holds no ESC, CR or other control byte but newline (bytes)" python3 -c '
import sys
b = open("evil.txt", "rb").read()
sys.exit(1 if not b or any((c < 32 and c not in (9, 10)) or c == 127 for c in b) else 0)'
contains "... the member is named with its control bytes escaped" evil.txt '^evil\.a\(ev\\x1b\[2K\\x0dok\.o\): '

# --- the member bound is "more than 100000": exactly 100000 members are within it, one more is not ---
premise "zips of 100000 and 100001 one-byte members" python3 - <<'PY'
import zipfile
for n in (100000, 100001):
    with zipfile.ZipFile('m%d.zip' % n, 'w', zipfile.ZIP_STORED) as z:
        for i in range(n):
            z.writestr('d/%d.txt' % i, b'x')
PY
premise "... python's zipfile counts 100000 members in m100000.zip (the oracle)" python3 -c '
import sys, zipfile
sys.exit(0 if len(zipfile.ZipFile("m100000.zip").namelist()) == 100000 else 1)'
trueline-check m100000.zip >m100000.txt 2>&1
lacks "exactly 100000 members: not called more than 100000" m100000.txt 'more than 100000 members' 'file\(s\) checked'
trueline-check m100001.zip >m100001.txt 2>&1; rc=$?
exit_was "100001 members: exit 2" 2 $rc m100001.txt 'file\(s\) checked'
contains "... said to be more than 100000" m100001.txt '^m100001\.zip: error: cannot read: more than 100000 members'

# --- PTX .entry functions count in the input's budget: a 2 KB fatbin of .entry lines is refused, not allocated ---
if have zstd; then
    premise "a fatbin whose zstd PTX entry is 2.5 million .entry lines" python3 "$TRUELINE_ROOT/tests/lib/ptx_entry_bomb.py" 2500000 entries.fatbin
    trueline-check --max-input-mb 32 entries.fatbin >entries.txt 2>&1; rc=$?
    exit_was "PTX .entry functions past --max-input-mb 32: exit 2" 2 $rc entries.txt 'file\(s\) checked'
    contains "... the bound is named, and what asked past it" entries.txt \
        '^entries\.fatbin: error: cannot read: PTX \.entry (functions|names) would bring .* over the limit of 32 MiB'
else
    skip "PTX .entry budget: the zstd command is not installed"
fi

# --- fatbin section headers that share bytes: named, and their fatbin is not decompressed once per header ---
if have zstd; then
    premise "a fatbin of 200000 PTX .entry lines" python3 "$TRUELINE_ROOT/tests/lib/ptx_entry_bomb.py" 200000 one.fatbin
    premise "an object with 200 .nv_fatbin headers over that one fatbin" python3 "$TRUELINE_ROOT/tests/lib/shared_fatbin.py" one.fatbin 200 shared.o
    premise "... readelf lists 200 .nv_fatbin sections at one offset (the oracle)" python3 -c '
import re, subprocess, sys
offs = re.findall(r"\]\s+\.nv_fatbin\s+\S+\s+[0-9a-f]+\s+([0-9a-f]+)", subprocess.check_output(["readelf", "-SW", "shared.o"], text=True))
sys.exit(0 if len(offs) == 200 and len(set(offs)) == 1 else 1)'
    timeout 10 trueline-check shared.o >shared.txt 2>&1; rc=$?
    check "shared fatbin headers: done within 10 s (it was read once per header: 20 s, 6.6 GB) with the error exit status (exit $rc)" [ $rc -eq 1 ]
    contains "... the shared headers are named as damage" shared.txt \
        'shared\.o: error .*200 fatbin section headers share bytes with another'
else
    skip "shared fatbin headers: the zstd command is not installed"
fi
