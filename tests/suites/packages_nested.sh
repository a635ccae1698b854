#!/usr/bin/env bash
# Static archives inside packages: a .a in a wheel, in a conda .tar.bz2 and two levels down in a .conda
# (zip > pkg-*.tar.zst > lib/libfoo.a) is expanded by the archive reader that reads one named on the command
# line, its members shown as pkg!lib/libfoo.a(foo.o). Malformed and thin archives, archives past the package's
# byte budget and packages nested too deep are named, exit 2, the other members still checked. Oracles: ar t for
# the member names, readelf -S for which member carries .debug_line, the fixture's layout for the names.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1

printf 'int one(int x) { return x + 1; }\n' > a1.c
printf 'int two(int x) { return x * 2; }\n' > a2.c
printf 'int three(int x) { return x - 3; }\n' > a3.c
premise "fixtures: libfoo.a of a -g object and one without -g, a thin archive, a shared library" sh -c '
  gcc -g -c a1.c && gcc -c a2.c && gcc -g -c a3.c && ar rcs libfoo.a a1.o a2.o a3.o && ar rcsT libthin.a a1.o a2.o &&
  gcc -g -shared -fPIC a3.c -o libthree.so'
# The member that carries .debug_line and the one that does not: the premise of the per-member comparison.
premise "fixtures: a1.o has .debug_line, a2.o has none (readelf -S)" sh -c '
  readelf -S a1.o | grep -q "\.debug_line" && ! readelf -S a2.o | grep -q "\.debug_line"'
# libbad.a: cut inside its first object; libclaim.a: a2.o's header claims 9999999999 bytes.
head -c 200 libfoo.a > libbad.a
python3 - <<'PY' || { fail "premise: libclaim.a"; exit 1; }
b = bytearray(open('libfoo.a', 'rb').read())
at = b.index(b'a2.o/')
b[at + 48:at + 58] = b'9999999999'
open('libclaim.a', 'wb').write(b)
PY

# mkpkg KIND OUT MEMBER=FILE...: a wheel (zip), a conda .tar.bz2, or a .conda (a zip holding metadata.json,
# info-*.tar.zst and pkg-*.tar.zst, the members in the pkg tarball) as conda-package-handling writes them.
mkpkg() {
  python3 - "$@" <<'PY'
import io, os, subprocess, sys, tarfile, zipfile
kind, out, members = sys.argv[1], sys.argv[2], [a.split('=', 1) for a in sys.argv[3:]]
def tar(files):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode='w') as t:
        for name, data in files:
            i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))
    return b.getvalue()
files = [(n, open(f, 'rb').read()) for n, f in members]
if kind == 'whl':
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
        for n, d in files: z.writestr(n, d)
elif kind == 'tar.bz2':
    open(out, 'wb').write(__import__('bz2').compress(tar(files + [('info/index.json', b'{}')])))
else:
    stem = os.path.basename(out)[:-len('.conda')]
    zst = lambda data: subprocess.run(['zstd', '-q', '-c'], input=data, capture_output=True, check=True).stdout
    with zipfile.ZipFile(out, 'w') as z:
        z.writestr('metadata.json', '{"conda_pkg_format_version": 2}')
        z.writestr(f'info-{stem}.tar.zst', zst(tar([('info/index.json', b'{}')])))
        z.writestr(f'pkg-{stem}.tar.zst', zst(tar(files)))
PY
}

# findings REPORT.json PREFIX: "member<TAB>check<TAB>severity<TAB>message" for each finding of the files shown as
# PREFIX(member), sorted; "member<TAB>-" for a member without findings, so that a member left out is seen.
findings() { python3 -c '
import json, sys
rep, pre = json.load(open(sys.argv[1])), sys.argv[2] + "("
out = []
for f in rep["files"]:
    if not f["path"].startswith(pre): continue
    m = f["path"][len(pre):-1]
    out += ["\t".join((m, x["check"], x["severity"], x["message"])) for x in f["findings"]] or [m + "\t-"]
print("\n".join(sorted(out)))' "$@"; }
# members_with REPORT.json PREFIX CHECK SEVERITY: the members of PREFIX with a CHECK finding at SEVERITY, sorted
members_with() { python3 -c '
import json, sys
rep, pre = json.load(open(sys.argv[1])), sys.argv[2] + "("
print("\n".join(sorted(f["path"][len(pre):-1] for f in rep["files"] if f["path"].startswith(pre) and
      any(x["check"] == sys.argv[3] and x["severity"] == sys.argv[4] for x in f["findings"]))))' "$@"; }
# input_is REPORT.json PATH ok|WORDS: the input shown as PATH is in the report, read without error (ok) or with
# an error that contains WORDS
input_is() { python3 -c '
import json, sys
f = [f for f in json.load(open(sys.argv[1]))["files"] if f["path"] == sys.argv[2]]
sys.exit(not f or not (f[0]["error"] is None if sys.argv[3] == "ok" else sys.argv[3] in (f[0]["error"] or "")))' "$@"; }

trueline-check --format json libfoo.a > direct.json 2> direct.err; direct_rc=$?
findings direct.json libfoo.a > want-findings.txt
for o in a1.o a2.o a3.o; do readelf -S "$o" | grep -q '\.debug_line' || echo "$o"; done > no-lines.txt

have zstd && conda=1 || conda=0
kinds="whl tar.bz2"; [ $conda = 1 ] && kinds="$kinds conda" || skip ".conda fixtures: no zstd CLI"
for k in $kinds; do
  case $k in
    whl) P=foo-1.0-py3-none-any.whl; A=foo/lib/libfoo.a; S="$P!$A" ;;
    tar.bz2) P=foo-1.0-0.tar.bz2; A=lib/libfoo.a; S="$P!$A" ;;
    conda) P=foo-1.0-0.conda; A=lib/libfoo.a; S="$P!pkg-foo-1.0-0.tar.zst!$A" ;;
  esac
  mkpkg "$k" "$P" "$A=libfoo.a" "${A%/libfoo.a}/libthree.so=libthree.so"
  trueline-check --profile build --format json "$P" > "$k.json" 2> "$k.err"; rc=$?
  ar t libfoo.a | sed "s|^|$S(|; s|\$|)|" > want.txt
  python3 -c 'import json, sys; print("\n".join(f["path"] for f in json.load(open(sys.argv[1]))["files"]
      if f["path"].startswith(sys.argv[2] + "(")))' "$k.json" "$S" > got.txt
  check "$k: the archive's members (ar t) are inputs named $S(member)" same_bytes want.txt got.txt
  findings "$k.json" "$S" > got-findings.txt
  check "$k: each member has the findings it has when libfoo.a is checked directly" same_bytes want-findings.txt got-findings.txt
  members_with "$k.json" "$S" line-tables error > got-nolines.txt
  check "$k: line-tables errors exactly on the members without .debug_line (readelf: $(tr '\n' ' ' < no-lines.txt))" \
    same_bytes no-lines.txt got-nolines.txt
  exit_was "$k: exit status as for libfoo.a directly ($direct_rc, got $rc)" "$direct_rc" "$rc" "$k.json" "\"path\": \"$S\("
  check "$k: the package's other member is still audited" \
    python3 -c 'import json, sys; sys.exit(not any(f["path"].endswith("/libthree.so") and f["error"] is None
        for f in json.load(open(sys.argv[1]))["files"]))' "$k.json"
done

# A wheel inside a zip: the archive in the wheel is two levels down, as in a .conda.
mkpkg whl foo-1.0-py3-none-any.whl foo/lib/libfoo.a=libfoo.a && mkpkg whl dist.zip foo-1.0-py3-none-any.whl=foo-1.0-py3-none-any.whl
trueline-check --profile build --format json dist.zip > dist.json 2> dist.err
findings dist.json "dist.zip!foo-1.0-py3-none-any.whl!foo/lib/libfoo.a" > got-findings.txt
check "wheel in a zip: the archive's members, named through both levels, with the direct run's findings" \
  same_bytes want-findings.txt got-findings.txt

# Malformed and thin archives in a package: each named, exit 2, the good archive's members still checked.
if [ $conda = 1 ]; then
  P=bad-1.0-0.conda; S="$P!pkg-bad-1.0-0.tar.zst!lib"
  mkpkg conda "$P" lib/libfoo.a=libfoo.a lib/libbad.a=libbad.a lib/libclaim.a=libclaim.a lib/libthin.a=libthin.a
  trueline-check --profile build --format json "$P" > bad.json 2> bad.err; rc=$?
  check "malformed archives in a .conda: exit 2 (got $rc)" [ $rc -eq 2 ]
  contains "... the cut archive is named on stderr as $S/libbad.a" bad.err "^trueline-check: $S/libbad\\.a: bad archive member header"
  check "... with the message libbad.a gets when checked directly" sh -c '
    want=$(trueline-check libbad.a 2>&1 >/dev/null | sed -n "s/^trueline-check: libbad\.a: //p")
    [ -n "$want" ] && grep -qF "$1: $want" bad.err' sh "$S/libbad.a"
  check "... the member whose header claims 9999999999 bytes is named as cut short" \
    input_is bad.json "$S/libclaim.a(a2.o)" "cut short"
  check "... that archive's member before it is still audited" input_is bad.json "$S/libclaim.a(a1.o)" ok
  contains "... the thin archive is named, its members outside the package" bad.err \
    "^trueline-check: $S/libthin\\.a: a thin archive: its 2 members \\(a1\\.o, \\.\\.\\.\\) are files outside the package"
  findings bad.json "$S/libfoo.a" > got-findings.txt
  check "... the good archive's members are still checked, with the direct run's findings" same_bytes want-findings.txt got-findings.txt

  # The package's byte budget holds what its archives decompress to together: 12 MiB + 12 MiB of zeros, 20 MiB
  # allowed. The first is read; the second is named with the bound, and the good archive is still checked.
  python3 -c 'n = 12 << 20; h = "zero.bin/".ljust(16) + "0".ljust(12) + "0".ljust(6) + "0".ljust(6) + "644".ljust(8)
open("libzero.a", "wb").write(b"!<arch>\n" + (h + str(n).ljust(10) + "`\n").encode() + bytes(n))'
  mkpkg conda zero-1.0-0.conda lib/libfoo.a=libfoo.a lib/libzero1.a=libzero.a lib/libzero2.a=libzero.a
  S="zero-1.0-0.conda!pkg-zero-1.0-0.tar.zst!lib"
  trueline-check --profile build --max-input-mb 20 --format json zero-1.0-0.conda > zero.json 2> zero.err; rc=$?
  check "archives past the package's byte budget: exit 2 (got $rc), the package is $(stat -c %s zero-1.0-0.conda) bytes" [ $rc -eq 2 ]
  check "... the first archive is read: its member is an input" input_is zero.json "$S/libzero1.a(zero.bin)" "not an ELF"
  check "... the second is named with the bound" input_is zero.json "$S/libzero2.a" "--max-input-mb"
  findings zero.json "$S/libfoo.a" > got-findings.txt
  check "... the good archive is still checked" same_bytes want-findings.txt got-findings.txt
fi

# Packages nest two levels: a wheel inside a zip inside a zip is named, the outer zip's own library still checked;
# a jar of class files as deep holds nothing to check and is passed over.
printf '\312\376\272\276' > A.class && mkpkg whl data.jar A.class=A.class && mkpkg whl java.zip lib/data.jar=data.jar
mkpkg whl dist2.zip dist.zip=dist.zip lib/libthree.so=libthree.so java.zip=java.zip
trueline-check --format json dist2.zip > deep.json 2> deep.err; rc=$?
check "a package three levels deep: exit 2 (got $rc)" [ $rc -eq 2 ]
contains "... named, with the depth packages are read to" deep.err \
  '^trueline-check: dist2\.zip!dist\.zip!foo-1\.0-py3-none-any\.whl: a package inside a package inside a package, holding files to check \(foo/lib/libfoo\.a\): packages are read 2 levels deep'
check "... the outer zip's own library is still audited" input_is deep.json 'dist2.zip!lib/libthree.so' ok
lacks "... a jar of class files as deep is passed over" deep.err 'java\.zip' '^trueline-check: dist2\.zip!dist\.zip!foo'

