#!/usr/bin/env bash
# Real GPU coredumps of a library whose device line info was split out (tests/data/coredumps/split, made on an
# H100): with the debug store, --coredump gives the frames, file:line and inline chains of the unsplit build's
# core; cuda-gdb's view of the unsplit core is the oracle; without the store the report says the line info was
# split out. Both paths: --split on the linked library, and trueline-cc's line_info_store before the link; and
# the store served by a real debuginfod through DEBUGINFOD_URLS.
. "$(dirname "$0")/../lib/harness.sh"
D=$TRUELINE_ROOT/tests/data/coredumps/split
have xz || { skip "xz absent"; exit 0; }
cd "$T" || exit 1
for c in full split w; do xz -dc "$D/$c.core.xz" > $c.core; done
export DEBUGINFOD_CACHE_PATH=$T/debuginfod-client
unset DEBUGINFOD_URLS
premise "the split builds' cores carry no line info (cuda-gdb prints no sk.cu line for them)" \
  sh -c "! grep -q 'sk.cu' '$D/split.cuda-gdb.txt' && ! grep -q 'sk.cu' '$D/w.cuda-gdb.txt' && grep -q 'sk.cu:8' '$D/full.cuda-gdb.txt'"
trueline-check --coredump full.core --format json > full.json
trueline-check --coredump split.core > split-nostore.txt 2>&1
contains "without the store: the line info is said to be split out" split-nostore.txt 'line info split out'
lacks "without the store: no line is made up" split-nostore.txt 'sk\.cu:[0-9]' 'split_kernel'
# frames of each stop as "offset: file:line function | ...", addresses left out (each run loads at its own VA)
frames() { python3 - "$1" <<'PY'
import json, sys, os
d = json.load(open(sys.argv[1]))
for c in d['cores']:
    for st in c.get('stops', []):
        fr = ' | '.join('%s:%s %s' % (os.path.basename(f.get('file') or '?'), f.get('line'), f.get('function'))
                        for f in st.get('frames', []))
        k = st.get('kernel') or {}
        print('%s %s+%s: %s' % (st.get('kind'), k.get('name'), k.get('offset'), fr))
PY
}
frames full.json > full.frames
premise "the full core's stops have frames" grep -q 'sk.cu:8' full.frames
for c in split:store w:store_w; do
  core=${c%%:*} store=${c#*:}
  trueline-check --coredump $core.core --debug-store "$D/$store" --format json > $core.json
  frames $core.json > $core.frames
  check "$core build + $store: every stop's frames equal the unsplit build's" same_bytes full.frames $core.frames
  trueline-check --coredump $core.core --debug-store "$D/$store" > $core.txt 2>&1
  contains "$core build + $store: the text report says where the lines came from" $core.txt 'line info from debug store'
done
# cuda-gdb on the unsplit core: the error PC is "sk.cu:3 in _Z5fetchPKfl inlined from sk.cu:4", the focus lane
# "sk.cu:4 in _Z6scaledPKfl inlined from sk.cu:8"; each pair must open the chain trueline gives with the store.
gdb_pairs() { sed -nE 's/.*\(?sk\.cu:([0-9]+) in _Z[0-9]+([a-z]+)[A-Za-z0-9_]* inlined from sk\.cu:([0-9]+)\)?.*/sk.cu:\1 \2 sk.cu:\3/p' "$D/full.cuda-gdb.txt" | sort -u; }
gdb_pairs > gdb.pairs
premise "cuda-gdb's view names two inline pairs" test "$(wc -l < gdb.pairs)" -ge 2
agree() {
  local f=$1 line a fn b
  while read -r a fn b; do
    grep -qE "${a} ${fn}\(.*\| ${b} " "$f" || { echo "    | cuda-gdb's $a in $fn inlined from $b is not in $f"; return 1; }
  done < gdb.pairs
}
check "the split core read with the store agrees with cuda-gdb on the unsplit core" agree split.frames
check "the line_info_store build's core agrees with cuda-gdb on the unsplit core" agree w.frames

if have debuginfod && have curl; then
  PORT=$(free_port)
  debuginfod -F "$D/store" -p "$PORT" -d "$T/debuginfod.sqlite" -t0 -g0 > debuginfod.log 2>&1 &
  DPID=$!
  trap 'kill $DPID 2>/dev/null; wait $DPID 2>/dev/null; rm -rf "$T"' EXIT
  part=$(ls "$D"/store/.build-id/*/*.debug | head -1)
  ID=$(basename "$(dirname "$part")")$(basename "$part" .debug)
  for _ in $(seq 1 60); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/buildid/$ID/debuginfo" && break; sleep 0.5; done
  DEBUGINFOD_URLS=http://127.0.0.1:$PORT trueline-check --coredump split.core --format json > split-dfd.json
  frames split-dfd.json > split-dfd.frames
  check "the store served by debuginfod (DEBUGINFOD_URLS, no --debug-store): the same frames" same_bytes full.frames split-dfd.frames
else
  skip "debuginfod part: debuginfod (Debian: debuginfod) and curl are needed"
fi
