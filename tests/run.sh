#!/usr/bin/env bash
# Runs every unit test binary and every suite; each prints PASS/FAIL/SKIP lines, counted here.
# TESTS=glob limits the suites (e.g. TESTS='wrapper*'); TRUELINE_BUILD points at the build tree.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export TRUELINE_ROOT=$(cd "$here/.." && pwd)
export TRUELINE_BUILD=${TRUELINE_BUILD:-$TRUELINE_ROOT/build}
export PATH="$TRUELINE_BUILD/bin:$PATH"
log=$(mktemp -d "${TMPDIR:-/tmp}/trueline-tests.XXXXXX")
pattern=${TESTS:-*}
run_one() { # name, command...
  local name=$1; shift
  local start=$SECONDS
  "$@" >"$log/$name.out" 2>&1
  local rc=$?
  cat "$log/$name.out"
  if [ $rc -ne 0 ] && ! grep -q '^FAIL' "$log/$name.out"; then
    echo "FAIL $name: exited with status $rc"
    echo "FAIL $name: exited with status $rc" >>"$log/$name.out"
  fi
  echo "# $name: $((SECONDS - start))s" >&2
}
for t in "$TRUELINE_BUILD"/tests/*; do
  [ -x "$t" ] || continue
  case "unit-$(basename "$t")" in $pattern|unit*) ;; *) continue;; esac
  [ "$pattern" = "*" ] || case "$(basename "$t")" in $pattern) ;; *) continue;; esac
  run_one "unit-$(basename "$t")" "$t"
done
for s in "$here"/suites/*.sh; do
  [ -f "$s" ] || continue
  n=$(basename "$s" .sh)
  case "$n" in $pattern) ;; *) continue;; esac
  run_one "$n" bash "$s"
done
p=$(cat "$log"/*.out 2>/dev/null | grep -c '^PASS')
f=$(cat "$log"/*.out 2>/dev/null | grep -c '^FAIL')
k=$(cat "$log"/*.out 2>/dev/null | grep -c '^SKIP')
if [ "$f" -gt 0 ]; then echo; echo "Failures:"; cat "$log"/*.out | grep '^FAIL'; fi
rm -rf "$log"
echo "$p passed, $f failed, $k skipped"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
