#!/usr/bin/env bash
# A real CMake project (C++ and CUDA) built with CMAKE_{CXX,CUDA}_COMPILER_LAUNCHER="trueline-cc;ccache":
# every object has line info (host .debug_line; the cubin's .debug_line), and a clean rebuild is all hits.
. "$(dirname "$0")/../lib/harness.sh"
have cmake || { skip "cmake not installed"; exit 0; }
have ccache || { skip "ccache not installed"; exit 0; }
W=$(command -v trueline-cc) || { fail "trueline-cc not on PATH"; exit 0; }
cd "$T"
mkdir -p proj
langs=CXX
have_nvcc && langs="CXX CUDA"
cat > proj/CMakeLists.txt <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(tlproj LANGUAGES $langs)
add_library(hostpart STATIC util.cpp more.cpp)
if(CMAKE_CUDA_COMPILER)
  set(CMAKE_CUDA_ARCHITECTURES 90)
  add_library(devpart STATIC kern.cu)
endif()
CMAKE
printf 'int util(int x) { return x * 2; }\n' > proj/util.cpp
printf '#include <vector>\nint more(int n) { std::vector<int> v(n, 1); int s = 0; for (int x : v) s += x; return s; }\n' > proj/more.cpp
printf '__global__ void scale(float *p, float f) { p[threadIdx.x] *= f; }\nvoid launch(float *p) { scale<<<1, 32>>>(p, 2.0f); }\n' > proj/kern.cu
export CCACHE_DIR=$T/ccache
cfg=(-S proj -B bld -G "Unix Makefiles" "-DCMAKE_CXX_COMPILER_LAUNCHER=$W;ccache")
if have_nvcc; then
  cfg+=("-DCMAKE_CUDA_COMPILER=$CUDA_HOME/bin/nvcc" "-DCMAKE_CUDA_COMPILER_LAUNCHER=$W;ccache")
else
  skip "nvcc not found: CMake project built without its CUDA part"
fi
if ! cmake "${cfg[@]}" > cmake.log 2>&1; then fail "cmake configure"; sed 's/^/    | /' cmake.log | tail -20; exit 0; fi
if cmake --build bld -j2 > build.log 2>&1; then pass "cmake build through trueline-cc;ccache"; else
  fail "cmake build through trueline-cc;ccache"; tail -20 build.log | sed 's/^/    | /'; fi
# The project's objects only (CMake's compiler-identification objects are not built through the launcher).
mapfile -t objs < <(find bld/CMakeFiles -path '*.dir/*' -name '*.o' | sort)
want=2; have_nvcc && want=3
check "all $want objects built" test "${#objs[@]}" = $want
for o in "${objs[@]}"; do
  check "$(basename "$o"): host .debug_line" bash -c "readelf -S '$o' | grep -qE '\] \.debug_line +'"
done
CUOBJDUMP=$(find_pypi_tool cuobjdump)
for o in "${objs[@]}"; do
  case "$o" in *.cu.o) ;; *) continue;; esac
  if [ -n "$CUOBJDUMP" ]; then
    mkdir -p x && (cd x && "$CUOBJDUMP" -xelf all "$T/$o" >/dev/null 2>&1)
    check "$(basename "$o"): the cubin has .debug_line (cuobjdump)" bash -c "readelf -S x/*.cubin 2>/dev/null | grep -qE '\] \.debug_line +'"
  else
    check "$(basename "$o"): fatbin entry carries the source identifier (set only with line info)" \
      bash -c "readelf -p .nv_fatbin '$o' | grep -q kern.cu"
  fi
done
stats() { ccache --print-stats | awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 == "cache_miss" { m += $2 } END { print h + 0, m + 0 }'; }
read -r h0 m0 < <(stats)
check "first build: every object a miss" test "$m0" = $want -a "$h0" = 0
cmake --build bld --target clean > /dev/null
check "rebuild after clean" bash -c "cmake --build bld -j2 > rebuild.log 2>&1"
read -r h1 m1 < <(stats)
check "rebuild: all $want objects are cache hits, no miss" test $((h1 - h0)) = $want -a "$m1" = "$m0"
