#!/usr/bin/env bash
# bench/run.sh writes bench/recorded/benchmarks.md from one section per bench script: a script that fails keeps
# its previous section (the run warns, names it and exits 1), a script not selected by BENCH keeps its section,
# a script that runs replaces its own. Driven on a copy of bench/run.sh beside stand-in scripts, so the real
# benches do not run and the recorded file is not touched.
. "$(dirname "$0")/../lib/harness.sh"
R=$T/root
mkdir -p "$R/bench/recorded"
cp "$TRUELINE_ROOT/bench/run.sh" "$R/bench/run.sh"
printf 'printf "## fine\\n\\nfine: new figures\\n"\n' > "$R/bench/fine.sh"
# fails halfway through its section: what it printed must not replace the previous one
printf 'printf "## broken\\n\\nbroken: half"\nexit 3\n' > "$R/bench/broken.sh"
printf 'printf "## other\\n\\nother: new figures\\n"\n' > "$R/bench/other.sh"
printf 'exit 1\n' > "$R/bench/fresh.sh" # fails with no previous section
old='# Benchmarks

## broken

broken: old figures

## fine

fine: old figures

## other

other: old figures'
printf '%s\n' "$old" > "$R/bench/recorded/benchmarks.md"
md=$R/bench/recorded/benchmarks.md

BENCH='[bf]*' bash "$R/bench/run.sh" > "$T/out" 2> "$T/err"
echo $? > "$T/rc"
check "a failing bench script makes the run exit 1" grep -qx 1 "$T/rc"
contains "the warning names the failed script" "$T/err" 'warning: bench/broken\.sh failed; its previous section is kept'
contains "a failed script without a previous section is named as such" "$T/err" 'bench/fresh\.sh failed.*there was none'
contains "the failed script's previous section is kept" "$md" '^broken: old figures$'
lacks "... and nothing it printed replaces it" "$md" 'broken: half' '^## broken$'
contains "a script that ran replaces its own section" "$md" '^fine: new figures$'
lacks "... whose old text is gone" "$md" 'fine: old figures' '^## fine$'
contains "a script not selected by BENCH keeps its section" "$md" '^other: old figures$'
lacks "a failed script without a previous section gets none" "$md" '^## fresh' '^## fine$'
check "sections stay in script order: broken, fine, other" \
  sh -c "grep '^## ' '$md' | tr '\n' ' ' | grep -qx '## broken ## fine ## other '"

expect_rc "a run where every selected script succeeds exits 0" 0 \
  env BENCH=fine bash "$R/bench/run.sh" 2> /dev/null
contains "... and keeps the section of the script it did not run" "$md" '^broken: old figures$'
