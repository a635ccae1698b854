#!/usr/bin/env bash
# The module rules of docs/internals/architecture.md, read off the built objects (nm), not off the sources:
# no cycles between object files, lib/ takes nothing from either front end, the front ends take nothing from
# each other, and each part defines only names with its own prefix (lib tl_, trueline-cc tlcc_, trueline-check
# tlck_); one rule reads the sources: report/ includes no check and no platform table. Each rule is also shown
# to catch a planted violation, so that an empty symbol table cannot pass it.
. "$(dirname "$0")/../lib/harness.sh"
# report/ only renders (read off the sources): an emitter includes no check's header (checks/*.h) and not the
# platform tables (platform_table.h); what it prints the audit computed before it, into the results.
report_includes() { # DIR: no .c or .h file of DIR includes checks/*.h or platform_table.h
  grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^">]*/)?(checks/[^">]*|platform_table\.h)[">]' \
    "$1"/*.c "$1"/*.h > "$T/report.includes" 2>/dev/null; [ ! -s "$T/report.includes" ]; }
check "report/ includes no checks/*.h and no platform_table.h" report_includes "$TRUELINE_ROOT/checker/report"
[ -s "$T/report.includes" ] && head -5 "$T/report.includes" | sed "s|^$TRUELINE_ROOT/||; s/^/    | /"
mkdir -p "$T/plant/report"
printf '#include "report/report.h"\n' > "$T/plant/report/clean.c"
printf '#include <stdio.h>\n' > "$T/plant/report/clean.h"
check "a report/ file that includes nothing of checks/ passes the include rule" report_includes "$T/plant/report"
caught() { ! report_includes "$T/plant/report" && grep -q "$1" "$T/report.includes"; }
printf '#include "checks/symbol_versions.h"\n' > "$T/plant/report/a.c"
check "a planted include of checks/*.h in report/ is reported" caught 'a\.c:1:'
rm "$T/plant/report/a.c"
printf '#include "platform_table.h"\n' > "$T/plant/report/b.h"
check "a planted include of platform_table.h in report/ is reported" caught 'b\.h:1:'
obj=$TRUELINE_BUILD/obj
[ -d "$obj/lib" ] && [ -d "$obj/wrapper" ] && [ -d "$obj/checker" ] || { skip "no object tree under $obj"; exit 0; }
command -v nm >/dev/null || { skip "nm absent"; exit 0; }
cycles() { python3 "$TRUELINE_ROOT/tests/lib/object_cycles.py" "$1" > "$T/cycles.out" 2>&1; }
check "no cycle between the object files of the build" cycles "$obj"
[ -s "$T/cycles.out" ] && sed 's/^/    | /' "$T/cycles.out"
# part DIR: the global symbols DIR's objects define, and those they take from outside themselves.
defined() { find "$obj/$1" -name '*.o' -print0 | xargs -0 nm -g --defined-only 2>/dev/null | awk 'NF==3{print $3}' | sort -u; }
undefined() { find "$obj/$1" -name '*.o' -print0 | xargs -0 nm -g --undefined-only 2>/dev/null | awk '{print $NF}' | sort -u; }
for p in lib wrapper checker; do defined $p > "$T/def.$p"; undefined $p > "$T/und.$p"; done
premise "each part defines symbols" sh -c "[ -s '$T/def.lib' ] && [ -s '$T/def.wrapper' ] && [ -s '$T/def.checker' ]"
takes() { comm -12 "$T/und.$1" "$T/def.$2" > "$T/takes.$1.$2"; [ ! -s "$T/takes.$1.$2" ]; }
for pair in "lib wrapper" "lib checker" "wrapper checker" "checker wrapper"; do
  set -- $pair
  check "$1/ takes no symbol from $2/" takes "$1" "$2"
  [ -s "$T/takes.$1.$2" ] && head -5 "$T/takes.$1.$2" | sed 's/^/    | /'
done
prefixed() { # PART PREFIX: every symbol PART defines starts with PREFIX (main, the hook's __libc_start_main and compiler-made __ names, such as ASan's __odr_asan.*, aside)
  grep -vE "^($2|main$|__)" "$T/def.$1" > "$T/off.$1"; [ ! -s "$T/off.$1" ]; }
check "lib/ defines only tl_ names" prefixed lib 'tl_'
check "wrapper/ defines only tlcc_ names" prefixed wrapper 'tlcc_'
check "checker/ defines only tlck_ names (cd_ for coredump internals)" prefixed checker 'tlck_|cd_'
for p in lib wrapper checker; do [ -s "$T/off.$p" ] && head -5 "$T/off.$p" | sed 's/^/    | /'; done
# The rules catch what they are for: a planted cycle and a stray name.
mkdir -p "$T/plant/a"
printf 'int b(void);\nint a(void){return b();}\n' > "$T/plant/a/a.c"
printf 'int a(void);\nint b(void){return a();}\n' > "$T/plant/a/b.c"
( cd "$T/plant/a" && cc -c a.c b.c )
check "a planted cycle between two objects is reported" sh -c "! python3 '$TRUELINE_ROOT/tests/lib/object_cycles.py' '$T/plant' >/dev/null"
printf 'tl_x\nstray\n' > "$T/def.plant"
stray_caught() { ! prefixed plant tl_ && [ "$(cat "$T/off.plant")" = stray ]; }
check "a stray name is reported" stray_caught
