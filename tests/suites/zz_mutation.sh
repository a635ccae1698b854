# Every check can fail: the suites run against broken tools and must notice.
#  1. both tools replaced by a do-nothing stub (exit 0, no output): at most 5 % of the checks pass, counted over
#     the suites that ran a tool at all (a suite about the Makefile or the docs never calls one; it is listed);
#  2. trueline-cc replaced by a pass-through (its own options dropped, then the compiler exec'd as given, the real
#     trueline-check kept): every provenance, forced-flag and fingerprint check of the wrapper suites fails.
# By default a fixed sample of suites runs (about 3 minutes on 2 cores); MUTATION_SUITES=all runs every suite,
# MUTATION_SUITES='a b' the ones named, for both parts. MUTATION_SHOW=1 prints the checks that passed.
. "$(dirname "$0")/../lib/harness.sh"

real_check=$(command -v trueline-check)
mkdir -p "$T/stub/bin" "$T/passthrough/bin"
# the stub notes that it ran (TL_STUB_LOG), so that a suite which never calls a tool can be told apart
printf '#!/bin/sh\n[ -z "${TL_STUB_LOG:-}" ] || echo "$0" >>"$TL_STUB_LOG"\nexit 0\n' >"$T/stub/bin/trueline-cc"
cp "$T/stub/bin/trueline-cc" "$T/stub/bin/trueline-check"
cat >"$T/passthrough/bin/trueline-cc" <<'SH'
#!/bin/sh
# trueline-cc's own options are dropped; everything else runs exactly as given, nothing forced or stamped
while [ $# -gt 0 ]; do case "$1" in --trueline-*) shift;; *) break;; esac; done
[ $# -gt 0 ] || exit 0
exec "$@"
SH
ln -s "$real_check" "$T/passthrough/bin/trueline-check"
chmod +x "$T"/stub/bin/* "$T/passthrough/bin/trueline-cc"

all=$(for s in "$TRUELINE_ROOT"/tests/suites/*.sh; do n=$(basename "$s" .sh); [ "$n" = "$SUITE" ] || echo "$n"; done)
case "${MUTATION_SUITES:-}" in
  all) stub_suites=$all wrapper_suites=$all ;;
  "") # both tools, host and device, cheap to run against broken tools
      # (with the package suites whose exit-status checks once passed for a tool that does nothing)
      stub_suites="checker_cli coredump device_libs device_relocated hardening_limits hardening_malformed host_aarch64
                   host_reports packages_nested packages_profile_config packages_verdict provenance provenance_multi
                   wrapper_basic wrapper_libs wrapper_nvcc wrapper_plan wrapper_sccache"
      wrapper_suites="provenance provenance_multi wrapper_basic wrapper_libs wrapper_nvcc wrapper_proc_edge" ;;
  *) stub_suites=$MUTATION_SUITES wrapper_suites=$MUTATION_SUITES ;;
esac
wrapper_suites=$(for n in $wrapper_suites; do
  case "$n" in wrapper_*|provenance*|hardening_wrapper|remote_cache|cmake_wrapper) echo "$n";; esac; done)

# run_against DIR OUT NAME...: the suites' verdicts, two suites at a time, with DIR/bin first on PATH (the harness
# puts $TRUELINE_BUILD/bin first); OUT.NAME.calls lists the stub's runs. Fewer builds and mutants than the suites'
# defaults: the verdicts are what counts.
run_against() {
  local dir=$1 out=$2 n; shift 2
  for n; do
    [ -f "$TRUELINE_ROOT/tests/suites/$n.sh" ] || { fail "no suite $n"; continue; }
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
    : >"$out.$n.calls"
    TRUELINE_BUILD=$dir TL_STUB_LOG=$out.$n.calls REMOTE_CACHE_BUILDS=20 REMOTE_CACHE_SCCACHE_BUILDS=4 HARDENING_MUTANTS=10 \
      timeout -k 10 300 bash "$TRUELINE_ROOT/tests/suites/$n.sh" </dev/null >"$out.$n" 2>&1 &
  done
  wait
}

# --- 1. the do-nothing stub ------------------------------------------------------------------------------------
run_against "$T/stub" "$T/stub" $stub_suites
: >"$T/stub.out"
untouched=""
for n in $stub_suites; do
  [ -f "$T/stub.$n" ] || continue
  if [ -s "$T/stub.$n.calls" ]; then grep -E '^(PASS|FAIL) ' "$T/stub.$n" >>"$T/stub.out"; else untouched="$untouched $n"; fi
done
[ -z "$untouched" ] || echo "# zz_mutation: never ran a tool, not counted:$untouched"
p=$(grep -c '^PASS' "$T/stub.out"); f=$(grep -c '^FAIL' "$T/stub.out")
total=$((p + f))
premise "the suites ran against the stub and reported checks ($total)" [ "$total" -gt 0 ]
check "do-nothing tools: $p of $total checks pass (at most 5 %)" [ $((p * 100)) -le $((total * 5)) ]
if [ "${MUTATION_SHOW:-}" = 1 ] || [ $((p * 100)) -gt $((total * 5)) ]; then
  grep '^PASS' "$T/stub.out" | awk '{print $2}' | sort | uniq -c | sort -rn | sed 's/^/    passed: /'
  grep '^PASS' "$T/stub.out" | sed 's/^/    | /'
fi

# --- 2. the pass-through wrapper -------------------------------------------------------------------------------
# Checks about what trueline-cc adds: its provenance records, the line info it forces, the fingerprint. Not
# among them: objects built without the wrapper on purpose, bad input to trueline-check, the docs.
claim='provenance|record|stamp|forced|line info|debug_line|fingerprint|-g1|lineinfo'
exempt='outside the wrapper|bad input|documented in docs/'
if [ -n "$wrapper_suites" ]; then
  run_against "$T/passthrough" "$T/pass" $wrapper_suites
  for n in $wrapper_suites; do grep -E '^(PASS|FAIL) ' "$T/pass.$n" 2>/dev/null; done | grep -Ei "^[A-Z]+ [a-z_]+: .*($claim)" |
    grep -Eiv "$exempt" >"$T/pass.claims"
  claims=$(grep -c . "$T/pass.claims")
  premise "the wrapper suites ran against the pass-through and made such claims ($claims)" [ "$claims" -gt 0 ]
  check "pass-through trueline-cc: every provenance, forced-flag and fingerprint check of $claims fails" \
    sh -c '! grep -q "^PASS" "$0"' "$T/pass.claims"
  grep '^PASS' "$T/pass.claims" | sed 's/^/    | /'
fi
