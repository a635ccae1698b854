#!/usr/bin/env bash
# PyTorch C++/CUDA extensions: the build.ninja that torch.utils.cpp_extension.load() writes
# (_write_ninja_file_to_build_library -> _write_ninja_file, torch 2.x on Linux), rules and flags as torch writes
# them, run by ninja with the recipe of README.md: PYTORCH_NVCC="trueline-cc ccache $CUDA_HOME/bin/nvcc" (torch
# uses it verbatim as $nvcc) and a link named ccache first on PATH (torch prepends `ccache` to $cxx itself
# whenever one is on PATH). torch itself is not installed (its CUDA wheel and the NVIDIA libraries it loads are
# ~1 GB); its headers and libraries are left out of the flags, the rest is what it writes. Where torch can be
# imported (TORCH_PYTHON names a python that has it; default python3) a real load() is built the same way too,
# and its build.ninja must have the rules and flags written here.
# Truths: readelf (host line info, the provenance note), cuobjdump (the cubin's .debug_line), ninja's own
# dependency log (-MMD/-MD depfiles kept), ccache's statistics, the same command lines without trueline.
. "$(dirname "$0")/../lib/harness.sh"
have ninja || { skip "ninja not installed: the PyTorch extension recipe is not checked"; exit 0; }
have ccache || { skip "ccache not installed: the PyTorch extension recipe is not checked"; exit 0; }
W=$(command -v trueline-cc) || { fail "trueline-cc not on PATH"; exit 0; }
cd "$T"
CUOBJDUMP=$(find_pypi_tool cuobjdump)
export CCACHE_DIR=$T/ccache
mkdir -p src links
ln -s "$W" links/ccache
printf '#pragma once\nint scale(int);\n' > src/ext.h
printf '#include "ext.h"\nint scale(int x) { return 3 * x; }\nint twice(int x) { return scale(x) - x; }\n' > src/ext.cpp
cat > src/kern.cu <<'CU'
#include "ext.h"
__global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
void launch(float a, const float *x, float *y, int n) { axpy<<<(n + 255) / 256, 256>>>(a, x, y, n); }
CU
pyinc=$(python3 -c 'import sysconfig; print(sysconfig.get_path("include", scheme="posix_prefix"))')

# write_ninja DIR NVCC: build.ninja as torch writes it for load(name="ext", sources=[ext.cpp, kern.cu]),
# TORCH_CUDA_ARCH_LIST=8.0; $cxx is "ccache c++" (torch's _wrap_compiler with ccache on PATH, CXX unset).
write_ninja() {
  local dir=$1 nvcc=$2 common cuda=""
  mkdir -p "$dir"
  common="-DTORCH_EXTENSION_NAME=ext -DTORCH_API_INCLUDE_EXTENSION_H -isystem $pyinc"
  [ -n "$nvcc" ] && cuda="-D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__ --expt-relaxed-constexpr -gencode=arch=compute_80,code=sm_80 --compiler-options '-fPIC' -std=c++20"
  {
    echo "ninja_required_version = 1.3"
    echo "cxx = ccache c++"
    [ -n "$nvcc" ] && echo "nvcc = $nvcc"
    echo
    echo "cflags = $common -fPIC -std=c++20"
    echo "post_cflags = "
    if [ -n "$nvcc" ]; then echo "cuda_cflags = $common $cuda"; echo "cuda_post_cflags = "; fi
    echo "cuda_dlink_post_cflags = "
    echo "sycl_dlink_post_cflags = "
    echo "ldflags = -shared"
    echo
    echo "rule compile"
    echo "  command = \$cxx -MMD -MF \$out.d \$cflags -c \$in -o \$out \$post_cflags"
    echo "  depfile = \$out.d"
    echo "  deps = gcc"
    echo
    if [ -n "$nvcc" ]; then
      echo "rule cuda_compile"
      echo "  depfile = \$out.d"
      echo "  deps = gcc"
      echo "  command = \$nvcc -MD -MF \$out.d \$cuda_cflags -c \$in -o \$out \$cuda_post_cflags"
      echo
    fi
    echo "rule link"
    echo "  command = \$cxx \$in \$ldflags -o \$out"
    echo
    echo "build ext.o: compile $T/src/ext.cpp"
    [ -n "$nvcc" ] && echo "build kern.cuda.o: cuda_compile $T/src/kern.cu"
    echo
    echo "build ext.so: link ext.o$([ -n "$nvcc" ] && echo " kern.cuda.o")"
    echo
    echo "default ext.so"
  } > "$dir/build.ninja"
}
host_lines() { readelf -S "$1" 2>/dev/null | grep -qE '\] \.debug_line +'; }
stamped() { readelf -n "$1" 2>/dev/null | grep -q '^  trueline'; }
device_lines() { # the cubin in the object has .debug_line (cuobjdump extracts it)
  local d; d=$(mktemp -d "$T/x.XXXX")
  (cd "$d" && "$CUOBJDUMP" -xelf all "$1" >/dev/null 2>&1) && ls "$d"/*.cubin >/dev/null 2>&1 &&
    readelf -S "$d"/*.cubin 2>/dev/null | grep -qE '\] \.debug_line +'
}
hits() { ccache --print-stats | awk -F'\t' '$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } END { print h + 0 }'; }

nvcc_cmd=""
if have_nvcc; then nvcc_cmd="$CUDA_HOME/bin/nvcc"; else echo "# nvcc not found: the C++ half of the extension only"; fi

# --- the same build.ninja without trueline: what the flags give on their own ------------------------------------
write_ninja bare "$nvcc_cmd"
premise "torch's build.ninja builds without trueline (ninja, bare ccache)" sh -c 'cd bare && ninja > log.txt 2>&1'
premise "without trueline its C++ object has no .debug_line (torch passes no -g)" sh -c '! readelf -S bare/ext.o | grep -q "\.debug_line"'

# --- the recipe ------------------------------------------------------------------------------------------------
ccache -z > /dev/null
write_ninja wrapped "${nvcc_cmd:+$W ccache $nvcc_cmd}"
(cd wrapped && PATH="$T/links:$PATH" ninja > log.txt 2>&1); rc=$?
check "ninja builds ext.so with PYTORCH_NVCC='trueline-cc ccache nvcc' and a ccache link first on PATH" sh -c "[ $rc -eq 0 ] && [ -s wrapped/ext.so ]"
[ $rc -eq 0 ] || sed 's/^/    | /' wrapped/log.txt | tail -15
check "ext.o (\$cxx = ccache c++, through the link): .debug_line forced (readelf)" host_lines wrapped/ext.o
check "ext.o carries a provenance note (readelf -n)" stamped wrapped/ext.o
deps_kept() { (cd wrapped && ninja -t deps ext.o | grep -q "$T/src/ext.h\|src/ext.h"); }
check "ninja's dependency log has ext.h for ext.o: torch's -MMD -MF \$out.d passes through" deps_kept
if [ -n "$nvcc_cmd" ]; then
  check "kern.cuda.o (\$nvcc = PYTORCH_NVCC): host .debug_line (readelf)" host_lines wrapped/kern.cuda.o
  check "kern.cuda.o carries a provenance note (readelf -n)" stamped wrapped/kern.cuda.o
  (cd wrapped && ninja -t deps kern.cuda.o) > cudeps.txt 2>&1
  contains "ninja's dependency log has ext.h for kern.cuda.o (nvcc -MD -MF \$out.d)" cudeps.txt 'src/ext\.h'
  if [ -n "$CUOBJDUMP" ]; then
    no_device_lines() { ! device_lines "$1"; }
    premise "without trueline the cubin has no .debug_line (torch passes no -lineinfo)" no_device_lines "$T/bare/kern.cuda.o"
    check "with it, the cubin in kern.cuda.o has .debug_line (cuobjdump -xelf, readelf)" device_lines "$T/wrapped/kern.cuda.o"
  else
    skip "cuobjdump not installed (pip install nvidia-cuda-cuobjdump): the cubin's line info not checked"
  fi
fi

# --- a rebuild from scratch: the cache answers, the objects are the same ----------------------------------------
cp wrapped/ext.o first.o
(cd wrapped && ninja -t clean > /dev/null && PATH="$T/links:$PATH" ninja > log2.txt 2>&1)
n_obj=1; [ -n "$nvcc_cmd" ] && n_obj=2
check "a clean rebuild is answered by ccache: at least $n_obj hits (ccache's statistics)" test "$(hits)" -ge "$n_obj"
same_stamped() { same_bytes "$1" "$2" && host_lines "$2" && stamped "$2"; }
check "... and its ext.o is the same object, line info and note included" same_stamped first.o wrapped/ext.o

# --- a signed statement of how ext.so was built (the rebuild's: its objects came from ccache) -------------------
# Oracles: the build.ninja's build lines (the sources it compiles), sha256sum (each component's digest), PyPI's
# securesystemslib (the envelope's signature and the subject's digest), skipped when PyPI cannot be reached.
. "$TRUELINE_ROOT/tests/lib/attest_helpers.sh" # payload, q, sha, sslib_python
if ! trueline-check --keygen rel > keygen.out 2>&1; then
  skip "attest: $(head -1 keygen.out)"
else
  trueline-check --attest --signing-key rel --output ext.intoto.jsonl --require line-info,one-toolchain \
    wrapped/ext.so > attest.out 2> attest.err; rc=$?
  check "attest ext.so: --require line-info,one-toolchain passes (exit 0)" test $rc = 0
  [ $rc -eq 0 ] || sed 's/^/    | /' attest.err | tail -5
  expect_rc "attest ext.so: --verify-attestation verifies it" 0 \
    trueline-check --verify-attestation ext.intoto.jsonl --public-key rel.pub wrapped/ext.so
  payload ext.intoto.jsonl > ext.json
  RECS='[r for o in st["predicate"]["buildDefinition"]["internalParameters"]["objects"] for r in o["records"]]'
  DEPS='st["predicate"]["buildDefinition"]["resolvedDependencies"]'
  sed -nE 's/^build [^:]+: (compile|cuda_compile) (.*)$/\2/p' wrapped/build.ninja | sort > ninja.sources
  q ext.json "'\n'.join(sorted(r['source'] for r in $RECS if r['kind'] == 'compile'))" > statement.sources
  check "attest ext.so: every source build.ninja compiles is stated, and no other ($(wc -l < ninja.sources) sources)" \
    sh -c '[ -s ninja.sources ] && diff ninja.sources statement.sources'
  same "attest ext.so: the subject is ext.so by sha256sum" "$(q ext.json 'st["subject"][0]["digest"]["sha256"]')" "$(sha wrapped/ext.so)"
  same "attest ext.so: every fingerprint resolved here (none 'unknown')" \
    "$(q ext.json "[d['annotations'].get('components') for d in $DEPS if 'components' in d['annotations']]")" "[]"
  q ext.json "'\n'.join(d['annotations']['driver']+'\t'+d['annotations']['role']+'\t'+d['name']+'\t'+d['digest']['sha256'] for d in $DEPS if 'sha256' in d.get('digest', {}))" > ext.deps
  roles="c++:cc1plus"
  [ -n "$nvcc_cmd" ] && roles="$roles nvcc:nvcc nvcc:cicc nvcc:ptxas nvcc:fatbinary nvcc:host_cc1plus" # _ for a space
  for dr in $roles; do
    role=${dr#*:}; role=${role//_/ }
    check "attest ext.so: ${dr%%:*}'s $role is a resolved component" grep -q "^${dr%%:*}"$'\t'"$role"$'\t' ext.deps
  done
  bad=0; n=0; while IFS=$'\t' read -r _ role p s; do n=$((n + 1)); [ "$(sha "$p")" = "$s" ] || { bad=1; echo "    | $role $p"; }; done < ext.deps
  check "attest ext.so: every component's sha256 is sha256sum's ($n components)" test $bad = 0 -a $n -gt 3
  same "attest ext.so: nothing folded from the environment (none was set)" "$(q ext.json "[f for r in $RECS for f in r['foldedFlags']]")" "[]"
  # the records' directory is gone (the build tree removed, the library kept): the replay then runs from here
  cp wrapped/ext.so kept-ext.so && mv wrapped wrapped.gone
  trueline-check --attest --signing-key rel --output kept.intoto.jsonl --require line-info,one-toolchain kept-ext.so \
    > kept.out 2>&1; rc=$?
  mv wrapped.gone wrapped
  payload kept.intoto.jsonl > kept.json
  same "attest ext.so with its build directory removed: both toolchains still resolved" \
    "$(q kept.json "sorted((d['annotations']['driver'], d['annotations'].get('components', 'resolved')) for d in $DEPS if d['annotations'].get('role') in (None, 'cc1plus', 'cicc'))")" \
    "$(q ext.json "sorted((d['annotations']['driver'], d['annotations'].get('components', 'resolved')) for d in $DEPS if d['annotations'].get('role') in (None, 'cc1plus', 'cicc'))")"
  PY=$(sslib_python "$T/venv")
  if [ -n "$PY" ]; then
    contains "attest ext.so: securesystemslib verifies the envelope and ext.so's digest" \
      <("$PY" "$TRUELINE_ROOT/tests/lib/attest_py.py" verify ext.intoto.jsonl rel.pub wrapped/ext.so 2>&1) "^verified$"
  else
    skip "attest ext.so: securesystemslib not importable and not installable from PyPI here"
  fi
fi

# --- a real torch.utils.cpp_extension.load(), where torch is installed ------------------------------------------
TP=${TORCH_PYTHON:-python3}
if [ -n "$nvcc_cmd" ] && "$TP" -c 'import torch.utils.cpp_extension' > /dev/null 2>&1; then
  mkdir -p real/src real/build
  cp src/kern.cu src/ext.h real/src/
  cat > real/src/ext.cpp <<'CPP'
#include <torch/extension.h>
void launch(float a, const float *x, float *y, int n);
torch::Tensor axpy(double a, torch::Tensor x, torch::Tensor y) {
  launch(a, x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
  return y;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("axpy", &axpy); }
CPP
  # A CXX in the environment is what torch compiles C++ with, and then some releases prepend no ccache: the
  # documented fallback, a link named like CXX's program to trueline-cc (it finds the real one next on PATH)
  cxx_path=$PATH cxx_env=()
  if [ -n "${CXX:-}" ] && command -v "$CXX" > /dev/null; then
    mkdir -p cxxlink && ln -sf "$W" "cxxlink/$(basename "$CXX")"
    cxx_path="$T/cxxlink:$(dirname "$(command -v "$CXX")"):$PATH"
    cxx_env=(CXX="$T/cxxlink/$(basename "$CXX")" TRUELINE_WRAPPER_CACHE=ccache)
  fi
  (cd real && env "${cxx_env[@]}" PATH="$T/links:$cxx_path" TORCH_CUDA_ARCH_LIST=8.0 MAX_JOBS=2 PYTORCH_NVCC="$W ccache $nvcc_cmd" "$TP" -c '
import torch.utils.cpp_extension as c
m = c.load(name="ext", sources=["src/ext.cpp", "src/kern.cu"], build_directory="build")
print("loaded", m.axpy.__name__)' > load.txt 2>&1)
  contains "torch's load() builds and imports the extension through the recipe" real/load.txt '^loaded axpy$'
  check "its ext.o: .debug_line forced and a provenance note (readelf)" sh -c "$(declare -f host_lines stamped); host_lines real/build/ext.o && stamped real/build/ext.o"
  real_cuda() { stamped real/build/kern.cuda.o && { [ -z "$CUOBJDUMP" ] || device_lines "$T/real/build/kern.cuda.o"; }; }
  check "its kern.cuda.o: a provenance note; the cubin has .debug_line (cuobjdump)" real_cuda
  if ! grep -q '^loaded' real/load.txt; then tail -5 real/load.txt | sed 's/^/    | /'; fi
  # the rules, and the flags without torch's own include directories and libraries, are the ones written above
  # (the C++ standard, nvcc's -ccbin from CC and the $cxx line follow the release and the environment)
  shape() { sed -E 's/ -isystem [^ ]*(torch|cuda)[^ ]*//g; s/^ldflags = .*/ldflags/; s/^(build [^:]*: [a-z_]+) .*/\1/;
                   s/ -std=c\+\+[0-9]+//; s/-ccbin [^ ]+ //; s/^cxx = .*/cxx/' "$1" | grep -v '^$'; }
  shape real/build/build.ninja > real.shape; shape wrapped/build.ninja > ours.shape
  check "torch's build.ninja has the rules and flags this suite writes" sh -c "grep -q '^rule cuda_compile' real.shape && diff ours.shape real.shape > shape.diff"
  if [ -s shape.diff ]; then sed 's/^/    | /' shape.diff | head -20; fi
  # and its extension attested like the one above: every source its build.ninja compiles, the policy passes
  real_so=$(ls real/build/ext*.so 2>/dev/null | head -1)
  if [ -n "$real_so" ] && [ -s rel ]; then
    trueline-check --attest --signing-key rel --output real.intoto.jsonl --require line-info,one-toolchain "$real_so" \
      > real.attest.out 2>&1; rc=$?
    check "attest torch's own build: --require line-info,one-toolchain passes" test $rc = 0
    payload real.intoto.jsonl > real.json 2>/dev/null
    sed -nE 's/^build [^:]+: (compile|cuda_compile) (.*)$/\2/p' real/build/build.ninja | sort > real.ninja.sources
    q real.json "'\n'.join(sorted(r['source'] for r in $RECS if r['kind'] == 'compile'))" > real.statement.sources 2>&1
    check "attest torch's own build: every source its build.ninja compiles is stated" \
      sh -c '[ -s real.ninja.sources ] && diff real.ninja.sources real.statement.sources'
  fi
else
  skip "torch not importable (TORCH_PYTHON=${TORCH_PYTHON:-python3}) or no nvcc: no real load(); its build.ninja is checked above"
fi
