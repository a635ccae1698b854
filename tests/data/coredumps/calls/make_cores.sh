#!/usr/bin/env bash
# Makes the GPU coredumps of tests/data/coredumps/ that need call stacks and several processes, on a machine
# with an NVIDIA GPU, nvcc and cuda-gdb. Usage: make_cores.sh OUTDIR. Writes OUTDIR/cores.tar.xz holding, per
# case, the executable, its core(s) and cuda-gdb's view of each (the oracle).
set -u
out=$1; w=/tmp/cw; rm -rf "$w"; mkdir -p "$w" "$out"; cp "$(dirname "$0")"/*.cu "$w"/; cd "$w" || exit 1
skip=skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_constbank_memory
for s in assert_chain two_callers several_callers recurse ranks; do nvcc -arch=sm_90 -lineinfo -O3 -o $s $s.cu || exit 1; done
fault() { # NAME FLAGS: run ./NAME until it faults, core to NAME.core
  CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE=$w/$1.core CUDA_COREDUMP_GENERATION_FLAGS=$2 \
    timeout 120 ./${1%%-*} > $1.out 2>&1
}
hang_core() { # BIN CORE PIPE ARGS...: start BIN, trigger a user coredump through PIPE, then stop it
  local bin=$1 core=$2 pipe=$3; shift 3
  CUDA_ENABLE_USER_TRIGGERED_COREDUMP=1 CUDA_COREDUMP_PIPE=$pipe CUDA_COREDUMP_FILE=$core \
    CUDA_COREDUMP_GENERATION_FLAGS=$skip,skip_local_memory ./$bin "$@" > $core.out 2>&1 &
  echo $!
}
fault assert_chain "$skip,skip_local_memory"
cp assert_chain assert_chain-keeplocal; fault assert_chain-keeplocal "$skip"
fault two_callers "$skip,skip_local_memory"
fault several_callers "$skip,skip_local_memory"
p=$(hang_core recurse recurse.core $w/recurse.pipe); sleep 8; head -c 1048576 /dev/zero > $w/recurse.pipe; sleep 10; kill $p
# four ranks: 0-2 wait, 3 faults
pids=""
for r in 0 1 2; do pids="$pids $(hang_core ranks rank$r.core $w/rank$r.pipe $r 3)"; done
CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE=$w/rank3.core CUDA_COREDUMP_GENERATION_FLAGS=$skip,skip_local_memory \
  timeout 120 ./ranks 3 3 > rank3.core.out 2>&1
sleep 4
for r in 0 1 2; do head -c 1048576 /dev/zero > $w/rank$r.pipe & done
sleep 15; kill $pids 2>/dev/null; wait 2>/dev/null
for c in *.core; do
  cuda-gdb -batch -ex "target cudacore $c" -ex 'info cuda kernels' -ex 'bt' -ex 'info symbol $errorpc' -ex 'p $pc' \
    > ${c%.core}.cuda-gdb.txt 2>&1 || true
done
ls -la > listing.txt
tar cJf "$out/cores.tar.xz" *.cu *.core *.out *.cuda-gdb.txt listing.txt assert_chain two_callers several_callers recurse ranks
ls -la "$out"
