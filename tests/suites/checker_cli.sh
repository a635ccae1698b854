# trueline-check's command line and input handling: bad inputs are reported with exit 2, others still checked.
. "$(dirname "$0")/../lib/harness.sh"

printf 'int f(void){return 1;}\n' > "$T/a.c"
gcc -g -c "$T/a.c" -o "$T/a.o"
printf 'garbage' > "$T/bad.o"

trueline-check "$T/a.o" "$T/bad.o" "$T/missing.o" >"$T/out" 2>"$T/err"; rc=$?
check "unreadable inputs give exit 2" [ $rc -eq 2 ]
# the text report names an unreadable input (stderr repeats it only when the report is not text on stdout)
contains "bad file named with the reason" "$T/out" "bad\.o: error: cannot read: not an ELF file"
contains "missing file named" "$T/out" "missing\.o: error: cannot read: cannot access"
contains "the good file is still checked" "$T/out" "3 file\(s\) checked"
trueline-check --format json "$T/a.o" "$T/bad.o" >"$T/out" 2>"$T/err"; rc=$?
contains "json report: the unreadable file is named on stderr too" "$T/err" "^trueline-check: .*bad\.o: not an ELF file"

mkdir -p "$T/tree/sub" && cp "$T/a.o" "$T/tree/sub/" && ln -s .. "$T/tree/sub/loop" && printf 'text' > "$T/tree/readme"
ar rcs "$T/tree/liba.a" "$T/a.o"
trueline-check "$T/tree" >"$T/out" 2>&1; rc=$?
# two ELF inputs: sub/a.o and liba.a(a.o); the text file is skipped, the loop (sub/loop -> ..) adds nothing
contains "directory walk finds the object and the archive member, each once, through a symlink loop" "$T/out" "^2 file\(s\) checked"
contains "... the object named by its path in the tree" "$T/out" "tree/sub/a\.o: "
contains "... the member as ARCHIVE(MEMBER)" "$T/out" "tree/liba\.a\(a\.o\): "
check "directory with a symlink loop terminates cleanly (exit $rc, a report)" sh -c '[ $0 -le 1 ] && grep -q "file(s) checked" "$1"' $rc "$T/out"

expect_rc "usage error exits 2" 2 trueline-check --fail-on=bogus "$T/a.o"
expect_rc "no inputs is a usage error" 2 trueline-check
trueline-check --list-checks >"$T/checks"
for id in line-tables dwarf-symbols stl-leak symbol-versions mixed-toolchain cuda-arch provenance; do
  contains "check $id registered" "$T/checks" "^$id "
done

q() { "$@" >/dev/null 2>&1; } # for expect_rc: the exit status is the test, the output is noise

# --checks: an unknown id is a usage error that names it and the valid ids (it used to run nothing and exit 0);
# blanks around the ids are trimmed ("line-tables, stl-leak" used to drop line-tables).
gcc -c "$T/a.c" -o "$T/nodbg.o" # no line info: a line-tables error
trueline-check --checks stl_leak "$T/a.o" >"$T/out" 2>"$T/err"; rc=$?
check "checks option: unknown id exits 2" [ $rc -eq 2 ]
contains "checks option: unknown id named" "$T/err" "--checks: unknown check 'stl_leak'"
contains "checks option: valid ids listed" "$T/err" "valid ids.*line-tables, dwarf-symbols, stl-leak, symbol-versions"
check "checks option: nothing audited after the usage error" sh -c '! grep -q checked "$1" && grep -q "unknown check" "$2"' _ "$T/out" "$T/err"
trueline-check --checks "stl-leak, line-tables" "$T/nodbg.o" >"$T/out" 2>&1; rc=$?
contains "checks option: id after ', ' still runs" "$T/out" "error \[line-tables\]"
check "checks option: trimmed list fails on its finding (exit 1)" [ $rc -eq 1 ]
expect_rc "checks option: a list naming no check is a usage error" 2 q trueline-check --checks " , " "$T/a.o"

# [checks] in the config: an unknown id or severity stops the run (exit 2), naming file, line, key and what is valid.
printf '; a comment\n\n[checks]\n# another\nline-table = off\n' > "$T/unk.ini"
trueline-check --config "$T/unk.ini" "$T/nodbg.o" >"$T/out" 2>"$T/err"; rc=$?
check "config checks: unknown id exits 2" [ $rc -eq 2 ]
contains "config checks: unknown id with file and line" "$T/err" "unk\.ini:5: \[checks\] unknown check 'line-table'"
contains "config checks: unknown id lists the valid ids" "$T/err" "valid ids.*line-tables"
printf '[wrapper]\ncache = none\n[checks]\nline-tables = offf\n' > "$T/sev.ini"
trueline-check --config "$T/sev.ini" "$T/nodbg.o" >"$T/out" 2>"$T/err"; rc=$?
check "config checks: bad severity exits 2" [ $rc -eq 2 ]
contains "config checks: bad severity named with what is valid" "$T/err" \
  "sev\.ini:4: \[checks\] line-tables = 'offf' is not a severity; valid: error, warning, info or off"
TRUELINE_CHECKS_STL_LEAK=bogus trueline-check "$T/a.o" >"$T/out" 2>"$T/err"; rc=$?
check "config checks: bad severity from the environment exits 2" [ $rc -eq 2 ]
contains "config checks: environment variable named" "$T/err" "environment variable TRUELINE_CHECKS_STL_LEAK: .*'bogus'"
printf '[checks]\nLine-Tables = warn\n' > "$T/alias.ini"
trueline-check --config "$T/alias.ini" --checks line-tables "$T/nodbg.o" >"$T/out" 2>&1; rc=$?
contains "config checks: id in any case and the warn alias still work" "$T/out" "warning \[line-tables\]"
check "config checks: a valid config still audits (exit 0 on a warning)" sh -c '[ $0 -eq 0 ] && grep -q "^1 file(s) checked: 0 error(s), 1 warning" "$1"' $rc "$T/out"

# [symbol-versions] maxima: GLIBC_2.17 (objdump's spelling) means 2.17; a value that is not a version used to switch
# the limit off and report "within the configured maxima", now it stops the run naming file and key.
printf '#include <stdlib.h>\nint main(void) { return reallocarray(0, 2, 2) != 0; }\n' > "$T/sv.c"
gcc -o "$T/sv" "$T/sv.c" # reallocarray@GLIBC_2.26
printf '[symbol-versions]\nglibc = GLIBC_2.17\n' > "$T/svp.ini"
trueline-check --config "$T/svp.ini" --checks symbol-versions "$T/sv" >"$T/out" 2>&1; rc=$?
check "symbol-versions: GLIBC_2.17 maximum enforced (exit 1)" [ $rc -eq 1 ]
contains "symbol-versions: GLIBC_2.17 read as 2.17" "$T/out" "allows at most GLIBC_2\.17; [0-9]+ symbol\(s\) need more: .*reallocarray@GLIBC_2\.26"
lacks "symbol-versions: no claim of being within the maxima" "$T/out" "within the configured maxima" "allows at most GLIBC_2\.17"
printf '[symbol-versions]\nglibc = GLIBC_99.0\n' > "$T/svhigh.ini"
trueline-check --config "$T/svhigh.ini" --checks symbol-versions "$T/sv" >"$T/out" 2>&1; rc=$?
check "symbol-versions: prefixed maximum above the need passes (exit $rc)" sh -c '[ $0 -eq 0 ] && grep -q "^1 file(s) checked: 0 error" "$1"' $rc "$T/out"
printf '[symbol-versions]\nglibc = abc\n' > "$T/svbad.ini"
trueline-check --config "$T/svbad.ini" --checks symbol-versions "$T/sv" >"$T/out" 2>"$T/err"; rc=$?
check "symbol-versions: unparseable maximum exits 2" [ $rc -eq 2 ]
contains "symbol-versions: unparseable maximum names file and key" "$T/err" \
  "svbad\.ini:2: \[symbol-versions\] glibc = 'abc' is not a version"
check "symbol-versions: unparseable maximum is not reported as met" sh -c '! grep -q within "$1" && grep -q "is not a version" "$2"' _ "$T/out" "$T/err"

# Writing the report: a full disk or a closed stdout is exit 2 with the reason.
if [ -w /dev/full ]; then
  trueline-check --format sarif --output /dev/full "$T/a.o" 2>"$T/err"; rc=$?
  check "report write: --output on a full disk exits 2" [ $rc -eq 2 ]
  contains "report write: --output error names file and reason" "$T/err" "cannot write /dev/full: No space left on device"
  trueline-check "$T/a.o" >/dev/full 2>"$T/err"; rc=$?
  check "report write: stdout on a full disk exits 2" [ $rc -eq 2 ]
  contains "report write: stdout error named" "$T/err" "cannot write standard output: No space left on device"
  trueline-check --write-baseline /dev/full "$T/a.o" >/dev/null 2>"$T/err"; rc=$?
  check "report write: baseline on a full disk exits 2" [ $rc -eq 2 ]
  contains "report write: baseline error names the baseline file" "$T/err" "cannot write baseline /dev/full: No space left on device"
  lacks "report write: baseline error is not blamed on the format" "$T/err" "report format" "cannot write baseline"
else
  skip "report write: no writable /dev/full"
fi
trueline-check "$T/a.o" >&- 2>"$T/err"; rc=$?
check "report write: closed stdout exits 2" [ $rc -eq 2 ]
contains "report write: closed stdout named" "$T/err" "cannot write standard output"
trueline-check --output "$T/nodir/r.txt" "$T/a.o" 2>"$T/err"; rc=$?
contains "report write: unopenable --output names the reason" "$T/err" "cannot write .*nodir/r\.txt: No such file or directory"
# --format is checked before any input is read, and a tool refuses a format it does not write
trueline-check --format bogus "$T/a.o" >"$T/out" 2>"$T/err"; rc=$?
check "format: an unknown --format exits 2" [ $rc -eq 2 ]
contains "format: ... naming the value and the valid ones" "$T/err" "--format: 'bogus' is not text, json, sarif or junit"
check "format: ... before anything is reported" sh -c '[ ! -s "$1" ] && grep -q "is not text, json" "$2"' _ "$T/out" "$T/err"
trueline-check --list --format sarif "$T/a.o" >"$T/out" 2>"$T/err"; rc=$?
check "format: --list with sarif exits 2 (it wrote text before)" [ $rc -eq 2 -a ! -s "$T/out" ]
contains "format: ... saying what --list writes" "$T/err" "--list writes text or json, not sarif"
# every tool that writes a report refuses a format only the audit writes, before reading its input
for m in --symbolize --coredump --provenance --split; do
  trueline-check $m --format junit "$T/a.o" >"$T/out" 2>"$T/err"; rc=$?
  exit_was "format: $m with junit exits 2" 2 $rc "$T/err" "$m writes text or json, not junit"
done
# the modes exclude each other, and the message names each mode --help describes as one (its "mode:" lines)
trueline-check --help | sed -nE 's/^  (--[a-z-]+).* mode: .*/\1/p' > "$T/modes"
premise "modes: --help describes more than 5 modes" test "$(wc -l < "$T/modes")" -gt 5
trueline-check --list-checks --provenance "$T/a.o" >"$T/out" 2>"$T/err"; rc=$?
exit_was "modes: two modes exit 2" 2 $rc "$T/err" "exclude each other"
while read -r m; do
  contains "modes: the exclusion names $m" "$T/err" "(^|[ :,])$m( |,|$)"
done < "$T/modes"
# an unknown key of [symbol-versions] (a misspelt maximum would be no limit at all)
printf '[symbol-versions]\nglibcx = 2.17\n' > "$T/svk.ini"
trueline-check --config "$T/svk.ini" --checks symbol-versions "$T/a.o" >/dev/null 2>"$T/err"; rc=$?
check "symbol-versions: an unknown key exits 2" [ $rc -eq 2 ]
contains "symbol-versions: ... naming the file, line and key" "$T/err" "svk\.ini:2: \[symbol-versions\] glibcx: unknown key"
# [symbol-versions] table = FILE: the platform table is read from there once, before any input; one that cannot be
# read is a bad value (exit 2), not a silent fall-back to the installed table
printf 'tag\tglibc\tglibcxx\tcxxabi\tgcc\ntestlinux_9_9\t2.17\t3.4.19\t1.3.7\t4.8.0\n' > "$T/own.tsv"
printf '[symbol-versions]\ntable = %s\n' "$T/own.tsv" > "$T/svt.ini"
trueline-check --config "$T/svt.ini" --policy testlinux_9_9 --checks symbol-versions "$T/sv" >"$T/out" 2>&1; rc=$?
check "symbol-versions: a configured table's own tag is enforced (exit 1)" [ $rc -eq 1 ]
contains "symbol-versions: ... with the table's maximum" "$T/out" "testlinux_9_9 allows at most GLIBC_2\.17; [0-9]+ symbol\(s\) need more: .*reallocarray@GLIBC_2\.26"
printf '[symbol-versions]\ntable = %s\n' "$T/no-such.tsv" > "$T/svt.ini"
trueline-check --config "$T/svt.ini" --checks symbol-versions "$T/sv" >"$T/out" 2>"$T/err"; rc=$?
check "symbol-versions: an unreadable table exits 2 before any report" sh -c '[ $0 -eq 2 ] && [ ! -s "$1" ]' $rc "$T/out"
contains "symbol-versions: ... naming the file, line and table" "$T/err" "svt\.ini:2: \[symbol-versions\] table = '.*no-such\.tsv' cannot be read: No such file"
# [cuda-arch]: a value that would switch a requirement off stops the run before any input is read, naming file,
# line and key; a valid one audits as usual (a host program has no device code to hold to it)
printf '[cuda-arch]\nsass = banana\n' > "$T/ca.ini"
trueline-check --config "$T/ca.ini" --checks cuda-arch "$T/sv" >"$T/out" 2>"$T/err"; rc=$?
check "cuda-arch: a sass value that is no SM list exits 2 before any report" sh -c '[ $0 -eq 2 ] && [ ! -s "$1" ]' $rc "$T/out"
contains "cuda-arch: ... naming the file, line and key" "$T/err" "ca\.ini:2: \[cuda-arch\] sass = 'banana' is not a list of SM architectures"
printf '[cuda-arch]\nsass = sm_90\nrequire-ptx = maybe\n' > "$T/ca.ini"
trueline-check --config "$T/ca.ini" --checks cuda-arch "$T/sv" >"$T/out" 2>"$T/err"; rc=$?
check "cuda-arch: a require-ptx that is not yes/no exits 2" [ $rc -eq 2 ]
contains "cuda-arch: ... naming the file, line and key" "$T/err" "ca\.ini:3: \[cuda-arch\] require-ptx = maybe: expected true or false"
printf '[cuda-arch]\nsass = sm_90, 100a\nrequire-ptx = yes\n' > "$T/ca.ini"
trueline-check --config "$T/ca.ini" --checks cuda-arch "$T/sv" >"$T/out" 2>&1; rc=$?
check "cuda-arch: a valid [cuda-arch] audits a host program (exit $rc)" sh -c '[ $0 -eq 0 ] && grep -q "^1 file(s) checked: 0 error" "$1"' $rc "$T/out"
# GNU thin archives (ar rcT): every member is read from its own file, shown as ARCHIVE(MEMBER); a member file
# that is gone is unreadable input (exit 2) while the others are still checked
if have ar && have gcc; then
  mkdir -p "$T/thin/sub"
  printf 'int t1(int x) { return x + 1; }\n' > "$T/thin/t1.c"
  printf 'int t2_with_a_long_member_name(int x) { return x * 2; }\n' > "$T/thin/t2.c"
  gcc -c "$T/thin/t1.c" -o "$T/thin/t1.o"
  gcc -g -c "$T/thin/t2.c" -o "$T/thin/sub/t2_with_a_long_member_name.o"
  (cd "$T/thin" && ar rcT libthin.a t1.o sub/t2_with_a_long_member_name.o)
  trueline-check --checks line-tables "$T/thin/libthin.a" >"$T/out" 2>"$T/err"; rc=$?
  check "thin archive: both members checked, the one without -g is a finding (exit 1)" [ $rc -eq 1 ]
  contains "thin archive: the member without -g is named as ARCHIVE(MEMBER)" "$T/out" 'libthin\.a\(t1\.o\): error \[line-tables\] no \.debug_line'
  contains "thin archive: the long-named member in a subdirectory is found and read" "$T/out" '2 file\(s\) checked: 1 error'
  rm "$T/thin/t1.o"
  trueline-check --checks line-tables "$T/thin/libthin.a" >"$T/out" 2>"$T/err"; rc=$?
  check "thin archive: a member file that is gone is unreadable input (exit 2)" [ $rc -eq 2 ]
  contains "thin archive: ... named, the other member still checked" "$T/out" 'libthin\.a\(t1\.o\): error: cannot read: cannot open'
else
  skip "thin archives: ar or gcc missing"
fi
