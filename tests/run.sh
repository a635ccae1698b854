#!/usr/bin/env bash
# Runs every unit test binary and every suite; each prints PASS/FAIL/SKIP lines, counted here.
# TESTS='glob ...' limits the tests to those whose name matches one of the globs (e.g. TESTS='wrapper* unit-*';
# unit tests are named unit-<binary>); TRUELINE_BUILD points at the build tree.
# JOBS=N runs N tests at a time (default 2); SUITE_TIMEOUT=S stops a test after S seconds (default 600).
# Each test's output is printed as one block, in the same order whatever finishes first, followed by a TAP line:
# `ok N - name (Ts)`, or `not ok N - name` when it printed a FAIL line or exited nonzero (the plan `1..N` comes
# first). The PASS/FAIL/SKIP lines are what is counted; the last line is `N passed, N failed, N skipped`.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export TRUELINE_ROOT=$(cd "$here/.." && pwd)
export TRUELINE_BUILD=${TRUELINE_BUILD:-$TRUELINE_ROOT/build}
export PATH="$TRUELINE_BUILD/bin:$PATH"
log=$(mktemp -d "${TMPDIR:-/tmp}/trueline-tests.XXXXXX")
trap 'rm -rf "$log"' EXIT
read -r -a patterns <<<"${TESTS:-*}"
wanted() { local p; for p in "${patterns[@]}"; do case "$1" in $p) return 0;; esac; done; return 1; }
jobs_max=${JOBS:-2}
limit=${SUITE_TIMEOUT:-600}

names=() cmds=()
for t in "$TRUELINE_BUILD"/tests/*; do
  [ -x "$t" ] || continue
  wanted "unit-$(basename "$t")" || continue
  names+=("unit-$(basename "$t")") cmds+=("$t")
done
for s in "$here"/suites/*.sh; do
  [ -f "$s" ] || continue
  n=$(basename "$s" .sh)
  wanted "$n" || continue
  names+=("$n") cmds+=("$s")
done

# start I: runs test I in the background; its output goes to $log/I.out, its status and time to $log/I.rc.
# timeout puts the test in its own process group and stops all of it (daemons a suite started included).
start() {
  local i=$1
  (
    s=$SECONDS
    case "${cmds[$i]}" in *.sh) set -- bash "${cmds[$i]}";; *) set -- "${cmds[$i]}";; esac
    timeout -k 10 "$limit" "$@" >"$log/$i.out" 2>&1 </dev/null
    echo "$? $((SECONDS - s))" >"$log/$i.rc.tmp" && mv "$log/$i.rc.tmp" "$log/$i.rc"
  ) &
}
# flush: prints the finished tests' blocks in list order, up to the first one still running.
next=0
flush() {
  while [ "$next" -lt "${#names[@]}" ] && [ -f "$log/$next.rc" ]; do
    local name=${names[$next]} out=$log/$next.out rc secs
    read -r rc secs <"$log/$next.rc"
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      echo "FAIL $name: stopped after ${limit}s (SUITE_TIMEOUT)" >>"$out"
    elif [ "$rc" -ne 0 ] && ! grep -q '^FAIL' "$out"; then
      echo "FAIL $name: exited with status $rc" >>"$out"
    fi
    cat "$out"
    if grep -q '^FAIL' "$out"; then echo "not ok $((next + 1)) - $name"
    else echo "ok $((next + 1)) - $name (${secs}s)"; fi
    next=$((next + 1))
  done
}
echo "1..${#names[@]}"
for i in "${!names[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; flush; done
  start "$i"
  flush
done
while [ "$next" -lt "${#names[@]}" ]; do wait -n 2>/dev/null || sleep 0.2; flush; done

p=0 f=0 k=0
if [ "${#names[@]}" -gt 0 ]; then
  p=$(cat "$log"/*.out | grep -c '^PASS')
  f=$(cat "$log"/*.out | grep -c '^FAIL')
  k=$(cat "$log"/*.out | grep -c '^SKIP')
fi
if [ "$f" -gt 0 ]; then
  echo; echo "Failures:"
  for i in "${!names[@]}"; do grep '^FAIL' "$log/$i.out"; done
fi
echo "$p passed, $f failed, $k skipped"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
