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
# Only the objects of sources that exist: a build tree that predates a file's move keeps its old object, which no
# link uses and which would otherwise be read as part of the old folder.
live=$T/live-obj
(cd "$obj" && find . -name '*.o') | while read -r o; do
  o=${o#./}; [ -f "$TRUELINE_ROOT/${o%.o}.c" ] || continue
  mkdir -p "$live/$(dirname "$o")" && { ln "$obj/$o" "$live/$o" 2>/dev/null || cp "$obj/$o" "$live/$o"; }
done
obj=$live
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

# trueline-cc keeps one run in its context (wrapper/context.h, made in main.c): its objects read the environment
# only through the snapshot (wrapper/env_snapshot.c, one pass over environ), never with getenv, and keep no
# mutable file-scope state (.bss, .data, thread-local; .data.rel.ro is tables the loader relocates, read-only
# after). Each exception is named with its reason. (wrapper/hook/ is the library preloaded into ccache: not here.)
state_allowed='process.o:(child_pid|fwd_old|handlers_installed)' # the signal forwarding: a handler reaches them
# written by the vfork child before it execs (a static local: gcc names it exec_errno.N, clang spawn.exec_errno)
state_allowed="$state_allowed|process.o:(spawn\.)?exec_errno(\.[0-9]+)?"
getenv_users() { # DIR: the objects under DIR (its phase folders too) that call getenv or secure_getenv
  local o
  for o in $(find "$1" -name '*.o' | sort); do nm -u "$o" 2>/dev/null | grep -qwE 'getenv|secure_getenv' && basename "$o"; done
  return 0; }
run_state() { # DIR: "OBJECT:SYMBOL" for each symbol in a writable data section of the objects under DIR
  local o
  for o in $(find "$1" -name '*.o' | sort); do
    nm -f sysv "$o" 2>/dev/null | awk -F'|' -v f="$(basename "$o")" '{ gsub(/ /, "", $1); gsub(/ /, "", $3); gsub(/ /, "", $7) }
      $3 ~ /^[bBdD]$/ && $7 ~ /^\.(bss|data|tbss|tdata)/ && $7 !~ /^\.data\.rel\.ro/ && $1 !~ /^(__|\.)/ { print f ":" $1 }'
  done; }
no_getenv() { getenv_users "$1" > "$T/getenv.out"; [ ! -s "$T/getenv.out" ]; }
no_state() { run_state "$1" | grep -vxE "$state_allowed" > "$T/state.out"; [ ! -s "$T/state.out" ]; }
check "wrapper/ reads the environment only through its snapshot (no getenv)" no_getenv "$obj/wrapper"
[ -s "$T/getenv.out" ] && sed 's/^/    | /' "$T/getenv.out"
check "wrapper/ keeps no run state in file-scope variables" no_state "$obj/wrapper"
[ -s "$T/state.out" ] && sed 's/^/    | /' "$T/state.out"
# ... and catch what they are for: a planted getenv, a planted cache in a static and a planted table in .data.
mkdir -p "$T/plant/w"
printf '#include <stdlib.h>\nconst char *w_home(void){return getenv("HOME");}\n' > "$T/plant/w/env.c"
printf 'static int cache_n;\nint w_next(void){return ++cache_n;}\n' > "$T/plant/w/bss.c"
printf 'int w_tab[2] = { 1, 2 };\nstatic const char *const w_names[] = { "a", "b", 0 };\nconst char *w_name(int i){return w_names[i];}\n' > "$T/plant/w/data.c"
( cd "$T/plant/w" && cc -O2 -c env.c bss.c data.c )
planted_getenv() { [ "$(getenv_users "$T/plant/w" | tr '\n' ' ')" = "env.o " ]; }
check "a planted getenv is reported" planted_getenv
planted_state() { [ "$(run_state "$T/plant/w" | sort | tr '\n' ' ')" = "bss.o:cache_n data.o:w_tab " ]; }
check "planted file-scope state is reported, a constant table is not" planted_state

# The folders show the phases of a run, and each phase reaches only what comes before it (read off the objects
# of each folder, not its subfolders): trueline-cc understands the command line (understand/), fingerprints the
# toolchain (fingerprint/), runs the compile (run/) and records provenance around it (provenance/); the hook is
# the library preloaded into ccache. In trueline-check, read/ is the bottom, checks/ analyse, report/ renders,
# tools/ are the modes and tools/coredump/ the parts of one of them. What a rule cannot forbid (the tree does
# it) is in docs/internals/architecture.md.
folder_defined() { find "$1" -maxdepth 1 -name '*.o' -print0 | xargs -0 -r nm -g --defined-only 2>/dev/null | awk 'NF==3{print $3}' | sort -u; }
folder_takes() { # FROM TO [OBJ...]: the symbols FROM's objects take from TO's objects other than OBJ...
  local from=$1 to=$2 o; shift 2
  find "$from" -maxdepth 1 -name '*.o' -print0 | xargs -0 -r nm -g --undefined-only 2>/dev/null | awk '{print $NF}' | sort -u > "$T/ft.und"
  for o in $(find "$to" -maxdepth 1 -name '*.o' | sort); do
    case " $* " in *" $(basename "$o") "*) continue ;; esac
    nm -g --defined-only "$o" 2>/dev/null | awk 'NF==3{print $3}'
  done | sort -u > "$T/ft.def"
  comm -12 "$T/ft.und" "$T/ft.def"; }
takes_nothing() { # FROM TO [OBJ...]
  folder_takes "$@" > "$T/ft.out"; [ ! -s "$T/ft.out" ]; }
hook=$TRUELINE_BUILD/obj-hook/wrapper
folder_rules=(
  "wrapper/understand wrapper/run"
  "wrapper/understand wrapper/provenance"
  "wrapper/fingerprint wrapper/run"
  "wrapper/fingerprint wrapper/provenance"
  "wrapper/provenance wrapper/run process.o"
  "checker/read checker/checks"
  "checker/read checker/report"
  "checker/read checker/tools"
  "checker/checks checker/report"
  "checker/checks checker/tools"
  "checker/report checker/checks"
  "checker/report checker/tools"
  "checker/tools/coredump checker/checks"
  "checker/tools/coredump checker/tools"
)
for rule in "${folder_rules[@]}"; do
  set -- $rule; from=$1 to=$2; shift 2
  [ -d "$obj/$from" ] && [ -d "$obj/$to" ] || { skip "$from/ or $to/ has no objects under $obj"; continue; }
  check "$from/ takes no symbol from $to/${1:+ (but $*)}" takes_nothing "$obj/$from" "$obj/$to" "$@"
  [ -s "$T/ft.out" ] && head -5 "$T/ft.out" | sed 's/^/    | /'
done
# The hook takes from the rest of the wrapper only the two objects linked into it, and they take nothing more.
if [ -d "$hook/hook" ]; then
  for to in understand fingerprint run; do
    check "wrapper/hook/ takes no symbol from wrapper/$to/" takes_nothing "$hook/hook" "$obj/wrapper/$to"
  done
  check "wrapper/hook/ takes from wrapper/provenance/ only record_check.o and prov_stats.o" \
    takes_nothing "$hook/hook" "$obj/wrapper/provenance" record_check.o prov_stats.o
  check "wrapper/hook/ takes no symbol from wrapper/ (main, context)" takes_nothing "$hook/hook" "$obj/wrapper"
  hook_parts_alone() { find "$hook/provenance" -name '*.o' -print0 | xargs -0 nm -u | grep -q 'tlcc_' && return 1; return 0; }
  check "the provenance objects linked into the hook take no tlcc_ symbol" hook_parts_alone
else
  skip "no hook objects under $hook"
fi
# ... and catch what they are for: a planted call from understand/ into run/, and one into an excepted object.
mkdir -p "$T/plant/f/understand" "$T/plant/f/run"
printf 'int tlcc_plan_x(void);\nint tlcc_u(void){return tlcc_plan_x();}\n' > "$T/plant/f/understand/u.c"
printf 'int tlcc_plan_x(void){return 1;}\n' > "$T/plant/f/run/plan.c"
printf 'int tlcc_spawn_x(void){return 2;}\n' > "$T/plant/f/run/process.c"
( cd "$T/plant/f/understand" && cc -c u.c ) && ( cd "$T/plant/f/run" && cc -c plan.c process.c )
planted_phase() { ! takes_nothing "$T/plant/f/understand" "$T/plant/f/run" && [ "$(cat "$T/ft.out")" = tlcc_plan_x ]; }
check "a planted call from understand/ into run/ is reported" planted_phase
check "a call into an object the rule excepts is not reported" takes_nothing "$T/plant/f/understand" "$T/plant/f/run" plan.o
planted_excepted() { ! takes_nothing "$T/plant/f/understand" "$T/plant/f/run" process.o; }
check "an exception names one object, not the folder" planted_excepted
