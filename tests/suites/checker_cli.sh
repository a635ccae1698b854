# trueline-check's command line and input handling: bad inputs are reported with exit 2, others still checked.
. "$(dirname "$0")/../lib/harness.sh"

printf 'int f(void){return 1;}\n' > "$T/a.c"
gcc -g -c "$T/a.c" -o "$T/a.o"
printf 'garbage' > "$T/bad.o"

trueline-check "$T/a.o" "$T/bad.o" "$T/missing.o" >"$T/out" 2>"$T/err"; rc=$?
check "unreadable inputs give exit 2" [ $rc -eq 2 ]
contains "bad file named with the reason" "$T/err" "bad.o: not an ELF file"
contains "missing file named" "$T/err" "missing.o: cannot access"
contains "the good file is still checked" "$T/out" "3 file\(s\) checked"

mkdir -p "$T/tree/sub" && cp "$T/a.o" "$T/tree/sub/" && ln -s .. "$T/tree/sub/loop" && printf 'text' > "$T/tree/readme"
ar rcs "$T/tree/liba.a" "$T/a.o"
trueline-check "$T/tree" >"$T/out" 2>&1; rc=$?
contains "directory walk finds objects and archive members" "$T/out" "3 file\(s\) checked|2 file\(s\) checked"
check "directory with a symlink loop terminates cleanly" [ $rc -le 1 ]

expect_rc "usage error exits 2" 2 trueline-check --fail-on=bogus "$T/a.o"
expect_rc "no inputs is a usage error" 2 trueline-check
trueline-check --list-checks >"$T/checks"
for id in line-tables dwarf-symbols stl-leak symbol-versions mixed-toolchain cuda-arch provenance; do
  contains "check $id registered" "$T/checks" "^$id "
done
