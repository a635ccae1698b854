# trueline-cc's plan and run step: asking for the fingerprint creates nothing on disk (the stamping stage's
# entry is made by the run step, just before the cache runs), a stage entry that cannot be made falls back to
# stamping after the compile, and the effective argv hash explain shows is the record's `ah`, which leaves
# the output operand out.
. "$(dirname "$0")/../lib/harness.sh"

cd "$T" || exit 1
printf 'int f(int x){return x+1;}\n' > a.c
explained_hash() { trueline-cc --trueline-explain "$@" 2>&1 >/dev/null | sed -n 's/^trueline-cc: effective argv hash[^:]*: //p'; }
record_ah() { readelf -p .note.trueline "$1" 2>/dev/null | sed -n 's/^ *\[ *[0-9a-f]*\]  ah=//p'; }

# --- one argv hash: what explain shows is what the record carries (readelf reads the record) ---
h1=$(explained_hash gcc -c a.c -o one.o)
same "explain's argv hash is the record's ah (readelf)" "$h1" "$(record_ah one.o)"
h2=$(explained_hash gcc -c a.c -o two.o)
h3=$(explained_hash gcc -DX=1 -c a.c -o one.o)
same "the output operand is left out of the argv hash" "$h1" "$h2"
differ "any other argument changes the argv hash" "$h1" "$h3"

if ! have ccache; then skip "ccache not installed"; exit 0; fi
export CCACHE_DIR="$T/ccache" CCACHE_NOHASHDIR=1
stage="$XDG_CACHE_HOME/trueline/stage"

# --- planning creates nothing; the run step makes the stage entry ---
trueline-cc --trueline-print-fingerprint ccache gcc -c a.c -o p.o > fp.txt
check "--trueline-print-fingerprint prints a fingerprint" grep -Eqx '[0-9a-f]{32}' fp.txt
check "--trueline-print-fingerprint creates no stage entry (and prints the fingerprint)" \
  sh -c "[ ! -e '$stage' ] && [ ! -e p.o ] && grep -Eqx '[0-9a-f]{32}' fp.txt"
trueline-cc ccache gcc -c a.c -o c.o
self=$(readlink -f "$(command -v trueline-cc)")
entry_to_self() { for l in "$stage"/*/gcc; do [ -L "$l" ] && [ "$(readlink -f "$l")" = "$self" ] && return 0; done; return 1; }
check "the compile through ccache made the stage entry (a link to trueline-cc)" entry_to_self
check "the object the stage stamped carries the record (readelf)" sh -c "[ -n \"\$(readelf -p .note.trueline c.o | grep ' ah=')\" ]"

# --- no stage entry can be made: the wrapper stamps after the compile instead ---
export XDG_CACHE_HOME="$T/xdg-blocked"
mkdir -p "$XDG_CACHE_HOME/trueline" && : > "$XDG_CACHE_HOME/trueline/stage" # a file where the directory goes
printf 'int g(int x){return x+2;}\n' > b.c # a source no cache entry holds yet
trueline-cc ccache gcc -c b.c -o f.o 2> fallback.err; rc=$?
check "the compile still succeeds (its object is written)" sh -c "[ $rc -eq 0 ] && readelf -h f.o | grep -q 'REL (Relocatable'"
contains "the warning says why and what happens instead" fallback.err 'stage: cannot create .*; objects are stamped after the compile instead'
same "the object is stamped all the same, with this compile's argv hash" "$(record_ah f.o)" \
  "$(explained_hash --trueline-print-fingerprint ccache gcc -c b.c -o f.o)"
check "nothing was created where the stage directory goes (and the wrapper said it could not)" \
  sh -c "[ -f '$XDG_CACHE_HOME/trueline/stage' ] && grep -q 'stage: cannot create' fallback.err"
