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
# adversarial shapes: a .debug_info zero-filled in place (libdwarf reads it as no units at all; an error, exit 2)
objcopy --dump-section .debug_info="$work/info.bin" "$work/gcc-g.o" "$work/discard.o" 2>/dev/null &&
  head -c "$(stat -c %s "$work/info.bin")" /dev/zero >"$work/info0.bin" &&
  objcopy --update-section .debug_info="$work/info0.bin" "$work/gcc-g.o" "$work/zero-info.o" 2>/dev/null
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
section() { # file section -> raw bytes on stdout (empty when absent); python: objcopy refuses EM_CUDA cubins
  python3 - "$1" "$2" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
if d[:4] != b'\x7fELF':
    sys.exit(0)
c64 = d[4] == 2
shoff = struct.unpack_from('<Q' if c64 else '<I', d, 0x28 if c64 else 0x20)[0]
esz, num, stri = struct.unpack_from('<HHH', d, 0x3A if c64 else 0x2E)
def sh(i):
    f = '<IIQQQQ' if c64 else '<IIIIII'
    return struct.unpack_from(f, d, shoff + i * esz)
so = sh(stri)[4]
for i in range(num):
    name, typ, flags, addr, off, size = sh(i)
    n = d[so + name:d.index(b'\0', so + name)].decode()
    if n == sys.argv[2] and typ != 8:
        sys.stdout.buffer.write(d[off:off + size])
        break
PY
}

host=("$work/gcc-g.o" "$work/gcc-dwarf4.o" "$work/gcc-dwarf2.o" "$work/gcc-m32.o" "$work/gcc-nodebug.o"
      "$work/clang-g.o" "$work/gxx.o" "$work/zlib.o" "$work/zstd.o" "$work/zlib.so")
dev=("$work/k.cubin" "$work/k-G.cubin" "$work/k.fatbin" "$work/k-z.fatbin" "$work/k.o")
# linked files without section headers (removed, zeroed): read through the dynamic segment (lib/elf_dynamic.c)
printf '#include <stdio.h>\nint main(void) { return puts("x"); }\n' >"$work/app.c"
gcc -no-pie "$work/app.c" -o "$work/app" 2>/dev/null
noshdr=()
for f in "$(stripped "$work/liba.so")" "$(stripped "$work/app")"; do
  [ -s "$f" ] || continue
  for how in header zero; do
    python3 "$here/../tests/lib/strip_shdrs.py" "$f" "$work/noshdr-$how-$(basename "$f")" $how 2>/dev/null &&
      noshdr+=("$work/noshdr-$how-$(basename "$f")")
  done
done
seed elf_file "${host[@]}" "$work/k.cubin" "$(stripped "$work/liba.so")" "${noshdr[@]}"
# a member named with control bytes (ESC [2K, CR): the text report escapes them
(cd "$work" && cp gcc-nodebug.o "$(printf 'ev\033[2K\rok.o')" && ar rc ctl-name.a "$(printf 'ev\033[2K\rok.o')") 2>/dev/null
# a fatbin whose PTX entry is nothing but .entry lines (each a function the reader allocates within the budget)
command -v zstd >/dev/null && python3 "$here/../tests/lib/ptx_entry_bomb.py" 20000 "$work/ptx-entries.fatbin" 2>/dev/null
# and that fatbin under 8 section headers that share its bytes (read once, named as damage)
[ -s "$work/ptx-entries.fatbin" ] && python3 "$here/../tests/lib/shared_fatbin.py" "$work/ptx-entries.fatbin" 8 \
  "$work/shared-fatbin.o" 2>/dev/null
seed load "${host[@]}" "${dev[@]}" "$work/lib.a" "$work/empty.a" "$work/zero-info.o" "$work/ctl-name.a" \
  "$work/ptx-entries.fatbin" "$work/shared-fatbin.o" "${noshdr[@]}"
# the split takes linked files (host debug sections out) and objects (device line info out)
seed split "$work/zlib.so" "$work/liba.so" "$work/gcc-g.o" "$work/k.o"

# Packages: a small wheel (an ELF member, a non-ELF one, a nested zip) and a conda .tar.bz2, built with python.
mkdir -p "$out/package"
[ -s "$work/liba.so" ] && python3 - "$(stripped "$work/liba.so")" "$out/package" <<'PY'
import io, sys, tarfile, zipfile
so = open(sys.argv[1], 'rb').read()
inner = io.BytesIO()
with zipfile.ZipFile(inner, 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('in/liba.so', so)
with zipfile.ZipFile(sys.argv[2] + '/demo-1.0-py3-none-manylinux_2_17_x86_64.whl', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('demo/liba.so', so); z.writestr('demo/__init__.py', 'x = 1\n'); z.writestr('n.zip', inner.getvalue())
with tarfile.open(sys.argv[2] + '/foo-1.0-0.tar.bz2', 'w:bz2') as t:
    ti = tarfile.TarInfo('lib/liba.so'); ti.size = len(so); t.addfile(ti, io.BytesIO(so))
# bounded work: a zip whose members use bzip2 and lzma (ratio rows of checker/package_codec.c), and a .tar.bz2
# whose member is mostly zeros (about 4000:1: mutations of its sizes cross bzip2's 8192:1 bound)
for name, method in (('bz', zipfile.ZIP_BZIP2), ('lz', zipfile.ZIP_LZMA)):
    with zipfile.ZipFile(sys.argv[2] + '/%s-1.0-py3-none-manylinux_2_17_x86_64.whl' % name, 'w', method) as z:
        z.writestr('demo/liba.so', so)
with tarfile.open(sys.argv[2] + '/zeros-1.0-0.tar.bz2', 'w:bz2') as t:
    pad = so + bytes(8 << 20)
    ti = tarfile.TarInfo('lib/liba.so'); ti.size = len(pad); t.addfile(ti, io.BytesIO(pad))
# zips whose central directory and local headers disagree (checker/zip_directory.c): an end record saying disk 1
# after a stray central-directory signature, overlapping members, another CRC in a local header, a directory
# entry past the end record's count, a second end record; and one with data descriptors, which must agree
import struct, zlib
def zipped(files, stream=False):
    class S(io.RawIOBase):
        def __init__(self): self.b = bytearray()
        def writable(self): return True
        def write(self, d): self.b += d; return len(d)
    b = S() if stream else io.BytesIO()
    with zipfile.ZipFile(b, 'w', zipfile.ZIP_DEFLATED) as z:
        for n, d in files: z.writestr(n, d)
    return bytes(b.b) if stream else b.getvalue()
def end(b):
    e = b.rfind(b'PK\x05\x06'); return list(struct.unpack_from('<IHHHHIIH', b, e))
def entries(cd):
    at = 0
    while at < len(cd):
        yield at; at += 46 + sum(struct.unpack_from('<HHH', cd, at + 28))
clean = zipped([('pkg/_ext.so', so), ('pkg/__init__.py', b'x = 1\n')])
hidden = zipped([('pkg/_ext.so', so + bytes(64)), ('pkg/__init__.py', b'x = 1\n')])
f = end(hidden); prefix = clean[:end(clean)[6]] + b'PK\x01\x02' + bytes(42)
cd = bytearray(hidden[f[6]:f[6] + f[5]])
for at in entries(cd):
    struct.pack_into('<I', cd, at + 42, struct.unpack_from('<I', cd, at + 42)[0] + len(prefix))
f[1] = f[2] = 1; f[6] += len(prefix)
out = sys.argv[2] + '/zip-'
open(out + 'disk1-stray.whl', 'wb').write(prefix + hidden[:end(hidden)[6]] + bytes(cd) + struct.pack('<IHHHHIIH', *f))
def local(name, body):
    return struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 0, 0, 0, zlib.crc32(body), len(body), len(body), len(name),
                       0) + name + body
def central(name, off, body):
    return struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 0, 0, 0, zlib.crc32(body), len(body), len(body),
                       len(name), 0, 0, 0, 0, 0, off) + name
inner = local(b'b.so', so[:1024]); outer = local(b'a.txt', inner)
cd = central(b'a.txt', 0, inner) + central(b'b.so', len(outer) - len(inner), so[:1024])
open(out + 'overlap.zip', 'wb').write(outer + cd + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 2, 2, len(cd), len(outer), 0))
b = bytearray(clean); struct.pack_into('<I', b, 14, struct.unpack_from('<I', b, 14)[0] ^ 1)
open(out + 'crc.whl', 'wb').write(b)
f = end(clean); extra = central(b'pkg/_ext.so', 0, b''); f[5] += len(extra)
open(out + 'trailing.whl', 'wb').write(clean[:f[6] + f[5] - len(extra)] + extra + struct.pack('<IHHHHIIH', *f))
f = end(clean); cd = bytearray(clean[f[6]:f[6] + f[5]]); last = list(entries(cd))[-1]
other = struct.pack('<IHHHHIIH', *f)
struct.pack_into('<H', cd, last + 32, len(other)); cd += other; f[5] = len(cd)
open(out + 'second-end.whl', 'wb').write(clean[:f[6]] + bytes(cd) + struct.pack('<IHHHHIIH', *f))
open(out + 'descriptors.whl', 'wb').write(zipped([('pkg/_ext.so', so), ('pkg/__init__.py', b'x = 1\n')], True))
PY
# an overlapping-member zip: eight central entries sharing one deflate stream (tests/lib/overlap_zip.py)
[ -s "$work/liba.so" ] && python3 "$here/../tests/lib/overlap_zip.py" \
  "$out/package/overlap-1.0-py3-none-manylinux_2_17_x86_64.whl" 8 "$(stripped "$work/liba.so")" 1

# INI config: the shipped defaults when present, plus quirks inih accepts (continuations, inline comments).
mkdir -p "$out/config"
for f in "$here/../conf/"*.ini; do [ -f "$f" ] && cp "$f" "$out/config/"; done
printf '[checks]\nline-tables = error\nstl-leak=off ; inline\n[suppress]\nline-tables = libfoo.so:*\n  continued\n' >"$out/config/basic.ini"
printf 'key=nosection\n[a]\n[b]\nx:y\n#c\n;d\n' >"$out/config/odd.ini"
# a user's file, then the repository's .trueline.ini trying to drop or loosen its security settings
printf '[provenance]\nkey_file = /k\nverify = on\non_mismatch = fail\n%s[provenance]\nkey_file =\nverify = 0\non_mismatch = recompile\n' "$SEP" >"$out/config/repo-loosens.ini"

# DWARF line programs: .debug_line, .debug_str, .debug_line_str of each object joined by the separator.
mkdir -p "$out/line_program"
for f in "$work/gcc-g.o" "$work/gcc-dwarf4.o" "$work/gcc-dwarf2.o" "$work/gcc-m32.o" "$work/clang-g.o" "$work/gxx.o" \
         "$work/k.cubin" "$work/k-G.cubin"; do
  [ -s "$f" ] || continue
  ctl='\000'; case "$f" in *m32*) ctl='\001';; esac
  { printf "$ctl"; section "$f" .debug_line; printf %s "$SEP"; section "$f" .debug_str; printf %s "$SEP"; section "$f" .debug_line_str
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

# Compiler command lines (wrapper/understand/argv.c): control byte (0 gcc, 1 clang, 2 nvcc), NUL-separated argv ("@F" and
# "F" name the file part), separator, the file's text (response / -optf file), separator, an environment value
# (NVCC_APPEND_FLAGS for nvcc, CCC_OVERRIDE_OPTIONS for clang).
mkdir -p "$out/argv"
printf '\002-c\0k.cu\0-o\0k.o\0-optf\0F\0-Xcompiler\0-fPIC\0-G%s-arch=sm_90 "-DX=a b" -lineinfo\n%s-lineinfo "-DY=1"' "$SEP" "$SEP" >"$out/argv/nvcc"
printf '\000-c\0a.cpp\0-g\0-O2\0-MD\0-MF\0a.d\0@F%s-I"dir with space" \\\n-DQ=\x27a b\x27 @F\n%s' "$SEP" "$SEP" >"$out/argv/gcc"
printf '\001-c\0b.c\0-o\0b.o\0@F%s-gline-tables-only -O1%s#+-g0 s/-O1/-O3/ x-Werror ^-DZ' "$SEP" "$SEP" >"$out/argv/clang"
printf '\000-E\0-M\0a.c\0-g0\0-o\0-%s%s' "$SEP" "$SEP" >"$out/argv/preprocess"
# hostile ends: a value-taking option last (it must not take the forced -g1), --trueline-* as an operand
printf '\000-c\0a.c\0-o%s%s' "$SEP" "$SEP" >"$out/argv/dangling-o"
printf '\002-c\0k.cu\0-I%s%s' "$SEP" "$SEP" >"$out/argv/dangling-I-nvcc"
printf '\000-c\0a.c\0-o\0--trueline-explain%s%s' "$SEP" "$SEP" >"$out/argv/trueline-operand"
# -optf naming a file of NUL bytes (the shape of -optf /dev/zero, cut to what the target reads)
{ printf '\002-c\0k.cu\0-optf\0F%s' "$SEP"; head -c 4096 /dev/zero; printf %s "$SEP"; } >"$out/argv/optf-zeros"

# Device images: fatbin containers (standalone, and cut out of a host object's .nv_fatbin), cubins, PTX.
mkdir -p "$out/fatbin" "$out/cubin" "$out/ptx"
seed fatbin "$work/k.fatbin" "$work/k-z.fatbin"
[ -s "$work/k.o" ] && section "$work/k.o" .nv_fatbin >"$out/fatbin/k.o.nv_fatbin"
seed cubin "$work/k.cubin" "$work/k-G.cubin"
if [ -n "$NVCC" ]; then
  "$NVCC" -ptx -arch=sm_90 -lineinfo "$work/k.cu" -o "$out/ptx/k.ptx" 2>/dev/null
  "$NVCC" -ptx -arch=sm_90 -G "$work/k.cu" -o "$out/ptx/k-G.ptx" 2>/dev/null
  "$NVCC" -fatbin -arch=sm_90 -Xfatbin=-compress-all --compress-mode=speed "$work/k.cu" -o "$out/fatbin/k-lz4.fatbin" 2>/dev/null
fi
printf '.version 9.0\n.target sm_90a, debug\n.address_size 64\n.file 1 "a.cu"\n.visible .entry k()\n{\n.loc 1 2 3\nret;\n}\n' >"$out/ptx/min.ptx"

# .note.trueline records: stamped by trueline-cc when a build of it is at hand, plus a hand-written record.
mkdir -p "$out/note"
tlcc=""
for b in "${TRUELINE_BUILD:-}" "$here/../build" "$here/../build-hard"; do
  [ -n "$b" ] && [ -x "$b/bin/trueline-cc" ] && { tlcc="$b/bin/trueline-cc"; break; }; done
if [ -n "$tlcc" ] && (cd "$work" && XDG_CACHE_HOME="$work/cache" "$tlcc" gcc -c a.c -o stamped.o) 2>/dev/null; then
  section "$work/stamped.o" .note.trueline >"$out/note/stamped"
  mkdir -p "$out/hook_note" && cp "$work/stamped.o" "$out/hook_note/stamped.o"
  mkdir -p "$out/provenance" && cp "$work/stamped.o" "$out/provenance/stamped.o"
  # adversarial shape: the stamped object with its code changed after stamping (the record must not bind it)
  objcopy --dump-section .text="$work/text.bin" "$work/stamped.o" "$work/discard.o" 2>/dev/null &&
    head -c "$(stat -c %s "$work/text.bin")" /dev/zero >"$work/text0.bin" &&
    objcopy --update-section .text="$work/text0.bin" "$work/stamped.o" "$out/provenance/tampered.o" 2>/dev/null
  mkdir -p "$out/memo" && cp "$work/cache/trueline/memo-v2" "$out/memo/gcc" 2>/dev/null
fi
# Image-cache files: the summaries trueline-check keeps for a compressed fatbin (cubin and PTX images).
tlck=""
for b in "${TRUELINE_BUILD:-}" "$here/../build" "$here/../build-hard"; do
  [ -n "$b" ] && [ -x "$b/bin/trueline-check" ] && { tlck="$b/bin/trueline-check"; break; }; done
if [ -n "$tlck" ] && [ -s "$work/k-z.fatbin" ]; then
  mkdir -p "$out/image_cache"
  "$tlck" --list --image-cache "$work/icache" "$work/k-z.fatbin" "$out/fatbin/k-lz4.fatbin" >/dev/null 2>&1
  n=0; for f in $(find "$work/icache" -type f 2>/dev/null); do cp "$f" "$out/image_cache/entry$((n += 1))"; done
fi
find "$out" -type f -empty -delete
python3 - >"$out/note/hand" <<'PY'
import struct, sys
name = b'trueline\0'
desc = b'v=1\0src=a.c\0a=-c\0a=a b\0argc=2\0lf=1\0li=-g1\0'
rec = struct.pack('<III', len(name), len(desc), 1) + name + b'\0' * (-len(name) % 4) + desc + b'\0' * (-len(desc) % 4)
other = struct.pack('<III', 4, 4, 1) + b'GNU\0' + b'\0' * 4
sys.stdout.buffer.write(other + rec + rec)
PY

# Executables and their loader cache (wrapper/fingerprint/dynlibs.c): a stripped program with DT_NEEDED, DT_RUNPATH
# ($ORIGIN) and DT_RPATH, each followed by the separator and this machine's /etc/ld.so.cache when there is one.
mkdir -p "$out/dynlibs"
printf 'int main(void) { return 0; }\n' >"$work/m.c"
gcc -s "$work/m.c" -o "$work/m-runpath" -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib' -lm 2>/dev/null
gcc -s "$work/m.c" -o "$work/m-rpath" -Wl,--disable-new-dtags,-rpath,/nonexistent:'$ORIGIN' -lz 2>/dev/null
for f in "$work/m-runpath" "$work/m-rpath"; do
  [ -f "$f" ] || continue
  { cat "$f"; [ -r /etc/ld.so.cache ] && { printf '%s' "$SEP"; cat /etc/ld.so.cache; }; } >"$out/dynlibs/$(basename "$f")"
  cp "$f" "$out/dynlibs/$(basename "$f")-nocache"
done

# GPU coredumps: the small ones the coredump suite ships (tests/data/coredumps, xz-compressed there).
mkdir -p "$out/coredump"
for f in "$here/../tests/data/coredumps/"{hang,oob}.core.xz; do
  [ -f "$f" ] && xz -dc "$f" >"$out/coredump/$(basename "$f" .xz)"; done

for t in "$out"/*; do echo "seeds: $(basename "$t"): $(ls "$t" | wc -l) inputs"; done
