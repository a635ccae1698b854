#!/usr/bin/env bash
# Directory scans never pass by checking nothing: an entry that cannot be read is an unreadable input (exit 2,
# named), a scan that finds nothing to check is exit 2 unless --allow-empty, and links to directories are not
# followed out of the tree (a link to / would audit the whole file system) unless --follow-symlinks.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1
printf 'int f(void) { return 1; }\n' > a.c
gcc -g -c a.c -o a.o || { fail "premise: gcc"; exit 1; }

mkdir empty
trueline-check empty > out.txt 2> err.txt; rc=$?
check "an empty directory: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "... saying that there was nothing to check" err.txt 'no file to check'
trueline-check --allow-empty empty > out.txt 2>&1; rc=$?
check "--allow-empty: an empty directory exits 0 and says 0 files (got $rc)" sh -c "[ $rc -eq 0 ] && grep -q '^0 file(s) checked' out.txt"
mkdir notes; echo hello > notes/readme.txt
trueline-check notes > /dev/null 2>&1; rc=$?
check "a directory with nothing auditable: exit 2 (got $rc)" [ $rc -eq 2 ]

# a file whose path is longer than PATH_MAX, deep inside the tree
mkdir deep && ( cd deep && for i in $(seq 1 20); do d=$(printf 'd%0250d' "$i"); mkdir "$d" && cd "$d" || exit 1; done; cp "$T/a.o" deep.o ) \
  || { fail "premise: a tree deeper than PATH_MAX"; exit 1; }
cp a.o deep/top.o
trueline-check deep > out.txt 2>&1; rc=$?
check "a scan with an entry past PATH_MAX: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "... naming the entry and the reason" out.txt '(File name too long|cannot read directory)'
contains "... the readable file is still checked" out.txt 'deep/top\.o'

if [ "$(id -u)" != 0 ]; then
  mkdir locked; cp a.o locked/x.o; chmod 000 locked/x.o
  trueline-check locked > out.txt 2>&1; rc=$?
  check "an unreadable file in a scan (mode 000): exit 2 (got $rc)" [ $rc -eq 2 ]
  contains "... named with the reason" out.txt 'locked/x\.o.*Permission denied'
  chmod 644 locked/x.o
else
  skip "mode 000 files are readable by root"
fi

# links to directories
mkdir tree other; cp a.o tree/mine.o; cp a.o other/theirs.o
ln -s / tree/root-link; ln -s "$T/other" tree/other-link
timeout 60 trueline-check tree > out.txt 2>&1; rc=$?
check "a link to / inside a scanned tree is not followed (exit $rc, finished)" sh -c "[ $rc -le 1 ] && grep -q 'tree/mine.o' out.txt"
contains "... exactly the tree's own file is checked" out.txt '^1 file\(s\) checked'
contains "... and the summary says that 2 links were not followed" out.txt 'did not follow 2 links to directories'
rm tree/root-link
trueline-check --follow-symlinks tree > out.txt 2>&1; rc=$?
contains "--follow-symlinks enters the linked directory (2 files)" out.txt '^2 file\(s\) checked'
contains "... and checks the file there" out.txt 'other-link/theirs\.o'

# an archive whose long-name table declares more bytes than the archive holds: libelf reads no member at all,
# which was "0 file(s) checked", exit 0; it must be named with the reason
cp a.o a_member_with_a_long_name.o && ar rc long.a a_member_with_a_long_name.o || { fail "premise: ar"; exit 1; }
python3 - long.a <<'PY' || { fail "premise: the long-name table's size patched"; exit 1; }
import sys
p = sys.argv[1]; d = bytearray(open(p, 'rb').read()); o = 8
while o + 60 <= len(d):
    if d[o:o + 2] == b'//' and d[o + 2] == 0x20:
        d[o + 48:o + 58] = b'9999999999'; open(p, 'wb').write(d); sys.exit(0)
    o += 60 + int(d[o + 48:o + 58]); o += o & 1
sys.exit(1)
PY
trueline-check long.a > out.txt 2>&1; rc=$?
check "an archive with a cut long-name table: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "... named, with the reason" out.txt "long\.a: .*long-name table is cut short"
