#!/usr/bin/env bash
# --keygen, --attest, --verify-attestation (docs/attest.md). Oracles: sha256sum for every digest the statement
# states (subjects, objects, toolchain components), Python's json + hashlib for the keyid rule, and PyPI's
# securesystemslib (installed into a venv here, skipped when PyPI cannot be reached) verifying trueline's
# envelopes and signing envelopes trueline verifies. Projects: a CMake CUDA shared library built through
# "trueline-cc;ccache" (nvcc, no GPU needed), and a wheel one of whose members was built without the wrapper.
# Tampering one byte of the artifact, the statement or the signature fails, naming it; a wrong key, a
# malformed envelope, a missing file exit 1 or 2 with the reason, and nothing is signed over a file not read.
. "$(dirname "$0")/../lib/harness.sh"
have gcc && have python3 && have sha256sum || { skip "gcc, python3 or sha256sum missing"; exit 0; }
C=trueline-check
MKWHEEL="$TRUELINE_ROOT/tests/lib/mkwheel.py"
PYA="$TRUELINE_ROOT/tests/lib/attest_py.py"
cd "$T" || exit 1
unset TRUELINE_PROVENANCE_KEY_FILE
$C --keygen probe > probe.out 2>&1
if grep -q "not built in" probe.out; then skip "attestations not built in (libsodium or jansson missing)"; exit 0; fi
. "$TRUELINE_ROOT/tests/lib/attest_helpers.sh" # payload, q, sha, sslib_python

# --- keys ---
$C --keygen rel > keygen.out 2>&1
check "keygen: the secret key is mode 0600" test "$(stat -c %a rel)" = 600
check "keygen: the public key holds no private part" sh -c "grep -q public rel.pub && ! grep -q private rel.pub"
kid=$(python3 -c 'import json,hashlib,sys; d=json.load(open(sys.argv[1]))
c={"keytype":d["keytype"],"keyval":{"public":d["keyval"]["public"]},"scheme":d["scheme"]}
print(hashlib.sha256(json.dumps(c,sort_keys=True,separators=(",",":")).encode()).hexdigest())' rel.pub)
same "keygen: keyid is sha256 of the canonical key JSON (computed by Python)" "$(q rel.pub 'st["keyid"]')" "$kid"
expect_rc "keygen: an existing key is never overwritten" 2 $C --keygen rel
contains "keygen: says the key exists" <($C --keygen rel 2>&1) "rel: cannot create .*exists"

# --- a small library: one object through the wrapper, one without; and the .o itself ---
printf 'int f(int x) { return x * 3; }\n' > a.c
printf 'int g(int x) { return x + 1; }\n' > b.c
premise "wrapped compile" trueline-cc gcc -O2 -fPIC -c a.c -o a.o
premise "plain compile" gcc -O2 -g -fPIC -c b.c -o b.o
premise "link" gcc -shared -o libab.so a.o b.o
$C --attest --signing-key rel --output ab.intoto.jsonl libab.so a.o > ab.out 2> ab.err; rc=$?
check "attest: exit 0 without a policy" test $rc = 0
check "attest: one envelope on one line" test "$(wc -l < ab.intoto.jsonl)" = 1
payload ab.intoto.jsonl > ab.json
same "statement: in-toto Statement v1" "$(q ab.json 'st["_type"]')" "https://in-toto.io/Statement/v1"
same "statement: SLSA provenance v1" "$(q ab.json 'st["predicateType"]')" "https://slsa.dev/provenance/v1"
same "subject: libab.so's sha256 is sha256sum's" "$(q ab.json '[s["digest"]["sha256"] for s in st["subject"] if s["name"]=="libab.so"][0]')" "$(sha libab.so)"
same "subject: a.o's sha256 is sha256sum's" "$(q ab.json '[s["digest"]["sha256"] for s in st["subject"] if s["name"]=="a.o"][0]')" "$(sha a.o)"
OBJ='{o["file"]: o for o in st["predicate"]["buildDefinition"]["internalParameters"]["objects"]}'
same "object: b.c, built outside the wrapper, is listed as unrecorded" "$(q ab.json "$OBJ[\"libab.so\"][\"unrecordedUnits\"]")" "['b.c']"
same "object: the .o still matches its record's content digest" "$(q ab.json "$OBJ[\"a.o\"][\"records\"][0][\"contentBinding\"]")" "matches"
same "object: in the linked library the binding is not checkable (said so)" "$(q ab.json "$OBJ[\"libab.so\"][\"records\"][0][\"contentBinding\"]")" "not checkable: linked"
same "object: line info forced, as the record says" "$(q ab.json "$OBJ[\"a.o\"][\"records\"][0][\"lineInfoForced\"]")" "True"
# the toolchain: gcc's components resolved here, each sha256 equal to sha256sum of the path it names
DEPS='st["predicate"]["buildDefinition"]["resolvedDependencies"]'
q ab.json "'\n'.join(d['name']+' '+d['digest']['sha256'] for d in $DEPS if 'sha256' in d.get('digest', {}))" > deps.txt
check "toolchain: gcc's cc1 is among the resolved components" grep -q '/cc1 ' deps.txt
bad=0; n=0; while read -r p s; do n=$((n + 1)); [ "$(sha "$p")" = "$s" ] || { bad=1; echo "    | $p: $s"; }; done < deps.txt
check "toolchain: every component's sha256 is sha256sum's ($n components)" test $bad = 0 -a $n -gt 3
same "toolchain: the components belong to the recorded fingerprint" \
  "$(q ab.json "sorted(set(d['annotations']['toolchainFingerprint'] for d in $DEPS))")" \
  "$(q ab.json "sorted(set(r['fingerprint'] for o in $OBJ.values() for r in o['records']))")"

# a fingerprint no toolchain here reproduces: listed alone, components unknown
trueline-cc gcc -O2 -fPIC -c a.c -o a2.o
python3 - a2.o <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read()); i = d.find(b'fp=') + 3
d[i:i + 4] = b'0000' if d[i:i + 4] != b'0000' else b'1111'
open(sys.argv[1], 'wb').write(d)
PY
$C --attest --signing-key rel --output a2.intoto.jsonl a2.o > a2.out 2>&1
payload a2.intoto.jsonl > a2.json
contains "toolchain: an unreproduced fingerprint is listed with components unknown" \
  <(q a2.json "[d['annotations'].get('components') for d in $DEPS]") "unknown"
same "toolchain: and with no component digest claimed" "$(q a2.json "[d for d in $DEPS if 'sha256' in d.get('digest', {})]")" "[]"

# --- verify ---
$C --verify-attestation ab.intoto.jsonl --public-key rel.pub libab.so a.o > v.out 2> v.err; rc=$?
check "verify: exit 0 for the untouched artifacts" test $rc = 0
contains "verify: says the signature verifies" v.out "signature by key ${kid:0:16} verifies"
cp libab.so t-libab.so && mkdir -p t && printf 'X' | dd of=t-libab.so bs=1 seek=300 conv=notrunc 2>/dev/null && cp t-libab.so t/libab.so
$C --verify-attestation ab.intoto.jsonl --public-key rel.pub t/libab.so > vt.out 2> vt.err; rc=$?
check "tamper artifact: exit 1" test $rc = 1
contains "tamper artifact: names the artifact" vt.err "t/libab.so: the artifact differs from the attested one"
python3 - ab.intoto.jsonl <<'PY'
import json, sys
e = json.loads(open(sys.argv[1]).readline())
def flip(s, i):
    return s[:i] + ('B' if s[i] != 'B' else 'C') + s[i + 1:]
p = dict(e, payload=flip(e['payload'], len(e['payload']) // 2))
s = json.loads(json.dumps(e)); s['signatures'][0]['sig'] = flip(s['signatures'][0]['sig'], 20)
open('tp.jsonl', 'w').write(json.dumps(p) + '\n')
open('ts.jsonl', 'w').write(json.dumps(s) + '\n')
open('mal.jsonl', 'w').write('{"payloadType": "application/vnd.in-toto+json", "signatures": [}\n')
PY
expect_rc "tamper statement: exit 1" 1 $C --verify-attestation tp.jsonl --public-key rel.pub libab.so
contains "tamper statement: says the signature does not verify over the statement" \
  <($C --verify-attestation tp.jsonl --public-key rel.pub libab.so 2>&1) "does not verify over the statement"
expect_rc "tamper signature: exit 1" 1 $C --verify-attestation ts.jsonl --public-key rel.pub libab.so
contains "tamper signature: says so" <($C --verify-attestation ts.jsonl --public-key rel.pub libab.so 2>&1) \
  "signature .*(does not verify|altered)"
$C --keygen other > /dev/null
expect_rc "wrong key: exit 1" 1 $C --verify-attestation ab.intoto.jsonl --public-key other.pub libab.so
contains "wrong key: names both keys" <($C --verify-attestation ab.intoto.jsonl --public-key other.pub libab.so 2>&1) \
  "signed by key ${kid:0:16}, not by the public key given"
expect_rc "malformed envelope: exit 2" 2 $C --verify-attestation mal.jsonl --public-key rel.pub libab.so
contains "malformed envelope: names the file and line" <($C --verify-attestation mal.jsonl --public-key rel.pub libab.so 2>&1) \
  "mal.jsonl:1: not a JSON envelope"
expect_rc "missing public key: exit 2" 2 $C --verify-attestation ab.intoto.jsonl --public-key nope.pub libab.so
expect_rc "a public key cannot sign: exit 2" 2 $C --attest --signing-key rel.pub --output x.jsonl libab.so
contains "a public key cannot sign: says why" <($C --attest --signing-key rel.pub --output x.jsonl libab.so 2>&1) "a public key"
expect_rc "an artifact not in the statement: exit 1" 1 $C --verify-attestation ab.intoto.jsonl --public-key rel.pub b.o

# never a statement over a file not read: a truncated member, a missing file -> exit 2, no output
head -c 2000 libab.so > cut.so
$C --attest --signing-key rel --output cut.intoto.jsonl cut.so a.o > cut.out 2> cut.err; rc=$?
check "unreadable input: exit 2" test $rc = 2
check "unreadable input: nothing written" test ! -e cut.intoto.jsonl
contains "unreadable input: names the file" cut.err "cut.so"
expect_rc "missing artifact: exit 2" 2 $C --attest --signing-key rel --output miss.intoto.jsonl nothere.so

# an object changed after its record was written: the statement says its record no longer binds it
python3 - a.o a-mod.o <<'PY'
import subprocess, sys
d = bytearray(open(sys.argv[1], 'rb').read())
out = subprocess.run(['readelf', '-SW', sys.argv[1]], capture_output=True, text=True).stdout
off = next(int(l.split()[l.split().index('.text') + 3], 16) for l in out.splitlines() if ' .text ' in l)
d[off] ^= 0xff
open(sys.argv[2], 'wb').write(d)
PY
$C --attest --signing-key rel --output mod.intoto.jsonl a-mod.o > mod.out 2>&1
payload mod.intoto.jsonl > mod.json
same "content binding: a changed .text is 'differs'" "$(q mod.json "$OBJ[\"a-mod.o\"][\"records\"][0][\"contentBinding\"]")" "differs"

# --- policy ---
$C --attest --signing-key rel --output pol.intoto.jsonl --require recorded libab.so a.o > pol.out 2> pol.err; rc=$?
check "policy at attest: exit 1" test $rc = 1
contains "policy at attest: names the object and the requirement" pol.err "policy: libab.so: 1 compile unit\(s\) without a record, e.g. b.c \(recorded\)"
payload pol.intoto.jsonl > pol.json
same "policy at attest: the verdict is in the signed statement" "$(q pol.json 'st["predicate"]["buildDefinition"]["internalParameters"]["policy"]["verdict"]')" "fail"
expect_rc "policy at verify: keyed fails for unkeyed records" 1 $C --verify-attestation ab.intoto.jsonl --public-key rel.pub --require keyed a.o
contains "policy at verify: names the object" <($C --verify-attestation ab.intoto.jsonl --public-key rel.pub --require keyed a.o 2>&1) \
  "policy: a.o: the record of a.c carries no MAC \(keyed\)"
head -c 48 /dev/urandom > mac.key
TRUELINE_PROVENANCE_KEY_FILE=$T/mac.key trueline-cc gcc -O2 -fPIC -c a.c -o k.o
$C --attest --signing-key rel --output k.intoto.jsonl --require keyed,line-info,no-device-debug,one-toolchain,recorded k.o > k.out 2> k.err; rc=$?
check "policy: a keyed object with line info passes every requirement" test $rc = 0
payload k.intoto.jsonl > k.json
same "mac: without the record key it is said to be unchecked" "$(q k.json "$OBJ[\"k.o\"][\"records\"][0][\"mac\"]")" "not checked: no record key given"
$C --attest --signing-key rel --record-key mac.key --output km.intoto.jsonl k.o > km.out 2>&1
payload km.intoto.jsonl > km.json
same "mac: with the record key it verifies" "$(q km.json "$OBJ[\"k.o\"][\"records\"][0][\"mac\"]")" "verified"
head -c 48 /dev/urandom > other.key
$C --attest --signing-key rel --record-key other.key --output kw.intoto.jsonl k.o > kw.out 2>&1
payload kw.intoto.jsonl > kw.json
same "mac: with another key it does not verify" "$(q kw.json "$OBJ[\"k.o\"][\"records\"][0][\"mac\"]")" "does not verify"
expect_rc "mac: --require keyed fails on it" 1 $C --verify-attestation kw.intoto.jsonl --public-key rel.pub --require keyed k.o
contains "mac: and says the MAC does not verify" <($C --verify-attestation kw.intoto.jsonl --public-key rel.pub --require keyed k.o 2>&1) \
  "policy: k.o: the MAC of the record of a.c does not verify"
printf short > short.key
expect_rc "mac: a record key of 5 bytes is refused (exit 2)" 2 $C --attest --signing-key rel --record-key short.key --output ks.jsonl k.o
expect_rc "policy: an unknown requirement is a usage error" 2 $C --attest --signing-key rel --output z.jsonl --require everything a.o

# --- a wheel with one member built outside the wrapper: listed, not hidden ---
premise "wheel member through the wrapper" trueline-cc gcc -O2 -fPIC -shared a.c -o libw.so
premise "wheel member without it" gcc -O2 -g -fPIC -shared b.c -o libraw.so
W=pkg-1.0-cp311-cp311-manylinux_2_17_x86_64.whl
python3 "$MKWHEEL" "$W" pkg/libw.so=libw.so pkg/libraw.so=libraw.so
$C --attest --signing-key rel --output whl.intoto.jsonl "$W" > whl.out 2> whl.err; rc=$?
check "wheel: attested (exit 0)" test $rc = 0
contains "wheel: the summary names the member without a record" whl.out "pkg/libraw.so: .*(no provenance record|without a record)"
payload whl.intoto.jsonl > whl.json
same "wheel: subject is the wheel, by sha256sum" "$(q whl.json 'st["subject"][0]["digest"]["sha256"]')" "$(sha "$W")"
same "wheel: member digest equals sha256sum of the member's file" "$(q whl.json "[o['digest']['sha256'] for o in $OBJ.values() if o['file'].endswith('pkg/libw.so')][0]")" "$(sha libw.so)"
same "wheel: the unwrapped member is listed as not recorded" "$(q whl.json "[o['recorded'] for o in $OBJ.values() if o['file'].endswith('pkg/libraw.so')][0]")" "no record"
same "wheel: the wrapped member is recorded" "$(q whl.json "[o['recorded'] for o in $OBJ.values() if o['file'].endswith('pkg/libw.so')][0]")" "yes"
expect_rc "wheel: --require recorded fails on it" 1 $C --verify-attestation whl.intoto.jsonl --public-key rel.pub --require recorded "$W"
contains "wheel: and names the member" <($C --verify-attestation whl.intoto.jsonl --public-key rel.pub --require recorded "$W" 2>&1) \
  "policy: .*pkg/libraw.so: .*\(recorded\)"

# --- flags folded from the environment: recorded apart from the argv, under the record's MAC ---
# The oracle is the environment set here: Python reads the same variables and builds the list the statement
# must hold, exactly (names, values, order: prepend before append as the wrapper folds them).
folded() { q "$1" "[(f['variable'], f['value']) for r in $OBJ[\"$2\"]['records'] for f in r['foldedFlags']]"; }
want_env() { python3 -c 'import os,sys; print([(v, os.environ[v]) for v in sys.argv[1:]])' "$@"; }
CCC_OVERRIDE_OPTIONS='# +-DFOLDED_BY_CCC=1' trueline-cc gcc -O2 -fPIC -c a.c -o g-ccc.o
if have_nvcc; then
  printf '__global__ void k(int *p) { *p = 1; }\n' > fe.cu
  export NVCC_PREPEND_FLAGS='-DPRE=1 -Xcompiler -Wall' NVCC_APPEND_FLAGS='-DPOST="a b"'
  TRUELINE_PROVENANCE_KEY_FILE=$T/mac.key trueline-cc "$CUDA_HOME/bin/nvcc" -arch=sm_80 -c fe.cu -o fe.o > fe.log 2>&1
  want=$(want_env NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS)
  unset NVCC_PREPEND_FLAGS NVCC_APPEND_FLAGS
  premise "nvcc object built with NVCC_PREPEND_FLAGS and NVCC_APPEND_FLAGS set" test -s fe.o
  $C --attest --signing-key rel --record-key mac.key --output fe.intoto.jsonl fe.o g-ccc.o > fe.out 2>&1
  payload fe.intoto.jsonl > fe.json
  same "folded: the statement lists exactly the variables set, with their values" "$(folded fe.json fe.o)" "$want"
  same "folded: the record's MAC (covering them) verifies" "$(q fe.json "$OBJ['fe.o']['records'][0]['mac']")" "verified"
  same "forced: the forced flags are a list of trueline-cc's additions (-lineinfo was not given)" \
    "$(q fe.json "'-lineinfo' in $OBJ['fe.o']['records'][0]['forcedFlags']")" "True"
  $C --provenance fe.o > fe.prov 2>&1
  contains "folded: --provenance names NVCC_PREPEND_FLAGS with its value" fe.prov \
    "folded from the environment into fe.cu: NVCC_PREPEND_FLAGS=-DPRE=1 -Xcompiler -Wall$"
  contains "folded: --provenance names NVCC_APPEND_FLAGS with its value" fe.prov \
    "folded from the environment into fe.cu: NVCC_APPEND_FLAGS=-DPOST=\"a b\"$"
  $C --provenance --format json fe.o > fe.prov.json 2>&1
  same "folded: --provenance --format json has them as variable/value pairs" \
    "$(q fe.prov.json "[(f['variable'], f['value']) for f in st[0]['records'][0]['folded_env']]")" "$want"
  # one byte of a folded value changed: the record's MAC no longer verifies
  python3 - fe.o fe-t.o <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read()); i = d.find(b'fe=NVCC_PREPEND_FLAGS=-DPRE=') + 28
d[i] = ord('2'); open(sys.argv[2], 'wb').write(d)
PY
  $C --attest --signing-key rel --record-key mac.key --output fet.intoto.jsonl fe-t.o > fet.out 2>&1
  payload fet.intoto.jsonl > fet.json
  same "folded: a folded value changed in the file fails the record's MAC" "$(q fet.json "$OBJ['fe-t.o']['records'][0]['mac']")" "does not verify"
else
  skip "folded: nvcc missing (NVCC_PREPEND_FLAGS/NVCC_APPEND_FLAGS not checked)"
  $C --attest --signing-key rel --output fe.intoto.jsonl g-ccc.o > fe.out 2>&1
  payload fe.intoto.jsonl > fe.json
fi
# forced flags are the argv's own elements: one holding a space (a build directory with one, in the prefix map
# trueline-cc forces through a cache) stays one flag, and together they are the record's line-info flags
if have ccache; then
  mkdir -p "sp ace" && cp a.c "sp ace/" && (cd "sp ace" && CCACHE_DIR=$T/ccache trueline-cc ccache gcc -O2 -c a.c -o sp.o) > sp.log 2>&1
  $C --attest --signing-key rel --output sp.intoto.jsonl "sp ace/sp.o" > sp.out 2>&1
  payload sp.intoto.jsonl > sp.json
  SPR="$OBJ['sp ace/sp.o']['records'][0]"
  same "forced: the flags joined are the record's line-info flags" "$(q sp.json "' '.join($SPR['forcedFlags'])")" "$(q sp.json "$SPR['lineInfoFlags']")"
  same "forced: a flag holding a space is one element (each starts with -)" \
    "$(q sp.json "[f for f in $SPR['forcedFlags'] if not f.startswith('-')] + [n for n in [len($SPR['forcedFlags'])] if n < 2]")" "[]"
else
  skip "forced: ccache missing (a forced flag holding a space not checked)"
fi
# gcc reads no CCC_OVERRIDE_OPTIONS (clang's driver does): nothing folded, and the statement says none
same "folded: gcc with CCC_OVERRIDE_OPTIONS set folds nothing (an empty list, not an absent one)" "$(folded fe.json g-ccc.o)" "[]"
check "folded: and the gcc object is not built with it" sh -c '! strings -a g-ccc.o | grep -q FOLDED_BY_CCC'
if have clang; then
  export CCC_OVERRIDE_OPTIONS='# +-DFOLDED_BY_CCC=1'
  trueline-cc clang -O2 -fPIC -c a.c -o c-ccc.o > ccc.log 2>&1
  want=$(want_env CCC_OVERRIDE_OPTIONS)
  unset CCC_OVERRIDE_OPTIONS
  $C --attest --signing-key rel --output ccc.intoto.jsonl c-ccc.o > ccc.out 2>&1
  payload ccc.intoto.jsonl > ccc.json
  same "folded: clang's CCC_OVERRIDE_OPTIONS is listed with its value" "$(folded ccc.json c-ccc.o)" "$want"
  contains "folded: and its flag is in the recorded argv" <(q ccc.json "$OBJ['c-ccc.o']['records'][0]['effectiveArgv']") "-DFOLDED_BY_CCC=1"
else
  skip "folded: clang missing (CCC_OVERRIDE_OPTIONS folding not checked)"
fi

# --- a CMake CUDA library through trueline-cc;ccache ---
if have_nvcc && have cmake && have ccache; then
  . "$TRUELINE_ROOT/tests/lib/accept_projects.sh"
  write_cuda_project proj   # the acceptance suites' CUDA library: separable compilation, a device link, C++
  W2=$(command -v trueline-cc)
  CCACHE_DIR=$T/ccache cmake -S proj -B bld -G "Unix Makefiles" "-DCMAKE_CXX_COMPILER_LAUNCHER=$W2;ccache" \
    "-DCMAKE_CUDA_COMPILER=$CUDA_HOME/bin/nvcc" "-DCMAKE_CUDA_COMPILER_LAUNCHER=$W2;ccache" > cmake.log 2>&1 &&
    CCACHE_DIR=$T/ccache cmake --build bld -j2 > build.log 2>&1
  premise "CMake CUDA library built" test -s bld/libkernels.so
  $C --attest --signing-key rel --output cuda.intoto.jsonl --require line-info,no-device-debug,one-toolchain bld/libkernels.so > cuda.out 2> cuda.err; rc=$?
  check "cuda: attested, policy passes (exit 0)" test $rc = 0
  payload cuda.intoto.jsonl > cuda.json
  q cuda.json "'\n'.join(d['annotations']['role']+'\t'+d['name']+'\t'+d['digest']['sha256'] for d in $DEPS if 'sha256' in d.get('digest', {}))" > cdeps.txt
  for role in cicc ptxas fatbinary nvlink; do
    check "cuda: $role resolved with its sha256" grep -q "^$role"$'\t' cdeps.txt
  done
  bad=0; n=0; while IFS=$'\t' read -r role p s; do n=$((n + 1)); [ "$(sha "$p")" = "$s" ] || { bad=1; echo "    | $role $p"; }; done < cdeps.txt
  check "cuda: every component's sha256 is sha256sum's ($n components, host compiler's included)" test $bad = 0 -a $n -gt 8
  check "cuda: the host compiler nvcc ran is among them" grep -q "^host cc1plus"$'\t' cdeps.txt
  same "cuda: every source recorded" "$(q cuda.json "sorted(r['source'].split('/')[-1] for o in $OBJ.values() for r in o['records'] if r['kind']=='compile')")" "['api.cpp', 'chunks.cu', 'helpers.cu', 'scale.cu']"
  same "cuda: both toolchains (nvcc, the C++ compiler) resolved here" "$(q cuda.json "[d['annotations'].get('components') for d in $DEPS if 'components' in d['annotations']]")" "[]"
  check "cuda: two fingerprints, each with components" test "$(q cuda.json "len(set(d['annotations']['toolchainFingerprint'] for d in $DEPS))")" = 2
  expect_rc "cuda: verifies" 0 $C --verify-attestation cuda.intoto.jsonl --public-key rel.pub bld/libkernels.so
  # nvcc told its host compiler (-ccbin, as CMake adds it from CUDAHOSTCXX): the fingerprint covers that
  # compiler, so the query must ask with the recorded arguments, from the recorded directory
  mkdir -p ccb && printf '__global__ void k(int *p) { *p = 1; }\n' > ccb/k.cu
  (cd ccb && trueline-cc "$CUDA_HOME/bin/nvcc" -ccbin "$(command -v g++)" -arch=sm_80 -c k.cu -o k.o) > ccb.log 2>&1
  premise "nvcc -ccbin g++ object built" test -s ccb/k.o
  $C --attest --signing-key rel --output ccb.intoto.jsonl ccb/k.o > ccb.out 2>&1
  payload ccb.intoto.jsonl > ccb.json
  same "cuda -ccbin g++: the toolchain resolved here" "$(q ccb.json "[d['annotations'].get('components') for d in $DEPS if 'components' in d['annotations']]")" "[]"
  contains "cuda -ccbin g++: its components are g++'s" <(q ccb.json "'\n'.join(d['annotations']['role']+' '+d['name'] for d in $DEPS)") \
    "^host driver .*g\+\+"
  # nvcc off PATH (torch's PYTORCH_NVCC names it by path): --toolchain PATH/nvcc is asked the record's own
  # arguments, -ccbin included; asked without them it would fingerprint gcc as the host compiler, and differ
  nonvcc=$(tr : '\n' <<<"$PATH" | while read -r d; do [ -x "$d/nvcc" ] || echo "$d"; done | paste -sd:)
  PATH=$nonvcc $C --attest --signing-key rel --output ccb2.intoto.jsonl --toolchain "$CUDA_HOME/bin/nvcc" ccb/k.o > ccb2.out 2>&1
  payload ccb2.intoto.jsonl > ccb2.json
  same "cuda -ccbin g++, nvcc off PATH, --toolchain names it: resolved with the record's arguments" \
    "$(q ccb2.json "[d['annotations'].get('components') for d in $DEPS if 'components' in d['annotations']]")" "[]"
  # a shim first on PATH (a /usr/local/bin/nvcc script exec'ing the toolkit's, as some images have): asked by
  # file name, the shim fingerprints as itself; each nvcc on PATH is asked until the record's fingerprint is met
  mkdir -p shim && printf '#!/bin/sh\nexec "%s" "$@"\n' "$CUDA_HOME/bin/nvcc" > shim/nvcc && chmod +x shim/nvcc
  premise "the shim runs nvcc" sh -c 'shim/nvcc --version | grep -q "Cuda compilation tools"'
  PATH=$T/shim:$PATH $C --attest --signing-key rel --output ccb3.intoto.jsonl ccb/k.o > ccb3.out 2>&1
  payload ccb3.intoto.jsonl > ccb3.json
  same "cuda, an nvcc shim first on PATH: resolved by the nvcc behind it" \
    "$(q ccb3.json "[d['annotations'].get('components') for d in $DEPS if 'components' in d['annotations']]")" "[]"
  contains "... whose path is the toolkit's" <(q ccb3.json "'\n'.join(d['annotations']['role']+' '+d['name'] for d in $DEPS)") \
    "^nvcc $CUDA_HOME/bin/nvcc\$"
  # no nvcc here has the fingerprint (only the shim is on PATH): said on stderr, with what the replay gave
  PATH=$T/shim:$nonvcc $C --attest --signing-key rel --output ccb4.intoto.jsonl ccb/k.o > ccb4.out 2>&1
  contains "... with only the shim on PATH: unresolved, and stderr says what the replay fingerprinted" ccb4.out \
    "toolchain [0-9a-f]{32} \(nvcc, first recorded for .*k\.cu\) not found here: its compile, asked again now, fingerprints [0-9a-f]{32}"
else
  skip "cuda: nvcc, cmake or ccache missing"
fi

# --- the independent implementation: securesystemslib from PyPI ---
PY=$(sslib_python "$T/venv")
if [ -n "$PY" ]; then
  same "securesystemslib: computes the same keyid" "$($PY "$PYA" keyid rel.pub)" "$kid"
  contains "securesystemslib: verifies trueline's envelope and subjects" <($PY "$PYA" verify ab.intoto.jsonl rel.pub libab.so a.o 2>&1) "^verified$"
  contains "securesystemslib: rejects the tampered statement" <($PY "$PYA" verify tp.jsonl rel.pub 2>&1) "^signature: "
  contains "securesystemslib: rejects the tampered signature" <($PY "$PYA" verify ts.jsonl rel.pub 2>&1) "^signature: "
  contains "securesystemslib: rejects the tampered artifact" <($PY "$PYA" verify ab.intoto.jsonl rel.pub t/libab.so 2>&1) "sha256 .* is not the statement"
  $PY "$PYA" sign ab.json rel py.intoto.jsonl
  expect_rc "trueline verifies securesystemslib's envelope" 0 $C --verify-attestation py.intoto.jsonl --public-key rel.pub libab.so a.o
  expect_rc "trueline rejects securesystemslib's envelope for a changed artifact" 1 $C --verify-attestation py.intoto.jsonl --public-key rel.pub t/libab.so
else
  skip "securesystemslib: not importable and not installable from PyPI here"
fi
