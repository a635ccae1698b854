#!/usr/bin/env bash
# Runs every built fuzz target for SECONDS each, JOBS at a time (default: 60 s, 2 jobs = this machine's cores),
# from the seed corpora (built first when missing), the regression inputs under tests/data/regress/<target>/, and
# a per-target working corpus under fuzz/corpus/ (kept between runs: later runs start where earlier ones ended).
# Total wall time is bounded: ceil(targets / JOBS) * SECONDS (+ start-up). Prints one line per target with its
# execution count and writes crashing inputs to fuzz/artifacts/<target>-crash-*; exits 1 when any target failed.
#   fuzz/smoke.sh [SECONDS] [JOBS] [TARGET[:WORKERS]...]
# A long campaign on a many-core machine gives each target several workers and runs all targets at once, e.g.
#   fuzz/smoke.sh 540 11 load:24 coredump:40 ...   (docs/internals/reliability.md says how far each target has run)
set -u
here=$(cd "$(dirname "$0")" && pwd)
secs=${1:-60}; jobs=${2:-2}; shift $(( $# >= 2 ? 2 : $# ))
build=${FUZZ_BUILD:-$here/build}
[ -d "$here/seeds" ] || bash "$here/seeds.sh" "$here/seeds" >/dev/null 2>&1
mkdir -p "$here/corpus" "$here/artifacts" "$here/logs"
if [ $# -gt 0 ]; then targets=("$@"); else
  targets=(); for t in "$build"/*; do [ -f "$t" ] && [ -x "$t" ] && targets+=("$(basename "$t")"); done; fi
[ ${#targets[@]} -gt 0 ] || { echo "smoke: no fuzz targets in $build (run 'make fuzz')" >&2; exit 1; }

run_target() { # name[:workers]
  local t=${1%%:*} w=1; [[ $1 == *:* ]] && w=${1#*:}
  mkdir -p "$here/corpus/$t" "$here/seeds/$t"
  # -rss_limit_mb: a decompression bomb must be refused by our bounds, not by the OOM killer.
  # -timeout: one input taking 10 s is a hang for a reader (the CLI's --timeout default is far above).
  local dict=(); [ -s "$here/dict/$t.dict" ] && dict=(-dict="$here/dict/$t.dict")
  # every input that ever crashed this target is part of its corpus (new finds go to the first directory only)
  local regress=(); [ -d "$here/../tests/data/regress/$t" ] && regress=("$here/../tests/data/regress/$t")
  # FUZZ_SEED makes a run repeatable (CI); workers of one target share the corpus, each with its own seed
  local k pids=() rc=0 execs=0 n
  for ((k = 0; k < w; k++)); do
    local seed=(); [ -n "${FUZZ_SEED:-}" ] && seed=(-seed=$((FUZZ_SEED + k)))
    timeout -k 10 $((secs + 60)) "$build/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$here/artifacts/$t-" "${seed[@]}" "${dict[@]}" \
      "$here/corpus/$t" "$here/seeds/$t" "${regress[@]}" >"$here/logs/$t.$k.log" 2>&1 &
    pids+=($!)
  done
  for ((k = 0; k < w; k++)); do
    wait "${pids[k]}" || rc=$?
    n=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$here/logs/$t.$k.log" | grep -o '[0-9]*$' | tail -1)
    execs=$((execs + ${n:-0}))
  done
  local what="$execs executions in ${secs}s"; [ "$w" -gt 1 ] && what="$what ($w workers)"
  if [ $rc -eq 0 ]; then echo "smoke: PASS $t $what"
  else echo "smoke: FAIL $t (exit $rc, $what; logs $here/logs/$t.*.log)"
    cat "$here/logs/$t".*.log | grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' | head -5
    # CI keeps only its log: the input itself goes there too (base64, up to 12 KiB) so that it can be replayed
    # with `base64 -d > x && fuzz/build/TARGET x` (a CI timeout otherwise leaves nothing to replay)
    local a
    for a in $(grep -ho "artifact_prefix='[^']*'; Test unit written to [^ ]*" "$here/logs/$t".*.log | awk '{print $NF}'); do
      [ -f "$a" ] || continue
      echo "smoke: input $(basename "$a") ($(wc -c < "$a") bytes; base64 of the first 12 KiB):"
      head -c 12288 "$a" | base64 -w 0; echo
    done; fi
  return $rc
}
export -f run_target; export here build secs FUZZ_SEED
res=$(mktemp "$here/logs/smoke.XXXXXX") # one per run: two runs may share the machine
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_target "$1"' _ {} >"$res"
rc=$?
cat "$res"
total=$(grep -o 'PASS [^ ]* [0-9]*' "$res" | awk '{s+=$3} END {print s+0}')
echo "smoke: ${#targets[@]} targets, $total executions, $(grep -c '^smoke: FAIL' "$res") failed"
rm -f "$res"
[ $rc -eq 0 ]
