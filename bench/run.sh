#!/usr/bin/env bash
# Runs every bench/*.sh (each prints one markdown section starting "## <name>") and writes
# bench/recorded/benchmarks.md (generated: never edited by hand). Sections are independent: a new bench script adds a section, nothing else changes.
# BENCH='glob' limits the scripts; sections of scripts not run are kept from the previous file, and so is the
# section of a script that fails (with a warning naming it, and exit status 1 once the file is written).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
export TRUELINE_BUILD=${TRUELINE_BUILD:-$root/build}
out=$root/bench/recorded/benchmarks.md
pattern=${BENCH:-*}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# keep NAME: the previous section of bench/NAME.sh, if the file has one
keep() {
  [ -f "$out" ] && awk -v want="## $1" '/^## /{keep = ($0 == want)} keep' "$out" > "$tmp/$1.md"
  [ -s "$tmp/$1.md" ] || rm -f "$tmp/$1.md"
}
failed=()
for s in "$here"/*.sh; do
  n=$(basename "$s" .sh)
  [ "$n" = run ] && continue
  if case "$n" in $pattern) true;; *) false;; esac; then
    echo "bench: $n ..." >&2
    if ! bash "$s" > "$tmp/$n.md"; then
      failed+=("$n")
      keep "$n"
      echo "bench: warning: bench/$n.sh failed; its previous section is kept$([ -f "$tmp/$n.md" ] || echo ' (there was none)')" >&2
    fi
  else
    keep "$n"
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
[ ${#failed[@]} -eq 0 ] || { echo "bench: failed: ${failed[*]}" >&2; exit 1; }
