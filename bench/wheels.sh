#!/usr/bin/env bash
# Shipped-wheel benchmark: trueline-check on each wheel as a user runs it (no option: a package's default, the
# release profile, the verdict included) against `auditwheel show` on the same wheel, which answers the platform
# question alone. Per wheel: best-of-RUNS wall seconds, the peak RSS of that run, trueline's exit status, the
# platform tag each calls the wheel consistent with, and the speed ratio (auditwheel's time / trueline's: above
# 1 is trueline faster), and the memory ratio (trueline's peak RSS / auditwheel's, same run) against the goal:
# at most GOAL_MB (256) on any wheel; a wheel over it is marked "OVER" and the script exits 1.
# Prints the "## wheels" section of bench/recorded/benchmarks.md.
# Usage: bench/wheels.sh WHEEL...   (RUNS=3 by default; TRUELINE_BUILD selects the build)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TRUELINE_BUILD:-$root/build}
tc=$build/bin/trueline-check
[ -x "$tc" ] || { echo "bench/wheels.sh: build first (make)" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: bench/wheels.sh WHEEL..." >&2; exit 2; }
command -v auditwheel >/dev/null || { echo "bench/wheels.sh: auditwheel not installed (pip install auditwheel)" >&2; exit 2; }
runs=${RUNS:-3}
goal_mb=${GOAL_MB:-256}
over=0
tmp=$(mktemp -d); tf=$tmp/time; trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/xdg # no image cache from an earlier run
# measure OUT CMD...: best-of-runs "SECONDS KB RC" of CMD, its stdout in OUT
measure() {
  local out=$1 best="" rss="" rc=""; shift
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$tf" -f "%e %M %x" "$@" >"$out" 2>/dev/null
    local t m x; read -r t m x < <(tail -1 "$tf")
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$t; rss=$m; rc=$x; fi
  done
  echo "$best $rss $rc"
}
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
echo "## wheels"
echo
echo "Measured by \`bench/wheels.sh\` on $(date -u +%Y-%m-%d), $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg)" \
  "at the start; best of $runs run(s), wall seconds; RSS = peak resident set; speed = auditwheel's time / trueline's."
echo "trueline-check runs with no option (a wheel's default: the release profile); auditwheel $(auditwheel --version 2>/dev/null | head -1 | awk '{ print $2 }')."
echo
echo "| wheel | MiB | trueline s | trueline RSS MiB | exit | auditwheel s | auditwheel RSS MiB | speed | RSS ratio | tag (trueline / auditwheel) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for w in "$@"; do
  read -r ts tr trc < <(measure "$tmp/t.txt" "$tc" "$w")
  read -r as ar _ < <(measure "$tmp/a.txt" auditwheel show "$w")
  ttag=$(sed -n 's/^  platform: the files satisfy \([a-z0-9_]*\)_x86_64;.*/\1/p' "$tmp/t.txt" | head -1)
  atag=$(tr '\n' ' ' < "$tmp/a.txt" | sed -n 's/.*consistent with the following platform tag: *"\([a-z0-9_]*\)_x86_64".*/\1/p')
  echo "| $(basename "$w" | cut -d- -f1,2) | $(mb $(( $(stat -c %s "$w") / 1024 ))) | $ts | $(mb "$tr") | $trc | $as | $(mb "$ar") |" \
    "$(awk -v a="$as" -v t="$ts" 'BEGIN { if (t > 0) printf "%.2fx", a / t; else print "n/a" }') |" \
    "$(awk -v a="$ar" -v t="$tr" -v g="$goal_mb" 'BEGIN { printf "%.1fx%s", (a > 0 ? t / a : 0), (t / 1024 > g ? " OVER" : "") }') |" \
    "${ttag:--} / ${atag:--} |"
  [ "$(mb "$tr")" -le "$goal_mb" ] || over=1
done
echo
echo "Memory goal: at most $goal_mb MiB peak RSS on every wheel ($([ $over = 0 ] && echo met || echo NOT met))."
exit $over
