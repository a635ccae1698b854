#!/usr/bin/env bash
# Reports people read and reports tools read: the text report groups findings per file and check, prints a hint
# once per check, shortens long lists (--verbose lists all), tells apart symbols that demangle alike by their
# mangled names and wraps at the terminal's width on a TTY only; JSON and SARIF list every finding, each with its
# own fingerprint, so that a baseline tracks them one by one. Oracles: nm and c++filt for the functions and
# their names, the fixture's source for the counts, the width asked for through COLUMNS.
source "$(dirname "$0")/../lib/harness.sh"
have gcc && have g++ && have nm && have c++filt || { skip "gcc/g++/nm/c++filt missing"; exit 0; }
C=trueline-check
cd "$T" || exit 1

# libmany.so: 130 C functions built without -g (line-tables errors, more than the 100 once listed) beside one
# built with -g; libtwin.so: a static and a global C++ function that both demangle to "twin(int)", built
# without -g beside g.o (so that each function without line rows is a finding of its own).
N=130
python3 - "$N" <<'PY'
import sys
n = int(sys.argv[1])
with open("nog.c", "w") as f:
    for i in range(n):
        f.write(f"int nog_fn_{i:03d}(int x) {{ return x * {i + 3} + {i}; }}\n")
PY
printf 'int with_g(int x) { return x + 1; }\n' > g.c
cat > twin_a.cpp <<'EOF'
static int __attribute__((noinline)) twin(int x) { return x * 7; }
int use_local(int x) { return twin(x) + 1; }
EOF
cat > twin_b.cpp <<'EOF'
int __attribute__((noinline)) twin(int x) { return x * 5; }
EOF
premise "fixtures build" sh -c 'gcc -O1 -fPIC -c nog.c -o nog.o && gcc -g -O1 -fPIC -c g.c -o g.o &&
  gcc -shared -o libmany.so nog.o g.o && cp libmany.so libmany2.so &&
  g++ -O1 -fPIC -c twin_a.cpp -o twin_a.o && g++ -O1 -fPIC -c twin_b.cpp -o twin_b.o &&
  g++ -shared -o libtwin.so twin_a.o twin_b.o g.o && g++ -shared -o libtwin1.so twin_b.o g.o'
# the truth: nm's defined functions of nog.o
nm --defined-only nog.o | awk '$2 == "T" { print $3 }' | sort > nog.names
premise "nm lists the $N functions of nog.o" test "$(wc -l < nog.names)" = "$N"
nm libtwin.so | awk '$2 ~ /^[tT]$/ && $3 ~ /twin/ { print $3 }' | sort > twin.mangled
premise "nm: libtwin.so has two twin functions that c++filt demangles alike" sh -c \
  '[ "$(wc -l < twin.mangled)" = 2 ] && [ "$(c++filt < twin.mangled | sort -u)" = "twin(int)" ]'

# --- JSON and SARIF: every finding
"$C" --format json --checks line-tables libmany.so > many.json
check "json: every function nm lists without line rows is a line-tables finding ($N, more than the 100 once listed)" \
  python3 -c '
import json, sys
d = json.load(open("many.json"))
got = sorted(x["symbol"] for f in d["files"] for x in f["findings"]
             if x["check"] == "line-tables" and x["severity"] == "error" and x["symbol"])
want = open("nog.names").read().split()
sys.exit(0 if got == want and len(want) > 100 else 1)'
check "json: no finding stands for the rest (no '... and N more')" python3 -c '
import json, sys
d = json.load(open("many.json"))
sys.exit(1 if any("more" in (x["message"] or "") and x["message"].startswith("...") for f in d["files"] for x in f["findings"]) else 0)'
"$C" --format sarif --checks line-tables libmany.so > many.sarif
check "sarif: one result per JSON finding, with the same fingerprints" python3 -c '
import json, sys
j = json.load(open("many.json")); s = json.load(open("many.sarif"))
a = sorted(x["fingerprint"] for f in j["files"] for x in f["findings"])
b = sorted(r["partialFingerprints"]["trueline/v1"] for r in s["runs"][0]["results"])
sys.exit(0 if a == b and len(a) > 130 else 1)'

# --- text: lists shortened, hints once, one finding per line when piped
"$C" --checks line-tables libmany.so libmany2.so > many.txt
K=$((N - 5))
check "text: the list of $N functions shows 5 and '... and $K more like these' per file" sh -c '
  [ "$(grep -c "^libmany.so: error \[line-tables\] nog_fn_" many.txt)" = 5 ] &&
  [ "$(grep -c "^libmany2.so: error \[line-tables\] nog_fn_" many.txt)" = 5 ] &&
  grep -q "^libmany.so: error \[line-tables\] \.\.\. and '$K' more like these (--verbose lists all)$" many.txt &&
  grep -q "^libmany2.so: error \[line-tables\] \.\.\. and '$K' more like these (--verbose lists all)$" many.txt'
check "text: the hint is printed once for the two files" sh -c '
  [ "$(grep -c "^    hint: compile every translation unit with -g" many.txt)" = 1 ]'
check "text: the shown functions are nm's first ones in symbol order, each once" sh -c '
  grep "^libmany.so: error \[line-tables\] nog_fn_" many.txt | sed "s/.*\] \(nog_fn_[0-9]*\):.*/\1/" | sort > shown.names &&
  [ "$(wc -l < shown.names)" = 5 ] && [ -z "$(comm -23 shown.names nog.names)" ]'
"$C" --verbose --checks line-tables libmany.so > many_v.txt
check "text --verbose: all $N functions nm lists, no '... and'" sh -c '
  grep "^libmany.so: error \[line-tables\] nog_fn_" many_v.txt | sed "s/.*\] \(nog_fn_[0-9]*\):.*/\1/" | sort > v.names &&
  cmp -s v.names nog.names && ! grep -q "\.\.\. and" many_v.txt'
check "text piped: never wrapped (every line a finding, a hint, a package or the summary)" sh -c '
  grep -q "^2 file(s) checked" many.txt && grep -q "^libmany.so: error \[line-tables\]" many.txt &&
  ! grep -vE "^(libmany2?\.so: (error|warning|info) \[|    hint: |[0-9]+ file\(s\) checked)" many.txt | grep -q .'

# --- symbols that demangle alike
"$C" --checks line-tables libtwin.so > twin.txt
check "text: both twin(int) findings carry their mangled names (nm's)" sh -c '
  for m in $(cat twin.mangled); do grep -q "^libtwin.so: error \[line-tables\] twin(int) \[$m\]: function" twin.txt || exit 1; done'
lacks "text: a symbol alone in its group has no mangled name added" twin.txt 'use_local\(int\) \[' 'file\(s\) checked'
"$C" --format json --checks line-tables libtwin.so > twin.json
check "json: the twins' findings have nm's mangled names and two fingerprints" python3 -c '
import json, sys
d = json.load(open("twin.json"))
tw = [x for f in d["files"] for x in f["findings"] if x["symbol"] == "twin(int)"]
sys.exit(0 if sorted(x["mangled"] for x in tw) == open("twin.mangled").read().split()
         and len({x["fingerprint"] for x in tw}) == 2 else 1)'
check "json: fingerprints are unique across the report" python3 -c '
import json, sys
d = json.load(open("many.json")); e = json.load(open("twin.json"))
fp = [x["fingerprint"] for r in (d, e) for f in r["files"] for x in f["findings"]]
sys.exit(0 if len(fp) > 130 and len(fp) == len(set(fp)) else 1)'
# baseline: the global twin is known; the static one that demangles alike is new and fails
"$C" --write-baseline tb.json --checks line-tables libtwin1.so > /dev/null
cp libtwin.so libtwin1.so
"$C" --baseline tb.json --checks line-tables libtwin1.so > tb.txt; rc=$?
check "baseline: a new function that demangles like a known one is a new finding (exit 1)" sh -c \
  '[ '$rc' = 1 ] && grep -q "error \[line-tables\] twin(int) \[_ZL4twini\]" tb.txt &&
   grep -q "error \[line-tables\] (suppressed) twin(int) \[_Z4twini\]" tb.txt'

# --- stl-leak: every exported std:: symbol in JSON, summaries only in text
cat > leak.cpp <<'EOF'
#include <map>
#include <string>
#include <vector>
struct Foo { int a; };
template class std::vector<Foo>;
template class std::map<int, Foo>;
std::vector<int> make_ints(int n) { return std::vector<int>(n, 1); }
EOF
premise "libleak.so builds" g++ -O1 -fPIC -shared -o libleak.so leak.cpp
"$C" --format json --checks stl-leak libleak.so > leak.json
nm -D --defined-only libleak.so | awk '{ print $3 }' | sort > leak.dyn
c++filt < leak.dyn | paste -d'\t' leak.dyn - | awk -F'\t' '$2 ~ /^((typeinfo( name)?|vtable|VTT) for )?std::/ { print $1 }' | sort > leak.std
premise "nm -D: libleak.so exports more than 10 std:: definitions" test "$(wc -l < leak.std)" -gt 10
check "json: each std:: symbol nm -D shows exported is a detail finding, and every detail is an nm -D export" python3 -c '
import json, sys
d = json.load(open("leak.json"))
det = {x["mangled"] or x["symbol"] for f in d["files"] for x in f["findings"] if x["check"] == "stl-leak" and x.get("detail")}
dyn = set(open("leak.dyn").read().split()); std = set(open("leak.std").read().split())
sys.exit(0 if std <= det and det <= dyn else 1)'
# a whole static libstdc++: the summary names its first symbol, which is also a detail; each has its own fingerprint
if g++ -O1 -fPIC -shared -static-libstdc++ -o libstatic.so leak.cpp 2>/dev/null; then
  "$C" --format json --checks stl-leak libstatic.so > static.json
  check "json: a summary naming a symbol and that symbol's detail have two fingerprints (all unique)" python3 -c '
import json, sys
f = [x for y in json.load(open("static.json"))["files"] for x in y["findings"]]
summ = [x for x in f if x["severity"] == "error" and x["symbol"]]
same = [x for x in f if x.get("detail") and summ and x["symbol"] == summ[0]["symbol"]]
fp = [x["fingerprint"] for x in f]
sys.exit(0 if summ and same and len(fp) > 100 and len(fp) == len(set(fp)) else 1)'
else
  skip "g++ -static-libstdc++ failed: no whole-copy summary to compare"
fi
"$C" --checks stl-leak libleak.so > leak.txt
"$C" --verbose --checks stl-leak libleak.so > leak_v.txt
check "text: stl-leak's details only with --verbose (the summary either way)" sh -c '
  grep -q "exports [0-9]* std:: template instantiation(s) over its own types" leak.txt &&
  ! grep -q "exported: " leak.txt && grep -q "exported: a std:: template instantiation over the file" leak_v.txt'
ndet=$(python3 -c 'import json; print(sum(1 for f in json.load(open("leak.json"))["files"] for x in f["findings"] if x.get("detail")))')
check "text: a line before the summary counts the $ndet details left out (as many as JSON has), --verbose none" sh -c \
  '[ "$0" -gt 10 ] && [ "$(tail -2 leak.txt | head -1)" = "$0 details not shown (--verbose lists them)" ] &&
   ! grep -q "not shown" leak_v.txt' "$ndet"

# --- on a terminal: wrapped at COLUMNS
W=60
if have script; then
  COLUMNS=$W script -qec "$C --no-color --no-progress --checks line-tables,stl-leak libmany.so libleak.so" /dev/null | tr -d '\r' > tty.txt
  "$C" --no-color --no-progress --checks line-tables,stl-leak libmany.so libleak.so > pipe.txt
  check "tty: no line wider than COLUMNS=$W, and piped lines wider than that exist" sh -c '
    [ -s tty.txt ] && awk "length(\$0) > $0 { bad = 1 } END { exit bad }" tty.txt &&
    awk "length(\$0) > $0 { n++ } END { exit !(n > 0) }" pipe.txt' "$W"
  check "tty: the wrapped lines joined again are the piped report" python3 -c '
import sys
tty = open("tty.txt").read().split("\n"); pipe = open("pipe.txt").read().rstrip("\n").split("\n")
joined = []
for l in tty:
    if l.startswith("      ") and joined: joined[-1] += " " + l[6:]
    elif l: joined.append(l)
sys.exit(0 if joined == pipe and len(tty) > len(pipe) else 1)'
else
  skip "script (util-linux) absent: the TTY path is not tested"
fi
