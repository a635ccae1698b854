#!/usr/bin/env bash
# Bounds benchmark: how long trueline-check takes on the inputs the test suite checks only for their outcome
# (tests assert no time): the fuzz regression inputs, real zstd/LZ4 decompression bombs, a --timeout 1 run on a
# stalled input (TRUELINE_TEST_STALL, polling and stuck), and a GPU coredump of 70000 warps with ELF extended
# section numbering. Best of 3 wall times. Prints the "## limits" section of bench/recorded/benchmarks.md
# (bench/run.sh collects it). TRUELINE_BUILD selects the build.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TRUELINE_BUILD:-$root/build}
tc=$build/bin/trueline-check
[ -x "$tc" ] || { echo "bench/limits.sh: build first (make)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tl-bench-limits.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# best WALL SECONDS of 3 runs of the command (its exit status is not the point here)
best() {
  local b="" t
  for _ in 1 2 3; do
    /usr/bin/time -o "$tmp/t" -f "%e" "$@" >/dev/null 2>&1
    t=$(tail -1 "$tmp/t")
    if [ -z "$b" ] || awk -v a="$t" -v c="$b" 'BEGIN { exit !(a < c) }'; then b=$t; fi
  done
  echo "$b"
}
printf 'int f(void){return 1;}\n' >"$tmp/a.c"
gcc -g -c "$tmp/a.c" -o "$tmp/a.o"
cp "$tmp/a.o" "$tmp/slow.o"

echo "## limits"
echo
echo "$(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg) at the start; best of 3 wall times."
echo
echo "| input | trueline-check | seconds |"
echo "|---|---|---|"
regress=("$root"/tests/data/regress/{load,elf_file,cubin,fatbin}/*)
echo "| ${#regress[@]} fuzz regression inputs + one object | \`--timeout 20\` | $(best "$tc" --timeout 20 "${regress[@]}" "$tmp/a.o") |"
mkdir -p "$tmp/bombs"
if python3 "$root/tests/lib/mutate.py" x "$tmp/bombs" --bomb zstd >/dev/null &&
   python3 "$root/tests/lib/mutate.py" x "$tmp/bombs" --bomb lz4 >/dev/null; then
  echo "| zstd and LZ4 bombs (1 GiB declared) + one object | \`--max-input-mb 64\` | $(best "$tc" --max-input-mb 64 --timeout 60 "$tmp"/bombs/* "$tmp/a.o") |"
fi
for mode in poll hang; do
  echo "| a stalled input ($mode) + one object | \`--timeout 1\` | $(best env TRUELINE_TEST_STALL=$mode:slow timeout 60 "$tc" --timeout 1 -j1 "$tmp/a.o" "$tmp/slow.o") |"
done
if command -v xz >/dev/null; then
  xz -dc "$root/tests/data/coredumps/hang.core.xz" >"$tmp/hang.core" &&
    python3 "$root/tests/suites/coredump_mutate.py" "$tmp/hang.core" "$tmp/many.core" many-warps >/dev/null &&
    echo "| GPU coredump, 70000 warps, extended section numbering | \`--coredump\` | $(best "$tc" --coredump "$tmp/many.core") |"
fi
