#!/bin/sh
# Installs the packages trueline needs for one purpose, with the distribution's own package manager:
#   sh .ci/deps.sh build|demo|test      install the missing ones (as root), else print the command to run
#   sh .ci/deps.sh --list build|demo|test   print the package names for this machine's package manager
#   sh .ci/deps.sh --list pypi          print the PyPI names of the test oracles
# build: compile trueline; demo: build + ccache; test: demo + the tools the test suites compare against, the
# distribution's packages and then the PyPI ones, which go into a virtual environment the build owns
# (TRUELINE_VENV, default build/venv; tests/lib/harness.sh puts its bin/ on the suites' PATH). `make test`, `make
# deps` and .ci/run all install through this script, so that what CI tests against is what a user gets.
# Package managers: apt (dpkg), dnf (rpm), pacman. Each list names that distribution's packages.
set -u
list_only=0
[ "${1:-}" = --list ] && { list_only=1; shift; }
purpose=${1:-test}
case $purpose in build|demo|test) ;; pypi) [ "$list_only" = 1 ] || purpose=bad ;; *) purpose=bad ;; esac
[ "$purpose" = bad ] && { echo "usage: sh .ci/deps.sh [--list] build|demo|test, sh .ci/deps.sh --list pypi" >&2; exit 2; }

# The oracles no distribution packages (NVIDIA's cuobjdump and nvdisasm, auditwheel) or packages too old
# (Debian 12's sccache 0.4 has no Redis backend and rejects basedirs), and the Python modules some suites import
# (jsonschema: the report schemas; pybind11: an extension module built through trueline-cc).
pypi="nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm auditwheel sccache jsonschema pybind11"
if [ "$purpose" = pypi ]; then echo $pypi; exit 0; fi

# install_pypi: the PyPI oracles into $venv (made with --system-site-packages, so that the distribution's Python
# modules stay visible to the suites). As root it installs the missing ones; otherwise it prints the commands.
# Either way the tests go on: a suite whose oracle is absent says SKIP, so a failed install (offline) only warns.
install_pypi() {
  case $0 in */*) src=${0%/*}/..;; *) src=..;; esac
  venv=${TRUELINE_VENV:-$(cd "$src" && pwd)/build/venv}
  have_py=0
  [ -x "$venv/bin/python3" ] && "$venv/bin/python3" -c '' 2>/dev/null && have_py=1
  pmissing=" $pypi"
  if [ "$have_py" = 1 ]; then
    # pip show names each installed distribution once ("Name: x"); what it does not name is missing
    shown=$("$venv/bin/python3" -m pip show $pypi 2>/dev/null | sed -n 's/^Name: //p' | tr 'A-Z_' 'a-z-')
    pmissing=""
    for p in $pypi; do
      echo "$shown" | grep -qx "$p" || pmissing="$pmissing $p"
    done
  fi
  [ -z "$pmissing" ] && return 0
  mk_venv="python3 -m venv --system-site-packages $venv"
  pip_cmd="$venv/bin/python3 -m pip install -q --disable-pip-version-check$pmissing"
  if [ "$(id -u)" != 0 ]; then
    echo "trueline: test oracles from PyPI missing:$pmissing (the tests that need them will skip)" >&2
    if [ "$have_py" = 1 ]; then echo "  run: $pip_cmd" >&2; else echo "  run: $mk_venv && $pip_cmd" >&2; fi
    return 0
  fi
  echo "trueline: installing (pip, into $venv):$pmissing" >&2
  if [ "$have_py" = 0 ]; then
    python3 -m venv --clear --system-site-packages "$venv" >/dev/null || { echo "trueline: python3 -m venv failed: the tests that need PyPI oracles will skip" >&2; return 0; }
  fi
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check $pmissing \
    || echo "trueline: pip could not install:$pmissing (offline?); the tests that need them will skip" >&2
  return 0
}

if command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  pm=apt
  # libdebuginfod-dev: DEBUGINFOD_URLS lookups of the debug store; libjansson-dev: reading attestations (both
  # optional, like libsodium)
  build="gcc make pkg-config libelf-dev libdwarf-dev libxxhash-dev libinih-dev libzstd-dev liblz4-dev libarchive-dev libiberty-dev zlib1g-dev libsodium-dev libdebuginfod-dev libjansson-dev"
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
  build="gcc make pkgconf-pkg-config elfutils-libelf-devel libdwarf-devel xxhash-devel inih-devel libzstd-devel lz4-devel libarchive-devel binutils-devel zlib-devel libsodium-devel elfutils-debuginfod-client-devel jansson-devel"
  demo="ccache"
  test="clang sccache redis cmake binutils python3 python3-jsonschema xz dwz elfutils gcc-gfortran
        gcc-aarch64-linux-gnu gcc-c++-aarch64-linux-gnu binutils-aarch64-linux-gnu ninja-build elfutils-debuginfod curl"
  installed() { rpm -q "$1" >/dev/null 2>&1; }
  install_cmd="dnf install -y"
elif command -v pacman >/dev/null 2>&1; then
  pm=pacman
  # libiberty comes with binutils on Arch
  # libdebuginfod comes with libelf on Arch; the server is the debuginfod package
  build="gcc make pkgconf libelf libdwarf xxhash libinih zstd lz4 libarchive binutils zlib libsodium jansson"
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
st=0
if [ -z "$missing" ]; then
  :
elif [ "$(id -u)" = 0 ]; then
  echo "trueline: installing ($pm):$missing" >&2
  case $pm in
    apt) export DEBIAN_FRONTEND=noninteractive
         apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends $missing >/dev/null ;;
    *) $install_cmd $missing ;;
  esac || { echo "trueline: $pm could not install:$missing" >&2; exit 1; }
else
  echo "trueline: missing packages for '$purpose':$missing" >&2
  echo "  run: sudo $install_cmd$missing" >&2
  st=1
fi
# after the distribution's packages: they bring python3 and its venv module
[ "$purpose" = test ] && install_pypi
exit $st
