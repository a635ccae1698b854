#!/usr/bin/env bash
# What a user must be told, said once rather than per compile, and state that stays bounded: an unwritable
# memo cache is a warning once an hour (not silence while every compile goes cold), the stage's warning names
# the errno of the directory that could not be made, and provenance counters do not grow without bound.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1
export TMPDIR=$T/tmp; mkdir -p "$TMPDIR"
printf 'int f(void) { return 1; }\n' > a.c
: > notadir
for i in 1 2 3; do
  XDG_CACHE_HOME=$T/notadir/sub trueline-cc gcc -c a.c -o m$i.o 2>>memo-warn.txt || fail "compile $i with an unwritable memo cache"
done
n=$(grep -c 'cannot create memo cache directory' memo-warn.txt)
check "unwritable memo cache: warned once in three compiles ($n)" [ "$n" -eq 1 ]
contains "... naming the directory and the real reason (ENOTDIR)" memo-warn.txt "$T/notadir/sub/trueline: cannot create memo cache directory: Not a directory"
check "... and every compile still produced its object" sh -c '[ -s m1.o ] && [ -s m2.o ] && [ -s m3.o ]'
# explain mode always says it (it is asked for); the rate limit applies to the plain warning only
XDG_CACHE_HOME=$T/notadir/sub trueline-cc --trueline-explain gcc -c a.c -o m4.o 2>ex.txt
contains "explain mode still reports the memo problem" ex.txt 'cannot create memo cache directory'

# stage: the directory that failed is a file's child; the message must give ENOTDIR, not ENOENT
if have ccache; then
  export CCACHE_DIR=$T/ccache
  XDG_CACHE_HOME=$T/notadir/sub trueline-cc ccache gcc -c a.c -o s.o 2>stage.txt
  if grep -q 'stage:' stage.txt; then
    lacks "stage warning does not blame ENOENT for a parent that is a file" stage.txt 'stage: cannot create.*No such file or directory'
    contains "... it names the real reason" stage.txt 'stage: cannot create.*Not a directory'
  else
    fail "stage warning expected with an unusable XDG_CACHE_HOME (stderr: $(head -c 300 stage.txt))"
  fi
else
  skip "stage warning: no ccache"
fi

# counters: a counter file past its bound is folded into its .base file on the next event
if have ccache; then
  export XDG_CACHE_HOME=$T/xdg CCACHE_DIR=$T/ccache2
  trueline-cc ccache gcc -c a.c -o c1.o && trueline-cc ccache gcc -c a.c -o c2.o || fail "premise: two compiles through ccache"
  dir=$T/xdg/trueline/provenance-stats
  before=$(trueline-cc --trueline-stats | awk '/verified/ {print $NF}')
  if [ -f "$dir/verified" ] && [ "${before:-0}" -ge 1 ]; then
    head -c $((1 << 20)) /dev/zero | tr '\0' 1 >> "$dir/verified"
    trueline-cc ccache gcc -c a.c -o c3.o
    size=$(stat -c %s "$dir/verified")
    after=$(trueline-cc --trueline-stats | awk '/verified/ {print $NF}')
    check "a counter past 1 MiB is folded (file now $size bytes)" [ "$size" -lt 1024 ]
    check "... and the count is kept: $before + 1048576 + 1 = $after" [ "$after" -eq $((before + 1048576 + 1)) ]
    trueline-cc --trueline-zero-stats
    z=$(trueline-cc --trueline-stats | awk '/verified/ {print $NF}')
    check "zeroing clears the folded part too ($z)" [ "$z" -eq 0 ]
  else
    fail "premise: a ccache hit through trueline-cc counts as verified (counter file: $(ls "$dir" 2>&1))"
  fi
else
  skip "counters: no ccache"
fi
