# Sourced by every suite: assertions print PASS/FAIL/SKIP lines that tests/run.sh counts.
# Each suite gets a private scratch dir $T (removed on exit) and the built tools on PATH.
set -u
TRUELINE_ROOT=${TRUELINE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
TRUELINE_BUILD=${TRUELINE_BUILD:-$TRUELINE_ROOT/build}
# The PyPI oracles live in the virtual environment .ci/deps.sh installs them into (`make test` names it): its bin/
# comes right after the tools, so that `python3`, `python3 -m` and the oracles' commands are the environment's.
TRUELINE_VENV=${TRUELINE_VENV:-$TRUELINE_ROOT/build/venv}
if [ -x "$TRUELINE_VENV/bin/python3" ]; then export PATH="$TRUELINE_BUILD/bin:$TRUELINE_VENV/bin:$PATH"
else export PATH="$TRUELINE_BUILD/bin:$PATH"; fi
T=$(mktemp -d "${TMPDIR:-/tmp}/tl-suite.XXXXXX")
export XDG_CACHE_HOME="$T/xdg-cache" XDG_CONFIG_HOME="$T/xdg-config"
trap 'rm -rf "$T"' EXIT
SUITE=$(basename "$0" .sh)
# Verdicts go to a copy of the suite's stdout taken here, so that redirecting an assertion's output
# (`check ... >/dev/null`) cannot swallow its verdict: every verdict printed reaches tests/run.sh.
exec {TL_VERDICT_FD}>&1
pass() { echo "PASS $SUITE: $*" >&"$TL_VERDICT_FD"; }
fail() { echo "FAIL $SUITE: $*" >&"$TL_VERDICT_FD"; }
skip() { echo "SKIP $SUITE: $*" >&"$TL_VERDICT_FD"; }
# check NAME COMMAND...: passes when the command exits 0. The whole condition must be the one command:
# `check n a && b` tests only a (b runs after the verdict); write `check n sh -c 'a && b'` or a function.
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; fi; }
# expect_rc NAME RC COMMAND...: passes when the command exits with RC.
expect_rc() { local n=$1 want=$2; shift 2; "$@"; local rc=$?; if [ $rc -eq "$want" ]; then pass "$n"; else fail "$n (exit $rc, want $want)"; fi; }
# missing FILE: true (and says so) when FILE is not there to be searched; an absent report is a failure,
# never an empty match.
missing() { [ -e "$1" ] && return 1; echo "    | missing input: $1" >&"$TL_VERDICT_FD"; return 0; }
# contains NAME FILE PATTERN: grep -E in a file.
contains() {
  if missing "$2"; then fail "$1 (missing input $2)"; return; fi
  if grep -Eq -- "$3" "$2"; then pass "$1"; else fail "$1 (no /$3/ in $2)"; sed 's/^/    | /' "$2" | head -20; fi
}
# lacks NAME FILE PATTERN [ANCHOR]: the file exists and no line matches PATTERN. With ANCHOR, a line must also
# match ANCHOR: proof that the file is the report whose lines were searched (an empty report lacks everything).
lacks() {
  if missing "$2"; then fail "$1 (missing input $2)"; return; fi
  if [ -n "${4:-}" ] && ! grep -Eq -- "$4" "$2"; then
    fail "$1 (not the expected report: no /$4/ in $2)"; sed 's/^/    | /' "$2" | head -20; return; fi
  if grep -Eq -- "$3" "$2"; then fail "$1 (unexpected /$3/ in $2)"; sed 's/^/    | /' "$2" | head -20; else pass "$1"; fi
}
# exit_was NAME WANT GOT FILE ANCHOR: the exit status GOT is WANT, and FILE matches ANCHOR (grep -E): proof that
# the status is that of a run which wrote its report (a tool that does nothing exits 0 too).
exit_was() {
  if [ "$3" != "$2" ]; then fail "$1 (exit $3, want $2)"
  elif missing "$4"; then fail "$1 (missing input $4)"
  elif ! grep -Eq -- "$5" "$4"; then fail "$1 (not the expected report: no /$5/ in $4)"; sed 's/^/    | /' "$4" | head -20
  else pass "$1"; fi
}
# same NAME A B: passes when A and B are equal and not empty (two empty fingerprints are no agreement).
same() {
  if [ -z "$2" ] || [ -z "$3" ]; then fail "$1 (empty value: '$2' vs '$3')"
  elif [ "$2" = "$3" ]; then pass "$1"; else fail "$1 ('$2' != '$3')"; fi
}
# differ NAME A B: passes when A and B are both set and different.
differ() {
  if [ -z "$2" ] || [ -z "$3" ]; then fail "$1 (empty value: '$2' vs '$3')"
  elif [ "$2" != "$3" ]; then pass "$1"; else fail "$1 (both '$2')"; fi
}
# same_bytes A B: both files exist, are not empty and are byte-identical (for `check`; cmp alone calls two
# missing outputs, or two empty ones, equal).
same_bytes() { [ -s "$1" ] && [ -s "$2" ] && cmp -s "$1" "$2"; }
# premise NAME COMMAND...: a set-up step the suite's checks rely on (a fixture built, a third-party tool's
# behaviour). Silent when it holds; when it does not, one FAIL line names the broken premise and the suite
# stops, since every check after it would test nothing.
premise() {
  local n=$1; shift
  "$@" && return 0
  fail "premise broken, suite stopped: $n"
  exit 1
}
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
# sccache_start LOG: starts an sccache server (port and cache from the caller's SCCACHE_* variables), its output in
# LOG. A server stopped just before may hold the port a moment longer, so a few tries; 1 when none started.
sccache_start() {
  local try
  for try in 1 2 3 4 5; do
    sccache --start-server > "$1" 2>&1 && return 0
    sleep 1
  done
  return 1
}
