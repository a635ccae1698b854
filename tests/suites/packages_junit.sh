#!/usr/bin/env bash
# The package verdict in the JUnit report (docs/packages.md, "The verdict in JUnit"): the XML has the shape
# Jenkins and GitLab read (testsuites > testsuite(name, tests, failures, errors, skipped) > testcase(name,
# classname) > failure|error|skipped(message)), each package's suite agrees with its verdict in the JSON report,
# and a wheel whose file name claims a tag its files do not meet is a failure. Oracles for the claim: readelf
# (the library a member needs) against the wheel's own file list, objdump (the GLIBC_ version a member needs),
# and `auditwheel show` where it is installed; cuobjdump for kernels without line info.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1

# mkwheel WHEEL MEMBER=FILE...: a wheel auditwheel reads (WHEEL, METADATA and a RECORD listing every file)
mkwheel() { python3 "$TRUELINE_ROOT/tests/lib/mkwheel.py" "$@"; }

EXT=_m.cpython-311-x86_64-linux-gnu.so
printf 'int helper(void) { return 3; }\n' > h.c
printf '#include <stdio.h>\nint helper(void);\nvoid *PyInit__m(void) { puts("m"); return (void *)(long)helper(); }\n' > m.c
printf '#include <sys/random.h>\nvoid *PyInit__m(void) { char b[4]; return (void *)(long)getrandom(b, 4, 0); }\n' > g.c
mkdir -p m g
premise "fixtures: gcc builds the extensions" sh -c "gcc -shared -fPIC h.c -o libhelper.so &&
  gcc -shared -fPIC m.c -o m/$EXT -L. -lhelper -Wl,-rpath,'\$ORIGIN' && gcc -shared -fPIC g.c -o g/$EXT &&
  head -c 3000 m/$EXT > trunc.so"
EW=ext-1.0-cp311-cp311-manylinux_2_17_x86_64.whl   # needs libhelper.so, which it does not ship
VW=ven-1.0-cp311-cp311-manylinux_2_17_x86_64.whl   # ships it
GW=gr-1.0-cp311-cp311-manylinux_2_17_x86_64.whl    # needs GLIBC_2.25 under a glibc 2.17 claim
BW=bad-1.0-cp311-cp311-manylinux_2_17_x86_64.whl   # one member truncated
mkwheel "$EW" "ext/$EXT=m/$EXT"
mkwheel "$VW" "ven/$EXT=m/$EXT" ven/libhelper.so=libhelper.so
mkwheel "$GW" "gr/$EXT=g/$EXT"
mkwheel "$BW" "bad/$EXT=m/$EXT" bad/trunc.so=trunc.so
python3 -c 'import zipfile; zipfile.ZipFile("plain.zip", "w").write("libhelper.so", "lib/libhelper.so")'
# ships WHEEL NAME: the wheel has a member of that base name
ships() { python3 -c 'import sys, zipfile; sys.exit(not any(n.rsplit("/", 1)[-1] == sys.argv[2] for n in zipfile.ZipFile(sys.argv[1]).namelist()))' "$@"; }
premise "fixtures: ext's member needs libhelper.so (readelf)" sh -c "readelf -d m/$EXT | grep -q 'NEEDED.*\\[libhelper\\.so\\]'"
premise "fixtures: ext does not ship libhelper.so" eval '! ships "$EW" libhelper.so'
premise "fixtures: ven ships libhelper.so" ships "$VW" libhelper.so
premise "fixtures: gr's member needs GLIBC_2.25 (objdump), above manylinux_2_17's glibc 2.17" sh -c \
  "objdump -T g/$EXT | grep -q 'GLIBC_2\\.25.*getrandom'"

ALL="$EW $VW $GW $BW plain.zip"
# shellcheck disable=SC2086
trueline-check --format junit --output r.xml $ALL 2> err.txt; rc_junit=$?
# shellcheck disable=SC2086
trueline-check --format json --output r.json $ALL 2> err.txt; rc_json=$?
check "the JUnit report exits as the JSON report does (the verdict changes no exit status)" \
  sh -c "[ '$rc_json' = '$rc_junit' ] && grep -q '<testsuites' r.xml && grep -q '\"packages\"' r.json"

# shape: what Jenkins' and GitLab's JUnit readers need, counts that add up, messages on every outcome
check "JUnit: the XSD shape; each suite's tests/failures/errors/skipped count its test cases" python3 -c '
import xml.etree.ElementTree as E
t = E.parse("r.xml").getroot()
assert t.tag == "testsuites", t.tag
suites = t.findall("testsuite")
assert suites and len(suites) == len(list(t)), "only <testsuite> under <testsuites>"
for s in suites:
    for a in ("name", "tests", "failures", "errors", "skipped"):
        assert s.get(a) is not None, (s.get("name"), a)
    cases = s.findall("testcase")
    assert cases and len(cases) == len(list(s)), s.get("name")
    for c in cases:
        assert c.get("name") and c.get("classname"), (s.get("name"), c.attrib)
        outcome = [x for x in c if x.tag in ("failure", "error", "skipped")]
        assert len(outcome) <= 1, c.get("name")
        for x in outcome:
            assert x.get("message"), (s.get("name"), c.get("name"), x.tag)
    n = {k: sum(1 for c in cases if c.find(k) is not None) for k in ("failure", "error", "skipped")}
    assert int(s.get("tests")) == len(cases), s.get("name")
    assert int(s.get("failures")) == n["failure"] and int(s.get("errors")) == n["error"] and \
        int(s.get("skipped")) == n["skipped"], (s.get("name"), s.attrib, n)'

# each package: one suite whose outcomes are its verdict in the JSON report
check "JUnit: one package suite per JSON package, its outcomes the JSON verdict's" python3 -c '
import json, xml.etree.ElementTree as E
t = E.parse("r.xml").getroot()
suites = {s.get("name"): s for s in t.findall("testsuite")}
pkgs = json.load(open("r.json"))["packages"]
assert len(pkgs) == 5 and len([n for n in suites if n.startswith("package ")]) == len(pkgs), (len(pkgs), list(suites))
for p in pkgs:
    s = suites["package " + p["path"]]
    v = p["verdict"]; tot = v["total"]; plat = v["platform"]
    device = tot["cubins"] + tot["ptx"] > 0
    want = {"members read": "error" if p["unreadable"] else None,
            "platform": None if not plat else ("failure" if not plat["claim_met"] else None),
            "device line info": "skipped" if not device else ("failure" if tot["kernels_with_lines"] < tot["kernels"] else None),
            "device archs": "skipped" if not device else ("failure" if v["archs"]["cuda_arch_findings"] else None),
            "std:: exports": None, "line info": None}
    if not plat: want["platform"] = "skipped"
    got = {}
    for c in s.findall("testcase"):
        assert c.get("classname") == p["path"], c.get("classname")
        o = [x.tag for x in c if x.tag in ("failure", "error", "skipped")]
        got[c.get("name")] = o[0] if o else None
    assert got == want, (p["path"], got, want)
    assert int(s.get("failures")) == sum(1 for x in want.values() if x == "failure")
    assert int(s.get("errors")) == (1 if p["unreadable"] else 0)'

# platform outcome per wheel against the fixtures' facts (readelf / objdump above) and the tag in the name
outcome() { # SUITE-PATH CASE -> failure|error|skipped|passed, then the message
  python3 -c '
import sys, xml.etree.ElementTree as E
for s in E.parse("r.xml").getroot().findall("testsuite"):
    if s.get("name") == "package " + sys.argv[1]:
        for c in s.findall("testcase"):
            if c.get("name") == sys.argv[2]:
                o = [x for x in c if x.tag in ("failure", "error", "skipped")]
                print(o[0].tag if o else "passed", o[0].get("message") if o else "")' "$@"; }
out=$(outcome "$EW" platform)
check "ext: claims manylinux_2_17 without shipping libhelper.so: a failure" sh -c 'case "$1" in failure\ *) ;; *) exit 1;; esac' _ "$out"
check "... its message names the package, the claimed tag and the library" sh -c '
  case "$1" in *"'"$EW"': "*"claims manylinux_2_17_x86_64: NOT met"*"needs libhelper.so"*) ;; *) exit 1;; esac' _ "$out"
out=$(outcome "$GW" platform)
check "gr: GLIBC_2.25 under a manylinux_2_17 claim: a failure naming the symbol" sh -c '
  case "$1" in failure\ *"'"$GW"': "*"NOT met"*"GLIBC_2.25 (getrandom@GLIBC_2.25)"*) ;; *) exit 1;; esac' _ "$out"
same "ven: ships libhelper.so: the claim passes" passed "$(outcome "$VW" platform | cut -d' ' -f1)"
out=$(outcome "$BW" "members read")
check "bad: a truncated member is an error naming the package and the count" sh -c '
  case "$1" in "error '"$BW"': 1 of 2 member(s) could not be read") ;; *) exit 1;; esac' _ "$out"
same "plain.zip: no platform verdict for a zip that is not a wheel: skipped" skipped "$(outcome plain.zip platform | cut -d' ' -f1)"
if have auditwheel; then
  for w in $EW $VW $GW; do
    aw=$(timeout 120 auditwheel show "$w" 2>/dev/null | tr '\n' ' ' | sed -n 's/.*consistent with the following platform tag: *"\([a-z0-9_]*\)_x86_64".*/\1/p')
    if [ -z "$aw" ]; then skip "$w: auditwheel show gave no tag"; continue; fi
    # auditwheel's tag against the claimed manylinux_2_17: a lower glibc floor or the same tag meets it
    want=$(python3 -c '
import re, sys
m = re.match(r"manylinux_(\d+)_(\d+)$", sys.argv[1]) or re.match(r"manylinux(1|2010|2014)$", sys.argv[1])
legacy = {"1": (2, 5), "2010": (2, 12), "2014": (2, 17)}
v = None if not m else legacy[m.group(1)] if m.lastindex == 1 else (int(m.group(1)), int(m.group(2)))
print("passed" if v and v <= (2, 17) else "failure")' "$aw")
    same "$w: the platform test case follows auditwheel's tag ($aw) against the claim" "$want" "$(outcome "$w" platform | cut -d' ' -f1)"
  done
else
  skip "platform outcomes against auditwheel: no auditwheel"
fi
contains "the per-file suites are still there, one per member" r.xml "<testsuite name=\"$VW!ven/libhelper\\.so\""

# device line info: a wheel with kernels built without -lineinfo (cuobjdump: the cubin has no line section)
CUOBJDUMP=$(find_pypi_tool cuobjdump)
[ -n "$CUOBJDUMP" ] || CUOBJDUMP=$(command -v cuobjdump)
if ! have_nvcc || [ -z "$CUOBJDUMP" ]; then
  skip "device line info: no nvcc or no cuobjdump"
  exit 0
fi
cat > k.cu <<'EOF'
__global__ void square(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= a[i]; }
extern "C" void run_square(float *a, int n) { square<<<(n + 255) / 256, 256>>>(a, n); }
EOF
premise "fixtures: nvcc builds a kernel without -lineinfo; cuobjdump: an ENTRY function, no line section" sh -c "
  '$CUDA_HOME/bin/nvcc' -shared -Xcompiler -fPIC -gencode arch=compute_80,code=sm_80 k.cu -o libk.so &&
  '$CUOBJDUMP' -elf libk.so | grep -qE '\\bFUNC\\b.*\\bENTRY\\b' &&
  ! '$CUOBJDUMP' -elf libk.so | grep -qE '\\.(nv_debug_line_sass|debug_line)\\b'"
DW=dev-1.0-py3-none-manylinux_2_34_x86_64.whl
mkwheel "$DW" dev/libk.so=libk.so
trueline-check --format junit --output d.xml "$DW" 2> err.txt
out=$(python3 -c '
import xml.etree.ElementTree as E
s = [s for s in E.parse("d.xml").getroot().findall("testsuite") if s.get("name", "").startswith("package ")][0]
c = [c for c in s.findall("testcase") if c.get("name") == "device line info"][0]
print(c[0].tag, c[0].get("message"))')
check "dev: a kernel without line rows fails device line info, naming the package" sh -c '
  case "$1" in "failure '"$DW"': 1 of 1 kernel(s) have no line rows"*) ;; *) exit 1;; esac' _ "$out"
printf '[wrapper]\ndevice_lineinfo = false\n' > nolines.ini
trueline-check --profile release --config nolines.ini --format junit --output d2.xml "$DW" 2> err.txt
check "dev, release profile with [wrapper] device_lineinfo = false: device line info passes" python3 -c '
import xml.etree.ElementTree as E
s = [s for s in E.parse("d2.xml").getroot().findall("testsuite") if s.get("name", "").startswith("package ")][0]
c = [c for c in s.findall("testcase") if c.get("name") == "device line info"][0]
assert c.find("failure") is None and c.find("skipped") is None and "0 of 1" in c.findtext("system-out"), E.tostring(c)'
