# trueline-check on awkward inputs: file names that are not UTF-8 or hold control characters (json, junit,
# sarif stay well-formed), --extract of inputs and archive members that share a file name, and a separate debug
# file at a build-id path that belongs to another build. Fixtures are built here with gcc, objcopy and nvcc.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1

# --- report formats: names that are not UTF-8 or hold control characters ----------------------------------
printf 'int f(void){return 1;}\n' >a.c
gcc -g -c a.c -o a.o
mkdir w
cp a.o "$(printf 'w/lat\351.o')"; cp a.o "$(printf 'w/ctl\001.o')"; cp a.o "w/é.o"
# a symbol holding \001 and \377: the dwarf-symbols finding names it
objcopy --redefine-sym "f=$(printf 'f\001\377')" a.o "$(printf 'w/sym\377.o')"
trueline-check --format json w >r.json 2>r.err
check "json: strict UTF-8 and valid JSON although names are not UTF-8" python3 -c '
import json,sys; json.loads(open("r.json","rb").read().decode("utf-8", "strict"))'
check "json: bytes outside UTF-8 are \\ooo, controls \\u00XX, UTF-8 names as they are" python3 -c '
import json,sys; d=json.loads(open("r.json","rb").read().decode("utf-8"))
got=sorted(f["path"] for f in d["files"]); want=sorted(["w/lat\\351.o", "w/ctl\x01.o", "w/é.o", "w/sym\\377.o"])
syms={x["symbol"] for f in d["files"] for x in f["findings"] if x["symbol"]}
sys.exit(0 if got == want and "f\x01\\377" in syms else print(got, syms) or 1)'
trueline-check --format junit w >r.xml 2>r.err
check "junit: well-formed XML although names are not UTF-8 or hold control characters" python3 -c '
import xml.etree.ElementTree as E; E.parse("r.xml")'
check "junit: forbidden characters and bytes outside UTF-8 are \\ooo, UTF-8 names as they are" python3 -c '
import sys, xml.etree.ElementTree as E; r=E.parse("r.xml").getroot()
got=sorted(s.get("name") for s in r); text="".join(r.itertext())
want=sorted(["w/lat\\351.o", "w/ctl\\001.o", "w/é.o", "w/sym\\377.o"])
sys.exit(0 if got == want and "f\\001\\377" in text else print(got) or 1)'
trueline-check --format sarif w >r.sarif 2>r.err
check "sarif: valid JSON, URIs percent-encoded" python3 -c '
import json,sys; d=json.loads(open("r.sarif","rb").read().decode("utf-8"))
u={l["physicalLocation"]["artifactLocation"]["uri"] for x in d["runs"][0]["results"] for l in x["locations"]}
sys.exit(0 if {"w/lat%E9.o", "w/ctl%01.o", "w/%C3%A9.o"} <= u else print(u) or 1)'

# --- separate debug file at a build-id path: its own build-id must be the file's ----------------------------
printf 'int f1(int x){return x+1;}\nint f2(int x){return x*2;}\n' >m.c
printf 'int f1(int x){return x-1;}\nint f2(int x){return x*3;}\nint f3(void){return 0;}\n' >o.c
gcc -g -O1 -fPIC -shared -Wl,--build-id -o libsep.so m.c && objcopy --only-keep-debug libsep.so libsep.so.debug \
  && objcopy --strip-debug libsep.so && objcopy --add-gnu-debuglink=libsep.so.debug libsep.so
gcc -g -O1 -fPIC -shared -Wl,--build-id -o other.so o.c && objcopy --only-keep-debug other.so other.debug
id=$(readelf -n libsep.so | sed -n 's/.*Build ID: *//p')
if [ ${#id} -lt 4 ]; then
  skip "build-id: libsep.so has no GNU build-id note"
else
  mkdir -p "wrong/.build-id/${id:0:2}" "right/.build-id/${id:0:2}" lone
  cp other.debug "wrong/.build-id/${id:0:2}/${id:2}.debug"
  cp libsep.so.debug "right/.build-id/${id:0:2}/${id:2}.debug"
  cp libsep.so lone/   # no debug file next to it: .gnu_debuglink finds nothing
  trueline-check --format json --debug-dir wrong libsep.so >bid.json 2>&1
  check "build-id: a debug file of another build is not used; .gnu_debuglink's is" python3 -c '
import json,sys; f=json.load(open("bid.json"))["files"][0]; h=f["images"][0]
sys.exit(0 if h["debug_file"].endswith("libsep.so.debug") and "/.build-id/" not in h["debug_file"] else 1)'
  contains "build-id: the rejected file is named in the warning" bid.json \
    "\"warning\": \"separate debug file wrong/.build-id/${id:0:2}/${id:2}.debug has build-id [0-9a-f]+ but the file's is $id: it is from another build; not used\""
  trueline-check --checks line-tables --debug-dir wrong lone/libsep.so >lone.txt 2>&1; rc=$?
  check "build-id: with no other debug file, the file has no line info (exit $rc, want 1)" [ $rc -eq 1 ]
  contains "build-id: ... and the finding says why" lone.txt \
    "no .debug_line: .*has build-id [0-9a-f]+ but the file's is $id: it is from another build; not used; no debug info, and the separate debug file 'libsep.so.debug'"
  trueline-check --format json --debug-dir right lone/libsep.so >ok.json 2>&1
  check "build-id: the matching debug file is used, without a warning" python3 -c '
import json,sys; f=json.load(open("ok.json"))["files"][0]; h=f["images"][0]
sys.exit(0 if "right/.build-id/" in (h["debug_file"] or "") and f["warning"] is None and h["functions_with_lines"] >= 2 else 1)'
fi

# --- --extract: inputs and archive members with the same file name -----------------------------------------
if ! have_nvcc; then
  skip "nvcc not found (CUDA_HOME / PATH): --extract name collisions not tested"
  exit 0
fi
printf '__global__ void ka(int *p) { p[0] = 1; }\n' >ka.cu
printf '__global__ void kb(int *p) { p[0] = 2; }\n' >kb.cu
nvcc -lineinfo -c ka.cu -o ka.o >nvcc.log 2>&1 && nvcc -lineinfo -c kb.cu -o kb.o >>nvcc.log 2>&1 \
  || { fail "nvcc failed: $(head -3 nvcc.log)"; exit 0; }
mkdir -p x1 x2 && cp ka.o x1/k.o && cp kb.o x2/k.o
# images in one object, counted by tests/lib/fatbin_count.py (it parses the fatbin itself)
per=$(python3 "$TRUELINE_ROOT/tests/lib/fatbin_count.py" ka.o | sed -n 's/^containers=[0-9]* elf=\([0-9]*\) ptx=\([0-9]*\).*/\1 + \2/p')
per=$((${per:-0}))
premise "fatbin_count.py finds images in one object ($per)" [ "$per" -gt 0 ]
check "extract: one object gives its $per images" [ "$(trueline-check --extract one ka.o 2>/dev/null | wc -l)" -eq "$per" -a "$(ls one | wc -l)" -eq "$per" ]
# which kernel the first cubin matching a glob holds (nvcc's mangled names); nothing when none matches
kernel_of() {
  local f; f=$(ls $1 2>/dev/null | head -1)
  [ -f "$f" ] || return 0
  if grep -q _Z2kaPi "$f"; then echo ka; elif grep -q _Z2kbPi "$f"; then echo kb; fi
}

trueline-check --extract ex x1/k.o x2/k.o >ex.out 2>ex.err; rc=$?
check "extract: two inputs named k.o, exit $rc (want 0), files written" [ $rc -eq 0 -a "$(ls ex | wc -l)" -gt 0 ]
check "extract: every image of both written ($(ls ex | wc -l), want $((2 * per)))" [ "$(ls ex | wc -l)" -eq $((2 * per)) ]
check "extract: named from the path as given (x1_k.o..., x2_k.o...)" \
  [ "$(ls ex | grep -c '^x1_k\.o\.')" -eq "$per" -a "$(ls ex | grep -c '^x2_k\.o\.')" -eq "$per" ]
check "extract: each name holds its own input's code" \
  [ "$(kernel_of 'ex/x1_k.o.*.cubin')" = ka -a "$(kernel_of 'ex/x2_k.o.*.cubin')" = kb ]

rm -f libdup.a && ar qc libdup.a x1/k.o x2/k.o   # ar q appends: two members called k.o
trueline-check --extract exa libdup.a x1/k.o x1/k.o >exa.out 2>exa.err; rc=$?
check "extract: archive with two members called k.o, an input given twice: exit $rc (want 0), files written" [ $rc -eq 0 -a "$(ls exa | wc -l)" -gt 0 ]
check "extract: the second member gets ~2, in archive order" \
  [ "$(kernel_of 'exa/libdup.a_k.o.*.cubin')" = ka -a "$(kernel_of 'exa/libdup.a_k.o~2.*.cubin')" = kb ]
check "extract: the input given twice is k.o and k.o~2; $(ls exa | wc -l) files, want $((4 * per))" \
  [ "$(ls exa | grep -c '^k\.o\.')" -eq "$per" -a "$(ls exa | grep -c '^k\.o~2\.')" -eq "$per" \
    -a "$(ls exa | wc -l)" -eq $((4 * per)) ]

cp ka.o x1_k.o   # x1/k.o sanitized is x1_k.o too
trueline-check --extract exs x1/k.o x2/k.o x1_k.o >/dev/null 2>exs.err; rc=$?
check "extract: paths that sanitize alike get ~2 (exit $rc)" \
  [ $rc -eq 0 -a "$(ls exs | grep -c '^x1_k\.o~2\.')" -eq "$per" -a "$(ls exs | wc -l)" -eq $((3 * per)) ]
check "extract: a file name no other input has stays short" \
  [ "$(trueline-check --extract exu x1/k.o 2>/dev/null | grep -c '^exu/k\.o\.')" -eq "$per" ]
check "extract: only plain files directly inside DIR" \
  [ -z "$(find ex exa exs exu -mindepth 1 \( -type d -o -type l \) | head -1)" -a "$(find ex exa exs exu -type f | wc -l)" -eq $((10 * per)) ]
sum=$(cat ex/* | cksum)
trueline-check --extract ex x1/k.o x2/k.o >/dev/null 2>again.err; rc=$?
check "extract: a second run into the same DIR is refused (exit $rc, want 2), nothing overwritten" \
  [ $rc -eq 2 -a "$(cat ex/* | cksum)" = "$sum" ]
contains "extract: ... naming the file it would not overwrite" again.err 'x1_k\.o\..*: cannot create: File exists'
