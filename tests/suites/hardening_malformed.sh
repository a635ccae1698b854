# Malformed inputs: tests/lib/mutate.py corrupts real fixtures built here and a bounded sample of the
# CUDA toolkit's libraries; trueline-check must name each unreadable file with exit 2, keep checking the others,
# never crash (no exit >= 128, no sanitizer report), never hang (per-input --timeout, plus an outer bound here).
. "$(dirname "$0")/../lib/harness.sh"

MUTATE="python3 $TRUELINE_ROOT/tests/lib/mutate.py"
sanitizer_clean() { ! grep -Eq 'Sanitizer|runtime error:|LeakSanitizer|AddressSanitizer' "$1"; }
# named_unreadable FILE OUT ERR: FILE (or a member of it, FILE(member)) is named as unreadable, with a reason, in the
# text report (or on stderr)
named_unreadable() { grep -F "$1" "$2" | grep -q ': error: cannot read: ' || grep -Fq "trueline-check: $1" "$3"; }
PER=${HARDENING_MUTANTS:-40}   # mutants per fixture (an even sample over the kinds); CI keeps the default
LIMITS=(--timeout 30 --max-input-mb 512)
mkdir -p "$T/fix" "$T/m"

# --- fixtures, built with the real compilers --------------------------------------------------------------------
cat >"$T/a.c" <<'C'
static int helper(int x) { return x * 3; }
int api(int x) { return helper(x) + 1; }
C
cat >"$T/b.cpp" <<'C'
namespace ns { template <class T> struct box { T v; T get() const { return v; } }; }
struct S { virtual ~S() {} virtual int f(int x); };
int S::f(int x) { return x; }
template <class T> T twice(T x) { return ns::box<T>{x}.get() * 2; }
inline int inl(int x) { return x + 1; }
int use(int x) { S s; return inl(twice(x)) + twice<long>(x) + s.f(x); }
C
# The scratch path is mapped away so the fixtures, and so the sampled mutants, are the same bytes every run.
map="-fdebug-prefix-map=$T=/src"
gcc -g -O1 $map -c "$T/a.c" -o "$T/fix/c-dwarf5.o"
gcc -m32 -g $map -c "$T/a.c" -o "$T/fix/c-m32.o" 2>/dev/null || rm -f "$T/fix/c-m32.o"
g++ -g -O0 $map -c "$T/b.cpp" -o "$T/fix/cxx-refs.o"
gcc -g $map -shared -fPIC "$T/a.c" -o "$T/fix/liba.so"
objcopy --compress-debug-sections=zlib-gabi "$T/fix/c-dwarf5.o" "$T/fix/c-zlib.o"
objcopy --compress-debug-sections=zstd "$T/fix/c-dwarf5.o" "$T/fix/c-zstd.o" 2>/dev/null || rm -f "$T/fix/c-zstd.o"
ar rcs "$T/fix/lib.a" "$T/fix/c-dwarf5.o" "$T/fix/cxx-refs.o"
if have_nvcc; then
  printf '__global__ void k(float *p) { p[threadIdx.x] *= 2.0f; }\n' >"$T/k.cu"
  # one nvcc run gives both a host object with .nv_fatbin and (via -fatbin) a standalone container
  nvcc -c -arch=sm_90 -lineinfo "$T/k.cu" -o "$T/fix/cuda.o" 2>"$T/nvcc.err" || rm -f "$T/fix/cuda.o"
  nvcc -fatbin -arch=sm_90 -lineinfo -Xfatbin=-compress-all "$T/k.cu" -o "$T/fix/k.fatbin" 2>>"$T/nvcc.err" \
    || rm -f "$T/fix/k.fatbin"
else
  skip "CUDA fixtures (no nvcc)"
fi
cp "$T/fix/c-dwarf5.o" "$T/good.o"

# --- a bounded sample of the toolkit's own libraries (read-only inputs, found through nvcc's location) -----------
toolkit=()
if [ -n "$CUDA_HOME" ]; then
  for n in libcudadevrt.a libcudart.so.13 libculibos.a; do
    f=$(ls "$CUDA_HOME"/lib64/$n "$CUDA_HOME"/lib64/${n%%.*}*.so.* 2>/dev/null | head -1)
    [ -n "$f" ] && [ -f "$f" ] && [ "$(stat -L -c %s "$f")" -lt 8000000 ] && toolkit+=("$f")
  done
fi
[ ${#toolkit[@]} -gt 0 ] || skip "toolkit libraries (no CUDA_HOME)"

total=0
for f in "$T"/fix/* "${toolkit[@]}"; do
  per=$PER; case "$f" in "$CUDA_HOME"/*) per=$((PER / 2));; esac
  n=$($MUTATE "$f" "$T/m/$(basename "$f")" --max "$per") || { fail "mutate.py failed on $(basename "$f")"; continue; }
  total=$((total + n))
done
# the mutants are the suite's inputs, not something trueline does: set-up steps
premise "mutate.py wrote mutants of every fixture ($total)" [ "$total" -ge $((PER * 4)) ]
for kind in trunc flip size zero bomb cycle ar; do
  premise "mutants of kind $kind exist" compgen -G "$T/m/*/*.$kind-*"  >/dev/null
done
# Inputs that once crashed or hung a reader (fuzz findings, mutants): replayed through the CLI with a time bound.
regress=("$TRUELINE_ROOT"/tests/data/regress/{load,elf_file}/*)
if [ -e "${regress[0]}" ]; then
  timeout -k 5 120 trueline-check --timeout 20 "${regress[@]}" "$T/good.o" >"$T/out" 2>"$T/err"; rc=$?
  check "regression inputs (${#regress[@]}) with an intact object: exit $rc is 1 or 2 (a report, no crash)" [ $rc -eq 1 -o $rc -eq 2 ]
  got=$(sed -n 's/^\([0-9]*\) file(s) checked.*/\1/p' "$T/out")
  check "regression inputs: every input reported (${got:-none} >= $(( ${#regress[@]} + 1 )))" [ "${got:-0}" -ge $(( ${#regress[@]} + 1 )) ]
  # the 4 GiB section that once exhausted memory: refused as unsupported input, named
  check "regression inputs: none hits the time limit" \
    sh -c '! grep -q "time limit" "$0" "$1" && grep -q "/elf_file/oom-declared-size-4g: error: cannot read: unsupported ELF" "$0"' "$T/out" "$T/err"
  sanitizer_clean "$T/err" || fail "regression inputs: sanitizer report"
fi

if [ -f "$T/fix/k.fatbin" ]; then
  premise "fatbin mutants exist" compgen -G "$T/m/k.fatbin/*.fat-*" >/dev/null
  mkdir -p "$T/m/bombs"
  $MUTATE x "$T/m/bombs" --bomb zstd >/dev/null && $MUTATE x "$T/m/bombs" --bomb lz4 >/dev/null
fi

# --- one run per fixture's mutants, with the good object last: everything is reported, nothing crashes ----------
for d in "$T"/m/*/; do
  name=$(basename "$d")
  files=("$d"*)
  [ -e "${files[0]}" ] || continue
  bstart=$SECONDS
  timeout -k 5 600 trueline-check "${LIMITS[@]}" -j2 "${files[@]}" "$T/good.o" >"$T/out" 2>"$T/err"
  rc=$?
  echo "# $name: ${#files[@]} mutants in $((SECONDS - bstart))s"
  check "$name: ${#files[@]} mutants: exit status $rc is 0, 1 or 2 (no crash, no hang), a report written" [ $rc -le 2 -a -s "$T/out" ]
  if ! sanitizer_clean "$T/err"; then fail "$name: sanitizer report"; grep -E -m5 'Sanitizer|runtime error' "$T/err"; fi
  want=$(( ${#files[@]} + 1 ))
  got=$(sed -n 's/^\([0-9]*\) file(s) checked.*/\1/p' "$T/out")
  # archives expand into their members, so a mutated archive can count for several inputs
  check "$name: every input reported ($got >= $want)" [ "${got:-0}" -ge "$want" ]
  check "$name: the intact object is still read" sh -c 'grep -q "^$1" "$2" && ! grep -q "good\.o:" "$3"' _ "$T/good.o" "$T/out" "$T/err"
  unread=$(sed -n 's/.* \([0-9]*\) unreadable$/\1/p' "$T/out")
  named=$(grep -c "^$d.*: error: cannot read: " "$T/out")
  if [ "${unread:-0}" -gt 0 ]; then
    check "$name: $unread unreadable -> exit 2" [ $rc -eq 2 ]
    check "$name: each unreadable file is named with a reason ($named of $unread)" [ "$named" -eq "$unread" ]
  fi
  cp "$T/out" "$T/report-$name"
done

# --- a sample, one process each: the per-file contract holds when the bad file is alone ----------------------
bad_alone=0; ok_alone=0
for f in $(ls "$T"/m/*/* | awk 'NR % 17 == 1'); do
  timeout -k 5 120 trueline-check "${LIMITS[@]}" "$f" >"$T/out1" 2>"$T/err1"; rc=$?
  if [ $rc -gt 2 ] || ! sanitizer_clean "$T/err1"; then
    fail "$(basename "$f"): exit $rc"; sed 's/^/    | /' "$T/err1" | head -8; continue; fi
  if [ $rc -eq 2 ]; then
    if named_unreadable "$f" "$T/out1" "$T/err1"; then bad_alone=$((bad_alone + 1))
    else fail "$(basename "$f"): exit 2 without naming the file"; fi
  else ok_alone=$((ok_alone + 1)); fi
done
check "sampled mutants run alone: $bad_alone reported unreadable with their name, $ok_alone readable" \
  [ $bad_alone -gt 0 -a $((bad_alone + ok_alone)) -gt 0 ]
f=$(ls "$T"/m/c-dwarf5.o/*trunc-at-* | head -1)
trueline-check "$f" >"$T/out1" 2>"$T/err1"; rc=$?
check "a truncated object alone exits 2 (exit $rc)" [ $rc -eq 2 ]
check "... naming the file with the reason" named_unreadable "$f" "$T/out1" "$T/err1"

# --- decompression bombs: refused within the memory bound, quickly -------------------------------------------
if [ -d "$T/m/bombs" ]; then
  # ASan reserves terabytes of address space for its shadow: the limit only applies to plain builds.
  ( [ -n "${TRUELINE_SANITIZED:-}" ] || ulimit -v 4000000
    trueline-check --max-input-mb 64 --timeout 60 "$T"/m/bombs/* "$T/good.o" ) >"$T/out" 2>"$T/err"; rc=$?
  check "real zstd/LZ4 bombs: findings, no crash (exit $rc) under a 4 GB address-space limit" [ $rc -eq 1 ]
  contains "... the zstd bomb's image refused for its declared 1 GiB" "$T/out" 'bomb-real-zstd\.fatbin: error .*cannot be decoded: declared uncompressed size 1073741824 exceeds the limit'
  contains "... the LZ4 bomb's image not decoded" "$T/out" 'bomb-real-lz4\.fatbin: error .*cannot be decoded'

  sanitizer_clean "$T/err" || fail "bombs: sanitizer report"
  contains "bombs: the intact object is still checked" "$T/out" "^3 file\(s\) checked"
fi

# --- --extract never writes outside its directory, whatever names the binaries carry ---------------------------
ext=( "$T"/m/k.fatbin/*ident-traversal* "$T"/m/cuda.o/*ident-traversal* "$T"/m/*/*name-traversal* "$T"/m/*/*.fat-* )
ext=( $(ls "${ext[@]}" 2>/dev/null | head -60) )
if [ ${#ext[@]} -gt 0 ]; then
  rm -f /tmp/tl-evil* 2>/dev/null
  mkdir -p "$T/x" "$T/lists"
  ( cd "$T" && find . -path ./x -prune -o -path ./lists -prune -o -print | sort ) >"$T/lists/before"
  (cd "$T/m" && timeout -k 5 300 trueline-check --extract "$T/x" --timeout 30 "${ext[@]}" "$T/fix/k.fatbin") \
    >"$T/lists/out" 2>"$T/lists/err"; rc=$?
  ( cd "$T" && find . -path ./x -prune -o -path ./lists -prune -o -print | sort ) >"$T/lists/after"
  check "--extract over ${#ext[@]} hostile inputs: exit $rc is 1 or 2 (some are unreadable)" [ $rc -eq 1 -o $rc -eq 2 ]
  sanitizer_clean "$T/lists/err" || fail "--extract: sanitizer report"
  # each with images extracted: an extraction that wrote nothing at all is safe and proves nothing
  check "... nothing written outside the extract directory" sh -c 'cmp -s "$0" "$1" && [ -n "$(ls "$2")" ]' "$T/lists/before" "$T/lists/after" "$T/x"
  check "... no traversal target created" bash -c '! ls /tmp/tl-evil* >/dev/null 2>&1 && [ -n "$(ls "$0")" ]' "$T/x"
  check "... only plain files directly inside it" [ -z "$(find "$T/x" -mindepth 1 \( -type d -o -type l \) | head -1)" -a -n "$(ls "$T/x")" ]
  check "... the intact fatbin's images were extracted" [ -n "$(ls "$T/x" | grep '^k\.fatbin\.')" ]
fi
