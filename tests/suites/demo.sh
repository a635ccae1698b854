#!/usr/bin/env bash
# examples/demo.sh (make demo) tells a short story whose every claim is checked here against an independent
# truth: ccache's own log says which compile hit, cmp says the poisoned object is the stale one, cuobjdump
# says which device code has line info, trueline-check's exit status gives the verdict, readelf the notes.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
have ccache || { skip "ccache not installed: the demo needs it"; exit 0; }
DEMO=$TRUELINE_ROOT/examples/demo.sh
# run_demo NAME [VAR=VALUE...]: the demo in its own TMPDIR, work directory kept, ccache logging every call
run_demo() {
  local n=$1; shift
  mkdir -p "$T/$n"
  env "$@" TMPDIR="$T/$n" DEMO_KEEP=1 CCACHE_LOGFILE="$T/$n/ccache.log" sh "$DEMO" > "$T/$n/out" 2>&1
  echo $? > "$T/$n/rc"
  sed -n 's/^demo: work directory //p' "$T/$n/out" > "$T/$n/work"
  grep -v '^demo: work directory ' "$T/$n/out" > "$T/$n/story"
}
# results N: ccache's verdict for its Nth compile in the log (cache_miss / direct_cache_hit / preprocessed_cache_hit)
result_of() { awk '/Command line:/ { n++ } /Result: (cache_miss|direct_cache_hit|preprocessed_cache_hit)$/ && n == '"$2"' { print $NF; exit }' "$1"; }
hit_at() { result_of "$1" "$2" | grep -q '_cache_hit$'; }
# holds NAME COMMAND...: a premise of the story's first step, about ccache, cmp and cuobjdump rather than trueline
# (the problem the demo shows is real): silent when it holds, a FAIL when it does not; the suite goes on
holds() { local n=$1; shift; "$@" || fail "premise broken: $n"; }
# Step 5 lists the .note.trueline record of each object (trueline-check --provenance on what trueline-cc built):
# the evidence that the story was told to its end, with tools that did their work. The demo's own sentences are
# printed all the same by a run cut short or told with tools that do nothing.
REC_STATS='cc +[^ ]*/stats\.cpp +gcc' REC_VECOPS='cc +[^ ]*/vecops\.cu +nvcc'
told() { grep -Eq "$REC_STATS" "$1" && { [ "${2:-}" = host ] || grep -Eq "$REC_VECOPS" "$1"; }; }
# says NAME STORY PATTERN [host]: the story has a line matching PATTERN, and it was told to its end (told)
says() {
  if missing "$2"; then fail "$1 (missing input $2)"; return; fi
  if ! told "$2" "${4:-}"; then fail "$1 (not the whole story: step 5 lists no record in $2)"; sed 's/^/    | /' "$2" | head -20; return; fi
  contains "$1" "$2" "$3"
}

# --- without CUDA: the C++ part alone --------------------------------------------------------------------
run_demo host DEMO_NVCC=
check "no nvcc: the demo exits 0" test "$(cat host/rc)" = 0
says "no nvcc: it says the CUDA steps are skipped (and tells the rest, to step 5's record)" host/story \
  'nvcc not found: steps 1-3 \(CUDA\) skipped' host
check "no nvcc: libdemo.so built from stats.cpp alone (nm: demo_mean, no CUDA runtime)" \
  sh -c 'w=$(cat host/work); nm -D "$w/libdemo.so" | grep -q " T demo_mean$" && ! nm -D "$w/libdemo.so" | grep -qi cuda'

if ! have_nvcc; then skip "nvcc not found: the CUDA story is not checked"; exit 0; fi
run_demo cuda
W=$(cat cuda/work)
premise "the demo kept its work directory" test -d "$W"
check "the demo exits 0" test "$(cat cuda/rc)" = 0
short_story() { told cuda/story && [ "$(wc -l < cuda/story)" -lt 60 ]; }
starts_with_story() { told cuda/story && head -2 cuda/story | grep -q "^== 1\."; }
check "the whole story (to step 5's records) is short: fewer than 60 lines" short_story
check "the whole story (to step 5's records) starts with the story, not build output" starts_with_story
check "five steps, each with a banner" test "$(grep -c '^== [1-5]\. ' cuda/story)" -eq 5

# step 1: ccache's log says the second compile was a hit, and the object is the stale one
holds "ccache's log: the plain build was a miss" test "$(result_of cuda/ccache.log 1)" = cache_miss
holds "ccache's log: the NVCC_PREPEND_FLAGS=-lineinfo build was a hit" hit_at cuda/ccache.log 2
# "no" line info is what a trueline-check that reads nothing says too: the same story finds tl.o's
check "the demo says bare ccache hit, and no device line info in bare.o (where it finds tl.o's)" sh -c \
  "grep -q '^  ccache: hit; device line info in bare.o: no$' cuda/story && grep -q 'device line info in tl.o: yes$' cuda/story"
holds "cmp: bare.o is byte-identical to plain.o (the stale object)" same_bytes "$W/plain.o" "$W/bare.o"
says "the demo says so (in the whole story)" cuda/story 'bare.o is byte-identical to plain.o'
CUOBJDUMP=$(find_pypi_tool cuobjdump); [ -z "$CUOBJDUMP" ] && CUOBJDUMP=$(command -v cuobjdump)
has_line_table() { "$CUOBJDUMP" -elf "$1" > cuobj.txt 2>&1 && grep -q 'nv_debug_line_sass' cuobj.txt; }
no_line_table() { "$CUOBJDUMP" -elf "$1" > cuobj.txt 2>&1 && grep -q 'sm_90' cuobj.txt && ! grep -q 'nv_debug_line_sass' cuobj.txt; }
if [ -n "$CUOBJDUMP" ]; then
  holds "cuobjdump: bare.o's sm_90 cubin has no line table (.nv_debug_line_sass)" no_line_table "$W/bare.o"
  check "cuobjdump: tl.o's cubin has one" has_line_table "$W/tl.o"
  check "cuobjdump: tl2.o (the hit) has one too" has_line_table "$W/tl2.o"
else
  skip "cuobjdump not found (pip install nvidia-cuda-cuobjdump): device line info not checked independently"
fi

# step 2: through trueline-cc the build misses (a different key) and has line info
same "ccache's log: the trueline-cc build was a miss" "$(result_of cuda/ccache.log 3)" cache_miss
contains "the demo says it missed and has line info" cuda/story '^  ccache: miss; device line info in tl.o: yes$'
# step 3: the unchanged rebuild hit
check "ccache's log: the unchanged rebuild was a hit" hit_at cuda/ccache.log 4
contains "the demo says the rebuild hit" cuda/story "^  ccache: hit \(from ccache's statistics of this build\)"
contains "and that its record was verified" cuda/story 'Cached compiles verified: +1$'

# step 4: the verdict is the one trueline-check's exit status gives
premise "the demo built libdemo.so" test -s "$W/libdemo.so"
trueline-check "$W/libdemo.so" > audit.txt 2>&1; st=$?
contains "the verdict names trueline-check's own exit status ($st)" cuda/story "^  verdict: exit status $st, "
case $st in
  0) contains "exit 0 is told as a pass" cuda/story 'verdict: .*the audit passes' ;;
  1) contains "exit 1 is told as a failure" cuda/story 'verdict: .*the audit fails' ;;
  *) fail "trueline-check could not read libdemo.so (exit $st)" ;;
esac
lacks "the demo never prints a pass next to findings at error severity" cuda/story ': error \[' '^== 4\.'
# step 5: both objects carry a record (readelf), and the demo lists both sources
check "readelf: libdemo.so has a .note.trueline section" sh -c "readelf -S '$W/libdemo.so' | grep -q '\.note\.trueline'"
contains "step 5 lists stats.cpp" cuda/story 'cc +[^ ]*/stats\.cpp +gcc'
contains "step 5 lists vecops.cu" cuda/story 'cc +[^ ]*/vecops\.cu +nvcc'
