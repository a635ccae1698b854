#!/usr/bin/env bash
# make wheel: the wheel installs into a fresh venv offline (--no-index) and puts both tools on its PATH; the tools
# find their data (manylinux.tsv, the hook) in the venv; its platform tag is the newest GLIBC_ version readelf
# finds in its files, and auditwheel agrees; trueline-check audits the wheel itself: the only errors are
# line-tables findings of functions that the static archives linked into the tools define (Debian builds them
# without -g), none of trueline's own; with --profile release (what ships) it passes.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
ROOT=$TRUELINE_ROOT
B=$TRUELINE_BUILD
if [ -n "${TRUELINE_SANITIZED:-}" ]; then
  skip "sanitized build: a wheel is made from the release build"
  exit 0
fi
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  skip "python3 has no venv/ensurepip: the wheel cannot be installed here"
  exit 0
fi

# The archives the wheel's trueline-check links (WHEEL_CHECKER_LIBS): Debian ships them all; elsewhere some may lack
for l in dwarf elf archive nettle lzma bz2 zstd lz4 xxhash inih iberty z; do
  case $(gcc -print-file-name="lib$l.a") in */*) ;; *) skip "lib$l.a not installed (sh .ci/deps.sh --list test): no wheel"; exit 0;; esac
done
# -o all -o check-deps: the tools are built already (tests/run.sh runs on a finished build); only the wheel's
# own link and the zip are made here.
make --no-print-directory -C "$ROOT" -o all -o check-deps BUILD="$B" wheel > make.txt 2>&1
premise "make wheel succeeds" grep -q '\.whl$' make.txt
whl=$(ls "$B"/dist/trueline-*.whl 2>/dev/null | head -1)
premise "make wheel wrote BUILD/dist/trueline-*.whl" test -s "$whl"
name=$(basename "$whl")
tag=$(echo "$name" | sed -nE 's/^trueline-[^-]+-py3-none-(manylinux_[0-9]+_[0-9]+_(x86_64|aarch64))\.whl$/\1/p')
check "the wheel's name is trueline-VERSION-py3-none-manylinux_2_NN_ARCH.whl ($name)" test -n "$tag"

# --- the tag, from the files --------------------------------------------------------------------------------
# The newest GLIBC_ version readelf finds among the files the wheel was made from, and their DT_NEEDED.
glibc_max() { readelf --wide -V "$@" 2>/dev/null | grep -oE 'Name: GLIBC_[0-9]+\.[0-9]+' | sed 's/.*GLIBC_//' | sort -uV | tail -1; }
want_max=$(glibc_max "$B/bin/trueline-cc" "$B/wheel/trueline-check" "$B/lib/trueline/libtrueline-hook.so")
arch=$(uname -m)
same "the tag claims the newest GLIBC_ version the tools need (readelf -V)" "$tag" "manylinux_${want_max//./_}_$arch"
only_glibc() { # the wheel's ELF files need nothing but glibc's libraries from the system
  local f needed
  for f in "$B/bin/trueline-cc" "$B/wheel/trueline-check" "$B/lib/trueline/libtrueline-hook.so"; do
    needed=$(readelf -d "$f" | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p')
    echo "$needed" | grep -vqE '^(lib(c|m|pthread|dl|rt)\.so\.[0-9]+|ld-linux.*|)$' && { echo "    | $f needs: $needed"; return 1; }
  done
  return 0
}
check "trueline-check in the wheel needs no library but glibc (libelf, libdwarf, libarchive... are linked in)" only_glibc
record_ok() { # every RECORD line's sha256 and size match the member (hashlib, not the writer's code)
  python3 - "$whl" <<'EOF'
import base64, hashlib, sys, zipfile
z = zipfile.ZipFile(sys.argv[1]); names = set(z.namelist()); seen = set()
rec = [n for n in names if n.endswith(".dist-info/RECORD")][0]
for line in z.read(rec).decode().splitlines():
    path, h, size = line.rsplit(",", 2)
    seen.add(path)
    if path == rec: continue
    data = z.read(path)
    want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    if h != want or int(size) != len(data): sys.exit(f"    | {path}: RECORD says {h} {size}")
sys.exit(0 if seen == names else f"    | not in RECORD: {names - seen}")
EOF
}
check "RECORD lists every member with its sha256 and size" record_ok

# --- installed into a fresh venv, offline -------------------------------------------------------------------
python3 -m venv "$T/venv" >/dev/null 2>&1
premise "a fresh venv" test -x "$T/venv/bin/pip"
"$T/venv/bin/pip" install -q --no-index --disable-pip-version-check "$whl" > pip.txt 2>&1
premise "pip install --no-index of the wheel succeeds" grep -qx 'trueline-[0-9.]*' <("$T/venv/bin/pip" list --format=freeze 2>/dev/null | sed 's/==/-/')
VPATH_="$T/venv/bin:/usr/bin:/bin"
check "the venv's bin/ has trueline-cc and trueline-check on PATH" \
  sh -c "[ \"\$(PATH=$VPATH_ command -v trueline-cc)\" = '$T/venv/bin/trueline-cc' ] && [ \"\$(PATH=$VPATH_ command -v trueline-check)\" = '$T/venv/bin/trueline-check' ]"
version=$(sed -nE 's/^VERSION *:= *//p' "$ROOT/Makefile")
PATH=$VPATH_ trueline-check --version > ver.txt 2>&1
contains "trueline-check --version from the venv names the Makefile's version ($version)" ver.txt "^trueline-check $version\$"

printf 'int answer(void) { return 42; }\n' > a.c
PATH=$VPATH_ trueline-cc gcc -c a.c -o a.o 2> cc.txt
wrapped() { readelf -S a.o | grep -q '\.debug_line' && readelf -n a.o | grep -q '^  trueline'; }
check "the venv's trueline-cc gcc -c: .debug_line forced and a .note.trueline record (readelf)" wrapped
gcc -c a.c -o bare.o
expect_rc "the venv's trueline-check passes the wrapped object" 0 sh -c "PATH='$VPATH_' trueline-check a.o > ok.txt 2>&1"
PATH=$VPATH_ trueline-check bare.o > bare.txt 2>&1
contains "and fails the one gcc built without -g" bare.txt 'error \[line-tables\] no \.debug_line'

# The table is read from the venv's share/trueline/: a policy added to the venv's copy alone is known.
printf 'venv_probe\t2.2.5\t3.4\t1.3\t3.0\n' >> "$T/venv/share/trueline/manylinux.tsv"
printf '#include <pthread.h>\nstatic void *f(void *p) { return p; }\nint start(pthread_t *t) { return pthread_create(t, 0, f, 0); }\n' > t.c
gcc -g -shared -fPIC t.c -o libt.so -lpthread
t_max=$(glibc_max libt.so)
PATH=$VPATH_ trueline-check --policy venv_probe libt.so > probe.txt 2>&1
contains "manylinux.tsv is the venv's (a row only it has is a policy; GLIBC_$t_max over its 2.2.5 is an error)" \
  probe.txt "error \[symbol-versions\].*GLIBC_$t_max"
# The man pages: man-db looks beside each PATH directory (bin/../share/man)
if have man; then
  PATH=$VPATH_ man -w trueline-check > man.txt 2>&1
  contains "man finds trueline-check(1) in the venv" man.txt "^$T/venv/share/man/man1/trueline-check\.1"
else
  skip "man not installed: the man pages' place not checked"
fi
# The hook is the venv's: ccache loads bin/../lib/trueline/libtrueline-hook.so (the dynamic loader says so).
if have ccache; then
  export CCACHE_DIR="$T/ccache"
  PATH=$VPATH_ trueline-cc ccache gcc -c a.c -o h1.o 2>/dev/null
  LD_DEBUG=files PATH=$VPATH_ trueline-cc ccache gcc -c a.c -o h2.o 2> ld.txt
  contains "ccache through the venv's trueline-cc preloads the venv's hook" ld.txt "file=$T/venv/bin/\.\./lib/trueline/libtrueline-hook\.so"
else
  skip "ccache not installed: the hook's lookup not checked"
fi

# --- the wheel audited -----------------------------------------------------------------------------------------
PATH=$VPATH_ trueline-check --profile build "$whl" > audit.txt 2>&1; rc=$?
PATH=$VPATH_ trueline-check --profile build --format json "$whl" > audit.json 2>/dev/null
check "trueline-check reads the wheel (exit $rc: 0 or 1, not 2)" test "$rc" -le 1
contains "its package summary: the symbol versions allow the tag the file name claims" audit.txt \
  "symbol versions allow $(echo "$tag" | sed -E 's/_(x86_64|aarch64)$//') and newer; the file name claims $(echo "$tag" | sed -E 's/_(x86_64|aarch64)$//')\$"
# The static archives linked into the tools (WHEEL_CHECKER_LIBS, trueline-cc's, the C libraries, GCC's runtime
# libgcc.a and libgcc_eh.a, which a static link takes the unwinder from), by the symbols
# nm finds defined in them (static functions included). A function of trueline's own that lacked rows would not be
# among them (the few names both define, xxHash's inline functions, have rows in trueline's copy).
archives=()
for l in dwarf elf archive nettle lzma bz2 zstd lz4 xxhash inih iberty z sodium jansson c gcc gcc_eh; do
  a=$(gcc -print-file-name="lib$l.a"); [ -f "$a" ] && archives+=("$a")
done
nm --defined-only "${archives[@]}" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u > third_party.txt
errors_third_party() {
  python3 - audit.json third_party.txt <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
third = set(open(sys.argv[2]).read().split())
if len(third) < 1000: sys.exit("    | too few symbols from nm: the oracle is empty")
n = 0
for f in d["files"]:
    for x in f.get("findings", []):
        if x["severity"] != "error" or x.get("suppressed"): continue
        n += 1
        # the name as linked, and without GCC's clone suffixes (the archive may hold either)
        raw = x.get("symbol") or ""
        names = {raw, re.sub(r"(\.(cold|part|isra|constprop|lto_priv|localalias)(\.[0-9]+)?)+$", "", raw)}
        if x["check"] != "line-tables" or "no compile unit covers it" not in x["message"] or not names & third:
            sys.exit(f"    | {f['path']}: [{x['check']}] {x.get('symbol')}: {x['message']}")
print(f"    | {n} errors, all in functions of the static archives")
EOF
}
check "every error in the wheel's audit is a function that a linked static archive defines (Debian builds them without -g)" errors_third_party
lacks "no member is unreadable" audit.txt '[1-9][0-9]* unreadable$' ' 0 unreadable$'
# The release profile judges a shipped file by the units it carries debug info for: the same wheel passes, the
# code of the linked archives is one info line per file, counted as many as the build profile's errors.
PATH=$VPATH_ trueline-check --profile release "$whl" > release.txt 2>&1; rc=$?
check "trueline-check --profile release passes the wheel (exit $rc, want 0)" test "$rc" -eq 0
build_errors=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(1 for f in d["files"] for x in f.get("findings",[]) if x["severity"]=="error" and x["check"]=="line-tables" and "no compile unit covers it" in x["message"]))' audit.json)
release_infos=$(sed -nE 's/.*info \[line-tables\] ([0-9]+) functions? of objects linked without -g .*/\1/p' release.txt | awk '{ s += $1 } END { print s + 0 }')
check "the release profile counts them as the build profile's errors ($release_infos vs $build_errors)" \
  sh -c "[ '$build_errors' -gt 0 ] && [ '$release_infos' -eq '$build_errors' ]"

if have auditwheel; then
  auditwheel show "$whl" > aw.txt 2>&1
  aw_tag=$(tr -s ' \n' ' ' < aw.txt | grep -oE 'consistent with the following platform tag: "[^"]+"' | sed -E 's/.*"(.*)"/\1/')
  same "auditwheel show: the wheel is consistent with the tag in its name" "$aw_tag" "$tag"
else
  skip "auditwheel not installed (pip install auditwheel)"
fi
