#!/usr/bin/env bash
# auditwheel's symbol blacklist in the package verdict and in symbol-versions (docs/packages.md, "symbol
# blacklist"). Fixtures: extension modules built here that import zlib symbols auditwheel's policy data
# blacklists (gzflags for every manylinux tag, uncompress2 up to manylinux_2_31), one that links zlib only through
# its public API, a weak reference, and a helper library (no extension module) importing gzflags: alone in the
# wheel (auditwheel tests it) and vendored, needed by the extension module (auditwheel does not). Oracles:
# nm/readelf for what each file imports and needs; auditwheel's policy JSON for the tag its blacklist leaves;
# `auditwheel show` for the tag of each wheel.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1

# mkwheel WHEEL MEMBER=FILE...: a wheel auditwheel reads (WHEEL, METADATA and a RECORD listing every file)
mkwheel() { python3 "$TRUELINE_ROOT/tests/lib/mkwheel.py" "$@"; }
# platform KEY of the verdict of the only package in REPORT.json (KEY: satisfied, claim_met, blacklisted.file ...)
platform_of() { python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))["packages"][0]["verdict"]["platform"]
for k in sys.argv[2].split("."): v = v.get(k) if isinstance(v, dict) else None
print(v)' "$@"; }
# the tag auditwheel show gives WHEEL, without _x86_64; empty when it gives none
auditwheel_tag() { timeout 120 auditwheel show "$1" 2>/dev/null | tr '\n' ' ' |
  sed -n 's/.*consistent with the following platform tag: *"\([a-z0-9_]*\)_x86_64".*/\1/p'; }
# the most compatible manylinux policy of auditwheel's data whose blacklist of LIB lacks SYMBOL ("linux": none)
policy_without() { python3 -c '
import json, os, sys, auditwheel
d = json.load(open(os.path.join(os.path.dirname(auditwheel.__file__), "policy", "manylinux-policy.json")))
ok = [p for p in d if p["name"] != "linux" and sys.argv[2] not in p["blacklist"].get(sys.argv[1], [])]
print(max(ok, key=lambda p: p["priority"])["name"] if ok else "linux")' "$@" 2>/dev/null; }

if ! printf '#include <zlib.h>\nint main(void) { return zlibVersion() == 0; }\n' | gcc -x c - -lz -o zprobe 2>/dev/null; then
  skip "no zlib headers or libz to link against"
  exit 0
fi
EXT=_m.cpython-311-x86_64-linux-gnu.so
# an extension module that declares zlib's internal gzflags itself and calls it (zlib builds that export it bind
# it; Debian's libz does not, and the reference stays unbound: auditwheel judges the reference either way)
printf '#include <zlib.h>\nextern unsigned long gzflags(void);\nvoid *PyInit__m(void) { return (void *)(gzflags() + (unsigned long)zlibVersion()); }\n' > gz.c
# uncompress2: public since zlib 1.2.9, blacklisted by auditwheel up to manylinux_2_31
printf '#include <zlib.h>\nvoid *PyInit__m(void) { Bytef d[8]; uLongf n = 8; uLong s = 0; return (void *)(long)uncompress2(d, &n, (const Bytef *)"", &s); }\n' > u2.c
# zlib's public API only
printf '#include <zlib.h>\nvoid *PyInit__m(void) { Bytef d[64]; uLongf n = 64; return (void *)(long)compress(d, &n, (const Bytef *)"abc", 3) + (long)zlibVersion(); }\n' > ok.c
# gzflags as a weak reference (auditwheel: optional, not counted)
printf '#include <zlib.h>\nextern unsigned long gzflags(void) __attribute__((weak));\nvoid *PyInit__m(void) { return (void *)((gzflags ? gzflags() : 0) + (unsigned long)zlibVersion()); }\n' > wk.c
# a helper library, no extension module, importing gzflags
printf '#include <zlib.h>\nextern unsigned long gzflags(void);\nunsigned long helper_flags(void) { return gzflags() + (unsigned long)zlibVersion(); }\n' > hl.c
# an extension module that needs the helper library, found beside it
printf 'unsigned long helper_flags(void);\nvoid *PyInit__m(void) { return (void *)helper_flags(); }\n' > ve.c
mkdir -p gz u2 ok wk ve
premise "fixtures: gcc builds the extension modules and the helper against -lz" sh -c "
  gcc -shared -fPIC -O1 gz.c -o gz/$EXT -lz && gcc -shared -fPIC -O1 u2.c -o u2/$EXT -lz &&
  gcc -shared -fPIC -O1 ok.c -o ok/$EXT -lz && gcc -shared -fPIC -O1 wk.c -o wk/$EXT -lz &&
  gcc -shared -fPIC -O1 hl.c -o libhl.so -lz &&
  gcc -shared -fPIC -O1 ve.c -o ve/$EXT -L. -lhl -Wl,-rpath,'\$ORIGIN'"
# oracle for the imports: nm -D's undefined symbols (U: strong, w: weak) and readelf's NEEDED
premise "fixtures: gz imports gzflags (nm -D: U) and needs libz.so.1 (readelf -d)" sh -c "
  nm -D gz/$EXT | grep -Eq '^ +U gzflags(@|\$)' && readelf -d gz/$EXT | grep -q 'NEEDED.*\\[libz\\.so\\.1\\]'"
premise "fixtures: u2 imports uncompress2, ok neither of them, wk gzflags weakly, libhl.so gzflags (nm -D)" sh -c "
  nm -D u2/$EXT | grep -Eq '^ +U uncompress2(@|\$)' && ! nm -D ok/$EXT | grep -Eq ' (gzflags|uncompress2)' &&
  nm -D wk/$EXT | grep -Eq '^ +w gzflags(@|\$)' && nm -D libhl.so | grep -Eq '^ +U gzflags(@|\$)' &&
  readelf -d libhl.so | grep -q 'NEEDED.*\\[libz\\.so\\.1\\]' && readelf -d ve/$EXT | grep -q 'NEEDED.*\\[libhl\\.so\\]'"
GZ=gz-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
U2=u2-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
OK=ok-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
WK=wk-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
HL=hl-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
VE=ve-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
mkwheel $GZ "gz/$EXT=gz/$EXT"
mkwheel $U2 "u2/$EXT=u2/$EXT"
mkwheel $OK "ok/$EXT=ok/$EXT"
mkwheel $WK "wk/$EXT=wk/$EXT"
mkwheel $HL "hl/$EXT=ok/$EXT" hl/libhl.so=libhl.so
mkwheel $VE "ve/$EXT=ve/$EXT" ve/libhl.so=libhl.so
for w in $GZ $U2 $OK $WK $HL $VE; do
  n=${w%%-*}
  trueline-check --profile release "$w" > "$n.txt" 2>&1; echo $? > "$n.rc"
  trueline-check --profile release --format json --output "$n.json" "$w" 2> /dev/null
done
trueline-check --profile release --format sarif --output gz.sarif $GZ 2> /dev/null

# --- gzflags: blacklisted by every manylinux tag ---------------------------------------------------------
want=$(policy_without libz.so.1 gzflags)
if [ -n "$want" ]; then
  same "gz: the tag is the one auditwheel's policy data leaves for gzflags ($want)" "$want" "$(platform_of gz.json satisfied)"
else
  skip "gz: no auditwheel policy data"
fi
same "gz: the claim of manylinux_2_17 is not met" False "$(platform_of gz.json claim_met)"
contains "gz: the reason names the member, gzflags and libz.so.1" gz.txt \
  "why not more compatible: gz/$EXT imports gzflags from libz\\.so\\.1, which manylinux_2_41 blacklists"
contains "gz: the blacklisted-symbols line" gz.txt \
  "blacklisted symbols: gz/$EXT imports gzflags from libz\\.so\\.1; auditwheel's blacklist rules out manylinux_2_41"
check "gz: JSON platform.blacklisted names the file, library, symbol and tag" sh -c "
  [ \"\$(python3 -c '
import json; b = json.load(open(\"gz.json\"))[\"packages\"][0][\"verdict\"][\"platform\"][\"blacklisted\"]
print(b[\"file\"], b[\"library\"], *b[\"symbols\"], b[\"tag\"])')\" = 'gz/$EXT libz.so.1 gzflags manylinux_2_41' ]"
check "gz: SARIF carries the same blacklisted object in the run's property bag" sh -c "
  [ \"\$(python3 -c '
import json; p = json.load(open(\"gz.sarif\"))[\"runs\"][0][\"properties\"][\"trueline-packages\"][0]
print(*p[\"verdict\"][\"platform\"][\"blacklisted\"][\"symbols\"])')\" = gzflags ]"
contains "gz: symbol-versions error against the claimed tag names the symbol and the library" gz.txt \
  "$GZ!gz/$EXT: error \\[symbol-versions\\] imports gzflags from libz\\.so\\.1, which manylinux_2_17 blacklists"
same "gz: exit 1 (the error)" 1 "$(cat gz.rc)"

# --- every blacklisted zlib symbol at once: the JSON list is complete where the text line is cut -------------
# The fixture imports each symbol auditwheel's policy data blacklists in libz.so.1 for manylinux_2_17 (a shared
# object may leave references unbound); the oracle is nm -D's undefined symbols that the policy of the tag the
# verdict names blacklists.
if syms=$(python3 -c '
import json, os, auditwheel
d = json.load(open(os.path.join(os.path.dirname(auditwheel.__file__), "policy", "manylinux-policy.json")))
print(" ".join(sorted(next(p for p in d if p["name"] == "manylinux_2_17")["blacklist"]["libz.so.1"])))' 2>/dev/null) &&
   [ "$(echo $syms | wc -w)" -gt 12 ]; then
  { echo 'const char *zlibVersion(void);'; for s in $syms; do [ $s = zlibVersion ] || echo "extern char $s[];"; done
    printf 'void *PyInit__m(void) { return (void *)((long)zlibVersion()'; for s in $syms; do [ $s = zlibVersion ] || printf ' + (long)%s' "$s"; done
    echo '); }'; } > many.c
  mkdir -p many
  premise "fixtures: many imports $(echo $syms | wc -w) blacklisted zlib symbols (nm -D: U)" sh -c "
    gcc -shared -fPIC -O1 many.c -o many/$EXT -Wl,--no-as-needed -lz && [ \$(nm -D many/$EXT | grep -c '^ *U ') -gt 12 ]"
  MANY=many-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
  mkwheel $MANY "many/$EXT=many/$EXT"
  trueline-check --profile release --format json --output many.json $MANY 2> /dev/null
  trueline-check --profile release $MANY > many.txt 2>&1
  contains "many: the text line is cut short" many.txt "blacklisted symbols: .* and [0-9]+ more"
  check "many: JSON blacklisted.symbols is every imported symbol the named tag's policy blacklists (nm -D, policy)" \
    python3 -c '
import json, os, subprocess, sys, auditwheel
b = json.load(open("many.json"))["packages"][0]["verdict"]["platform"]["blacklisted"]
d = json.load(open(os.path.join(os.path.dirname(auditwheel.__file__), "policy", "manylinux-policy.json")))
bl = set(next(p for p in d if p["name"] == b["tag"])["blacklist"]["libz.so.1"])
nm = subprocess.run(["nm", "-D", "many/'"$EXT"'"], capture_output=True, text=True).stdout.split("\n")
und = {l.split()[1].split("@")[0] for l in nm if l.split()[:1] == ["U"]}
want = und & bl
sys.exit(not (len(want) > 12 and sorted(b["symbols"]) == sorted(want) and len(b["symbols"]) == len(want)))'
else
  skip "many: no auditwheel policy data"
fi

# --- uncompress2: blacklisted up to manylinux_2_31 ----------------------------------------------------------
want=$(policy_without libz.so.1 uncompress2)
if [ -n "$want" ]; then
  same "u2: the tag is the one auditwheel's policy data leaves for uncompress2 ($want)" "$want" "$(platform_of u2.json satisfied)"
  same "u2: the blacklist stops at the tag before $want" "manylinux_2_31" "$(platform_of u2.json blacklisted.tag)"
else
  skip "u2: no auditwheel policy data"
fi
contains "u2: the reason names uncompress2" u2.txt "imports uncompress2 from libz\\.so\\.1, which manylinux_2_31 blacklists"
trueline-check --policy manylinux_2_34 u2/$EXT > u2-234.txt 2>&1
trueline-check --policy manylinux_2_31 u2/$EXT > u2-231.txt 2>&1
lacks "u2 alone, --policy manylinux_2_34: no blacklist finding" u2-234.txt 'blacklists' 'file\(s\) checked'
contains "u2 alone, --policy manylinux_2_31: the blacklist finding" u2-231.txt \
  "u2/$EXT: error \\[symbol-versions\\] imports uncompress2 from libz\\.so\\.1, which manylinux_2_31 blacklists"

# --- a helper library alone: tested, though no extension module ------------------------------------------------
want=$(policy_without libz.so.1 gzflags)
if [ -n "$want" ]; then
  same "hl: the helper no member needs is tested: gzflags leaves $want" "$want" "$(platform_of hl.json satisfied)"
else
  skip "hl: no auditwheel policy data (the helper's tag is not compared)"
fi
same "hl: JSON names the helper library" hl/libhl.so "$(platform_of hl.json blacklisted.file)"
lacks "hl: no symbol-versions finding (a file alone is judged when it is an extension module)" hl.txt \
  'error \[symbol-versions\]' 'file\(s\) checked'

# --- no finding: the public API, a weak reference, a vendored helper ------------------------------------------
for n in ok wk ve; do
  same "$n: no blacklisted object in JSON" None "$(platform_of $n.json blacklisted)"
  lacks "$n: no blacklist reason or finding" $n.txt 'blacklist' 'file\(s\) checked'
done
check "ok: exit 0, its report written" sh -c '[ "$(cat ok.rc)" = 0 ] && grep -q "^[0-9]* file(s) checked" ok.txt'

# --- auditwheel show on the same wheels ---------------------------------------------------------------------
if have auditwheel; then
  for w in $GZ $U2 $OK $WK $HL $VE; do
    aw=$(auditwheel_tag "$w")
    if [ -z "$aw" ]; then skip "$w: auditwheel show gave no tag"; continue; fi
    same "$w: the tag the files satisfy is auditwheel's ($aw)" "$aw" "$(platform_of "${w%%-*}.json" satisfied)"
  done
else
  skip "auditwheel show: not installed"
fi

# --- a malformed table: exit 2 before any input, naming the file and the line ----------------------------------
printf '# a table\nmanylinux_2_17\tlibz.so.1\tgzflags\nmanylinux_2_17\tlibz.so.1\n' > bad.tsv
printf '[symbol-versions]\nblacklist = %s/bad.tsv\n' "$T" > bad.ini
expect_rc "[symbol-versions] blacklist = a malformed table: exit 2" 2 sh -c "trueline-check --config bad.ini $OK > bad.txt 2>&1"
contains "... the message names the file and line 3" bad.txt "bad\\.tsv:3: expected 3 tab-separated columns"
printf '[symbol-versions]\nblacklist = %s/none.tsv\n' "$T" > none.ini
expect_rc "[symbol-versions] blacklist = a missing file: exit 2" 2 sh -c "trueline-check --config none.ini $OK > none.txt 2>&1"
contains "... the message names the file" none.txt "none\\.tsv: cannot be read"
