#!/usr/bin/env bash
# trueline-cc chained to sccache: the fingerprint reaches sccache's key through
# SCCACHE_C_CUSTOM_CACHE_BUSTER (a changed fingerprint is a miss, an unchanged one a hit).
# A private server (own port, own SCCACHE_DIR) so concurrent suites never share one.
. "$(dirname "$0")/../lib/harness.sh"
have sccache || { skip "sccache not installed"; exit 0; }
cd "$T"
export SCCACHE_DIR=$T/sccache SCCACHE_SERVER_PORT=$(free_port) SCCACHE_IDLE_TIMEOUT=120
trap 'sccache --stop-server >/dev/null 2>&1; rm -rf "$T"' EXIT
if ! sccache --start-server > server.log 2>&1; then skip "sccache server did not start: $(tail -1 server.log)"; exit 0; fi
printf 'int answer(void) { return 42; }\n' > a.c
counts() { sccache --show-stats | awk '/^Cache hits  /{h=$NF} /^Cache misses  /{m=$NF} END{print h+0, m+0}'; }
trueline-cc sccache gcc -c a.c -o s1.o; rc=$?
check "trueline-cc sccache gcc -c works" test $rc = 0 -a -s s1.o
check "... with forced line info" bash -c "readelf -S s1.o | grep -q '\.debug_line'"
read -r h1 m1 < <(counts)
trueline-cc sccache gcc -c a.c -o s2.o
read -r h2 m2 < <(counts)
check "same toolchain: an sccache hit" test $((h2 - h1)) = 1 -a "$m2" = "$m1"
TRUELINE_FINGERPRINT_ENV=TL_TEST_KNOB TL_TEST_KNOB=changed trueline-cc --trueline-explain sccache gcc -c a.c -o s3.o 2>ex.txt
read -r h3 m3 < <(counts)
check "changed fingerprint: an sccache miss" test $((m3 - m2)) = 1 -a "$h3" = "$h2"
contains "explain shows the cache-buster hand-off" ex.txt 'cache key: SCCACHE_C_CUSTOM_CACHE_BUSTER=[0-9a-f]{32}'
