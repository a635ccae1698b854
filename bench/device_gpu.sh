#!/usr/bin/env bash
# PyTorch's libtorch_cuda.so against cuobjdump, on a machine with NVIDIA's GPU software stack.
# Where `import torch` works it measures (bench/device.sh on all CPUs, then pinned to CPUs 0,1);
# elsewhere it prints the figures last recorded on the GPU machine (bench/recorded/device_gpu.md), marked so.
set -u
here=$(cd "$(dirname "$0")" && pwd)
t=$(python3 -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cuda.so"))' 2>/dev/null)
if [ -z "$t" ] || [ ! -f "$t" ]; then
  cat "$here/recorded/device_gpu.md"
  exit 0
fi
echo "## device_gpu"
echo
echo "Measured on $(hostname) ($(nproc) CPUs) on $(date -u +%F)."
for pin in "" "0,1"; do
  echo
  echo "### libtorch_cuda.so${pin:+, pinned to CPUs $pin}"
  echo
  BENCH_RUNS=2 BENCH_CPUS=$pin bash "$here/device.sh" "$t" | sed -n '/^| file/,/^| | | ratio/p'
done
