#!/usr/bin/env bash
# The man pages and --help document the same options, for both tools, and every documented option is one
# the tool accepts (its own option parser is the truth: getopt's "unrecognized option", trueline-cc's
# "unknown option").
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
MAN=$TRUELINE_ROOT/docs/man
# options NAME < TEXT: the --long options (and -j) a text names, one per line, sorted and unique
options() { grep -oE -- '(^|[^a-z-])--?[a-z]([a-z-]*[a-z])?' | sed -E 's/^[^-]*//' | grep -E '^(--[a-z]|-j$|-h$)' | sort -u; }
# man_options PAGE: the options a man page's SYNOPSIS, MODES and OPTIONS sections name (\- is a hyphen there)
man_options() {
  sed -n '/^\.SH SYNOPSIS/,/^\.SH \(EXIT STATUS\|ENVIRONMENT\|FILES\)/p' "$1" | sed 's/\\-/-/g; s/\\f[BIR]//g' | options
}

# --- trueline-check --------------------------------------------------------------------------------------
trueline-check --help > check-help.txt
options < check-help.txt > check-help.opts
man_options "$MAN/trueline-check.1" > check-man.opts
premise "--help names options (at least --format and --timeout)" sh -c 'grep -qx -- --format check-help.opts && grep -qx -- --timeout check-help.opts'
check "trueline-check: every option --help prints is in the man page" sh -c 'comm -23 check-help.opts check-man.opts | tee missing-man.txt | grep -q . && exit 1; exit 0'
[ -s missing-man.txt ] && sed 's/^/    | not in trueline-check.1: /' missing-man.txt
check "trueline-check: every option the man page names is in --help" sh -c 'comm -13 check-help.opts check-man.opts | tee missing-help.txt | grep -q . && exit 1; exit 0'
[ -s missing-help.txt ] && sed 's/^/    | not in --help: /' missing-help.txt
for o in --list --extract --symbolize --coredump --provenance --list-checks --timeout --max-input-mb --source-dir --binary --sm; do
  check "trueline-check.1 describes $o under MODES or OPTIONS (not only in the synopsis)" \
    sh -c "sed -n '/^\.SH MODES/,/^\.SH EXIT/p' '$MAN/trueline-check.1' | sed 's/\\\\-/-/g' | grep -A1 '^\.TP' | grep -qE -- '(^|[ \"])$o( |\"|,|\$)'"
done
# each documented option is accepted: getopt names an option it does not know
accepts_check() { # OPTION: no "unrecognized option" from trueline-check
  local arg=; case $1 in --format) arg=json;; --fail-on) arg=error;; --checks) arg=line-tables;; --sm|-j|--timeout|--max-input-mb|--max-run-mb) arg=1;;
    --extract|--debug-dir|--source-dir) arg=.;; --output|--write-baseline) arg=out.txt;; --baseline|--binary|--config|--policy) arg=x;; esac
  trueline-check "$1" ${arg:+"$arg"} /nonexistent-input >/dev/null 2>err.txt </dev/null
  ! grep -qiE 'unrecognized option|invalid option' err.txt
}
n=0
while read -r o; do
  check "trueline-check accepts $o" accepts_check "$o"; n=$((n + 1))
done < check-man.opts
check "the accepted options were counted from the man page (more than 20)" test "$n" -gt 20
trueline-check --no-such-option x > /dev/null 2> bad.txt
contains "an option no table has is refused by getopt (the probe above can fail)" bad.txt 'unrecognized option'

# --- trueline-cc -----------------------------------------------------------------------------------------
trueline-cc --help > cc-help.txt
options < cc-help.txt > cc-help.opts
man_options "$MAN/trueline-cc.1" > cc-man.opts
premise "trueline-cc --help names --trueline-explain" grep -qx -- --trueline-explain cc-help.opts
check "trueline-cc: every option --help prints is in the man page" sh -c 'comm -23 cc-help.opts cc-man.opts | tee cc-missing-man.txt | grep -q . && exit 1; exit 0'
[ -s cc-missing-man.txt ] && sed 's/^/    | not in trueline-cc.1: /' cc-missing-man.txt
check "trueline-cc: every --trueline-* option the man page names is in --help" \
  sh -c 'grep -- "^--trueline-" cc-man.opts | comm -23 - cc-help.opts | tee cc-missing-help.txt | grep -q . && exit 1; exit 0'
[ -s cc-missing-help.txt ] && sed 's/^/    | not in --help: /' cc-missing-help.txt
# each --trueline-* option of the man page is one trueline-cc knows (an unknown one is refused by name)
m=0
while read -r o; do
  check "trueline-cc knows $o" sh -c "trueline-cc $o gcc --version >/dev/null 2>err-cc.txt; ! grep -q 'unknown option' err-cc.txt"; m=$((m + 1))
done < <(grep -- '^--trueline-' cc-man.opts)
check "the --trueline-* options were counted from the man page (6)" test "$m" -eq 6
