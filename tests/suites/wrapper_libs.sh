#!/usr/bin/env bash
# The fingerprint covers the shared libraries the toolchain loads (wrapper/fingerprint/dynlibs.h): a fake compiler
# built here (driver with RUNPATH $ORIGIN/../lib over a library that needs a second one through its own
# RUNPATH) whose library is changed behind an unchanged driver, with the memo warm; the loader's own
# answer (LD_TRACE_LOADED_OBJECTS=1, what ldd uses) as the oracle for the fake, for gcc's cc1 and clang.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
printf 'int answer(void) { return 42; }\n' > a.c
export XDG_CACHE_HOME=$T/memo

# Library paths the real loader resolves for an executable, glibc's runtime left out as the wrapper does.
loader_libs() {
  env LD_TRACE_LOADED_OBJECTS=1 "$@" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' |
    grep -Ev '^(libc\.so\.|ld-linux|libpthread\.so\.|libdl\.so\.|librt\.so\.)' | awk '{print $2}' | sort -u
}
explain_libs() { sed -n 's/^trueline-cc: component library [^:]*: [0-9a-f]\{32\} \(\/.*\)$/\1/p' "$1" | sed 's/ (memo)$//' | sort -u; }

# --- a fake compiler over two libraries ----------------------------------------------------------------------
TC=$T/tc; mkdir -p "$TC/bin" "$TC/lib" "$TC/lib2" "$T/other"
printf 'const char tl_dep_mark[] = "TLMARK-dep-1";\nconst char *tl_dep(void) { return tl_dep_mark; }\n' > dep.c
printf 'const char *tl_dep(void);\nconst char *tl_fake(void) { return tl_dep(); }\n' > fake.c
cat > drv.c <<'EOF'
#include <stdio.h>
#include <string.h>
const char *tl_fake(void);
int main(int argc, char **argv) {
    if (argc > 1 && strncmp(argv[1], "-print-prog-name=", 17) == 0) { puts(argv[1] + 17); return 0; }
    printf("gcc (fake %s) 12.0\n", tl_fake());
    return 0;
}
EOF
gcc -shared -fPIC -Wl,-soname,libtldep.so.1 dep.c -o "$TC/lib2/libtldep.so.1" &&
  gcc -shared -fPIC -Wl,-soname,libtlfake.so.1 fake.c -o "$TC/lib/libtlfake.so.1" "$TC/lib2/libtldep.so.1" \
    -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib2' &&
  gcc drv.c -o "$TC/bin/gcc" "$TC/lib/libtlfake.so.1" -Wl,-rpath-link,"$TC/lib2" \
    -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib' ||
  premise "the fake compiler builds" false
# The same library elsewhere, for LD_LIBRARY_PATH (searched before DT_RUNPATH).
sed 's/dep-1/dep-9/' dep.c > dep9.c
gcc -shared -fPIC -Wl,-soname,libtldep.so.1 dep9.c -o "$T/other/libtldep.so.1"
premise "the fake compiler runs through its libraries" grep -q 'fake TLMARK-dep-1' <("$TC/bin/gcc" --version)
# the fingerprint printed (32 hex digits; anything else printed is no fingerprint)
tfp() { PATH="$TC/bin:$PATH" trueline-cc --trueline-explain --trueline-print-fingerprint gcc -c a.c 2>"$1" | grep -Ex '[0-9a-f]{32}'; }
sleep 3 # files changed in the last 2 s are never memoized (deps.h: "racily clean")

fp1=$(tfp ex1.txt)
contains "explain lists the driver's library (DT_RUNPATH \$ORIGIN/../lib)" ex1.txt \
  "component library libtlfake.so.1: [0-9a-f]{32} $TC/bin/../lib/libtlfake.so.1$"
contains "... and the library's own dependency (its RUNPATH, its \$ORIGIN)" ex1.txt \
  "component library libtldep.so.1: [0-9a-f]{32} $TC/bin/../lib/../lib2/libtldep.so.1$"
lacks "glibc's runtime is left out" ex1.txt 'component library (libc\.so|ld-linux)' 'component library libtlfake'
same "the same libraries as the loader resolves for the fake driver" \
  "$(explain_libs ex1.txt | grep "$TC")" "$(loader_libs "$TC/bin/gcc" | grep "$TC")"
fp2=$(tfp ex2.txt)
contains "warm: the closure comes from the memo" ex2.txt 'closure: from the memo'
check "... with the same fingerprint" test -n "$fp1" -a "$fp1" = "$fp2"
same "... which is the one computed with the memo off" \
  "$fp1" "$(PATH="$TC/bin:$PATH" TRUELINE_FINGERPRINT_MEMO=false trueline-cc --trueline-print-fingerprint gcc -c a.c)"

# The second-level library's bytes change in place, size and mtime kept, the driver untouched.
cp -p "$TC/bin/gcc" drv.ref; cp -p "$TC/lib2/libtldep.so.1" dep.ref
python3 - "$TC/lib2/libtldep.so.1" <<'EOF'
import sys
p = sys.argv[1]
b = open(p, "rb").read()
assert b.count(b"TLMARK-dep-1") == 1
open(p, "r+b").write(b.replace(b"TLMARK-dep-1", b"TLMARK-dep-2"))
EOF
touch -r dep.ref "$TC/lib2/libtldep.so.1"
premise "library rewritten in place: size and mtime kept" \
  test "$(stat -c %s.%Y "$TC/lib2/libtldep.so.1")" = "$(stat -c %s.%Y dep.ref)"
premise "... and the compiler really runs the new bytes" grep -q 'fake TLMARK-dep-2' <("$TC/bin/gcc" --version)
premise "... behind an unchanged driver" cmp -s drv.ref "$TC/bin/gcc"
fp3=$(tfp ex3.txt)
differ "the fingerprint changes (memo warm before)" "$fp3" "$fp1"
contains "... the closure was walked again" ex3.txt 'closure: walked'
# A library replaced by another file (new inode, old size and mtime).
sleep 3; tfp ex4.txt >/dev/null; fp4=$(tfp ex5.txt)
contains "settled: memoized again" ex5.txt 'closure: from the memo'
cp dep.ref new.so; touch -r dep.ref new.so; mv new.so "$TC/lib2/libtldep.so.1"
same "library replaced by rename (back to the first bytes): the fingerprint is the first one again" "$(tfp ex6.txt)" "$fp1"
differ "... not the one before the rename" "$fp1" "$fp4"
# LD_LIBRARY_PATH comes before DT_RUNPATH: the other copy is loaded, and fingerprinted.
LD_LIBRARY_PATH=$T/other tfp ex7.txt > fp7.txt
premise "LD_LIBRARY_PATH: the loader takes the other copy" grep -q 'fake TLMARK-dep-9' <(LD_LIBRARY_PATH=$T/other "$TC/bin/gcc" --version)
contains "... and so does the fingerprint" ex7.txt "component library libtldep.so.1: [0-9a-f]{32} $T/other/libtldep.so.1$"
differ "... which differs" "$(cat fp7.txt)" "$fp1"

# A toolchain file whose library is gone, and a truncated ELF file: recorded as absent / skipped, no failure.
printf 'void tl_gone(void) {}\n' > gone.c; printf 'void tl_gone(void);\nvoid use(void) { tl_gone(); }\n' > use.c
gcc -shared -fPIC -Wl,-soname,libtlgone.so.1 gone.c -o "$T/libtlgone.so.1" &&
  gcc -shared -fPIC use.c "$T/libtlgone.so.1" -o "$T/needs-gone.so" && rm "$T/libtlgone.so.1"
head -c 200 "$TC/lib/libtlfake.so.1" > "$T/cut.so"
TRUELINE_FINGERPRINT_EXTRA_FILES="$T/needs-gone.so $T/cut.so" \
  trueline-cc --trueline-explain --trueline-print-fingerprint gcc -c a.c >gone.fp 2>gone.txt; rc=$?
check "a library that is not found and a truncated ELF file: the fingerprint still works (exit $rc)" \
  sh -c '[ $0 = 0 ] && grep -Eqx "[0-9a-f]{32}" gone.fp' $rc
contains "... the missing library is recorded as absent" gone.txt 'component library libtlgone\.so\.1: absent'

# --- real compilers: every library the loader maps for them is a component ------------------------------
trueline-cc --trueline-explain --trueline-print-fingerprint gcc -c a.c >/dev/null 2>gcc.txt
cc1=$(gcc -print-prog-name=cc1)
check "gcc: every library the loader maps for cc1 is in the fingerprint" \
  test -z "$(comm -23 <(loader_libs "$cc1") <(explain_libs gcc.txt))" -a -n "$(loader_libs "$cc1")"
contains "... libmpfr among them" gcc.txt 'component library libmpfr\.so\.[0-9]+: [0-9a-f]{32} /'
if have clang; then
  trueline-cc --trueline-explain --trueline-print-fingerprint clang -c a.c >/dev/null 2>clang.txt
  contains "clang: libclang-cpp is a component" clang.txt 'component library libclang-cpp\.so[.0-9]*: [0-9a-f]{32} /'
  contains "clang: libLLVM is a component" clang.txt 'component library libLLVM[-.0-9a-z]*\.so[.0-9]*: [0-9a-f]{32} /'
  drv=$(readlink -f "$(command -v clang)")
  check "clang: every library the loader maps for the driver is in the fingerprint" \
    test -z "$(comm -23 <(loader_libs "$drv") <(explain_libs clang.txt))" -a -n "$(loader_libs "$drv")"
else
  skip "clang not installed"
fi
