#!/usr/bin/env bash
# Builds the seed corpora at fuzz time from fixtures compiled here (never committed binaries):
#   fuzz/seeds/<target>/...   one directory per target in fuzz/targets/.
# Seeds are kept small on purpose (stripped where the parser does not need symbols): libFuzzer mutates small
# inputs far faster, and every seed still reaches the interesting structure.
# Usage: fuzz/seeds.sh [OUTDIR]   (default fuzz/seeds). nvcc is used when on PATH or under CUDA_HOME.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/seeds}
work=$(mktemp -d "${TMPDIR:-/tmp}/tl-seeds.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
SEP=$(printf '\377\376\375\374')   # fuzz_split() separator between parts of one input

nvcc_bin() {
  if [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then echo "$CUDA_HOME/bin/nvcc"; return; fi
  command -v nvcc 2>/dev/null
}
NVCC=$(nvcc_bin)

# --- host fixtures -------------------------------------------------------------------------------------------
cat >"$work/a.c" <<'C'
static int helper(int x) { return x * 3; }
int api(int x) { return helper(x) + 1; }
C
cat >"$work/b.cpp" <<'C'
// No standard headers: they would make the seed 150 KB; templates, namespaces and inlining are what matter.
namespace ns { template <class T> struct box { T v; T get() const { return v; } }; }
struct S { virtual ~S() {} virtual int f(int x) { return x; } };
template <class T> T twice(T x) { return ns::box<T>{x}.get() * 2; }
inline int inl(int x) { return x + 1; }
int use(int x) { S s; return inl(twice(x)) + twice<long>(x) + s.f(x); }
C
gcc -g -O1 -c "$work/a.c" -o "$work/gcc-g.o"
gcc -g -gdwarf-4 -O0 -c "$work/a.c" -o "$work/gcc-dwarf4.o"
gcc -g -gdwarf-2 -c "$work/a.c" -o "$work/gcc-dwarf2.o" 2>/dev/null
gcc -m32 -g -c "$work/a.c" -o "$work/gcc-m32.o" 2>/dev/null
gcc -O1 -c "$work/a.c" -o "$work/gcc-nodebug.o"
clang -g -O1 -c "$work/a.c" -o "$work/clang-g.o" 2>/dev/null
g++ -g -O0 -c "$work/b.cpp" -o "$work/gxx.o"
gcc -g -shared -fPIC "$work/a.c" -o "$work/liba.so"
objcopy --compress-debug-sections=zlib-gabi "$work/gcc-g.o" "$work/zlib.o"
objcopy --compress-debug-sections=zstd "$work/gcc-g.o" "$work/zstd.o" 2>/dev/null
objcopy --compress-debug-sections=zlib-gabi "$work/liba.so" "$work/zlib.so"
ar rcs "$work/lib.a" "$work/gcc-g.o" "$work/gcc-nodebug.o"
printf '!<arch>\n' >"$work/empty.a"

# --- device fixtures (only with nvcc) ------------------------------------------------------------------------
if [ -n "$NVCC" ]; then
  cat >"$work/k.cu" <<'C'
__device__ __forceinline__ float sq(float x) { return x * x; }
__global__ void kern(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = sq(p[i]); }
C
  "$NVCC" -cubin -arch=sm_90 -lineinfo "$work/k.cu" -o "$work/k.cubin" 2>/dev/null
  "$NVCC" -cubin -arch=sm_90 -G "$work/k.cu" -o "$work/k-G.cubin" 2>/dev/null
  "$NVCC" -fatbin -gencode arch=compute_90,code=[sm_90,compute_90] -lineinfo "$work/k.cu" -o "$work/k.fatbin" 2>/dev/null
  "$NVCC" -fatbin -arch=sm_90 -Xfatbin=-compress-all "$work/k.cu" -o "$work/k-z.fatbin" 2>/dev/null
  "$NVCC" -c -arch=sm_90 -lineinfo "$work/k.cu" -o "$work/k.o" 2>/dev/null
fi

seed() { # target file...: copies existing files into the target's corpus
  local t=$1; shift
  mkdir -p "$out/$t"
  for f in "$@"; do [ -s "$f" ] && cp "$f" "$out/$t/$(basename "$f")"; done
}
stripped() { strip -o "$work/s-$(basename "$1")" "$1" 2>/dev/null && echo "$work/s-$(basename "$1")"; }
section() { # file section -> raw bytes on stdout (empty when absent)
  objcopy -O binary --only-section="$2" "$1" "$work/sec.bin" 2>/dev/null && cat "$work/sec.bin"
  rm -f "$work/sec.bin"
}

host=("$work/gcc-g.o" "$work/gcc-dwarf4.o" "$work/gcc-dwarf2.o" "$work/gcc-m32.o" "$work/gcc-nodebug.o"
      "$work/clang-g.o" "$work/gxx.o" "$work/zlib.o" "$work/zstd.o" "$work/zlib.so")
dev=("$work/k.cubin" "$work/k-G.cubin" "$work/k.fatbin" "$work/k-z.fatbin" "$work/k.o")
seed elf_file "${host[@]}" "$work/k.cubin" "$(stripped "$work/liba.so")"
seed load "${host[@]}" "${dev[@]}" "$work/lib.a" "$work/empty.a"

# INI config: the shipped defaults when present, plus quirks inih accepts (continuations, inline comments).
mkdir -p "$out/config"
for f in "$here/../conf/"*.ini; do [ -f "$f" ] && cp "$f" "$out/config/"; done
printf '[checks]\nline-tables = error\nstl-leak=off ; inline\n[suppress]\nline-tables = libfoo.so:*\n  continued\n' >"$out/config/basic.ini"
printf 'key=nosection\n[a]\n[b]\nx:y\n#c\n;d\n' >"$out/config/odd.ini"

# DWARF line programs: .debug_line, .debug_str, .debug_line_str of each object joined by the separator.
mkdir -p "$out/line_program"
for f in "$work/gcc-g.o" "$work/gcc-dwarf4.o" "$work/gcc-dwarf2.o" "$work/gcc-m32.o" "$work/clang-g.o" "$work/gxx.o" \
         "$work/k.cubin" "$work/k-G.cubin"; do
  [ -s "$f" ] || continue
  { section "$f" .debug_line; printf %s "$SEP"; section "$f" .debug_str; printf %s "$SEP"; section "$f" .debug_line_str
  } >"$out/line_program/$(basename "$f").lines"
done

# Symbol names (demangling and classification): real mangled names from the C++ fixture.
mkdir -p "$out/symbols"
nm "$work/gxx.o" 2>/dev/null | awk '{print $NF}' | sort -u | head -40 | while read -r s; do
  printf %s "$s" >"$out/symbols/$(printf %s "$s" | cksum | cut -d' ' -f1)"; done
# Names the checks classify (libstdc++ internals, CUDA kernels, versioned references) that a small fixture lacks.
for s in _ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE10_M_replaceEmmPKcm _ZSt17__throw_bad_allocv \
         _ZNKSt6vectorIiSaIiEE4sizeEv _Z4kernPfi _ZN2ns3boxIiE3getEv '_ZdlPvm@GLIBCXX_3.4.21' \
         _ZZN4algo3runILi4EEEvvE1x _ZTVN10__cxxabiv117__class_type_infoE; do
  printf %s "$s" >"$out/symbols/$(printf %s "$s" | cksum | cut -d' ' -f1)"; done

# Compiler command lines (argv/response-file/env folding): NUL-separated argv, then the separator, then a
# response file's text, then an env value (NVCC_APPEND_FLAGS style).
mkdir -p "$out/argv"
printf 'nvcc\0-c\0k.cu\0-o\0k.o\0@rsp\0-Xcompiler\0-fPIC\0%s-arch=sm_90 "-DX=a b" -lineinfo\n%s-G\n' "$SEP" "$SEP" >"$out/argv/nvcc"
printf 'g++\0-c\0a.cpp\0-g\0-O2\0-MD\0-MF\0a.d\0%s\n%s\n' "$SEP" "$SEP" >"$out/argv/gxx"
printf "clang\0@r\0%s'-I/a dir' \\\\\n-O1 \"q\\\\\"x\"%s# comment\n" "$SEP" "$SEP" >"$out/argv/clang"

for t in "$out"/*; do echo "seeds: $(basename "$t"): $(ls "$t" | wc -l) inputs"; done
