#!/usr/bin/env bash
# The package verdict (docs/packages.md) on built wheels, and --profile release. Oracles: `auditwheel show` for
# the platform tag of each fixture wheel; cuobjdump (-lelf, -lptx, -elf, -ptx) for the device inventory and the
# device line-info bytes; readelf for the host debug-section sizes; nm for the std:: exports; the fixtures'
# sources for which kernels carry line info.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1

# mkwheel WHEEL MEMBER=FILE...: a wheel auditwheel reads (WHEEL, METADATA and a RECORD listing every file)
mkwheel() { python3 "$TRUELINE_ROOT/tests/lib/mkwheel.py" "$@"; }
# verdict_of REPORT.json PKG KEY: the verdict's platform KEY (satisfied, claimed, claim_met) of package PKG
verdict_of() { python3 -c '
import json, sys
p = [x for x in json.load(open(sys.argv[1]))["packages"] if x["path"].endswith(sys.argv[2])][0]
print(p["verdict"]["platform"].get(sys.argv[3]))' "$@"; }

# --- platform tag against auditwheel -------------------------------------------------------------------
EXT=_m.cpython-311-x86_64-linux-gnu.so
printf 'int helper(void) { return 3; }\n' > h.c
printf '#include <stdio.h>\nint helper(void);\nvoid *PyInit__m(void) { puts("m"); return (void *)(long)helper(); }\n' > m.c
printf '#include <sys/random.h>\nvoid *PyInit__m(void) { char b[4]; return (void *)(long)getrandom(b, 4, 0); }\n' > g.c
mkdir -p m g
premise "fixtures: gcc builds the extensions" sh -c "gcc -shared -fPIC h.c -o libhelper.so &&
  gcc -shared -fPIC m.c -o m/$EXT -L. -lhelper -Wl,-rpath,'\$ORIGIN' && gcc -shared -fPIC g.c -o g/$EXT"
premise "fixtures: the extension needs libhelper.so, the other GLIBC_2.25 (readelf)" sh -c \
  "readelf -d m/$EXT | grep -q 'NEEDED.*libhelper.so' && objdump -T g/$EXT | grep -q 'GLIBC_2.25.*getrandom'"
# a musl build: a stand-in for musl's C library under its x86_64 soname, and an extension that needs it
printf 'int puts(const char *s) { (void)s; return 0; }\n' > musl.c
printf 'int puts(const char *);\nvoid *PyInit__m(void) { puts("m"); return 0; }\n' > mm.c
MEXT=_m.cpython-311-x86_64-linux-musl.so
premise "fixtures: an extension that needs libc.musl-x86_64.so.1 (readelf)" sh -c "
  gcc -shared -fPIC -nostdlib -Wl,-soname,libc.musl-x86_64.so.1 musl.c -o libc.musl-x86_64.so.1 &&
  gcc -shared -fPIC -nostdlib mm.c -o $MEXT ./libc.musl-x86_64.so.1 &&
  readelf -d $MEXT | grep -q 'NEEDED.*libc.musl-x86_64.so.1'"
mkwheel ml-1.0-cp311-cp311-musllinux_1_2_x86_64.whl "ml/$MEXT=$MEXT"
mkwheel ext-1.0-cp311-cp311-manylinux_2_17_x86_64.whl "ext/$EXT=m/$EXT"
mkwheel ven-1.0-cp311-cp311-manylinux_2_17_x86_64.whl "ven/$EXT=m/$EXT" ven/libhelper.so=libhelper.so
mkwheel gr-1.0-cp311-cp311-manylinux_2_17_x86_64.whl "gr/$EXT=g/$EXT"
mkwheel mu-1.0-cp311-cp311-musllinux_1_2_x86_64.whl "mu/$EXT=m/$EXT" mu/libhelper.so=libhelper.so
WHEELS="ext-1.0-cp311-cp311-manylinux_2_17_x86_64.whl ven-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
gr-1.0-cp311-cp311-manylinux_2_17_x86_64.whl mu-1.0-cp311-cp311-musllinux_1_2_x86_64.whl
ml-1.0-cp311-cp311-musllinux_1_2_x86_64.whl"
# shellcheck disable=SC2086
trueline-check --format json --output rep.json $WHEELS 2> err.txt
# shellcheck disable=SC2086
trueline-check $WHEELS > out.txt 2> err.txt
# (not the musllinux one: auditwheel takes the family from the file name and then accepts libc.so.6 under it;
# the verdict takes it from the C library the files link, docs/packages.md)
if have auditwheel; then
  for w in $WHEELS; do
    case $w in mu-*) continue;; esac
    aw=$(timeout 120 auditwheel show "$w" 2>/dev/null | tr '\n' ' ' | sed -n 's/.*consistent with the following platform tag: *"\([a-z0-9_]*\)_x86_64".*/\1/p')
    if [ -z "$aw" ]; then skip "$w: auditwheel show gave no tag"; continue; fi
    same "$w: the tag the files satisfy is auditwheel's ($aw)" "$aw" "$(verdict_of rep.json "$w" satisfied)"
  done
else
  skip "platform tags: no auditwheel"
fi
# independent of auditwheel: the fixtures' own facts
same "ext: libhelper.so is neither shipped nor allowed: only linux" linux "$(verdict_of rep.json ext-1.0-cp311-cp311-manylinux_2_17_x86_64.whl satisfied)"
contains "ext: the reason names the member and the library, against the claimed tag" out.txt \
  "why not manylinux_2_17: ext/$EXT needs libhelper\\.so, which the package does not ship and manylinux_2_17 does not allow"
contains "ext: the claim of manylinux_2_17 is not met" out.txt \
  'platform: the files satisfy linux_x86_64; the file name claims manylinux_2_17_x86_64: NOT met'
contains "ven: shipping libhelper.so meets the claim" out.txt \
  'platform: the files satisfy manylinux_2_5_x86_64; the file name claims manylinux_2_17_x86_64: met'
want_tag=$(python3 -c '
import json, os, auditwheel
d = json.load(open(os.path.join(os.path.dirname(auditwheel.__file__), "policy", "manylinux-policy.json")))
ok = [p for p in d if "2.25" in p.get("symbol_versions", {}).get("x86_64", {}).get("GLIBC", [])]
print(max(ok, key=lambda p: p["priority"])["name"])' 2>/dev/null)
if [ -n "$want_tag" ]; then
  contains "gr: GLIBC_2.25 (getrandom) rules out the tags before auditwheel's policy data's $want_tag" out.txt \
    "platform: the files satisfy ${want_tag}_x86_64; the file name claims manylinux_2_17_x86_64: NOT met"
  contains "... the reason names the symbol" out.txt "needs GLIBC_2\\.25 \\(getrandom@GLIBC_2\\.25\\)"
else
  skip "gr: no auditwheel policy data"
fi
same "mu: glibc files under a musllinux claim: the claim is not met" False "$(verdict_of rep.json mu-1.0-cp311-cp311-musllinux_1_2_x86_64.whl claim_met)"
contains "ml: a musl extension meets its musllinux_1_2 claim (the musl version is not told by symbols)" out.txt \
  'platform: the files satisfy musllinux_1_2_x86_64; the file name claims musllinux_1_2_x86_64: met'
contains "closing table: one row per package" out.txt '^  ext-1\.0-cp311-cp311-manylinux_2_17_x86_64\.whl +linux +manylinux_2_17 +NOT met'
check "closing table: as many rows as packages (5)" sh -c "sed -n '/^package summary:/,/file(s) checked/p' out.txt | grep -c '\\.whl ' | grep -qx 5"

# --- std:: exports and host debug bytes ---------------------------------------------------------------
printf '#include <vector>\nint api(int n) { std::vector<int> v; for (int i = 0; i < n; i++) v.push_back(i); return (int)v.size(); }\n' > s.cc
premise "fixtures: g++ builds a -g library with std:: instantiations" g++ -g -O0 -shared -fPIC s.cc -o libs.so
mkwheel cx-1.0-cp311-cp311-manylinux_2_17_x86_64.whl cx/libs.so=libs.so
trueline-check --format json --output cx.json cx-1.0-cp311-cp311-manylinux_2_17_x86_64.whl 2> err.txt
# oracle: nm's defined dynamic symbols whose mangled names are entities of std:: / __gnu_cxx:: (or their RTTI)
want_std=$(nm -D --defined-only libs.so | awk '$2 ~ /[TtWwVvuDdRrBb]/ {print $3}' |
  grep -cE '^_Z(N|NK)?(S[tabsiod]|9__gnu_cxx)|^_ZT[ISV]N?S[tabsiod]|^_ZT[ISV]N9__gnu_cxx')
want_dbg=$(readelf -SW libs.so | python3 -c '
import re, sys
t = l = 0
for line in sys.stdin:
    m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)", line)
    if m and (m.group(1).startswith(".debug_") or m.group(1).startswith(".zdebug_")):
        t += int(m.group(2), 16); l += int(m.group(2), 16) if m.group(1) in (".debug_line", ".zdebug_line") else 0
print(t, l)')
premise "fixtures: nm sees std:: exports and readelf debug sections" sh -c "[ '$want_std' -gt 0 ] && [ '${want_dbg% *}' -gt 0 ]"
got=$(python3 -c '
import json; v = json.load(open("cx.json"))["packages"][0]["verdict"]["files"][0]
print(v["std_exports"], v["line_info_bytes"]["host_debug"], v["line_info_bytes"]["host_debug_line"])')
same "std:: exports: as many as nm's defined std:: entities ($want_std)" "$want_std" "${got%% *}"
same "host .debug_* and .debug_line bytes: readelf's section sizes ($want_dbg)" "$want_dbg" "${got#* }"

# --- release profile ------------------------------------------------------------------------------------
cp libs.so libstripped.so && strip --strip-debug libstripped.so
premise "fixtures: the stripped copy has no .debug_line (readelf)" sh -c '! readelf -SW libstripped.so | grep -q "\.debug_line"'
mkwheel rel-1.0-py3-none-manylinux_2_34_x86_64.whl rel/libstripped.so=libstripped.so rel/libs.so=libs.so
R=rel-1.0-py3-none-manylinux_2_34_x86_64.whl
trueline-check --profile build "$R" > build.txt 2>&1
trueline-check --profile release "$R" > release.txt 2>&1; rc=$?
trueline-check "$R" > default.txt 2>&1; rc_default=$?
same "a wheel alone: the release profile is the default (the same report)" "$(cat release.txt)" "$(cat default.txt)"
exit_was "... and the same exit status" "$rc" "$rc_default" default.txt "^package $R"
contains "build profile: the stripped library is a line-tables error" build.txt "$R!rel/libstripped\\.so: error \\[line-tables\\] no \\.debug_line"
contains "build profile: 'not built through trueline-cc' is said" build.txt "$R!rel/libs\\.so: info \\[provenance\\] no provenance records"
lacks "release profile: the stripped library is no line-tables finding" release.txt "libstripped\\.so: [a-z]+ \\[line-tables\\]" "^package $R"
lacks "release profile: no 'not built through trueline-cc'" release.txt 'not built through trueline-cc' "^package $R"
# (both libraries export the same std:: instantiations: said once for the package, naming both)
contains "release profile: symbol hygiene is still checked (stl-leak)" release.txt \
  "^$R: info \\[stl-leak\\] .*\\(in 2 members: rel/libstripped\\.so, rel/libs\\.so\\)"
exit_was "release profile: exit 0 (got $rc)" 0 "$rc" release.txt "^package $R"
trueline-check --profile release --checks provenance "$R" > asked.txt 2>&1
contains "release profile, --checks provenance: said again" asked.txt 'not built through trueline-cc'
printf '[checks]\nprovenance = info\n' > prov.ini
trueline-check --profile release --config prov.ini "$R" > asked2.txt 2>&1
contains "release profile, [checks] provenance = info: said again" asked2.txt 'not built through trueline-cc'
trueline-check --profile nosuch "$R" > bad.txt 2>&1; rc=$?
check "--profile nosuch: exit 2 (got $rc)" [ "$rc" -eq 2 ]
contains "... naming the valid profiles" bad.txt "unknown profile 'nosuch'; valid: build, release"

# --- device code: cuobjdump as the oracle ---------------------------------------------------------------
CUOBJDUMP=$(find_pypi_tool cuobjdump)
[ -n "$CUOBJDUMP" ] || CUOBJDUMP=$(command -v cuobjdump)
if ! have_nvcc || [ -z "$CUOBJDUMP" ]; then
  skip "device verdict: no nvcc or no cuobjdump"
  exit 0
fi
cat > k.cu <<'EOF'
__global__ void scale(float *a, float s, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= s; }
__global__ void shift(float *a, float s, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] += s; }
extern "C" void run_scale(float *a, int n) { scale<<<(n + 255) / 256, 256>>>(a, 2.0f, n); shift<<<1, 1>>>(a, 1.0f, n); }
EOF
cat > k2.cu <<'EOF'
__global__ void square(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= a[i]; }
extern "C" void run_square(float *a, int n) { square<<<(n + 255) / 256, 256>>>(a, n); }
EOF
# libk: 2 kernels with -lineinfo, SASS sm_80 and sm_90, PTX compute_90; libk2: 1 kernel without line info
premise "fixtures: nvcc builds the two device libraries" sh -c "
  '$CUDA_HOME/bin/nvcc' -shared -Xcompiler -fPIC -lineinfo -gencode arch=compute_80,code=sm_80 \
    -gencode arch=compute_90,code=[sm_90,compute_90] k.cu -o libk.so &&
  '$CUDA_HOME/bin/nvcc' -shared -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 \
    -gencode arch=compute_90,code=sm_90 k2.cu -o libk2.so"
D=dev-1.0-py3-none-manylinux_2_17_x86_64.whl
mkwheel "$D" dev/libk.so=libk.so dev/libk2.so=libk2.so
trueline-check --format json --output dev.json "$D" 2> err.txt
trueline-check "$D" > dev.txt 2>&1
# oracle per library: cubins with device functions (-elf) and PTX images (-lptx), kernels (-elf: FUNC ... ENTRY), cubin line sections
# (-elf section tables: .debug_line, .nv_debug_line_sass), PTX .loc/.file lines (-ptx)
inventory() { # LIB -> "cubins ptx kernels cubin_line_bytes ptx_loc_bytes"
  local c p k
  # cubins with a device function (a FUNC symbol): an image without one has nothing for line rows to describe,
  # and the verdict counts images as line-tables does
  c=$("$CUOBJDUMP" -elf "$1" 2>/dev/null |
    awk '/^Fatbin elf code:/ { if (f) n++; f = 0 } / FUNC / { f = 1 } END { if (f) n++; print n + 0 }')
  p=$("$CUOBJDUMP" -lptx "$1" 2>/dev/null | grep -c '^PTX file')
  k=$("$CUOBJDUMP" -elf "$1" 2>/dev/null | grep -cE '\bFUNC\b.*\bENTRY\b')
  "$CUOBJDUMP" -elf "$1" 2>/dev/null | python3 -c '
import sys
s = 0
for line in sys.stdin:
    f = line.split()
    if len(f) >= 9 and f[-1] in (".debug_line", ".nv_debug_line_sass") and f[5] == "PROGBITS":
        s += int(f[2], 16)
print(s, end=" ")' | sed "s/^/$c $p $k /"
  if [ "$p" -gt 0 ]; then "$CUOBJDUMP" -ptx "$1" 2>/dev/null | grep -E '^[[:space:]]*\.(loc|file)[[:space:]]' | wc -c; else echo 0; fi
}
json_inv() { python3 -c '
import json, sys
for f in json.load(open("dev.json"))["packages"][0]["verdict"]["files"]:
    if f["path"].endswith(sys.argv[1]):
        b = f["line_info_bytes"]; print(f["cubins"], f["ptx"], f["kernels"], b["cubin"], b["ptx_loc"])' "$1"; }
for lib in libk.so libk2.so; do
  want=$(inventory "$lib" | tr -s ' \n' '  ' | sed 's/ $//')
  same "$lib: cubins, PTX, kernels, cubin line bytes, PTX .loc bytes as cuobjdump counts them ($want)" \
    "$want" "$(json_inv "dev/$lib")"
done
contains "kernels with line rows: libk's 2 kernels in its 2 ptxas cubins, none of libk2's (the sources' flags)" dev.txt \
  '^  dev/libk\.so +4/4 ' 
contains "... libk2: 0 of its 2" dev.txt '^  dev/libk2\.so +0/2 '
archs=$(for lib in libk.so libk2.so; do "$CUOBJDUMP" -lelf "$lib"; done | grep -oE 'sm_[0-9]+[af]?' | sort -t_ -k2 -n -u | tr '\n' ' ' | sed 's/ $//')
ptxa=$("$CUOBJDUMP" -lptx libk.so | grep -oE 'sm_[0-9]+[af]?' | sed 's/sm_/compute_/' | sort -u | tr '\n' ' ' | sed 's/ $//')
contains "package archs: SASS $archs and PTX $ptxa, as cuobjdump lists them" dev.txt "SASS $archs; PTX $ptxa; cuda-arch"
trueline-check --profile release "$D" > devrel.txt 2>&1
contains "release profile: libk2's kernels without line info are still a line-tables error" devrel.txt \
  "$D!dev/libk2\\.so: error \\[line-tables\\] device code has no line information"
printf '[wrapper]\ndevice_lineinfo = false\n' > nolines.ini
trueline-check --profile release --config nolines.ini "$D" > devrel2.txt 2>&1
lacks "release profile with [wrapper] device_lineinfo = false: device line info is not asked for" devrel2.txt \
  'error \[line-tables\]' "^package $D"
if python3 -c 'import jsonschema' 2>/dev/null; then
  check "JSON with verdicts: valid against docs/json-schema.json" python3 -c '
import json, sys, jsonschema
for r in ("rep.json", "cx.json", "dev.json"):
    jsonschema.validate(json.load(open(r)), json.load(open(sys.argv[1])))' "$TRUELINE_ROOT/docs/json-schema.json"
fi
# SARIF: the run's property bag carries the same verdicts as the JSON report, valid under the OASIS schema
trueline-check --format sarif --output dev.sarif "$D" 2> err.txt
check "SARIF: runs[0].properties carries the JSON report's verdict" python3 -c '
import json
s = json.load(open("dev.sarif"))["runs"][0]["properties"]["trueline-packages"]
j = json.load(open("dev.json"))["packages"]
assert [p["path"] for p in s] == [p["path"] for p in j] and s[0]["verdict"] == j[0]["verdict"], (s, j)
assert s[0]["verdict"]["total"]["kernels"] > 0'
if python3 -c 'import jsonschema' 2>/dev/null && [ -f "$TRUELINE_ROOT/tests/data/sarif-schema-2.1.0.json" ]; then
  check "SARIF with package properties: valid against the OASIS 2.1.0 schema" python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open("dev.sarif")), json.load(open(sys.argv[1])))' "$TRUELINE_ROOT/tests/data/sarif-schema-2.1.0.json"
fi

# --- the platform tables: loaded once, before any input is read; one that cannot be read stops the audit -----
# A copy of trueline-check finds its tables beside itself (../share/trueline/) first: there each in turn is a
# directory, which opens but cannot be read. The copy with the real tables there judges the wheel, so the copy
# does read its tables from beside itself.
mkdir -p inst/bin inst/share/trueline
cp "$(command -v trueline-check)" inst/bin/
for tbl in platform_libs.tsv manylinux.tsv platform_blacklist.tsv; do
  mkdir "inst/share/trueline/$tbl"
  inst/bin/trueline-check ext-1.0-cp311-cp311-manylinux_2_17_x86_64.whl > unr.txt 2> unr.err
  exit_was "an unreadable $tbl is a usage error (exit 2) naming the file" 2 $? unr.err \
    "inst/bin/\.\./share/trueline/${tbl//./\\.}: cannot be read: Is a directory"
  lacks "... $tbl: raised before any input is read (no report)" unr.txt '.'
  rmdir "inst/share/trueline/$tbl"
done
cp "$TRUELINE_ROOT"/conf/*.tsv inst/share/trueline/
inst/bin/trueline-check ext-1.0-cp311-cp311-manylinux_2_17_x86_64.whl > rd.txt 2> rd.err
contains "... and that copy, given readable tables there, judges the wheel" rd.txt '^  platform: the files satisfy'

# The tables are read once per audit, whatever the number of packages and the format (the verdicts are judged
# once, before any emitter): strace counts the successful opens of each table over the five fixture wheels.
if have strace; then
  for f in text json sarif junit; do
    strace -f -e trace=openat -o "opens.$f" trueline-check --format "$f" $WHEELS > /dev/null 2>&1
    check "$f: platform_libs.tsv and manylinux.tsv each opened once for five wheels (strace)" sh -c "
      [ \$(grep -v ENOENT opens.$f | grep -c '/platform_libs\.tsv\"') = 1 ] &&
      [ \$(grep -v ENOENT opens.$f | grep -c '/manylinux\.tsv\"') = 1 ]"
  done
else
  skip "strace absent: the count of the tables' opens"
fi
