#!/usr/bin/env bash
# trueline-cc's effective argv at its edges: nested nvcc -optf files (and the nesting limit), response files
# whose expansion is too big to exec, gcc's short -fplugin=NAME and -specs= found where gcc finds them, and
# CCC_OVERRIDE_OPTIONS reaching a host clang under nvcc (not folded, so hashed). Fixtures built at test time.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
printf 'int answer(void) { return 42; }\n' > a.c
printf 'int main(void) { return 0; }\n' > mm.c
has_debug_line() { readelf -S "$1" 2>/dev/null | grep -q '\.debug_line'; }
fp() { trueline-cc --trueline-print-fingerprint "$@" 2>/dev/null; }

# --- 1. nested nvcc -optf files ---------------------------------------------------------------------------
if have_nvcc; then
  printf '__global__ void k(int *p) { *p = 1; }\n' > k.cu
  echo -G > g.optf; echo '-optf g.optf' > n.optf
  # -Werror all-warnings: nvcc refuses -G together with -lineinfo, so a -G missed by the folding fails the compile
  nvcc -arch=sm_90 -Werror all-warnings -optf n.optf -c k.cu -o bare.o; rc_bare=$?
  trueline-cc --trueline-explain nvcc -arch=sm_90 -Werror all-warnings -optf n.optf -c k.cu -o tl.o 2>ex.txt; rc_tl=$?
  check "nested -optf: -G inside the nested file is seen (nvcc $rc_bare, trueline-cc $rc_tl)" test "$rc_bare" = 0 -a "$rc_tl" = 0 -a -s tl.o
  contains "nested -optf: explain names both files" ex.txt '^trueline-cc: folded: options file n.optf \(nested: g.optf\): -G$'
  contains "nested -optf: -lineinfo not forced under the nested -G" ex.txt 'note: -G present'
  if have clang++; then
    echo '-ccbin clang++' > cb.optf; echo '-optf=cb.optf' > ncb.optf
    trueline-cc --trueline-explain --trueline-print-fingerprint nvcc -optf ncb.optf -c k.cu >/dev/null 2>ex.txt
    contains "nested -optf: its -ccbin chooses the fingerprinted host compiler" ex.txt 'host compiler: .*/clang\+\+ \(from -ccbin\)'
  else skip "clang++ not installed: nested -ccbin"; fi
  echo '-DA=1' > a.optf; echo '-DB=2' > b.optf
  trueline-cc --trueline-explain --trueline-print-fingerprint nvcc -optf a.optf,b.optf -c k.cu >/dev/null 2>ex.txt
  contains "comma list: explain names every file of the list" ex.txt '^trueline-cc: folded: options file a.optf,b.optf: -DA=1 -DB=2$'
  # nvcc opens 15 nested files and refuses the 16th ("Too many options file opened 'F'"); trueline-cc stops there too
  for i in $(seq 1 16); do echo "-optf ch$((i + 1)).optf" > ch$i.optf; done; echo -DEND > ch17.optf
  nvcc --dryrun -optf ch3.optf -c k.cu >/dev/null 2>&1; nv15=$?
  nvcc --dryrun -optf ch2.optf -c k.cu > nv16.txt 2>&1; nv16=$?
  fp nvcc -optf ch3.optf -c k.cu >/dev/null; tl15=$?
  trueline-cc --trueline-print-fingerprint nvcc -optf ch2.optf -c k.cu >/dev/null 2>err16.txt; tl16=$?
  fp15=$(fp nvcc -optf ch3.optf -c k.cu)
  check "15 nested options files: accepted by nvcc ($nv15) and trueline-cc ($tl15), a fingerprint printed" \
    test "$nv15" = 0 -a "$tl15" = 0 -a ${#fp15} = 32
  check "16 nested options files: refused by nvcc ($nv16) and trueline-cc ($tl16)" test "$nv16" != 0 -a "$tl16" = 2
  premise "... nvcc names the 16th file" grep -q "Too many options file opened 'ch17.optf'" nv16.txt
  contains "... trueline-cc names it too" err16.txt '^trueline-cc: error: ch17.optf: options files nested more than 15 deep'
  echo '-optf self.optf' > self.optf
  trueline-cc nvcc -optf self.optf -c k.cu -o self.o 2>err.txt; rc=$?
  check "a file including itself: status 2, no endless recursion" test "$rc" = 2
  contains "... the error names the file" err.txt '^trueline-cc: error: self.optf: options files nested'
else
  skip "nvcc not found: nested -optf"
fi

# --- 2. response files too big to exec after expansion --------------------------------------------------
# Linux refuses an exec over ARG_MAX (a quarter of the stack limit): pin the limit to the common 8 MiB stack.
ulimit -s 8192 2>/dev/null
d=$(printf 'd%.0s' {1..240})
mkdir -p "o/$d/$d/$d/$d"
: > e.c; gcc -c e.c -o "o/$d/$d/$d/$d/e.o"; gcc -c mm.c -o mm.o
# 2400 paths of ~1 KB: 2.4 MB, past ARG_MAX (2 MiB) once expanded
for i in $(seq 2400); do echo "$T/o/$d/$d/$d/$d/e.o"; done > link.rsp
gcc mm.o @link.rsp -o app-bare; rc_bare=$?
trueline-cc --trueline-explain gcc mm.o @link.rsp -o app-tl 2>ex.txt; rc_tl=$?
check "2.4 MB link.rsp: links as with bare gcc (gcc $rc_bare, trueline-cc $rc_tl)" test "$rc_bare" = 0 -a "$rc_tl" = 0 -a -s app-tl
check "... the program exists and runs" ./app-tl
contains "... explain says the arguments go as given" ex.txt 'note: the effective argv is too large to exec'
if have clang; then
  for i in $(seq 2400); do echo "-I$T/i/$d/$d/$d/$d/$i"; done > inc.rsp
  clang -c a.c @inc.rsp -o inc-bare.o; rc_bare=$?
  trueline-cc clang -c a.c @inc.rsp -o inc-tl.o; rc_tl=$?
  check "2.4 MB @inc.rsp of -I: clang compiles as bare (clang $rc_bare, trueline-cc $rc_tl)" test "$rc_bare" = 0 -a "$rc_tl" = 0 -a -s inc-tl.o
  check "... with the forced line info" has_debug_line inc-tl.o
  # CCC_OVERRIDE_OPTIONS then stays in clang's environment: clang applies it after the response file
  printf '#if !defined(FROM_RSP) || FROM_RSP != 7\n#error wrong\n#endif\nint x;\n' > ccc.c
  echo '-DFROM_RSP=5' >> inc.rsp
  CCC_OVERRIDE_OPTIONS='#s/FROM_RSP=5/FROM_RSP=7/' trueline-cc clang -c ccc.c @inc.rsp -o ccc.o 2>err.txt; rc=$?
  check "... CCC_OVERRIDE_OPTIONS still edits the response file's arguments" test "$rc" = 0 -a -s ccc.o
else skip "clang not installed: big @inc.rsp"; fi
if have ccache && have clang; then
  export CCACHE_DIR=$T/ccache
  stats() { ccache --print-stats | awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 == "cache_miss" { m += $2 } END { print h + 0, m + 0 }'; }
  # ~200 KB: past trueline-cc's 128 KiB threshold, small enough for ccache's own expansion to exec (clang:
  # gcc hands all its options to cc1 in one COLLECT_GCC_OPTIONS string, itself limited to 128 KiB)
  for i in $(seq 800); do echo "-I$T/i/$d/$i"; done > mid.rsp
  echo '-DX=1' >> mid.rsp; printf 'int f(void) { return X; }\n' > x.c
  trueline-cc --trueline-explain ccache clang -c x.c @mid.rsp -o m1.o 2>ex.txt; rc=$?
  read -r h1 m1 < <(stats)
  check "ccache chained, files kept: compiles ($rc), the forced flag reached clang" has_debug_line m1.o
  contains "... passed as given" ex.txt 'note: the effective argv is too large to exec'
  trueline-cc ccache clang -c x.c @mid.rsp -o m2.o
  read -r h2 m2 < <(stats)
  check "... the same call again is a hit" test $((h2 - h1)) = 1 -a "$m2" = "$m1"
  echo '-DX=2' >> mid.rsp # ccache reads the response file itself: its content is in the key
  trueline-cc ccache clang -c x.c @mid.rsp -o m3.o
  read -r h3 m3 < <(stats)
  check "... a changed response file is a miss" test $((m3 - m2)) = 1 -a "$h3" = "$h2"
  unset CCACHE_DIR
else skip "ccache or clang not installed: chained big response files"; fi
if have_nvcc; then
  # an -optf file past the threshold (nvcc runs its steps through sh -c, so only options it consumes itself
  # can be that many): nvcc reads the file itself, NVCC_PREPEND_FLAGS stays for nvcc to apply
  for i in $(seq 6000); do echo -Wno-deprecated-gpu-targets; done > big.optf
  printf '#ifndef PRE\n#error NVCC_PREPEND_FLAGS lost\n#endif\n__global__ void k(int *p) { *p = 1; }\n' > pre.cu
  NVCC_PREPEND_FLAGS=-DPRE=1 trueline-cc --trueline-explain nvcc -arch=sm_90 -optf big.optf -c pre.cu -o pre.o 2>ex.txt; rc=$?
  check "big -optf file: compiles with NVCC_PREPEND_FLAGS applied ($rc)" test "$rc" = 0 -a -s pre.o
  contains "... passed as given" ex.txt 'note: the effective argv is too large to exec'
  contains "... NVCC_PREPEND_FLAGS, left to nvcc, is hashed" ex.txt '^trueline-cc: environment: NVCC_PREPEND_FLAGS=-DPRE=1$'
fi

# --- 3. gcc's short -fplugin=NAME and -specs= lookups ---------------------------------------------------
mkdir -p plug
printf 'int v1;\n' > p.c; gcc -shared -fPIC p.c -o plug/foo.so
trueline-cc --trueline-explain --trueline-print-fingerprint gcc "-iplugindir=$T/plug" -fplugin=foo -c a.c > fp1.txt 2>ex.txt
contains "-fplugin=foo with -iplugindir: the plugin is <dir>/foo.so" ex.txt "component file named by -fplugin: [0-9a-f]{32} $T/plug/foo.so"
sleep 1.1 # past the memo's 1 s mtime granularity guard
printf 'int v2;\n' > p.c; gcc -shared -fPIC p.c -o plug/foo.so
fp gcc "-iplugindir=$T/plug" -fplugin=foo -c a.c > fp2.txt
differ "... a rebuilt plugin changes the fingerprint" "$(cat fp1.txt)" "$(cat fp2.txt)"
pdir=$(gcc -print-file-name=plugin)
trueline-cc --trueline-explain --trueline-print-fingerprint gcc -fplugin=nosuchplugin -c a.c >/dev/null 2>ex.txt
contains "-fplugin=NAME without -iplugindir: looked for in gcc -print-file-name=plugin" ex.txt \
  "component file named by -fplugin: absent|component file named by -fplugin: [0-9a-f]{32} $pdir/nosuchplugin.so"
lacks "... not as a file named 'nosuchplugin'" ex.txt "nosuchplugin \(memo\)$|nosuchplugin$" 'component file named by -fplugin'
mkdir -p bdir; echo '*cpp_unique_options: + -DFROM_SPECS' > bdir/my.specs
trueline-cc --trueline-explain --trueline-print-fingerprint gcc "-B$T/bdir/" -specs=my.specs -c a.c >/dev/null 2>ex.txt
contains "-specs=NAME found in a -B directory, as gcc finds it" ex.txt "component file named by -specs: [0-9a-f]{32} $T/bdir/my.specs"
echo '*cpp_unique_options: + -DLOCAL' > here.specs
trueline-cc --trueline-explain --trueline-print-fingerprint gcc -specs=here.specs -c a.c >/dev/null 2>ex.txt
contains "-specs=NAME not in gcc's directories: the file as written" ex.txt "component file named by -specs: [0-9a-f]{32} here.specs"

# --- 4. CCC_OVERRIDE_OPTIONS where it is not folded -------------------------------------------------------
f0=$(fp gcc -c a.c); f1=$(CCC_OVERRIDE_OPTIONS='#+-DFOO=2' fp gcc -c a.c)
differ "gcc: CCC_OVERRIDE_OPTIONS (not folded) changes the fingerprint" "$f0" "$f1"
if have clang; then
  c0=$(fp clang -c a.c); c1=$(CCC_OVERRIDE_OPTIONS='#+-DFOO=2' fp clang -c a.c)
  same "clang: folded into the argv instead, the fingerprint is unchanged" "$c0" "$c1"
fi
if have_nvcc && have clang++ && have ccache; then
  export CCACHE_DIR=$T/ccache-nv
  printf '#ifndef FOO\n#define FOO 1\n#endif\n#if FOO == 2\nint foo_is_two;\n#else\nint foo_is_one;\n#endif\n__global__ void k(int *p) { *p = FOO; }\n' > foo.cu
  trueline-cc ccache nvcc -arch=sm_90 -ccbin clang++ -c foo.cu -o f1.o
  CCC_OVERRIDE_OPTIONS='#+-DFOO=2' trueline-cc --trueline-explain ccache nvcc -arch=sm_90 -ccbin clang++ -c foo.cu -o f2.o 2>ex.txt
  CCC_OVERRIDE_OPTIONS='#+-DFOO=2' nvcc -arch=sm_90 -ccbin clang++ -c foo.cu -o f3.o
  premise "bare nvcc with a clang host applies CCC_OVERRIDE_OPTIONS (oracle)" bash -c 'nm f3.o | grep -q foo_is_two'
  check "nvcc -ccbin clang++ through ccache: the variable reaches clang (no stale hit)" bash -c 'nm f2.o | grep -q foo_is_two'
  contains "... it is hashed" ex.txt '^trueline-cc: environment: CCC_OVERRIDE_OPTIONS=#\+-DFOO=2$'
  lacks "... and left in the compiler's environment" ex.txt 'removed from the compiler.s environment: CCC_OVERRIDE_OPTIONS' 'environment: CCC_OVERRIDE_OPTIONS='
  unset CCACHE_DIR
else skip "nvcc, clang++ or ccache missing: CCC_OVERRIDE_OPTIONS under nvcc"; fi
