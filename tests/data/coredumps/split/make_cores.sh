#!/usr/bin/env bash
# Makes the split case's GPU coredumps on a machine with an NVIDIA GPU, nvcc, cuda-gdb and trueline installed
# (the wheel from `make wheel`). Usage: make_cores.sh OUTDIR. Writes OUTDIR/split.tar.xz with libsk.so as built
# (-lineinfo), its split copy and debug store, the same library built through trueline-cc with
# line_info_store, a core of each (the kernel faults), cuda-gdb's view of each, and trueline-check's reading.
set -u
here=$(cd "$(dirname "$0")" && pwd); out=$1; w=/tmp/sw; rm -rf "$w"; mkdir -p "$w" "$out"; cd "$w" || exit 1
cp "$here"/sk.cu "$here"/app.cpp .
flags=skip_nonrelocated_elf_images,skip_global_memory,skip_shared_memory,skip_constbank_memory,skip_local_memory
nvcc -arch=sm_90 -lineinfo -O3 -Xcompiler -fPIC -shared -Xlinker --build-id -o libsk.so sk.cu || exit 1
g++ -o app app.cpp -L. -lsk -Wl,-rpath,'$ORIGIN' || exit 1
trueline-check --split --debug-store store --output-dir split libsk.so > split.txt 2>&1; echo "exit $?" >> split.txt
cp app split/
mkdir -p w
( TRUELINE_WRAPPER_LINE_INFO_STORE=$w/store_w trueline-cc nvcc -arch=sm_90 -O3 -Xcompiler -fPIC -c sk.cu -o w/sk.o &&
  nvcc -arch=sm_90 -shared -Xlinker --build-id -o w/libsk.so w/sk.o && cp app w/ ) > wrapper.txt 2>&1
echo "exit $?" >> wrapper.txt
for d in . split w; do
  [ -f $d/libsk.so ] || continue
  n=$( [ $d = . ] && echo full || echo $d )
  (cd $d && ./app check) > $n.check.txt 2>&1
  (cd $d && CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE=$w/$n.core CUDA_COREDUMP_GENERATION_FLAGS=$flags \
     timeout 120 ./app) > $n.out 2>&1
  cuda-gdb -batch -ex "target cudacore $n.core" -ex 'info cuda kernels' -ex 'bt' -ex 'info symbol $errorpc' \
    -ex 'p $pc' > $n.cuda-gdb.txt 2>&1
  trueline-check --coredump $n.core > $n.trueline.txt 2>&1
  trueline-check --coredump $n.core --debug-store store > $n.trueline-store.txt 2>&1
  [ -d store_w ] && trueline-check --coredump $n.core --debug-store store_w > $n.trueline-store_w.txt 2>&1
done
for f in libsk.so split/libsk.so w/libsk.so; do [ -f $f ] && cuobjdump -sass $f > $(echo $f | tr / _).sass 2>&1; done
ls -laR > listing.txt
tar cJf "$out/split.tar.xz" --exclude='*.o' . 
ls -la "$out"
