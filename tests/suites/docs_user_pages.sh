#!/usr/bin/env bash
# User pages (README.md, docs/*.md, docs/checks/*.md) describe behaviour, options, formats and messages; how the
# code is built and what it measured on the development machine belong to docs/internals/ and bench/recorded/.
# Outside fenced blocks (which show the tools' own output), a user page must not name a source file of the
# project, a function of its code, a "Code:" pointer, or a profiler count or a figure of the development
# machine. One PASS or FAIL per page, each failure with the lines that broke the rule.
. "$(dirname "$0")/../lib/harness.sh"
cd "$TRUELINE_ROOT" || exit 1
# prose DOC: the page without its fenced blocks, each line as FILE:LINE:TEXT.
prose() {
  awk -v f="$1" '/^[[:space:]]*```/ { fenced = !fenced; next } !fenced { print f ":" FNR ":" $0 }' "$1"
}
# offences DOC: the lines of its prose that carry internals.
offences() {
  prose "$1" | grep -E \
    -e '(^|[^A-Za-z0-9_./-])(checker|wrapper|lib|include/trueline)/[A-Za-z0-9_/{},.-]*\.[ch]([^A-Za-z0-9_]|$)' \
    -e '(^|[^A-Za-z0-9_])(tlck|tlcc)_[a-z0-9_]+' -e '`tl_[a-z0-9_]+' \
    -e ':[0-9]+:Code: ' \
    -e 'callgrind|development (VM|machine)|[0-9]-CPU|this VM|hypervisor|[0-9.,]+ ?[kM] instructions'
}
docs=$(ls README.md docs/*.md docs/checks/*.md 2>/dev/null)
[ -n "$docs" ] || { fail "no user pages found under $TRUELINE_ROOT"; exit 1; }
for f in $docs; do
  bad=$(offences "$f")
  if [ -z "$bad" ]; then pass "$f: no source paths, code names or machine figures"
  else fail "$f carries internals (move them to docs/internals/):"; printf '    | %s\n' "$bad" | cut -c1-200; fi
done
# The rule must catch each kind of offence (it could otherwise pass by matching nothing), and must leave alone
# what user pages rightly say: paths outside the project, package members, and the tools' output in a fence.
mkdir -p "$T/docs"
cat > "$T/docs/bad.md" <<'EOF'
Read by `checker/read/dwarf_info.c`.
The stage (wrapper/stage.c) stamps.
Code: `lib/note.c`.
Runs `tlcc_process_wait` and `tl_hash_hex`.
It costs 215.4k instructions (callgrind) on the development VM.
EOF
cat > "$T/docs/good.md" <<'EOF'
Debug files under /usr/lib/debug/.build-id, members such as scipy/_lib/_ccallback_c.so, tests/lib/fatbin_count.py.
```
trueline-cc: fingerprint: de3bbbdcccb8e78611a1805d8b0dc375 (0.140 ms)
see wrapper/stage.c
```
EOF
got=$(cd "$T" && offences docs/bad.md | wc -l)
check "a page with five offending lines is caught on each (5 reported)" [ "$got" -eq 5 ]
got=$(cd "$T" && offences docs/good.md | wc -l)
check "outside paths, package members and fenced tool output are not offences (0 reported)" [ "$got" -eq 0 ]
