#!/usr/bin/env bash
# SARIF rules: helpUri is an absolute URL (the base from [report] help_base_url, default the project's
# repository) naming a page that exists in docs/checks/, and each rule's defaultConfiguration.level is the
# severity the configuration gives the check (truth: the config written here, and the check list from
# --list-checks).
. "$(dirname "$0")/../lib/harness.sh"
cd "$T"
have python3 || { skip "python3 not installed"; exit 0; }
gcc -g -c -x c - -o a.o <<< 'int f(void) { return 1; }'
# rules FILE: "id<TAB>helpUri<TAB>level" per rule of a SARIF report
rules() { python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["runs"][0]["tool"]["driver"]["rules"]:
    print(r["id"], r.get("helpUri", ""), r["defaultConfiguration"]["level"], sep="\t")' "$1"; }
trueline-check --list-checks | awk '{ print $1 "\t" $2 }' | sort > checks.tsv
premise "--list-checks lists checks" test "$(wc -l < checks.tsv)" -ge 5

printf '[checks]\n' > empty.ini
trueline-check --config empty.ini --format sarif a.o > default.sarif
rules default.sarif | sort > default.tsv
same "one rule per check" "$(cut -f1 default.tsv | tr '\n' ' ')" "$(cut -f1 checks.tsv | tr '\n' ' ')"
check "every helpUri is absolute under the default base" sh -c '[ -s default.tsv ] && ! cut -f2 default.tsv | grep -v "^https://github.com/trueline/trueline/blob/main/docs/checks/[a-z-]*\.md$"'
check "each names the check's own page, which exists in docs/checks/" sh -c '
  while IFS="	" read -r id uri lvl; do
    [ "${uri##*/}" = "$id.md" ] && [ -f "$TRUELINE_ROOT/docs/checks/$id.md" ] || { echo "    | $id: $uri"; exit 1; }
  done < default.tsv'
# with no [checks] entry, a rule's level is the check's default severity (--list-checks; info is SARIF note)
sev_to_level() { sed 's/\tinfo$/\tnote/'; }
same "default levels are the checks' default severities" "$(cut -f1,3 default.tsv | tr '\n' ' ')" "$(sev_to_level < checks.tsv | tr '\n' ' ')"

# configured severities and base URL
printf '[checks]\nstl-leak = warning\nmixed-toolchain = info\nline-tables = off\n[report]\nhelp_base_url = https://docs.example.org/trueline/v2\n' > conf.ini
trueline-check --config conf.ini --format sarif a.o > conf.sarif
rules conf.sarif | sort > conf.tsv
level_of() { awk -F'\t' -v id="$1" '$1 == id { print $3 }' conf.tsv; }
same "stl-leak = warning: its rule's default level is warning" "$(level_of stl-leak)" warning
same "mixed-toolchain = info: note" "$(level_of mixed-toolchain)" note
same "line-tables = off: none" "$(level_of line-tables)" none
dflt=$(awk -F'\t' '$1 == "dwarf-symbols" { print $2 }' checks.tsv | sed 's/^info$/note/')
same "an unconfigured check keeps its default (dwarf-symbols)" "$(level_of dwarf-symbols)" "$dflt"
check "helpUri follows [report] help_base_url (a / added between)" sh -c '[ -s conf.tsv ] && ! cut -f2 conf.tsv | grep -v "^https://docs.example.org/trueline/v2/docs/checks/[a-z-]*\.md$"'
TRUELINE_REPORT_HELP_BASE_URL=https://mirror.example.net/tl/ trueline-check --config empty.ini --format sarif a.o > env.sarif
env_base() { rules env.sarif | cut -f2 | grep -q '^https://mirror.example.net/tl/docs/checks/line-tables.md$'; }
check "the environment override TRUELINE_REPORT_HELP_BASE_URL works like the file" env_base
