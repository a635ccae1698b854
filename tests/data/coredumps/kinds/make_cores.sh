#!/usr/bin/env bash
# Makes the GPU coredumps of the exception kinds and stack shapes (traps, two streams, deep recursion, a call
# through a function pointer, a virtual call) on a machine with an NVIDIA GPU, nvcc and cuda-gdb.
# Usage: make_cores.sh OUTDIR. Writes OUTDIR/kinds.tar.xz: each program, its core, its output and cuda-gdb's view.
set -u
here=$(cd "$(dirname "$0")" && pwd); out=$1; w=/tmp/kw; rm -rf "$w"; mkdir -p "$w" "$out"; cd "$w" || exit 1
cp "$here"/*.cu .
flags=skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_constbank_memory,skip_local_memory
for s in traps streams deep fptr virt; do nvcc -arch=sm_90 -lineinfo -O3 -o $s $s.cu > $s.build.txt 2>&1; done
fault() { # CORE PROGRAM ARGS...
  local c=$1; shift
  CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE=$w/$c.core CUDA_COREDUMP_GENERATION_FLAGS=$flags \
    timeout 120 "$@" > $c.out 2>&1
  echo "exit $?" >> $c.out
}
fault trap_builtin ./traps 0
fault trap_asm ./traps 1
fault trap_brkpt ./traps 2
fault streams ./streams
fault deep ./deep
fault fptr ./fptr
fault virt ./virt
# the virtual call once more with the local memory kept, in case skipping it is what loses the core
CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE=$w/virt-full.core \
  CUDA_COREDUMP_GENERATION_FLAGS=skip_nonrelocated_elf_images,skip_global_memory timeout 120 ./virt > virt-full.out 2>&1
for c in *.core; do
  cuda-gdb -batch -ex "target cudacore $c" -ex 'info cuda kernels' -ex 'info cuda warps' -ex 'bt' \
    -ex 'info symbol $errorpc' -ex 'p $pc' -ex 'x/2i $pc' > ${c%.core}.cuda-gdb.txt 2>&1
  command -v trueline-check >/dev/null && trueline-check --coredump $c > ${c%.core}.trueline.txt 2>&1
done
ls -la > listing.txt
tar cJf "$out/kinds.tar.xz" .
ls -la "$out"
