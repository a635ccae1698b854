#!/usr/bin/env bash
# aarch64: both tools and the unit tests built with the distribution's cross toolchain and the target's libraries
# (Debian multiarch), then run under qemu-user: the unit tests and the wrapper's core suite (wrapper_basic, with
# the host's gcc as the wrapped compiler: what runs on aarch64 is trueline itself), and the aarch64 wheel (make
# wheel) checked by auditwheel and run from its files. Called by .ci/run; on its own: bash .ci/aarch64.sh.
# Prints PASS/FAIL/SKIP lines and ends with "N passed, N failed, N skipped". Anything it cannot install (offline,
# not root, no multiarch) is one SKIP line and exit 0. About 2-3 minutes on 2 cores.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
triple=aarch64-linux-gnu
log=$(mktemp -d "${TMPDIR:-/tmp}/trueline-aarch64.XXXXXX")
B=$log/build
registered="" mounted=""
cleanup() {
  # what this script registered with the kernel goes away with it
  [ -z "$registered" ] || echo -1 > /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null
  [ -z "$mounted" ] || umount /proc/sys/fs/binfmt_misc 2>/dev/null
  rm -rf "$log"
}
trap cleanup EXIT
out=$log/verdicts
pass() { echo "PASS aarch64: $*" | tee -a "$out"; }
fail() { echo "FAIL aarch64: $*" | tee -a "$out"; }
skip() { echo "SKIP aarch64: $*" | tee -a "$out"; }
finish() {
  echo "$(grep -c '^PASS' "$out") passed, $(grep -c '^FAIL' "$out") failed, $(grep -c '^SKIP' "$out") skipped"
  exit 0
}
: > "$out"

# --- packages: the cross compiler, qemu-user and the target's -dev packages --------------------------------
# The libraries trueline links (.ci/deps.sh "build"), for the target architecture, and the archives the wheel's
# statically linked trueline-check needs besides them (libarchive's zip/tar closure: nettle, bzip2, xz).
if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  host_pkgs="gcc-$triple qemu-user-static"
  target_pkgs="libelf-dev libdwarf-dev libxxhash-dev libinih-dev libzstd-dev liblz4-dev libarchive-dev libiberty-dev
               zlib1g-dev libsodium-dev nettle-dev libbz2-dev liblzma-dev"
  wanted="$host_pkgs $(for p in $target_pkgs; do printf '%s:arm64 ' "$p"; done)"
  missing=""
  for p in $wanted; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"; done
  if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
      skip "not root: missing$missing (dpkg --add-architecture arm64; apt-get install$missing)"; finish
    fi
    export DEBIAN_FRONTEND=noninteractive
    dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
    if ! { timeout 300 apt-get update -qq && timeout 300 apt-get install -y -qq --no-install-recommends $missing; } \
        > "$log/apt.txt" 2>&1; then
      tail -3 "$log/apt.txt" | sed 's/^/    | /'
      skip "could not install the cross toolchain and the arm64 libraries:$missing"; finish
    fi
  fi
else
  # dnf and pacman carry the cross compiler (.ci/deps.sh "test") but not the target's libraries
  skip "no apt: the aarch64 libraries come from Debian multiarch (dpkg --add-architecture arm64)"; finish
fi

# --- the build -------------------------------------------------------------------------------------------------
if make -j2 BUILD="$B" CC="$triple-gcc" all unit > "$log/make.txt" 2>&1; then
  pass "trueline-cc, trueline-check, the hook and the unit tests build with $triple-gcc"
else
  grep -m5 -E 'error|Error' "$log/make.txt" | sed 's/^/    | /'
  fail "the cross build (make BUILD=... CC=$triple-gcc all unit)"; finish
fi
is_aarch64() { readelf -h "$1" 2>/dev/null | grep -q 'Machine:.*AArch64'; }
if is_aarch64 "$B/bin/trueline-cc" && is_aarch64 "$B/bin/trueline-check" && is_aarch64 "$B/lib/trueline/libtrueline-hook.so"; then
  pass "the tools and the hook are AArch64 ELF files (readelf -h)"
else
  fail "the tools and the hook are AArch64 ELF files (readelf -h)"
fi
# trueline-cc is linked statically (the Makefile does so wherever every archive it needs is installed)
if readelf -l "$B/bin/trueline-cc" | grep -q 'INTERP'; then fail "trueline-cc is linked statically"; else pass "trueline-cc is linked statically"; fi

# --- qemu-user: transparently through binfmt_misc where it can be registered, else by hand ------------------
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64)
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/register" ] && mount -t binfmt_misc binfmt_misc "$binfmt" 2>/dev/null; then mounted=1; fi
if [ ! -e "$binfmt/qemu-aarch64" ] && [ -w "$binfmt/register" ] && [ -f /usr/lib/binfmt.d/qemu-aarch64.conf ]; then
  cat /usr/lib/binfmt.d/qemu-aarch64.conf > "$binfmt/register" 2>/dev/null && registered=1
fi
if "$B/bin/trueline-check" --version > "$log/v.txt" 2>&1 && grep -q '^trueline-check ' "$log/v.txt"; then
  # the unit tests and wrapper_basic exactly as tests/run.sh runs them natively
  # one at a time: emulation is slow enough without a second test competing for the two cores
  TRUELINE_BUILD="$B" TESTS='unit-* wrapper_basic' JOBS=1 SUITE_TIMEOUT=300 bash tests/run.sh > "$log/run.txt" 2>&1
  sed '/^Failures:$/,$d' "$log/run.txt" | grep -E '^(PASS|FAIL|SKIP) ' | tee -a "$out" | grep -E '^(FAIL|SKIP) '
  grep -E '^[0-9]+ passed' "$log/run.txt" | sed 's/^/    | under qemu-user: /'
elif [ -n "$qemu" ]; then
  # no binfmt_misc here: each unit test through qemu by hand; the suite, which execs the tools by name, is left out
  for t in "$B"/tests/*; do
    [ -x "$t" ] || continue
    "$qemu" -L / "$t" 2>&1 | grep -E '^(PASS|FAIL|SKIP) ' | tee -a "$out" | grep -E '^(FAIL|SKIP) '
  done
  skip "binfmt_misc not available: wrapper_basic not run under qemu (the unit tests were, by hand)"
else
  skip "no qemu-aarch64: nothing run"
fi

# --- the aarch64 wheel ---------------------------------------------------------------------------------------------
if make BUILD="$B" CC="$triple-gcc" wheel > "$log/wheel.txt" 2>&1 && whl=$(ls "$B"/dist/trueline-*_aarch64.whl 2>/dev/null) \
    && [ -n "$whl" ]; then
  pass "make wheel CC=$triple-gcc writes $(basename "$whl")"
  tag=$(basename "$whl" | sed -nE 's/.*-py3-none-(manylinux_[0-9]+_[0-9]+_aarch64)\.whl$/\1/p')
  want=$(readelf --wide -V "$B/bin/trueline-cc" "$B/wheel/trueline-check" "$B/lib/trueline/libtrueline-hook.so" \
         | grep -oE 'Name: GLIBC_[0-9]+\.[0-9]+' | sed 's/.*GLIBC_//' | sort -uV | tail -1)
  if [ -n "$tag" ] && [ "$tag" = "manylinux_${want//./_}_aarch64" ]; then pass "its tag $tag is the newest GLIBC_ version the files need (readelf -V)"
  else fail "its tag '$tag' is the newest GLIBC_ version the files need (readelf -V: $want)"; fi
  if command -v auditwheel >/dev/null 2>&1; then
    aw=$(auditwheel show "$whl" 2>&1 | tr -s ' \n' ' ' | grep -oE 'consistent with the following platform tag: "[^"]+"' | sed -E 's/.*"(.*)"/\1/')
    if [ -n "$aw" ] && [ "$aw" = "$tag" ]; then pass "auditwheel show: consistent with $aw"; else fail "auditwheel show: '$aw', the name claims '$tag'"; fi
  else
    skip "auditwheel not installed"
  fi
  # the unpacked wheel laid out as pip installs it (scripts -> bin/, data -> the prefix), run under qemu
  pfx=$log/prefix
  mkdir -p "$pfx/x" && (cd "$pfx/x" && python3 -m zipfile -e "$whl" .) && mkdir -p "$pfx/bin" \
    && cp -r "$pfx"/x/*.data/data/. "$pfx/" && cp "$pfx"/x/*.data/scripts/* "$pfx/bin/" && chmod +x "$pfx"/bin/*
  printf 'int answer(void) { return 42; }\n' > "$log/a.c"
  if [ -e "$binfmt/qemu-aarch64" ] && (cd "$log" && PATH="$pfx/bin:$PATH" trueline-cc "$triple-gcc" -c a.c -o a.o 2>/dev/null) \
      && readelf -h "$log/a.o" | grep -q AArch64 && readelf -S "$log/a.o" | grep -q '\.debug_line' && readelf -n "$log/a.o" | grep -q '^  trueline' \
      && PATH="$pfx/bin:$PATH" trueline-check "$log/a.o" > "$log/audit.txt" 2>&1 && grep -q ' 0 error(s)' "$log/audit.txt"; then
    pass "the wheel's tools under qemu: trueline-cc $triple-gcc -c stamps and forces line info (readelf), trueline-check passes it"
  elif [ -e "$binfmt/qemu-aarch64" ]; then
    fail "the wheel's tools under qemu: trueline-cc $triple-gcc -c, then trueline-check"
  else
    skip "binfmt_misc not available: the wheel's tools not run"
  fi
else
  tail -5 "$log/wheel.txt" | sed 's/^/    | /'
  fail "make wheel CC=$triple-gcc"
fi
finish
