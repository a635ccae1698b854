#!/usr/bin/env bash
# The two-stream core alone (make_cores.sh makes the others): usage make_streams_core.sh OUTDIR.
set -u
here=$(cd "$(dirname "$0")" && pwd); out=$1; w=/tmp/kw2; rm -rf "$w"; mkdir -p "$w" "$out"; cd "$w" || exit 1
cp "$here"/streams.cu .
nvcc -arch=sm_90 -lineinfo -O3 -o streams streams.cu || exit 1
flags=skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_constbank_memory,skip_local_memory
CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE=$w/streams.core CUDA_COREDUMP_GENERATION_FLAGS=$flags \
  timeout 150 ./streams > streams.out 2>&1
echo "exit $?" >> streams.out
[ -f streams.core ] && cuda-gdb -batch -ex "target cudacore streams.core" -ex 'info cuda kernels' -ex 'info cuda warps' \
  -ex 'bt' -ex 'info symbol $errorpc' -ex 'p $pc' -ex 'x/2i $pc' > streams.cuda-gdb.txt 2>&1
[ -f streams.core ] && command -v trueline-check >/dev/null && trueline-check --coredump streams.core > streams.trueline.txt 2>&1
tar cJf "$out/streams.tar.xz" --exclude=core .
