#!/usr/bin/env bash
# A linked ELF file whose section header table was removed (e_shoff/e_shnum/e_shstrndx 0) or zeroed still loads
# and runs: the audit reads it as the loader does (program headers, the dynamic segment) and says the sections
# are missing. Oracles: `readelf -D -s` (--use-dynamic) (binutils reads the dynamic segment, no section headers needed)
# and readelf/nm on the intact file; auditwheel on a wheel of the intact file. Lies in the dynamic segment
# (tests/lib/strip_shdrs.py's edits) must be an unreadable input (exit 2) naming the file and the tag.
. "$(dirname "$0")/../lib/harness.sh"
have g++ && have readelf && have nm || { skip "g++/readelf/nm missing"; exit 0; }
cd "$T" || exit 1
STRIP_SHDRS="python3 $TRUELINE_ROOT/tests/lib/strip_shdrs.py"

cat > lib.cc <<'EOF'
#include <string>
#include <sys/random.h>
namespace std { int noshdr_exported(int x) { return x + 1; } }
std::string make_name(int n) { return std::to_string(n); }
extern "C" int rnd() { unsigned v = 0; return (int)getrandom(&v, sizeof v, 0) + (int)v; }
EOF
printf '#include <sys/random.h>\nint main(void) { char b[4]; return (int)getrandom(b, 4, 0) < 0; }\n' > app.c
premise "fixtures: g++ builds a library (GNU hash, then SysV hash) and gcc a non-PIE executable" sh -c '
  g++ -g -O1 -fPIC -shared lib.cc -o libns.so &&
  g++ -g -O1 -fPIC -shared -Wl,--hash-style=sysv lib.cc -o libsysv.so &&
  gcc -g -no-pie app.c -o app'
premise "fixtures: the library needs getrandom@GLIBC_2.25 and exports std::noshdr_exported (readelf, nm)" sh -c '
  readelf --dyn-syms -W libns.so | grep -q "getrandom@GLIBC_2.25" &&
  nm -DC --defined-only libns.so | grep -q "std::noshdr_exported"'
for f in libns.so libsysv.so app; do
  premise "fixtures: $f without section headers, three ways (sstrip: also cut after the last segment)" sh -c \
    "$STRIP_SHDRS $f hdr-$f header && $STRIP_SHDRS $f zero-$f zero && $STRIP_SHDRS $f sstrip-$f sstrip &&
     readelf -h hdr-$f | grep -q 'Number of section headers: *0' && [ \$(stat -c %s sstrip-$f) -lt \$(stat -c %s $f) ]"
done

# The oracles: symbol@version of every dynamic symbol as readelf reads the intact file's .dynsym, and for the
# libraries also as readelf -D reads the stripped file's dynamic segment (it finds no symbol count in an
# executable that defines none: its GNU hash table hashes nothing; the audit counts the relocations' symbols too)
names() { awk '$1 ~ /^[0-9]+:$/ && $8 != "" {print $8}' | sort; }
intact_view() { readelf --dyn-syms -W "$1" 2>/dev/null | names; }
views_agree() { local a b; a=$(intact_view "$1"); b=$(readelf -D -s -W "$2" 2>/dev/null | names); [ -n "$b" ] && [ "$a" = "$b" ]; }
for f in libns.so libsysv.so; do
  premise "readelf -D reads the same dynamic symbols from the stripped $f as readelf from the intact one" views_agree $f hdr-$f
done

# The highest GLIBC_ version a file needs, by the oracle: its symbols' versions.
glibc_floor() { intact_view "$1" | sed -n 's/.*@GLIBC_\([0-9.]*\).*/\1/p' | sort -V | tail -1; }
# The audit's answer: symbol-versions' "highest GLIBC_ version needed: GLIBC_X".
ours_floor() { sed -n 's/.*\[symbol-versions\] highest GLIBC_ version needed: GLIBC_\([0-9.]*\).*/\1/p' "$1" | head -1; }
# The report with the file names taken out, and without line-tables (which differs by design).
findings() { grep -E '^\S+: (error|warning|info) \[(stl-leak|symbol-versions)\]' "$1" | sed 's/^[^:]*: //'; }

for f in libns.so libsysv.so app; do
  trueline-check --no-color --profile release "$f" > intact-$f.txt 2>&1
  for how in hdr zero sstrip; do
    s=$how-$f
    trueline-check --no-color --profile release "$s" > $s.txt 2>&1; rc=$?
    exit_was "$s: release profile, the missing sections are an error (exit 1)" 1 "$rc" $s.txt 'file\(s\) checked'
    contains "$s: the finding says the section headers are missing" $s.txt \
      "^$s: error \\[line-tables\\] no section headers \\(the section header table is missing or zeroed\\): line info, DWARF and the \\.note\\.trueline record cannot be checked"
    same "$s: GLIBC floor as readelf reads the intact file ($(glibc_floor "$f"))" "$(glibc_floor "$f")" "$(ours_floor $s.txt)"
    nsym=$(readelf --dyn-syms -W "$f" | awk '$1 ~ /^[0-9]+:$/' | grep -vc '^ *0:')
    nneeded=$(readelf -d "$f" | grep -c '(NEEDED)')
    contains "$s: all $nsym dynamic symbols and $nneeded needed libraries (readelf on the intact file) read" \
      $s.txt "its $nsym dynamic symbols? and $nneeded needed librar(y|ies) were read from the dynamic segment"
    same "$s: the same stl-leak and symbol-versions findings as on the intact file" \
      "$(findings intact-$f.txt)" "$(findings $s.txt)"
  done
done
contains "the std:: export (nm -DC on the intact library) is found without section headers" hdr-libns.so.txt \
  "hdr-libns\\.so: warning \\[stl-leak\\] $(nm -DC --defined-only libns.so | grep -o 'std::noshdr_exported(int)' | sed 's/[()]/\\&/g')"
lacks "the intact library gets no missing-sections finding" intact-libns.so.txt 'no section headers|do not describe' 'file\(s\) checked'
trueline-check --no-color --profile build hdr-libns.so > build.txt 2>&1; rc=$?
contains "build profile: said too (line-tables' severity)" build.txt '^hdr-libns\.so: error \[line-tables\] no section headers'
exit_was "build profile: exit 1" 1 "$rc" build.txt 'file\(s\) checked'
lacks "build profile: no guess that it was not built through trueline-cc (no record can be looked for)" build.txt \
  '\[provenance\]' 'file\(s\) checked'
printf '[checks]\nline-tables = off\n' > off.ini
trueline-check --no-color --profile release --config off.ini hdr-libns.so > off.txt 2>&1; rc=$?
lacks "line-tables switched off: not said" off.txt 'no section headers' 'file\(s\) checked'
exit_was "... and exit 0" 0 "$rc" off.txt 'file\(s\) checked'

# --- the table kept, one section's type changed: hidden from a reader that goes by sections, not from the loader
for sec in .dynsym .dynstr .dynamic .gnu.version .gnu.version_r; do
  premise "fixtures: $sec's type changed" $STRIP_SHDRS libns.so ty.so keep "type:$sec=1"
  trueline-check --no-color --profile release ty.so > ty.txt 2>&1; rc=$?
  exit_was "$sec retyped: an error (exit 1)" 1 "$rc" ty.txt 'file\(s\) checked'
  contains "$sec retyped: the finding names the table" ty.txt \
    '^ty\.so: error \[line-tables\] the section headers do not describe the dynamic segment \(no SHT_[A-Za-z_]+ section at (DT|PT)_[A-Z]+'"'"'s address'
  same "$sec retyped: GLIBC floor as readelf reads the intact file" "$(glibc_floor libns.so)" "$(ours_floor ty.txt)"
  same "$sec retyped: the same stl-leak and symbol-versions findings as on the intact file" \
    "$(findings intact-libns.so.txt)" "$(findings ty.txt)"
done

# --- lies in the dynamic segment: unreadable (exit 2), named, the other input still checked ----------------
for lie in DT_STRSZ=0x10000000 DT_SYMTAB=0x7fff0000 DT_STRTAB=0xffffffffffffff00 gnu_bucket=0xfffffff \
           DT_VERNEEDNUM=1000000 DT_SYMENT=7 dynamic_offset=0x10000000; do
  tag=${lie%%=*}
  premise "fixtures: the lie $lie is told" $STRIP_SHDRS libns.so lie.so header "$lie"
  trueline-check --no-color --profile release lie.so libns.so > lie.txt 2>&1; rc=$?
  exit_was "$lie: exit 2" 2 "$rc" lie.txt '2 file\(s\) checked: .* 1 unreadable'
  case $tag in gnu_bucket) want=DT_GNU_HASH;; dynamic_offset) want=PT_DYNAMIC;; DT_STRSZ) want=DT_STRTAB;; DT_VERNEEDNUM) want=DT_VERNEED;; *) want=$tag;; esac
  contains "$lie: the message names the file and $want" lie.txt "^lie\\.so: error: .*no section headers, and $want"
  contains "$lie: the other input is still checked" lie.txt '^libns\.so: info \[symbol-versions\] highest GLIBC_'
done
premise "fixtures: DT_HASH's nchain lies" $STRIP_SHDRS libsysv.so lie.so header sysv_nchain=0x40000000
trueline-check --no-color lie.so > lie.txt 2>&1; rc=$?
exit_was "sysv_nchain: a lying DT_HASH is exit 2" 2 "$rc" lie.txt 'lie\.so: error: .*DT_HASH'

# --- a wheel with such a member: the platform verdict of the intact wheel (auditwheel) -------------------
EXT=_ns.cpython-311-x86_64-linux-gnu.so
cp libns.so "$EXT"; cp hdr-libns.so "hdr$EXT"
python3 "$TRUELINE_ROOT/tests/lib/mkwheel.py" ns-1.0-cp311-cp311-manylinux_2_17_x86_64.whl "ns/$EXT=$EXT"
mkdir -p stripped
python3 "$TRUELINE_ROOT/tests/lib/mkwheel.py" stripped/ns-1.0-cp311-cp311-manylinux_2_17_x86_64.whl "ns/$EXT=hdr$EXT"
W=ns-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
trueline-check --format json --output w.json stripped/$W > /dev/null 2>&1
trueline-check --no-color stripped/$W > w.txt 2>&1; rc=$?
verdict() { python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["packages"][0]
print(p["verdict"]["platform"].get(sys.argv[2]) if sys.argv[2] != "std_exports" else p["verdict"]["files"][0]["std_exports"])' "$@" 2>/dev/null; }
contains "wheel: the member's missing sections are said" w.txt "ns/$EXT: error \\[line-tables\\] no section headers"
exit_was "wheel: exit 1 (release profile, the default for a wheel)" 1 "$rc" w.txt 'file\(s\) checked'
trueline-check --format json --output wi.json $W > /dev/null 2>&1
same "wheel: as many std:: exports as in the intact wheel's member" "$(verdict wi.json std_exports)" "$(verdict w.json std_exports)"
same "wheel: the same platform as the intact wheel's" "$(verdict wi.json satisfied)" "$(verdict w.json satisfied)"
if have auditwheel; then
  aw=$(timeout 120 auditwheel show "$W" 2>/dev/null | tr '\n' ' ' | sed -n 's/.*consistent with the following platform tag: *"\([a-z0-9_]*\)_x86_64".*/\1/p')
  if [ -n "$aw" ]; then
    same "wheel: the platform the stripped member satisfies is auditwheel's on the intact wheel ($aw)" "$aw" "$(verdict w.json satisfied)"
  else
    skip "wheel: auditwheel show gave no tag"
  fi
else
  skip "wheel: no auditwheel"
fi

# --- the external-library rule reads DT_NEEDED from the dynamic segment ------------------------------------
# an extension that needs a library the wheel does not ship (and no manylinux policy allows): only linux_x86_64
printf 'int helper(void) { return 3; }\n' > h.c
printf 'int helper(void);\nvoid *PyInit__h(void) { return (void *)(long)helper(); }\n' > hx.c
HEXT=_h.cpython-311-x86_64-linux-gnu.so
premise "fixtures: an extension that needs libhelper.so (readelf -d)" sh -c "gcc -shared -fPIC h.c -o libhelper.so &&
  gcc -shared -fPIC hx.c -o $HEXT -L. -lhelper && readelf -d $HEXT | grep -q 'NEEDED.*libhelper.so' &&
  $STRIP_SHDRS $HEXT hdr$HEXT header"
HW=hx-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
python3 "$TRUELINE_ROOT/tests/lib/mkwheel.py" $HW "hx/$HEXT=$HEXT"
python3 "$TRUELINE_ROOT/tests/lib/mkwheel.py" stripped/$HW "hx/$HEXT=hdr$HEXT"
trueline-check --format json --output hi.json $HW > /dev/null 2>&1
trueline-check --format json --output hs.json stripped/$HW > /dev/null 2>&1
trueline-check --no-color stripped/$HW > hs.txt 2>&1
same "needed library: the same platform as the intact wheel's" "$(verdict hi.json satisfied)" "$(verdict hs.json satisfied)"
contains "needed library: the reason names libhelper.so, read from the dynamic segment" hs.txt \
  "why not manylinux_2_17: hx/$HEXT needs libhelper\\.so, which the package does not ship"
if have auditwheel; then
  aw=$(timeout 120 auditwheel show "$HW" 2>/dev/null | tr '\n' ' ' | sed -n 's/.*consistent with the following platform tag: *"\([a-z0-9_]*\)_x86_64".*/\1/p')
  if [ -n "$aw" ]; then
    same "needed library: auditwheel's platform on the intact wheel ($aw)" "$aw" "$(verdict hs.json satisfied)"
  else
    skip "needed library: auditwheel show gave no tag"
  fi
else
  skip "needed library: no auditwheel"
fi
