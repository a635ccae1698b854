#!/usr/bin/env bash
# Split benchmark: `trueline-check --split` against the host tools that do the same to one file, `eu-strip -g -f`
# (the debug file and .gnu_debuglink in one run) and binutils' `objcopy --only-keep-debug` then `objcopy
# --strip-debug --add-gnu-debuglink`, on the same host files: best of 3 wall seconds, the peak RSS of that run,
# and the sizes each leaves. Files: BENCH_SPLIT_FILES (space-separated), else this build's trueline-check and
# trueline-cc (-O2 -g). Prints the "## split" section of bench/recorded/benchmarks.md.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TRUELINE_BUILD:-$root/build}
tc=$build/bin/trueline-check
[ -x "$tc" ] || { echo "bench/split.sh: build first (make)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench-split.XXXXXX"); tf=$work/time
trap 'rm -rf "$work"' EXIT
measure() { # best-of-3 "SECONDS KB" of the command
  local best="" rss=""
  for _ in 1 2 3; do
    rm -rf "$work/o" "$work/s" "$work/x" && mkdir -p "$work/o" "$work/x"
    /usr/bin/time -o "$tf" -f "%e %M" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; return 1; }
    local t m; read -r t m < <(tail -1 "$tf")
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; rss=$m; fi
  done
  echo "$best $rss"
}
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
binutils() { objcopy --only-keep-debug "$1" "$work/x/d" && objcopy --strip-debug --add-gnu-debuglink="$work/x/d" "$1" "$work/x/f"; }
files=${BENCH_SPLIT_FILES:-"$build/bin/trueline-check $build/bin/trueline-cc"}
echo "## split"
echo
echo "Measured by \`bench/split.sh\` on $(date -u +%Y-%m-%d), $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at the start; best of 3 runs, wall seconds; RSS = peak resident set; sizes in bytes."
echo
echo "| file | size | trueline-check --split | eu-strip -g -f | objcopy (2 runs) | shipped: trueline / eu-strip / objcopy |"
echo "|---|---:|---|---|---|---|"
for f in $files; do
  [ -f "$f" ] || continue
  read -r t1 r1 < <(measure "$tc" --split --debug-store "$work/s" --output-dir "$work/o" "$f") || continue
  s1=$(stat -c %s "$work/o/$(basename "$f")")
  e="n/a" s2="n/a"
  if command -v eu-strip >/dev/null; then
    read -r t2 r2 < <(measure eu-strip -g -f "$work/x/d" -o "$work/x/f" "$f") && e="$t2 s, $(mb "$r2") MB" && s2=$(stat -c %s "$work/x/f")
  fi
  export -f binutils; export work
  read -r t3 r3 < <(measure bash -c 'binutils "$0"' "$f") && s3=$(stat -c %s "$work/x/f")
  echo "| $(basename "$f") | $(stat -c %s "$f") | $t1 s, $(mb "$r1") MB | $e | $t3 s, $(mb "$r3") MB | $s1 / $s2 / $s3 |"
done
