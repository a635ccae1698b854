# Sourced by every suite: assertions print PASS/FAIL/SKIP lines that tests/run.sh counts.
# Each suite gets a private scratch dir $T (removed on exit) and the built tools on PATH.
set -u
TRUELINE_ROOT=${TRUELINE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TRUELINE_BUILD=${TRUELINE_BUILD:-$TRUELINE_ROOT/build}
export PATH="$TRUELINE_BUILD/bin:$PATH"
T=$(mktemp -d "${TMPDIR:-/tmp}/tl-suite.XXXXXX")
export XDG_CACHE_HOME="$T/xdg-cache" XDG_CONFIG_HOME="$T/xdg-config"
trap 'rm -rf "$T"' EXIT
SUITE=$(basename "$0" .sh)
pass() { echo "PASS $SUITE: $*"; }
fail() { echo "FAIL $SUITE: $*"; }
skip() { echo "SKIP $SUITE: $*"; }
# check NAME COMMAND...: passes when the command exits 0.
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; fi; }
# expect_rc NAME RC COMMAND...: passes when the command exits with RC.
expect_rc() { local n=$1 want=$2; shift 2; "$@"; local rc=$?; if [ $rc -eq "$want" ]; then pass "$n"; else fail "$n (exit $rc, want $want)"; fi; }
# contains NAME FILE PATTERN: grep -E in a file.
contains() { if grep -Eq -- "$3" "$2"; then pass "$1"; else fail "$1 (no /$3/ in $2)"; sed 's/^/    | /' "$2" | head -20; fi; }
lacks() { if grep -Eq -- "$3" "$2"; then fail "$1 (unexpected /$3/ in $2)"; sed 's/^/    | /' "$2" | head -20; else pass "$1"; fi; }
have() { command -v "$1" >/dev/null 2>&1; }
# The CUDA toolkit is found through nvcc on PATH or CUDA_HOME, never a fixed path.
cuda_home() {
  if [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then echo "$CUDA_HOME"; return; fi
  local n; n=$(command -v nvcc) || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda; return; }
  cd "$(dirname "$(readlink -f "$n")")/.." && pwd
}
CUDA_HOME=$(cuda_home)
[ -n "$CUDA_HOME" ] && export PATH="$PATH:$CUDA_HOME/bin"
have_nvcc() { [ -n "$CUDA_HOME" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; }
# NVIDIA's oracles from PyPI (nvidia-cuda-cuobjdump / -nvdisasm) live inside site-packages.
find_pypi_tool() {
  python3 - "$1" <<'PY' 2>/dev/null
import sys, os, importlib.util, glob
spec = importlib.util.find_spec("nvidia")
for base in (spec.submodule_search_locations if spec else []):
    for p in glob.glob(os.path.join(base, "**", "bin", sys.argv[1]), recursive=True):
        if os.access(p, os.X_OK): print(p); sys.exit(0)
PY
}
# free_port: a free TCP port on loopback.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
