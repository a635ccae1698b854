#!/usr/bin/env bash
# Runs every bench/*.sh (each prints one markdown section starting "## <name>") and writes
# bench/recorded/benchmarks.md (generated: never edited by hand). Sections are independent: a new bench script adds a section, nothing else changes.
# BENCH='glob' limits the scripts; sections of scripts not run are kept from the previous file.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export TRUELINE_BUILD=${TRUELINE_BUILD:-$root/build}
out=$root/bench/recorded/benchmarks.md
pattern=${BENCH:-*}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for s in "$here"/*.sh; do
  n=$(basename "$s" .sh)
  [ "$n" = run ] && continue
  if case "$n" in $pattern) true;; *) false;; esac; then
    echo "bench: $n ..." >&2
    bash "$s" > "$tmp/$n.md" || { echo "bench: $n failed" >&2; rm -f "$tmp/$n.md"; }
  elif [ -f "$out" ]; then
    # keep the previous section of a script that was not run this time
    awk -v want="## $n" '/^## /{keep = ($0 == want)} keep' "$out" > "$tmp/$n.md"
    [ -s "$tmp/$n.md" ] || rm -f "$tmp/$n.md"
  fi
done
{
  echo "# Benchmarks"
  echo
  echo "Written by \`make bench\` (bench/run.sh); one section per bench/<name>.sh. Figures depend on the"
  echo "machine and its load at the time: each section states both."
  # trailing blank lines dropped: a kept section must not grow by one on every run
  for f in "$tmp"/*.md; do [ -f "$f" ] && { echo; awk '{l[NR] = $0} END {n = NR; while (n > 0 && l[n] == "") n--
    for (i = 1; i <= n; i++) print l[i]}' "$f"; }; done
} > "$out.tmp" && mv "$out.tmp" "$out"
echo "bench: wrote $out" >&2
