#!/usr/bin/env bash
# Package benchmark: a whole-wheel audit (trueline-check --profile release, the verdict included) against what
# answers the same questions without it, `auditwheel show` plus `cuobjdump -lelf -lptx` over the wheel's
# libraries; and the full audit's floor: trueline-check on the CUDA toolkit's libnccl.so.2, device images
# included, against `readelf --debug-dump=decodedline` on the same file, with where the audit's CPU time goes
# (perf, by library). Prints the "## package" section of bench/recorded/benchmarks.md (bench/run.sh collects it).
# TRUELINE_BUILD selects the build; BENCH_WHEEL names a wheel (default: nvidia-nvjpeg-cu12 12.4.0.76 from the
# test cache, ${TRUELINE_TEST_CACHE:-~/.cache/trueline-tests}/wheels, downloaded there when missing).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TRUELINE_BUILD:-$root/build}
tc=$build/bin/trueline-check
[ -x "$tc" ] || { echo "bench/package.sh: build first (make)" >&2; exit 2; }
. "$root/tests/lib/harness.sh" >/dev/null 2>&1 </dev/null || true # find_pypi_tool, cuda_home
tmp=$(mktemp -d); tf=$tmp/time; trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/xdg # the image cache of every run below is this script's own (rows say which they use)
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
add() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a + b }'; }

cache=${TRUELINE_TEST_CACHE:-$HOME/.cache/trueline-tests}/wheels
wheel=${BENCH_WHEEL:-}
if [ -z "$wheel" ]; then
  wheel=$(ls "$cache"/nvidia_nvjpeg_cu12-12.4.0.76-*x86_64*.whl 2>/dev/null | head -1)
  if [ -z "$wheel" ] && mkdir -p "$cache" && timeout 120 pip download --only-binary=:all: --no-deps \
       nvidia-nvjpeg-cu12==12.4.0.76 -d "$cache" -q >/dev/null 2>&1; then
    wheel=$(ls "$cache"/nvidia_nvjpeg_cu12-12.4.0.76-*x86_64*.whl 2>/dev/null | head -1)
  fi
fi
cuobjdump=$(find_pypi_tool cuobjdump 2>/dev/null); [ -n "$cuobjdump" ] || cuobjdump=$(command -v cuobjdump)
echo "## package"
echo
echo "Measured by \`bench/package.sh\` on $(date -u +%Y-%m-%d), $(nproc) CPUs, load average $(cut -d' ' -f1 /proc/loadavg) at the start; best of 3 runs, wall seconds; RSS = peak resident set. On a loaded machine wall times stretch with the run queue; CPU time does not."
echo
if [ -n "$wheel" ] && [ -f "$wheel" ] && command -v auditwheel >/dev/null && [ -n "$cuobjdump" ]; then
  mkdir "$tmp/w" && (cd "$tmp/w" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall()' "$wheel")
  find "$tmp/w" -type f \( -name '*.so' -o -name '*.so.*' \) | sort > "$tmp/libs"
  # cuobjdump reads one file per run: the inventory of the wheel is one run per library
  printf '#!/bin/sh\nwhile read -r f; do "%s" -lelf -lptx "$f"; done < "%s"\n' "$cuobjdump" "$tmp/libs" > "$tmp/inv.sh"
  read -r t_tl r_tl c_tl < <(measure "$tc" --no-image-cache --profile release "$wheel")
  read -r t_aw r_aw c_aw < <(measure auditwheel show "$wheel")
  read -r t_cu r_cu c_cu < <(measure sh "$tmp/inv.sh")
  t_both=$(add "$t_aw" "$t_cu"); c_both=$(add "$c_aw" "$c_cu")
  "$tc" --profile release --format json --output "$tmp/w.json" "$wheel" 2>/dev/null
  facts=$(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["packages"][0]["verdict"]; t = p["total"]
tag = p["platform"].get("satisfied", "-")
print("%d libraries, %d cubins, %d PTX images, %d kernels; platform verdict: %s"
      % (len(p["files"]), t["cubins"], t["ptx"], t["kernels"], tag))' "$tmp/w.json")
  echo "### Whole-wheel audit: \`$(basename "$wheel")\` ($(du -m "$wheel" | cut -f1) MB; $facts)"
  echo
  echo "| command | wall | vs the two tools | CPU (user+sys) | vs the two tools | peak RSS |"
  echo "|---|---|---|---|---|---|"
  echo "| \`trueline-check --no-image-cache --profile release WHEEL\` (every check, the verdict, the closing table) | $t_tl s | $(ratio "$t_tl" "$t_both")× | $c_tl s | $(ratio "$c_tl" "$c_both")× | $(mb "$r_tl") MB |"
  echo "| \`auditwheel show WHEEL\` (platform tag) | $t_aw s | | $c_aw s | | $(mb "$r_aw") MB |"
  echo "| \`cuobjdump -lelf -lptx\` on each library, unpacked beforehand (device inventory) | $t_cu s | | $c_cu s | | $(mb "$r_cu") MB |"
  echo "| the two tools together | $t_both s | 1.00× | $c_both s | 1.00× | |"
  echo
  echo "trueline-check reads the wheel in memory (libarchive); the two tools' rows do not count unpacking it for cuobjdump."
  echo
else
  echo "Whole-wheel audit: skipped (no wheel, no auditwheel or no cuobjdump on this machine)."
  echo
fi
ch=$(cuda_home 2>/dev/null)
nccl=${ch:+$ch/lib64/libnccl.so.2}
if [ -n "$nccl" ] && [ -f "$nccl" ]; then
  read -r t_full r_full c_full < <(measure "$tc" --no-image-cache "$nccl")
  "$tc" --image-cache "$tmp/ic" "$nccl" >/dev/null 2>&1 # the first run, which fills the cache
  read -r t_warm r_warm c_warm < <(measure "$tc" --image-cache "$tmp/ic" "$nccl")
  read -r t_host r_host c_host < <(measure "$tc" --host-only "$nccl")
  read -r t_re r_re c_re < <(measure readelf --debug-dump=decodedline "$nccl")
  floor_bin=$build/bench/zstd_floor
  [ -x "$floor_bin" ] || make -s -C "$root" BUILD="$build" "$floor_bin" >/dev/null 2>&1 || floor_bin=
  floor=$([ -n "$floor_bin" ] && "$floor_bin" "$nccl" 2>/dev/null | awk '{ print $3 }')
  dev=$("$tc" --no-image-cache --list "$nccl" 2>/dev/null | awk '/entry/ { n++; s += $5; u += $7 } END { printf "%d device images, %.0f MB stored, %.0f MB uncompressed", n, s / 1e6, u / 1e6 }')
  echo "### Full audit of the CUDA toolkit's libnccl.so.2 ($(du -m "$nccl" | cut -f1) MB; $dev)"
  echo
  echo "| command | wall | vs readelf | CPU (user+sys) | vs readelf | peak RSS |"
  echo "|---|---|---|---|---|---|"
  echo "| \`trueline-check --no-image-cache libnccl.so.2\` (host and device, every image decompressed: a first audit) | $t_full s | $(ratio "$t_full" "$t_re")× | $c_full s | $(ratio "$c_full" "$c_re")× | $(mb "$r_full") MB |"
  echo "| \`trueline-check libnccl.so.2\` again (host and device, image summaries from the image cache) | $t_warm s | $(ratio "$t_warm" "$t_re")× | $c_warm s | $(ratio "$c_warm" "$c_re")× | $(mb "$r_warm") MB |"
  echo "| \`trueline-check --host-only libnccl.so.2\` | $t_host s | $(ratio "$t_host" "$t_re")× | $c_host s | $(ratio "$c_host" "$c_re")× | $(mb "$r_host") MB |"
  echo "| \`readelf --debug-dump=decodedline\` (to /dev/null) | $t_re s | 1.00× | $c_re s | 1.00× | $(mb "$r_re") MB |"
  [ -n "$floor" ] && echo "| libzstd alone: every image decompressed, 1 thread (bench/zstd_floor.c); divided by $(nproc) CPUs | $(awk -v f="$floor" -v n="$(nproc)" 'BEGIN { printf "%.2f", f / n }') s | $(awk -v f="$floor" -v n="$(nproc)" -v r="$t_re" 'BEGIN { printf "%.2f", f / n / r }')× | $floor s | | |"
  echo
  # (the audit's exit status is its findings': perf's own success is the data it wrote)
  command -v perf >/dev/null && perf record -q -o "$tmp/perf.data" "$tc" --no-image-cache -j1 "$nccl" >/dev/null 2>&1
  if [ -s "$tmp/perf.data" ]; then
    echo "Where a first audit's CPU time goes (\`perf record\`, one run, -j1, --no-image-cache; share of samples by library):"
    echo
    echo "| library | share |"
    echo "|---|---|"
    perf report -i "$tmp/perf.data" --no-children --sort dso --stdio 2>/dev/null |
      awk '/^ +[0-9.]+%/ { if ($1 + 0 >= 1) printf "| %s | %s |\n", $2, $1 }'
    echo
  fi
  echo "Goal: ≤ 1.0× readelf on 2 CPUs. The device images are zstd-compressed and a cubin's section headers sit at its end, so a first audit decompresses every image whole (zstd frames have no random access): the libzstd row, spread over the CPUs, is that run's floor. A later audit of the same bytes by the same trueline-check takes the images' summaries from the image cache (docs/device-tools.md) and decompresses nothing; --host-only skips device images altogether."
else
  echo "Full audit of libnccl.so.2: skipped (no CUDA toolkit libnccl.so.2)."
fi
