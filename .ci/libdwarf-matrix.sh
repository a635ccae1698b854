#!/usr/bin/env bash
# Builds trueline-check against each libdwarf release that distributions ship (the sources in
# ../shared/third-party/ beside the checkout, when that folder is there) and runs the host suites with each.
# Prints PASS/FAIL/SKIP lines like a suite; .ci/run counts them. Debian 12's own 20210528 is the default build.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
src=${TRUELINE_LIBDWARF_SOURCES:-$root/../shared/third-party}
ls "$src"/libdwarf-*.tar.xz >/dev/null 2>&1 || { echo "SKIP libdwarf-matrix: no libdwarf sources in $src"; exit 0; }
have() { command -v "$1" >/dev/null 2>&1; }
have cmake || { echo "SKIP libdwarf-matrix: no cmake"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tl-ldw.XXXXXX"); trap 'rm -rf "$work"' EXIT
for tarball in "$src"/libdwarf-*.tar.xz; do
  v=$(basename "$tarball" .tar.xz); v=${v#libdwarf-}
  (cd "$work" && tar xJf "$tarball" && mkdir -p "b-$v" && cd "b-$v" &&
   cmake "../libdwarf-$v" -DCMAKE_INSTALL_PREFIX="$work/ldw-$v" -DCMAKE_BUILD_TYPE=Release -DBUILD_DWARFDUMP=OFF \
     -DBUILD_DWARFEXAMPLE=OFF -DBUILD_SHARED=ON -DBUILD_NON_SHARED=OFF >/dev/null 2>&1 &&
   make -j2 >/dev/null 2>&1 && make install >/dev/null 2>&1) \
    || { echo "FAIL libdwarf-matrix: libdwarf $v does not build here (cmake)"; continue; }
  pc=$(dirname "$(find "$work/ldw-$v" -name libdwarf.pc | head -1)")
  lib=$(dirname "$(find "$work/ldw-$v" -name 'libdwarf.so*' | head -1)")
  b=$work/build-$v
  if ! PKG_CONFIG_PATH=$pc make -C "$root" --no-print-directory BUILD="$b" "$b/bin/trueline-check" >"$work/make-$v.log" 2>&1; then
    echo "FAIL libdwarf-matrix: trueline-check does not build against libdwarf $v"; tail -5 "$work/make-$v.log" | sed 's/^/    | /'
    continue
  fi
  if LD_LIBRARY_PATH=$lib "$b/bin/trueline-check" --version 2>&1 | grep -q "libdwarf $v"; then
    echo "PASS libdwarf-matrix: trueline-check built against libdwarf $v says so in --version"
  else
    echo "FAIL libdwarf-matrix: trueline-check --version does not name libdwarf $v"
  fi
  # the host suites with this build (the wrapper is taken from the default build: it links no libdwarf)
  mkdir -p "$b/bin" && cp "$root/build/bin/trueline-cc" "$b/bin/" 2>/dev/null
  LD_LIBRARY_PATH=$lib TRUELINE_BUILD=$b TESTS='host_checks unit-*' bash "$root/tests/run.sh" 2>&1 \
    | grep -E '^(PASS|FAIL|SKIP) ' | sed "s/^\(PASS\|FAIL\|SKIP\) \([a-z_]*\):/\1 \2 [libdwarf $v]:/"
done
