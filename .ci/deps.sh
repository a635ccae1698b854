#!/bin/sh
# Installs the packages trueline needs for one purpose, with the distribution's own package manager:
#   sh .ci/deps.sh build|demo|test      install the missing ones (as root), else print the command to run
#   sh .ci/deps.sh --list build|demo|test   print the package names for this machine's package manager
# build: compile trueline; demo: build + ccache; test: demo + the tools the test suites compare against.
# Package managers: apt (dpkg), dnf (rpm), pacman. Each list names that distribution's packages.
set -u
list_only=0
[ "${1:-}" = --list ] && { list_only=1; shift; }
purpose=${1:-test}
case $purpose in build|demo|test) ;; *) echo "usage: sh .ci/deps.sh [--list] build|demo|test" >&2; exit 2 ;; esac

if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  pm=apt
  # libdebuginfod-dev: DEBUGINFOD_URLS lookups of the debug store (optional, like libsodium)
  build="gcc make pkg-config libelf-dev libdwarf-dev libxxhash-dev libinih-dev libzstd-dev liblz4-dev libarchive-dev libiberty-dev zlib1g-dev libsodium-dev libdebuginfod-dev"
  demo="ccache"
  # ninja-build: the PyTorch extension recipe; python3-venv and the static archives of libarchive's zip/tar
  # closure (nettle, bzip2, xz): make wheel and its test
  test="clang sccache redis-server cmake binutils python3 python3-jsonschema xz-utils dwz elfutils gfortran
        gcc-aarch64-linux-gnu g++-aarch64-linux-gnu binutils-aarch64-linux-gnu
        ninja-build python3-venv nettle-dev libbz2-dev liblzma-dev debuginfod curl"
  installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
  install_cmd="apt-get install -y --no-install-recommends"
elif command -v rpm >/dev/null 2>&1 && command -v dnf >/dev/null 2>&1; then
  pm=dnf
  # libiberty (the demangler) is part of binutils-devel on Fedora
  build="gcc make pkgconf-pkg-config elfutils-libelf-devel libdwarf-devel xxhash-devel inih-devel libzstd-devel lz4-devel libarchive-devel binutils-devel zlib-devel libsodium-devel elfutils-debuginfod-client-devel"
  demo="ccache"
  test="clang sccache redis cmake binutils python3 python3-jsonschema xz dwz elfutils gcc-gfortran
        gcc-aarch64-linux-gnu gcc-c++-aarch64-linux-gnu binutils-aarch64-linux-gnu ninja-build elfutils-debuginfod curl"
  installed() { rpm -q "$1" >/dev/null 2>&1; }
  install_cmd="dnf install -y"
elif command -v pacman >/dev/null 2>&1; then
  pm=pacman
  # libiberty comes with binutils on Arch
  # libdebuginfod comes with libelf on Arch; the server is the debuginfod package
  build="gcc make pkgconf libelf libdwarf xxhash libinih zstd lz4 libarchive binutils zlib libsodium"
  demo="ccache"
  test="clang sccache redis cmake python python-jsonschema xz dwz gcc-fortran aarch64-linux-gnu-gcc aarch64-linux-gnu-binutils ninja debuginfod curl"
  installed() { pacman -Q "$1" >/dev/null 2>&1; }
  install_cmd="pacman -S --needed --noconfirm"
else
  echo "trueline: no apt, dnf or pacman here; install by hand the development packages of: libelf (elfutils)," >&2
  echo "  libdwarf, xxhash, inih, zstd, lz4, libarchive, libiberty (binutils), zlib; and ccache for the demo" >&2
  exit 1
fi

want=$build
[ "$purpose" = build ] || want="$want $demo"
[ "$purpose" = test ] && want="$want $test"
if [ "$list_only" = 1 ]; then
  echo $want
  exit 0
fi

missing=""
for p in $want; do
  installed "$p" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "trueline: installing ($pm):$missing" >&2
  case $pm in
    apt) export DEBIAN_FRONTEND=noninteractive
         apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends $missing >/dev/null ;;
    *) $install_cmd $missing ;;
  esac || { echo "trueline: $pm could not install:$missing" >&2; exit 1; }
else
  echo "trueline: missing packages for '$purpose':$missing" >&2
  echo "  run: sudo $install_cmd$missing" >&2
  exit 1
fi
