#!/usr/bin/env bash
# The audit profile set in the configuration ([audit] profile, docs/packages.md): a stripped shared library
# (readelf: no .debug_line) is no line-tables finding under the release profile, whether --profile or the
# configuration asks for it; --profile on the command line wins over the file; a value that names no profile,
# or a key [audit] does not have, stops the audit with exit 2 naming the file and line.
. "$(dirname "$0")/../lib/harness.sh"
cd "$T" || exit 1

printf 'int api(int x) { return x * 2; }\n' > s.c
premise "fixtures: gcc builds a -g library; its stripped copy has no .debug_line (readelf)" sh -c '
  gcc -g -shared -fPIC s.c -o libs.so && cp libs.so libstripped.so && strip --strip-debug libstripped.so &&
  readelf -SW libs.so | grep -q "\.debug_line" && ! readelf -SW libstripped.so | grep -q "\.debug_line"'

# run OUT COMMAND...: runs the command with its output in OUT, and prints its exit status
run() { local out=$1; shift; "$@" > "$out" 2>&1; echo $?; }

rc=$(run build.txt trueline-check libstripped.so)
contains "no configuration: the build profile; the stripped library is a line-tables error" build.txt \
  'libstripped\.so: error \[line-tables\] no \.debug_line'
same "... exit 1" 1 "$rc"

printf '[audit]\nprofile = release\n' > release.ini
rc=$(run conf.txt trueline-check --config release.ini libstripped.so)
lacks "[audit] profile = release: the stripped library is no line-tables finding" conf.txt '\[line-tables\]' 'file\(s\) checked'
lacks "... and no 'not built through trueline-cc' (the release profile leaves it out)" conf.txt 'not built through trueline-cc' 'file\(s\) checked'
exit_was "... exit 0" 0 "$rc" conf.txt '^1 file\(s\) checked'
rc=$(run cli.txt trueline-check --profile release libstripped.so)
exit_was "--profile release: exit 0 as well" 0 "$rc" cli.txt '^1 file\(s\) checked'
lacks "--profile release: no line-tables finding either" cli.txt '\[line-tables\]' 'file\(s\) checked'

# a library with host DWARF whose function other() comes from an object built without -g (the fixture's flags;
# readelf: no compile unit names b.c): the release profile counts it in one info line, the build profile errs
printf 'int api(int x) { return x * 2; }\n' > a.c
printf 'int other(int x) { return x + 7; }\n' > b.c
premise "fixtures: libmix.so links a -g object and one without; only a.c has a compile unit (readelf)" sh -c '
  gcc -g -c -fPIC a.c && gcc -c -fPIC b.c && gcc -shared a.o b.o -o libmix.so &&
  readelf --debug-dump=info libmix.so | grep -q "DW_AT_name.*a\.c" && ! readelf --debug-dump=info libmix.so | grep -q "DW_AT_name.*b\.c"'
rc=$(run conf_mix.txt trueline-check --config release.ini libmix.so)
contains "[audit] profile = release: other() without -g is one info line, as the release profile counts it" \
  conf_mix.txt 'libmix\.so: info \[line-tables\] 1 function of objects linked without -g .*\(e\.g\. other\)'
exit_was "... exit 0" 0 "$rc" conf_mix.txt '^1 file\(s\) checked'
rc=$(run build_mix.txt trueline-check libmix.so)
contains "no configuration: other() is an error of the build profile" build_mix.txt \
  'libmix\.so: error \[line-tables\] other: function .* no compile unit covers it'

rc=$(run over.txt trueline-check --config release.ini --profile build libstripped.so)
contains "--profile build over [audit] profile = release: the command line wins" over.txt \
  'libstripped\.so: error \[line-tables\] no \.debug_line'
same "... exit 1" 1 "$rc"

rc=$(run env.txt env TRUELINE_AUDIT_PROFILE=release trueline-check libstripped.so)
lacks "TRUELINE_AUDIT_PROFILE=release: the release profile without a file" env.txt '\[line-tables\]' 'file\(s\) checked'
exit_was "... exit 0" 0 "$rc" env.txt '^1 file\(s\) checked'

printf '[checks]\nstl-leak = warning\n\n[audit]\nprofile = relaese\n' > bad.ini
rc=$(run bad.txt trueline-check --config bad.ini libstripped.so libs.so)
same "[audit] profile = relaese: exit 2" 2 "$rc"
contains "... naming the file, the line, the value and the valid profiles" bad.txt \
  "^trueline-check: bad\\.ini:5: \\[audit\\] profile = 'relaese' is not a profile; valid: build, release$"
lacks "... before any input is read" bad.txt 'file\(s\) checked' 'is not a profile'
rc=$(run badenv.txt env TRUELINE_AUDIT_PROFILE=shipping trueline-check libstripped.so)
same "TRUELINE_AUDIT_PROFILE=shipping: exit 2" 2 "$rc"
contains "... naming the variable" badenv.txt \
  "environment variable TRUELINE_AUDIT_PROFILE: \\[audit\\] profile = 'shipping' is not a profile"
printf '[audit]\nprofiel = release\n' > key.ini
rc=$(run key.txt trueline-check --config key.ini libstripped.so)
same "[audit] profiel (a misspelt key): exit 2" 2 "$rc"
contains "... naming the file, the line and the keys of [audit]" key.txt \
  'key\.ini:2: \[audit\] profiel: unknown key \(the keys of \[audit\]: ([a-z_]+, )*profile[,)]'
rc=$(run tool.txt trueline-check --config bad.ini --list libs.so)
check "a tool mode (--list) has no profile: a bad [audit] profile does not stop it (exit $rc)" \
  sh -c '[ "$1" -ne 2 ] && ! grep -q "is not a profile" tool.txt && grep -q "^libs\.so: " tool.txt' _ "$rc"
