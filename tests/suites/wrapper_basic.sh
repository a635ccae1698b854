#!/usr/bin/env bash
# trueline-cc with gcc/clang only (fast): forced line info and where it is not added, response files,
# CCC_OVERRIDE_OPTIONS against clang -###, masquerade lookup, pass-through of status/signals/output,
# configuration errors, unwritable memo cache, 64 concurrent writers of the memo cache.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
W=$(command -v trueline-cc)
printf 'int answer(void) { return 42; }\n' > a.c
printf 'int main(void) { return 0; }\n' > m.c
printf '#include <stdio.h>\nint main(void) { puts(MSG); return N; }\n' > msg.c
has_debug_line() { readelf -S "$1" 2>/dev/null | grep -q '\.debug_line'; }
# Objects equal apart from the provenance note the stamping stage adds (.note.trueline).
same_code() {
  objcopy --remove-section=.note.trueline "$1" "$1.bare" 2>/dev/null && objcopy --remove-section=.note.trueline "$2" "$2.bare" 2>/dev/null &&
    cmp -s "$1.bare" "$2.bare"
}

# --- the binary itself ----------------------------------------------------------------------------------
trueline-cc --trueline-version > ver.txt
contains "--trueline-version names the version and the C library" ver.txt '^trueline-cc [0-9.]+ \(C library: glibc\)$'
# glibc's crt1.o brings the ABI note; musl's has none (the static archives trueline-cc links are glibc's)
check "linked against glibc: its NT_GNU_ABI_TAG note (readelf)" sh -c "readelf -nW '$W' | grep -q NT_GNU_ABI_TAG"
# the Makefile links it statically wherever every static archive it needs is installed, except under sanitizers
static_archives() {
  local a
  for a in libc.a libelf.a libzstd.a libxxhash.a libinih.a libiberty.a libz.a; do
    case $(cc -print-file-name=$a) in */*) ;; *) return 1;; esac
  done
}
static_link() { # an ELF program with loadable segments, no program interpreter, no needed library
  readelf -lW "$1" 2>/dev/null | grep -q '^ *LOAD ' && ! readelf -lW "$1" | grep -q 'program interpreter' &&
    ! readelf -dW "$1" | grep -q NEEDED
}
w_machine=$(readelf -h "$W" 2>/dev/null | grep Machine:)
if [ -n "${TRUELINE_SANITIZED:-}" ]; then skip "sanitized build: linked dynamically"
elif [ -n "$w_machine" ] && [ "$w_machine" != "$(readelf -h /proc/self/exe | grep Machine:)" ]; then
  skip "trueline-cc is built for another architecture (under qemu): this machine's static archives say nothing of it"
elif ! static_archives; then skip "a static archive trueline-cc links is not installed: linked dynamically"
else check "linked statically: no program interpreter, no needed library (readelf)" static_link "$W"; fi

# --- forced host line info ---------------------------------------------------------------------------
trueline-cc gcc -c a.c -o a.o 2>err.txt
check "launcher gcc -c: object has .debug_line (forced -g1)" has_debug_line a.o
gcc -c a.c -o plain.o
premise "plain gcc -c has no .debug_line (the forcing is what adds it)" bash -c "! readelf -S plain.o | grep -q debug_line"
check "nothing on stderr for a clean compile (the object written)" test -s a.o -a ! -s err.txt
TRUELINE_EXPLAIN=1 trueline-cc gcc -c a.c -o a.o 2>ex.txt
contains "explain shows the forced flag" ex.txt '^trueline-cc: forced: -g1$'
contains "explain shows the fingerprint" ex.txt '^trueline-cc: fingerprint: [0-9a-f]{32}'
contains "explain lists cc1 as a component" ex.txt 'component cc1: [0-9a-f]{32} /'
trueline-cc --trueline-explain gcc -c -g3 a.c -o g3.o 2>ex.txt
lacks "an explicit -g3 is left alone" ex.txt 'forced: -g' '^trueline-cc: effective argv: .* -g3'
if have clang; then
  trueline-cc --trueline-explain clang -c a.c -o ac.o 2>ex.txt
  contains "clang gets -gline-tables-only" ex.txt 'forced: -gline-tables-only'
  check "clang object has .debug_line" has_debug_line ac.o
fi
if [ "$(readlink -f "$(command -v cc)")" != "$(readlink -f "$(command -v cc)" | sed 's/clang//')" ]; then want_fam=clang; else want_fam=gcc; fi
trueline-cc --trueline-explain cc -c a.c -o cc.o 2>ex.txt
contains "'cc' (no family in its name): family from the --version probe" ex.txt "compiler: .*/cc \(family $want_fam\)"
TRUELINE_WRAPPER_HOST_DEBUG=keep trueline-cc gcc -c a.c -o keep.o
keep_stamped() { same_code keep.o plain.o && readelf -n keep.o | grep -q '^  trueline'; }
check "host_debug=keep adds nothing (same object as plain gcc, provenance note aside), still stamped" keep_stamped

# --- nothing forced where it would change the meaning --------------------------------------------------
gcc -E a.c > e1.txt
trueline-cc --trueline-explain gcc -E a.c > e2.txt 2>ex.txt
check "-E output identical to plain gcc" cmp -s e1.txt e2.txt
contains "-E: explain says nothing forced" ex.txt 'nothing forced: -E'
gcc -M a.c > d1.txt; trueline-cc gcc -M a.c > d2.txt
check "-M output identical" cmp -s d1.txt d2.txt
gcc --version > v1.txt; trueline-cc gcc --version > v2.txt
check "--version identical" cmp -s v1.txt v2.txt
gcc -c m.c -o m.o
trueline-cc --trueline-explain gcc m.o -o m.exe 2>ex.txt
contains "link-only: nothing forced" ex.txt 'nothing forced: no source file'
check "link-only produced the program" test -x m.exe

# --- response files (gcc's own expansion, GNU quoting) --------------------------------------------------
printf '%s\n' "-DMSG=\"\\\"two words\\\"\"" "'-DN=3'" > opts.rsp
gcc @opts.rsp msg.c -o msg-plain && ./msg-plain > out-plain.txt; rc_plain=$?
trueline-cc --trueline-explain gcc @opts.rsp msg.c -o msg-tl 2>ex.txt && ./msg-tl > out-tl.txt; rc_tl=$?
check "response file: same program output as gcc" cmp -s out-plain.txt out-tl.txt
check "response file: same exit code (N=3)" test "$rc_plain" = 3 -a "$rc_tl" = 3
contains "response file folded into the effective argv" ex.txt "effective argv: .* '-DMSG=\"two words\"' -DN=3 msg.c"
printf '%s\n' -E > e.rsp
trueline-cc --trueline-explain gcc @e.rsp a.c > /dev/null 2>ex.txt
contains "-E inside a response file is seen: nothing forced" ex.txt 'nothing forced: -E'

# --- CCC_OVERRIDE_OPTIONS applied exactly as clang applies it ------------------------------------------
if have clang; then
  ccc_case() { # script
    CCC_OVERRIDE_OPTIONS="$1" clang -### -Wall -DX=1 -O1 -include stdio.h -c a.c -o ccc.o 2>want.txt
    CCC_OVERRIDE_OPTIONS="$1" trueline-cc clang -### -Wall -DX=1 -O1 -include stdio.h -c a.c -o ccc.o 2>got.txt
    if cmp -s want.txt got.txt; then pass "CCC_OVERRIDE_OPTIONS '$1' == clang -###"; else
      fail "CCC_OVERRIDE_OPTIONS '$1' differs from clang -###"; diff want.txt got.txt | head -10 | sed 's/^/    | /'; fi
  }
  ccc_case '^-DFIRST +-DLAST x-Wall X-include s/-DX=1/-DX=2/ O3'
  ccc_case '#+-DQUIET s/^-D(X)=([0-9])$/-D\1\1=\2\2/ Os'
  ccc_case 'X-o bogus x-nothing'
  CCC_OVERRIDE_OPTIONS='+-DFROM_ENV' trueline-cc --trueline-explain clang -c a.c -o ccc.o 2>ex.txt
  contains "CCC_OVERRIDE_OPTIONS reported as folded" ex.txt 'folded: CCC_OVERRIDE_OPTIONS'
  contains "... and removed from the compiler's environment" ex.txt "removed from the compiler's environment: CCC_OVERRIDE_OPTIONS"
else
  skip "CCC_OVERRIDE_OPTIONS tests: clang not installed"
fi

# --- exit status, signals, stdout and stderr pass through ----------------------------------------------
printf 'int broken(void) { return }\n' > bad.c
gcc -c bad.c -o bad.o > o1.txt 2> e1.txt; rc1=$?
trueline-cc gcc -c bad.c -o bad.o > o2.txt 2> e2.txt; rc2=$?
check "failing compile: same exit status ($rc1)" test "$rc1" = "$rc2" -a "$rc1" != 0
check "failing compile: same stderr" cmp -s e1.txt e2.txt
mkdir -p tools
printf '#!/bin/sh\necho "out:$*"\necho "err:$#" >&2\nexit 7\n' > tools/fakecc
printf '#!/bin/sh\nkill -%s $$\n' TERM > tools/sigterm
printf '#!/bin/sh\nkill -%s $$\n' SEGV > tools/sigsegv
chmod +x tools/*
trueline-cc "$T/tools/fakecc" -c 'a b' "*" > o.txt 2> e.txt; rc=$?
check "status 7 passes through" test $rc = 7
contains "stdout passes through, arguments unsplit and unglobbed (no shell)" o.txt '^out:-c a b \*$'
contains "stderr passes through" e.txt '^err:3$'
for s in sigterm sigsegv; do
  want=$( { bash -c '"$@"' _ "$T/tools/$s"; echo $?; } 2>/dev/null)
  got=$( { bash -c '"$@"' _ trueline-cc "$T/tools/$s"; echo $?; } 2>/dev/null)
  check "$s: the wrapper ends like the compiler (status $want)" test "$want" = "$got" -a "$want" -gt 128
done

# --- masquerade: real compiler is the next one on PATH that is not trueline-cc --------------------------
mkdir -p masq masq2
for n in gcc cc clang; do ln -sf "$W" "masq/$n"; done
cp "$W" masq2/trueline-cc-copy; ln -sf trueline-cc-copy masq2/gcc
PATH="$T/masq:$T/masq2:$PATH" gcc --trueline-explain -c a.c -o masq.o 2>ex.txt
contains "masquerade mode detected" ex.txt 'mode: masquerade'
contains "the real gcc found past both trueline-cc copies on PATH" ex.txt "compiler: /.*/gcc \(family gcc\)"
lacks "never a trueline-cc as the compiler" ex.txt "compiler: $T" 'compiler: /.*/gcc \(family gcc\)'
check "masquerade object has .debug_line" has_debug_line masq.o
timeout 10 env PATH="$T/masq:$T/masq2" "$T/masq/gcc" -c a.c -o none.o 2>ex.txt; rc=$?
check "no real compiler on PATH: error, no self-recursion (status $rc)" test $rc = 127
contains "... with a message" ex.txt 'gcc: compiler not found'
# nested: the list names this very trueline-cc (dev:ino in hex), as the outer one exports it
self_id=$(stat -L -c '%d %i' "$W" | { read -r d i; printf '%x:%x' "$d" "$i"; })
TRUELINE_CC_ACTIVE="$self_id" PATH="$T/masq:$PATH" gcc -c a.c -o nested.o
check "nested under another trueline-cc: compiler runs untouched" cmp -s nested.o plain.o

if have ccache; then
  export CCACHE_DIR=$T/ccache
  TRUELINE_WRAPPER_CACHE=ccache PATH="$T/masq:$PATH" timeout 60 gcc --trueline-explain -c a.c -o masq-cc.o 2>ex.txt; rc=$?
  check "masquerade + [wrapper] cache = ccache: compiles (status $rc), no loop through ccache" test $rc = 0 -a -s masq-cc.o
  contains "... chained to ccache with the real compiler's path" ex.txt 'mode: masquerade \(cache .*/ccache\)'
  TRUELINE_WRAPPER_CACHE=ccache trueline-cc --trueline-explain gcc -c a.c -o cfg-cc.o 2>ex.txt
  contains "launcher + [wrapper] cache = ccache: chained" ex.txt 'mode: chained \(cache .*/ccache\)'
  TRUELINE_WRAPPER_CACHE=distcc trueline-cc gcc -c a.c -o bad-cache.o 2>ex.txt; rc=$?
  check "[wrapper] cache = distcc: refused with status 2" test $rc = 2 -a ! -e bad-cache.o
  contains "... saying what is allowed" ex.txt 'expected none, ccache or sccache'
  unset CCACHE_DIR
fi

# --- configuration ---------------------------------------------------------------------------------------
printf '[wrapper\nhost_debug = g1\n' > broken.ini
TRUELINE_CONFIG=$T/broken.ini trueline-cc gcc -c a.c -o cfg.o 2>ex.txt; rc=$?
check "broken config fails the compile with status 2" test $rc = 2 -a ! -e cfg.o
contains "... naming the file and line" ex.txt "broken.ini:1: config syntax error"
TRUELINE_CONFIG=$T/broken.ini TRUELINE_WRAPPER_ON_ERROR=passthrough trueline-cc gcc -c a.c -o cfg.o 2>ex.txt; rc=$?
check "on_error=passthrough runs the compiler unwrapped" test $rc = 0 -a -e cfg.o
contains "... with a warning" ex.txt 'warning: .*broken.ini.*running the compiler unwrapped'
printf '[wrapper]\nhost_debug = g5\n' > bad-value.ini
TRUELINE_CONFIG=$T/bad-value.ini trueline-cc gcc -c a.c -o cfg2.o 2>ex.txt; rc=$?
check "bad value: status 2" test $rc = 2
contains "... says which key and what is allowed" ex.txt 'host_debug = g5: expected keep'
printf '[fingerprint]\nextra_files = %s\n' "$T/tools" > unreadable.ini
TRUELINE_CONFIG=$T/unreadable.ini trueline-cc gcc -c a.c -o cfg3.o 2>ex.txt; rc=$?
check "unreadable toolchain file: compile fails (status 2)" test $rc = 2 -a ! -e cfg3.o
contains "... naming the file" ex.txt "extra file: $T/tools"
printf '[wrapper]\nhost_debug = keep\n' > .trueline.ini
trueline-cc gcc -c a.c -o dot.o
check "./.trueline.ini is read" same_code dot.o plain.o
rm .trueline.ini

# --- memo cache ------------------------------------------------------------------------------------------
: > notadir
XDG_CACHE_HOME=$T/notadir/sub trueline-cc --trueline-explain gcc -c a.c -o nomemo.o 2>ex.txt; rc=$?
check "unwritable memo cache: compile still succeeds" test $rc = 0 -a -e nomemo.o
contains "... explain says why it was not written" ex.txt 'memo cache: .*notadir/sub.*cannot create'
lacks "... and it is no error" ex.txt 'error' 'memo cache: .*notadir/sub'
export XDG_CACHE_HOME=$T/par
pids=()
for i in $(seq 64); do trueline-cc --trueline-print-fingerprint gcc -c a.c > "fp.$i" 2>"fperr.$i" & pids+=($!); done
bad=0; for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
for i in $(seq 64); do grep -Eqx '[0-9a-f]{32}' "fp.$i" || bad=$((bad + 1)); done
check "64 parallel invocations all succeed, each printing a fingerprint" test $bad = 0
check "... and agree on one fingerprint" test "$(cat fp.* | sort -u | grep -Ec '^[0-9a-f]{32}$')" = 1 -a "$(cat fp.* | sort -u | wc -l)" = 1
check "... no error output" test -z "$(cat fperr.*)" -a $bad = 0
memo=$XDG_CACHE_HOME/trueline/memo-v2
check "memo file has its header" test "$(head -1 "$memo")" = "trueline-memo 2"
check "every memo line is KLEN:VLEN:key<TAB>value" test "$(grep -vc $'^[0-9a-f]\+:[0-9a-f]\+:[^\t]\+\t[^\t]*$' "$memo")" = 1
check "... and its lengths are the key's and the value's" python3 -c '
import re, sys
lines = open(sys.argv[1], "rb").read().split(b"\n")[1:-1]
for l in lines:
    m = re.match(rb"([0-9a-f]+):([0-9a-f]+):", l)
    k, _, v = l[m.end():].partition(b"\t")
    assert (len(k), len(v)) == (int(m.group(1), 16), int(m.group(2), 16)), l
assert lines' "$memo"
check "no temp files left behind" test -s "$memo" -a -z "$(ls -A "$XDG_CACHE_HOME/trueline" | grep -v '^memo-v2$')"
check "the first record is the index, sized for this file" python3 -c '
import os, sys
d = open(sys.argv[1], "rb").read()
first = d.split(b"\n")[1]
k, _, v = first.split(b":", 2)[2].partition(b"\t")
nb = int(v[8:16], 16)
assert k == b"#index" and int(v[:8], 16) == len(d) == os.path.getsize(sys.argv[1]), (k, v[:16])
assert nb & (nb - 1) == 0 and len(v) == 16 + 8 * nb
n = d.count(b"\n") - 2
assert nb >= 2 * n and sum(v[16 + 8 * i:24 + 8 * i] != b"0" * 8 for i in range(nb)) == n' "$memo"
trueline-cc --trueline-explain gcc -c a.c -o warm.o 2>ex.txt
contains "... a warm run reads it through the index" ex.txt 'memo cache: .* \(read through its index\)'

n_memo=$(grep -c 'component .* (memo)$' ex.txt); n_comp=$(grep -c 'component .*: [0-9a-f]\{32\} /' ex.txt)
check "after the race every component comes from the memo ($n_memo of $n_comp)" test "$n_memo" = "$n_comp" -a "$n_comp" -ge 4
check "... and the fingerprint equals the racers'" grep -Eq "fingerprint: $(grep -Ex '[0-9a-f]{32}' fp.1 || echo none)" ex.txt
cp "$memo" memo.good
printf 'trueline-memo 2\ngarbage\nf:/usr/bin/gcc:zz\tnothex\n3:2:f:x\tzz\n\x00\x01' > "$memo"
trueline-cc --trueline-print-fingerprint gcc -c a.c > fp.corrupt
check "a corrupt memo file is ignored, not trusted" same_bytes fp.corrupt fp.1
# A record whose lengths miss its tab or newline (a torn or foreign file) ends the reading there.
python3 - memo.good "$memo" <<'EOF'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
kl, vl, rest = lines[1].split(b":", 2)
lines[1] = kl + b":" + b"%x" % (int(vl, 16) + 1) + b":" + rest
open(sys.argv[2], "wb").write(b"\n".join(lines))
EOF
trueline-cc --trueline-explain --trueline-print-fingerprint gcc -c a.c > fp.torn 2>ex.torn
check "a record with a wrong length: the same fingerprint, nothing after it trusted" same_bytes fp.torn fp.1
contains "... the closure is walked again" ex.torn 'closure: walked'
cp memo.good "$memo"; printf '4:1:f:/x\ty\n' >> "$memo" # a record appended by hand: the index no longer fits
trueline-cc --trueline-explain --trueline-print-fingerprint gcc -c a.c > fp.appended 2>ex.appended
check "a memo edited after its index was written: the same fingerprint" same_bytes fp.appended fp.1
contains "... read record by record" ex.appended 'memo cache: .* \(read record by record: no index\)'
contains "... and its entries still trusted (the closure from the memo)" ex.appended 'closure: from the memo'
printf 'trueline-memo 1\nold\tformat\n' > "$XDG_CACHE_HOME/trueline/memo-v1"
rm -f "$memo"; trueline-cc --trueline-print-fingerprint gcc -c a.c >/dev/null
check "the first-format memo file (memo-v1) is removed by the next writer" test ! -e "$XDG_CACHE_HOME/trueline/memo-v1" -a -s "$memo"

# --- the closure memo (wrapper/fingerprint/deps.h): the whole toolchain in one lookup, re-validated by stat -----------
# A fake gcc driver whose cc1 we can rewrite, and an empty directory early on PATH where an `as` can appear.
export XDG_CACHE_HOME=$T/closure
TC=$T/tc; mkdir -p "$TC/bin" "$TC/lib" "$TC/early"
cat > "$TC/bin/gcc" <<'EOF'
#!/bin/sh
case "$1" in
  -print-prog-name=cc1|-print-prog-name=cc1plus) echo "$(dirname "$0")/../lib/${1#-print-prog-name=}" ;;
  -print-prog-name=*) echo "${1#-print-prog-name=}" ;;
  *) echo "gcc (fake) 12.0" ;;
esac
EOF
chmod +x "$TC/bin/gcc"
printf 'cc1 version 1\n' > "$TC/lib/cc1"; printf 'cc1plus version 1\n' > "$TC/lib/cc1plus"
# the fingerprint printed (32 hex digits; anything else printed is no fingerprint)
tfp() { PATH="$TC/early:$TC/bin:$PATH" trueline-cc --trueline-explain --trueline-print-fingerprint gcc -c a.c 2>"$1" | grep -Ex '[0-9a-f]{32}'; }
sleep 3 # files changed in the last 2 s are never memoized (timestamps are tick-coarse: "racily clean")
fp1=$(tfp ex1.txt); fp2=$(tfp ex2.txt)
contains "closure memo: the first lookup walks the closure and records it" ex1.txt 'closure: walked \([0-9]+ files and directories recorded'
contains "... the second comes from the memo" ex2.txt 'closure: from the memo \([0-9]+ files'
check "... with the same fingerprint" test -n "$fp1" -a "$fp1" = "$fp2"
same "... which is the one computed with the memo off" "$fp1" "$(PATH="$TC/early:$TC/bin:$PATH" TRUELINE_FINGERPRINT_MEMO=false trueline-cc --trueline-print-fingerprint gcc -c a.c)"
cp -p "$TC/lib/cc1" "$T/cc1.ref"
printf 'cc1 version 2\n' > "$TC/lib/cc1"; touch -r "$T/cc1.ref" "$TC/lib/cc1"
premise "cc1 rewritten in place kept size and mtime" test "$(stat -c %s.%Y "$TC/lib/cc1")" = "$(stat -c %s.%Y "$T/cc1.ref")"
fp3=$(tfp ex3.txt)
check "... the fingerprint changes (its ctime did)" test -n "$fp3" -a "$fp3" != "$fp1"
contains "... the closure was walked again" ex3.txt 'closure: walked'
sleep 3
fp4=$(tfp ex4.txt); tfp ex5.txt >/dev/null
contains "after the change settles, the closure is memoized again" ex5.txt 'closure: from the memo'
printf '#!/bin/sh\nexit 0\n' > "$TC/early/as"; chmod +x "$TC/early/as"
fp6=$(tfp ex6.txt)
check "a new 'as' in an earlier PATH directory: the fingerprint changes" test -n "$fp6" -a "$fp6" != "$fp4"
contains "... it is the host assembler now" ex6.txt "component as: [0-9a-f]{32} $TC/early/as"
rm "$TC/early/as"
same "... and removing it again restores the fingerprint" "$(tfp ex7.txt)" "$fp4"
# The directory the driver is found in is no dependency of its PATH lookup (compiler.c): the driver's own
# identity covers it, a stat less on every warm lookup. Read from the memo's record of that lookup.
python3 - "$XDG_CACHE_HOME/trueline/memo-v2" "$TC/early" > lookup.txt <<'PY'
import re, sys
for l in open(sys.argv[1], encoding="latin-1").read().split("\n"):
    m = re.match(r"[0-9a-f]+:[0-9a-f]+:", l)
    k, _, v = l[m.end():].partition("\t") if m else ("", "", "")
    if k.startswith("r\x1fgcc\x1f" + sys.argv[2] + ":"):
        found, _, deps = v.partition("\x1d")
        print("found", found)
        for d in deps.split("\x1e"):
            print("dep", d.partition("\x1f")[0])
PY
contains "the memoized PATH lookup of gcc found the fake driver" lookup.txt "^found $TC/bin/gcc\$"
contains "... depends on the driver itself" lookup.txt "^dep $TC/bin/gcc\$"
contains "... and on the earlier PATH directory" lookup.txt "^dep $TC/early\$"
lacks "... but not on the driver's own directory" lookup.txt "^dep $TC/bin\$" "^found $TC/bin/gcc\$"
{ cat "$TC/bin/gcc"; echo "# a new build of the driver"; } > "$T/gcc.new" && chmod +x "$T/gcc.new" && mv "$T/gcc.new" "$TC/bin/gcc"
fp10=$(tfp ex10.txt)
check "the driver replaced (renamed over): the fingerprint changes" test -n "$fp10" -a "$fp10" != "$fp4"
contains "... the closure was walked again" ex10.txt 'closure: walked'

# Damaged closure/PATH-lookup entries (a path that is not the one found, a hash that is not hex, no
# dependencies) are never trusted: the lookups are redone and the fingerprint is the memo-less one.
export XDG_CACHE_HOME=$T/damaged
fpd=$(trueline-cc --trueline-print-fingerprint gcc -c a.c)
python3 - "$XDG_CACHE_HOME/trueline/memo-v2" <<'EOF'
import re, sys
p = sys.argv[1]
out = []
for l in open(p, encoding="latin-1").read().split("\n"):
    m = re.match(r"[0-9a-f]+:[0-9a-f]+:", l)
    k, _, v = l[m.end():].partition("\t") if m else (None, None, None)
    if m and k.startswith("r\x1fgcc\x1f"):
        v = "/bin/false\x1d"
    elif m and k.startswith("t\x1f"):
        v = "driver\x1f/bin/false\x1fzz\x1e\x1d" + v.partition("\x1d")[2]
    out.append(f"{len(k):x}:{len(v):x}:{k}\t{v}" if m else l)
open(p, "w", encoding="latin-1").write("\n".join(out))
EOF
trueline-cc --trueline-explain --trueline-print-fingerprint gcc -c a.c > fpd2.txt 2>exd.txt
check "damaged closure and PATH entries in the memo: same fingerprint as before" test -n "$fpd" -a "$fpd" = "$(cat fpd2.txt)"
contains "... the closure was walked, not taken from the damaged entry" exd.txt 'closure: walked'
contains "... and gcc found where it is, not where the damaged entry said" exd.txt 'compiler: .*/gcc \(family gcc\)'

# --- the shipped configuration and its documentation -------------------------------------------------------
TRUELINE_CONFIG=$TRUELINE_ROOT/conf/trueline.ini trueline-cc --trueline-explain gcc -c a.c -o shipped.o 2>ex.txt
contains "conf/trueline.ini loads and gives the documented defaults" ex.txt 'forced: -g1'
keys=$(awk '/^\[/{s=$0} s ~ /^\[(wrapper|fingerprint)\]/ && /^[a-z_]+ *=/{sub(/ *=.*/, ""); print}' "$TRUELINE_ROOT/conf/trueline.ini")
undoc=""
for k in $keys; do grep -q "| \`$k\` |" "$TRUELINE_ROOT/docs/wrapper.md" || undoc="$undoc $k"; done
check "every [wrapper]/[fingerprint] key of conf/trueline.ini is documented in docs/wrapper.md (${undoc:-all})" test -z "$undoc" -a -n "$keys"

# A named compiler that exists but is not executable: 126 and "Permission denied", as a shell reports it.
printf 'not a program\n' > "$T/noexec-cc" && chmod 644 "$T/noexec-cc"
trueline-cc "$T/noexec-cc" -c x.c 2>"$T/noexec.err"; rc=$?
check "non-executable compiler exits 126 like a shell" [ $rc -eq 126 ]
contains "non-executable compiler: the message says why" "$T/noexec.err" 'noexec-cc: Permission denied'
