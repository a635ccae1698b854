#!/usr/bin/env bash
# trueline-cc at the edges of its process handling and configuration (fast, gcc only; ccache where
# installed): nvcc -ccbin naming a masquerade link, SIGTERM through the stamping stage, bad configuration
# values and unknown keys, TRUELINE_EXPLAIN's yes/no, `trueline-cc ccache` without a compiler.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
W=$(command -v trueline-cc)
GXX=$(command -v g++)
printf 'int main(void) { return 0; }\n' > m.c
printf '__global__ void k(int *p) { p[0] = 1; }\n' > k.cu

# --- nvcc -ccbin naming a masquerade link ----------------------------------------------------------------
# What nvcc runs there is trueline-cc's nested mode, which runs the next g++ on nvcc's PATH: that one must be
# fingerprinted. A stand-in nvcc (family from the name) keeps this independent of CUDA: the host compiler
# is found before nvcc ever runs, and --trueline-print-fingerprint runs no compile.
mkdir -p mq althost fakecuda/bin
ln -s "$W" mq/g++
ln -s "$W" mq/nvcc # CMake setups put the whole set of links first on PATH
printf '#!/bin/sh\necho "Cuda compilation tools, release 0.0 (stand-in)"\n' > fakecuda/bin/nvcc
printf '#!/bin/sh\n# another host compiler: same driver, other content\nexec "%s" "$@"\n' "$GXX" > althost/g++
chmod +x fakecuda/bin/nvcc althost/g++
fp_a=$(PATH="$T/mq:$T/fakecuda/bin:$PATH" nvcc -ccbin "$T/mq/g++" --trueline-print-fingerprint -c k.cu -o k.o)
fp_b=$(PATH="$T/mq:$T/althost:$T/fakecuda/bin:$PATH" nvcc -ccbin "$T/mq/g++" --trueline-print-fingerprint -c k.cu -o k.o)
differ "-ccbin a masquerade link: the host compiler behind it reaches the fingerprint" "$fp_a" "$fp_b"
PATH="$T/mq:$T/althost:$T/fakecuda/bin:$PATH" nvcc -ccbin "$T/mq/g++" --trueline-explain \
  --trueline-print-fingerprint -c k.cu -o k.o > fp.txt 2> ex.txt
contains "... explain names the g++ the link runs (the next on PATH)" ex.txt \
  "host compiler: $T/althost/g\+\+ \(from -ccbin, a trueline-cc link"
lacks "... and no absent host driver" ex.txt 'component host driver: absent' 'component host driver: [0-9a-f]{32} '
same "... the same answer from the memo on a warm run" "$(cat fp.txt)" "$fp_b"
mkdir -p mqdir && ln -s "$W" mqdir/gcc
PATH="$T/mqdir:$T/fakecuda/bin:$PATH" "$W" --trueline-explain nvcc -ccbin "$T/mqdir" --trueline-print-fingerprint \
  -c k.cu -o k.o > /dev/null 2> ex.txt
contains "-ccbin DIR whose gcc is a masquerade link: the next gcc on PATH" ex.txt \
  'host compiler: /.*/gcc \(from -ccbin, a trueline-cc link'

# A process that is running: a killed one stays a zombie until whoever inherited it reaps it (kill -0 still
# finds it), which under CI's process tree can take a while.
running() { local s; s=$(sed -n 's/^[0-9]* (.*) \(.\) .*/\1/p' "/proc/$1/stat" 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ]; }

# --- SIGTERM in chained mode reaches the compiler behind the stamping stage ------------------------------
if have ccache; then
  export CCACHE_DIR=$T/ccache
  mkdir -p fake
  # gcc-slow: probes and -E answer at once; the compile step becomes `sleep` (its pid noted first)
  cat > fake/gcc-slow <<EOF
#!/bin/sh
for a in "\$@"; do
  case "\$a" in
    --version) echo "gcc-slow (GCC) 12.2.0"; exit 0;;
    -print-prog-name=*) echo "\${a#-print-prog-name=}"; exit 0;;
    -E) exec "$(command -v gcc)" "\$@";;
  esac
done
for a in "\$@"; do [ "\$a" = -c ] && { echo \$\$ > "$T/slow.pid"; exec sleep 30; }; done
exec "$(command -v gcc)" "\$@"
EOF
  chmod +x fake/gcc-slow
  for mode in launcher chained; do
    rm -f slow.pid
    if [ $mode = chained ]; then "$W" ccache ./fake/gcc-slow -c m.c -o s.o 2>/dev/null & else
      "$W" ./fake/gcc-slow -c m.c -o s.o 2>/dev/null & fi
    w=$!
    for _ in $(seq 100); do [ -s slow.pid ] && break; sleep 0.1; done
    sleep 0.3
    kill -TERM $w; wait $w; rc=$?
    p=$(cat slow.pid 2>/dev/null)
    alive=no
    for _ in $(seq 50); do running "$p" && alive=yes || { alive=no; break; }; sleep 0.1; done
    [ $alive = yes ] && kill "$p" 2>/dev/null # ours: the stand-in compiler this test started
    check "$mode: SIGTERM to trueline-cc ends it like the compiler (status $rc)" test "$rc" = 143
    check "$mode: ... and the compiler with it (no orphan left running, pid ${p:-none})" test -n "$p" -a $alive = no
  done
  unset CCACHE_DIR
else
  skip "SIGTERM through the stamping stage: ccache not installed"
fi

# --- a probe (the family's --version) dies with trueline-cc: it is the wrapper's own child, reading nothing
mkdir -p fake
cat > fake/mystery-cc <<EOF
#!/bin/sh
[ "\$1" = --version ] && { echo \$\$ > "$T/probe.pid"; exec sleep 30; }
exec "$(command -v gcc)" "\$@"
EOF
chmod +x fake/mystery-cc
rm -f probe.pid
XDG_CACHE_HOME=$T/probe-cache "$W" ./fake/mystery-cc -c m.c -o p.o 2>/dev/null &
w=$!
for _ in $(seq 100); do [ -s probe.pid ] && break; sleep 0.1; done
kill -TERM $w; wait $w
p=$(cat probe.pid 2>/dev/null)
alive=no
for _ in $(seq 50); do running "$p" && alive=yes || { alive=no; break; }; sleep 0.1; done
[ $alive = yes ] && kill "$p" 2>/dev/null # ours: the stand-in probe this test started
check "a --version probe does not outlive a killed trueline-cc (pid ${p:-none})" test -n "$p" -a $alive = no

# --- bad values and unknown keys fail like a broken file ([wrapper] on_error) ---------------------------
bad_env() { # NAME VALUE PATTERN
  env "$1=$2" "$W" gcc -c m.c -o bad.o > /dev/null 2> ex.txt; local rc=$?
  check "$1=$2: refused with status 2 (got $rc), no object" test $rc = 2 -a ! -e bad.o
  contains "... naming the variable, the key and what is valid" ex.txt "^trueline-cc: error: $1: $3"
  rm -f bad.o
}
bad_env TRUELINE_PROVENANCE_ON_MISMATCH FAIL '\[provenance\] on_mismatch = FAIL: expected recompile or fail'
bad_env TRUELINE_FINGERPRINT_MEMO nope '\[fingerprint\] memo = nope: expected true or false'
bad_env TRUELINE_PROVENANCE_STAMP maybe '\[provenance\] stamp = maybe: expected true or false'
bad_env TRUELINE_PROVENANCE_ARGV_MAX abc '\[provenance\] argv_max = abc: expected a number'
bad_env TRUELINE_WRAPPER_ON_ERROR sometimes '\[wrapper\] on_error = sometimes: expected fail or passthrough'
printf '[wrapper]\n; the line numbers below are lines, not entry counts\nhost_debug = g1\n\nhost_debg = keep\n' > typo.ini
TRUELINE_CONFIG=$T/typo.ini "$W" gcc -c m.c -o bad.o 2> ex.txt; rc=$?
check "unknown key in [wrapper]: refused with status 2 (got $rc)" test $rc = 2 -a ! -e bad.o
contains "... naming file, line, key and the known keys" ex.txt \
  "error: $T/typo.ini:5: \[wrapper\] host_debg: unknown key \(.*host_debug"
printf '[provenance]\n\n; a comment\non_mismatch = FAIL\n' > value.ini
TRUELINE_CONFIG=$T/value.ini "$W" gcc -c m.c -o bad.o 2> ex.txt; rc=$?
check "bad value in the file: status 2 (got $rc)" test $rc = 2 -a ! -e bad.o
contains "... citing the file's line (4), not the entry's index" ex.txt "error: $T/value.ini:4: \[provenance\] on_mismatch = FAIL"
TRUELINE_WRAPPER_ON_ERROR=passthrough TRUELINE_PROVENANCE_STAMP=maybe "$W" gcc -c m.c -o pass.o 2> ex.txt; rc=$?
check "on_error = passthrough: a bad value runs the compiler unwrapped (status $rc)" test $rc = 0 -a -e pass.o
contains "... with a warning naming it" ex.txt 'warning: TRUELINE_PROVENANCE_STAMP: .*stamp = maybe.*running the compiler unwrapped'
# Sections the wrapper does not own are the checker's (or someone's) to judge; key case is free.
printf '[checks]\nline-tables = warning\n[cuda-arch]\nsass = sm_90\n[elsewhere]\nanything = at all\n[WRAPPER]\nHOST_DEBUG = g1\n' > others.ini
TRUELINE_CONFIG=$T/others.ini "$W" gcc -c m.c -o ok.o 2> ex.txt; rc=$?
check "other tools' sections and unknown sections left alone, key case free (status $rc)" test $rc = 0 -a -e ok.o -a ! -s ex.txt
TRUELINE_CONFIG=$TRUELINE_ROOT/conf/trueline.ini "$W" gcc -c m.c -o ok2.o 2> ex.txt; rc=$?
check "the shipped conf/trueline.ini passes the check (status $rc)" test $rc = 0 -a -e ok2.o -a ! -s ex.txt

# --- TRUELINE_EXPLAIN is a yes/no like [wrapper] explain ------------------------------------------------
for v in false no off 0 ""; do
  rm -f e.o; TRUELINE_EXPLAIN=$v "$W" gcc -c m.c -o e.o 2> ex.txt
  check "TRUELINE_EXPLAIN='$v': no explain report (the object compiled with the forced -g1)" \
    sh -c '[ ! -s ex.txt ] && readelf -S e.o | grep -q "\.debug_line"'
done
for v in true yes 1; do
  TRUELINE_EXPLAIN=$v "$W" gcc -c m.c -o e.o 2> ex.txt
  contains "TRUELINE_EXPLAIN=$v: the explain report" ex.txt '^trueline-cc: fingerprint: '
done
bad_env TRUELINE_EXPLAIN maybe 'explain = maybe: expected true or false'

# --- `trueline-cc ccache` without a compiler is a usage error ---------------------------------------------
"$W" ccache > /dev/null 2> ex.txt; rc=$?
check "trueline-cc ccache (no compiler): status 2 (got $rc)" test $rc = 2
contains "... with the usage" ex.txt 'usage: trueline-cc ccache COMPILER'
"$W" sccache --trueline-explain > /dev/null 2> ex.txt; rc=$?
check "trueline-cc sccache (no compiler; sccache installed or not): status 2 (got $rc)" test $rc = 2
