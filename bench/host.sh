#!/usr/bin/env bash
# Host-audit benchmark: a full host audit of the CUDA toolkit's libnccl.so.2 against
# `readelf --debug-dump=decodedline` and `llvm-dwarfdump --verify` on the same file (ratios from one run, best of
# 3, peak RSS from /usr/bin/time), and `nm -D -C | grep std::` against the stl-leak check alone on the largest
# C++ shared object found on the machine. Prints the "## host" section of bench/recorded/benchmarks.md (bench/run.sh
# collects it). TRUELINE_BUILD selects the build; LLVM_VERIFY_TIMEOUT caps llvm-dwarfdump (default 60 s).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TRUELINE_BUILD:-$root/build}
tc=$build/bin/trueline-check
[ -x "$tc" ] || { echo "bench/host.sh: build first (make)" >&2; exit 2; }
cuda_home() {
  if [ -n "${CUDA_HOME:-}" ] && [ -d "$CUDA_HOME/lib64" ]; then echo "$CUDA_HOME"; return; fi
  local n; n=$(command -v nvcc) && { cd "$(dirname "$(readlink -f "$n")")/.." && pwd; }
}
# best-of-3 wall time, the peak RSS and the CPU time (user + sys) of that run: "SECONDS KB CPU"
measure() {
  local best="" rss="" cpu=""
  for _ in 1 2 3; do
    /usr/bin/time -o "$tf" -f "%e %M %U %S" "$@" >/dev/null 2>&1
    local t m u s; read -r t m u s < <(tail -1 "$tf")
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$t; rss=$m; cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
    fi
  done
  echo "$best $rss $cpu"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }

out=$(mktemp); tf=$(mktemp); trap 'rm -f "$out" "$tf"' EXIT
ch=$(cuda_home)
nccl=${ch:+$ch/lib64/libnccl.so.2}
{
  echo "## host"
  echo
  echo "Measured by \`bench/host.sh\` on $(date -u +%Y-%m-%d), $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at the start; best of 3 runs, wall seconds; RSS = peak resident set."
  echo
  if [ -n "$nccl" ] && [ -f "$nccl" ]; then
    rows=$(readelf -W --debug-dump=decodedline "$nccl" 2>/dev/null | grep -cE '\s0x[0-9a-f]+(\s|$)')
    read -r t_tl r_tl c_tl < <(measure "$tc" --host-only "$nccl")
    read -r t_tl1 r_tl1 c_tl1 < <(measure "$tc" --host-only --checks line-tables "$nccl")
    read -r t_re r_re c_re < <(measure readelf --debug-dump=decodedline "$nccl")
    lto=${LLVM_VERIFY_TIMEOUT:-60}
    if command -v llvm-dwarfdump >/dev/null || ls /usr/bin/llvm-dwarfdump-* >/dev/null 2>&1; then
      ld=$(command -v llvm-dwarfdump || ls /usr/bin/llvm-dwarfdump-* | head -1)
      /usr/bin/time -o "$tf" -f "%e %M" timeout "$lto" "$ld" --verify "$nccl" >/dev/null 2>&1
      r=$(tail -1 "$tf")
      t_ll=${r% *}; r_ll=${r#* }
      awk -v t="$t_ll" -v c="$lto" 'BEGIN { exit !(t >= c - 0.5) }' && ll="did not finish in ${lto} s (stopped), $(mb "$r_ll") MB RSS by then" \
        || ll="$t_ll s, $(mb "$r_ll") MB RSS"
    else ll="llvm-dwarfdump not installed"; fi
    echo "### Full host audit of the CUDA toolkit's libnccl.so.2 ($(du -m "$nccl" | cut -f1) MB, $rows line rows as readelf prints them)"
    echo
    echo "| command | wall | vs readelf | CPU (user+sys) | vs readelf | peak RSS |"
    echo "|---|---|---|---|---|---|"
    echo "| \`trueline-check --host-only libnccl.so.2\` (all host checks) | $t_tl s | $(ratio "$t_tl" "$t_re")× | $c_tl s | $(ratio "$c_tl" "$c_re")× | $(mb "$r_tl") MB |"
    echo "| \`trueline-check --host-only --checks line-tables\` | $t_tl1 s | $(ratio "$t_tl1" "$t_re")× | $c_tl1 s | $(ratio "$c_tl1" "$c_re")× | $(mb "$r_tl1") MB |"
    echo "| \`readelf --debug-dump=decodedline\` (to /dev/null) | $t_re s | 1.00× | $c_re s | 1.00× | $(mb "$r_re") MB |"
    echo "| \`llvm-dwarfdump --verify\` (timeout ${lto} s) | $ll | | | | |"
    echo
    echo "Target: ≤ 0.5× readelf. On a loaded machine wall times stretch with the run queue; CPU time does not. trueline-check reads .debug_info (libdwarf; from 4 MB on, its units in two halves on two libdwarf handles) and .debug_line (own decoder) side by side. Without --host-only the device reader also decompresses and walks every fatbin entry of the file."
    echo
  else
    echo "libnccl.so.2 not found (no CUDA toolkit via CUDA_HOME or nvcc on PATH): audit benchmark skipped."
    echo
  fi
  # the largest C++ shared object on the machine (needs libstdc++), searched in the usual library dirs
  big=$(find /usr/lib /usr/local/lib ${ch:+"$ch/lib64"} -xdev -name '*.so*' -type f -size +5M -printf '%s %p\n' 2>/dev/null \
        | sort -rn | head -40 | while read -r _ p; do readelf -d "$p" 2>/dev/null | grep -q 'libstdc++' && { echo "$p"; break; }; done)
  if [ -n "$big" ]; then
    read -r t_nm r_nm _ < <(measure sh -c "nm -D -C '$big' | grep 'std::'")
    read -r t_sl r_sl _ < <(measure "$tc" --host-only --checks stl-leak "$big")
    n_nm=$(nm -D -C --defined-only "$big" | grep -c 'std::')
    # the findings' counts summed: one finding per kind (over the file's own types, over standard types only)
    n_sl=$("$tc" --host-only --checks stl-leak --format json "$big" | grep -o '"message": "exports [0-9]* std::' |
      grep -o '[0-9]*' | awk '{ n += $1 } END { print n + 0 }')
    echo "### std:: exports of the largest C++ shared object found: \`$(basename "$big")\` ($(du -m "$big" | cut -f1) MB)"
    echo
    echo "| command | time | peak RSS | result |"
    echo "|---|---|---|---|"
    echo "| \`nm -D -C FILE \\| grep std::\` | $t_nm s | $(mb "$r_nm") MB | $n_nm defined lines mention std:: (text match, any position) |"
    echo "| \`trueline-check --host-only --checks stl-leak FILE\` | $t_sl s | $(mb "$r_sl") MB | ${n_sl:-0} exported std:: symbols (parse tree; strong/weak/unique classified) |"
    echo
  fi
} >"$out"
cat "$out"
