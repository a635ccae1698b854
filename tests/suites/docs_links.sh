#!/usr/bin/env bash
# Every repository path a document names exists: markdown link targets, `code` spans and bare paths with a
# source or document extension, in README.md, CHANGELOG.md and docs/ (user pages and docs/internals/).
# Paths git ignores (fuzz/logs/, generated at run time) count as existing. One PASS or FAIL per document.
. "$(dirname "$0")/../lib/harness.sh"
cd "$TRUELINE_ROOT" || exit 1
names_of() { # DOC: the repository paths it names, one a line
  local d; d=$(dirname "$1")
  grep -oE '\]\([^)#[:space:]]+' "$1" | sed 's/^](//' | grep -vE '^(https?|mailto):' | sed "s|^|$d/|"
  grep -oE '`(docs|checker|wrapper|lib|tests|bench|conf|examples|fuzz|include|\.ci)/[A-Za-z0-9_./-]+`' "$1" | tr -d '`'
  grep -oE '(^|[[:space:](])(docs|checker|wrapper|lib|tests|bench|conf|examples|fuzz|include)/[A-Za-z0-9_./-]+\.(c|h|md|sh|py|ini|tsv|json)\b' "$1" \
    | sed -E 's/^[[:space:](]//'
}
docs=$(ls README.md CHANGELOG.md docs/*.md docs/*/*.md 2>/dev/null)
[ -n "$docs" ] || { fail "no documents found under $TRUELINE_ROOT"; exit 1; }
for f in $docs; do
  missing=""; n=0
  while read -r p; do
    [ -n "$p" ] || continue
    p=${p%.}; p=${p%:}; p=${p%,}
    n=$((n + 1))
    [ -e "$p" ] || git check-ignore -q "$p" 2>/dev/null || missing="$missing $p"
  done < <(names_of "$f" | sort -u)
  if [ -z "$missing" ]; then pass "$f: all $n paths it names exist"; else fail "$f names paths that do not exist:$missing"; fi
done
# The checker itself must catch a dangling name (it could otherwise pass by reading nothing).
mkdir -p "$T/docs"; printf 'See `checker/no_such_file.c` and [x](nowhere.md).\n' > "$T/docs/x.md"
got=$(cd "$T" && names_of docs/x.md | while read -r p; do [ -e "$TRUELINE_ROOT/$p" ] || echo "$p"; done | wc -l)
check "a document naming two missing paths is caught (2 reported)" [ "$got" -eq 2 ]
