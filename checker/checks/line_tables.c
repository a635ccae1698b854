/* line-tables: every defined, sized function in an executable section has line rows.
 * The host part lives in tlck_line_tables_host() so that the device part (device images' kernels) can run
 * beside it from run() below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/code_origin.h"
#include "checks/device_checks.h"
#include "checks/host_util.h"
#include "profile.h"

static const char *const HINT_G = "compile every translation unit with -g (or -g1 / -gline-tables-only), or ship "
                                  "the separate debug file next to it";
/* A stripped member of a package audited with the build profile: what ships is stripped, and the profile that
 * judges it so is named. */
static const char *const HINT_G_PACKAGE =
    "this file is a member of a package, which ships stripped: the release profile (--profile release, the default "
    "when every input is a wheel or conda package) judges it as shipped; for a build's own output, compile with -g "
    "(or -g1 / -gline-tables-only)";

static int package_member(const struct tlck_file *f)
{
    size_t n = f->path ? strlen(f->path) : 0;
    return n && f->display && strncmp(f->display, f->path, n) == 0 && f->display[n] == '!';
}

static void per_cu(const struct tlck_file *f, struct tlck_findings *out)
{
    const struct tlck_image *h = &f->host;
    for (size_t i = 0; i < h->ncus; i++) {
        const struct tlck_cu *cu = &h->cus[i];
        if (cu->funcs && cu->funcs_covered < cu->funcs)
            tlck_emit(out, "line-tables", TLCK_SEV_INFO, f->display, NULL, NULL,
                    "compile unit %s: %llu of %llu functions have line rows (%.1f%%), %llu rows",
                    cu->name ? cu->name : "?", (unsigned long long)cu->funcs_covered, (unsigned long long)cu->funcs,
                    100.0 * (double)cu->funcs_covered / (double)cu->funcs, (unsigned long long)cu->rows);
    }
}

/* Names of the functions with line rows, sorted, built when the first .cold part outside every unit asks. */
struct covered_names {
    const char **v;
    size_t n;
    int built;
};

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int has_covered(const struct tlck_image *h, struct covered_names *c, const char *name)
{
    if (!c->built) {
        c->built = 1;
        c->v = malloc((h->nfuncs ? h->nfuncs : 1) * sizeof *c->v);
        for (size_t i = 0; c->v && i < h->nfuncs; i++)
            if (h->funcs[i].has_lines)
                c->v[c->n++] = h->funcs[i].name;
        if (c->v)
            qsort(c->v, c->n, sizeof *c->v, cmp_str);
    }
    return c->v && bsearch(&name, c->v, c->n, sizeof *c->v, cmp_str) != NULL;
}

/* A GCC hot/cold split (X.cold, shown as "X [clone .cold]") is part of X: its rows, when GCC writes any, are
 * in X's unit, and X's line rows describe the function. Covered when it lies inside a compile unit or X
 * itself has rows. */
static int cold_part_of_covered(const struct tlck_image *h, struct covered_names *c, const struct tlck_function *fn)
{
    const char *dot = strstr(fn->name, ".cold");
    if (!dot || dot == fn->name)
        return 0;
    if (fn->cu_unit)
        return 1;
    char *parent = strndup(fn->name, (size_t)(dot - fn->name));
    int yes = parent && has_covered(h, c, parent);
    free(parent);
    return yes;
}

/* Why a function without rows is no finding of the user's: 0 = it is the user's. */
enum not_users { USERS = 0, CRT, COLD_PART, FOREIGN };

static enum not_users classify(const struct tlck_image *h, struct covered_names *c, const struct tlck_function *fn,
                               int release, int cxx_runtime, const struct tlck_origin **origin)
{
    *origin = NULL;
    if (tlck_is_crt_function(fn->name))
        return CRT;
    if (cold_part_of_covered(h, c, fn))
        return COLD_PART;
    if ((*origin = tlck_host_origin(fn, cxx_runtime)) || (release && (*origin = tlck_outside_units_origin(fn))))
        return FOREIGN;
    return USERS;
}

/* One finding per origin: "1281 functions of libcudart_static have no line info; NVIDIA ships it without -g". */
static void report_foreign(const struct tlck_file *f, const struct tlck_origin_tally *t, struct tlck_findings *out)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct tlck_origin *o = t->origin[i];
        /* NVIDIA's libcudart.so.13 itself: its functions are "of libcudart.so.13", not of the static archive */
        int itself = o->soname && f->soname && strncmp(f->soname, o->soname, strlen(o->soname)) == 0;
        char *ex = tlck_demangle(t->example[i]);
        tlck_emit(out, "line-tables", TLCK_SEV_INFO, f->display, NULL, NULL,
                "%zu function%s of %s %s no line info; %s (e.g. %s)", t->count[i], t->count[i] == 1 ? "" : "s",
                itself ? f->soname : o->name, t->count[i] == 1 ? "has" : "have", o->why, ex ? ex : "?");
        free(ex);
    }
}

void tlck_line_tables_host(const struct tlck_file *f, enum tlck_severity sev, int release, struct tlck_findings *out)
{
    const struct tlck_image *h = &f->host;
    size_t total = 0, covered = 0, users = 0;
    struct tlck_origin_tally foreign = { 0 };
    struct covered_names names = { 0 };
    unsigned char *why = h->nfuncs ? calloc(h->nfuncs, 1) : NULL; /* enum not_users per uncovered function */
    int cxx_runtime = tlck_defines_cxx_runtime(f);
    if (h->nfuncs && !why)
        return;
    for (size_t i = 0; i < h->nfuncs; i++) {
        const struct tlck_function *fn = &h->funcs[i];
        const struct tlck_origin *o;
        if (fn->has_lines) {
            total++, covered++;
            continue;
        }
        why[i] = (unsigned char)classify(h, &names, fn, release, cxx_runtime, &o);
        if (why[i] == CRT)
            continue;
        total++;
        covered += why[i] == COLD_PART;
        users += why[i] == USERS;
        if (why[i] == FOREIGN)
            tlck_origin_add(&foreign, o, fn->name);
    }
    if (total == 0)
        goto done;
    if (!h->has_debug_line && f->line_error) { /* sections there but damaged: say so, not "no .debug_line" */
        tlck_emit(out, "line-tables", sev, f->display, NULL, NULL,
                "the debug sections cannot be read (%s): none of its %zu functions has usable line information",
                f->line_error, total);
        goto done;
    }
    report_foreign(f, &foreign, out);
    if (!h->has_debug_line && f->split_build_id) { /* split out (--split, eu-strip -f): said once, as for devices */
        int devices_split = 0; /* then the device part says it for both, in one finding */
        for (size_t i = 0; i < f->ndevices; i++)
            devices_split |= f->devices[i].dev.lines_split && !f->devices[i].dev.line_store && f->devices[i].nfuncs;
        if (users && !f->split_store_asked) {
            if (!devices_split)
                tlck_emit(out, "line-tables", sev < TLCK_SEV_WARNING ? sev : TLCK_SEV_WARNING, f->display, NULL,
                          "pass --debug-store STORE (or [audit] debug_store, or DEBUGINFOD_URLS), or --debug-dir",
                          "line info split out; store not given: the host DWARF of its %zu functions is in a debug "
                          "file (build-id %s)", users, f->split_build_id);
        } else if (users)
            tlck_emit(out, "line-tables", sev, f->display, NULL, NULL,
                      "line info split out; the debug store has no debug file for build-id %s (%zu functions)",
                      f->split_build_id, users);
        goto done;
    }
    if (!h->has_debug_line) {
        if (users)
            tlck_emit(out, "line-tables", sev, f->display, NULL, package_member(f) ? HINT_G_PACKAGE : HINT_G,
                    "no .debug_line: none of its %zu functions has line information%s%s%s", users,
                    f->warning ? " (" : "", f->warning ? f->warning : "", f->warning ? ")" : "");
        goto done;
    }
    if (f->line_error)
        tlck_emit(out, "line-tables", TLCK_SEV_WARNING, f->display, NULL, NULL, "%s (rows before it were used)",
                f->line_error);
    /* every one of them, whatever their number: the text report shortens long lists, JSON and SARIF do not */
    for (size_t i = 0; i < h->nfuncs; i++) {
        const struct tlck_function *fn = &h->funcs[i];
        if (fn->has_lines || why[i] != USERS)
            continue;
        tlck_emit_symbol(out, "line-tables", sev, f->display, fn->name, HINT_G,
                         "function (%llu bytes at 0x%llx) has no line rows%s%s", (unsigned long long)fn->size,
                         (unsigned long long)fn->addr,
                         fn->cu ? "; its compile unit: " : "; no compile unit covers it (its object was built without -g)",
                         fn->cu ? fn->cu : "");
    }
    if (covered < total) {
        /* what is counted, said: rows of the file's own code; a tool that prints every decoded row (readelf
         * --debug-dump=decodedline) also shows the runs the linker discarded, at address 0 and after */
        char rows_said[128];
        if (f->line_rows_discarded)
            snprintf(rows_said, sizeof rows_said, "%llu line rows in its code (%llu more describe code the linker discarded)",
                     (unsigned long long)f->line_rows, (unsigned long long)f->line_rows_discarded);
        else
            snprintf(rows_said, sizeof rows_said, "%llu line rows", (unsigned long long)f->line_rows);
        tlck_emit(out, "line-tables", TLCK_SEV_INFO, f->display, NULL, NULL,
                "line coverage: %zu of %zu functions (%.1f%%), %s", covered, total,
                100.0 * (double)covered / (double)total, rows_said);
        per_cu(f, out);
    }
done:
    free(why);
    free(names.v);
}

/* A linked file without section headers loads and runs, but nothing section-based can be audited in it: said
 * always, and an error when judging what ships (a shipped file whose sections were removed cannot be audited). */
static void no_section_headers(const struct tlck_file *f, int release, enum tlck_severity sev, struct tlck_findings *out)
{
    if (release && sev != TLCK_SEV_NONE)
        sev = TLCK_SEV_ERROR;
    tlck_emit(out, "line-tables", sev, f->display, NULL,
              "audit the file as it was linked, before its section header table was removed; strip debug sections "
              "with strip or --split instead, which keep the table",
              "no section headers (the section header table is missing or zeroed): line info, DWARF and the "
              ".note.trueline record cannot be checked; its %zu dynamic symbol%s and %zu needed librar%s were read "
              "from the dynamic segment, as the loader reads them", f->ndynsyms, f->ndynsyms == 1 ? "" : "s",
              f->nneeded, f->nneeded == 1 ? "y" : "ies");
}

/* Section headers that hide a table the loader uses (a changed type) were edited to mislead a reader. */
static void sections_hide(const struct tlck_file *f, int release, enum tlck_severity sev, struct tlck_findings *out)
{
    if (release && sev != TLCK_SEV_NONE)
        sev = TLCK_SEV_ERROR;
    tlck_emit(out, "line-tables", sev, f->display, NULL,
              "audit the file as it was linked; a section header table edited after the link cannot be trusted",
              "the section headers do not describe the dynamic segment (%s): its %zu dynamic symbol%s and %zu "
              "needed librar%s were read from the dynamic segment, as the loader reads them", f->sections_hide,
              f->ndynsyms, f->ndynsyms == 1 ? "" : "s", f->nneeded, f->nneeded == 1 ? "y" : "ies");
}

static void run(const struct tlck_file *f, const struct tlck_policy *p, const void *state, enum tlck_severity sev,
                struct tlck_findings *out)
{
    if (f->no_section_headers)
        no_section_headers(f, tlck_profile_of(p)->release, sev, out);
    else if (f->sections_hide)
        sections_hide(f, tlck_profile_of(p)->release, sev, out);
    /* the release profile audits shipped files, which are stripped: host line info is judged where it is */
    if (tlck_profile_of(p)->stripped_is_finding || f->host.has_debug_line || f->line_error || f->debug_file)
        tlck_line_tables_host(f, sev, tlck_profile_of(p)->release, out);
    if (tlck_profile_wants_device_lines(p))
        tlck_line_tables_device(f, sev, out);
}

const struct tlck_check tlck_check_line_tables = {
    .id = "line-tables",
    .default_severity = TLCK_SEV_ERROR,
    .summary = "host+device line coverage",
    .help_uri = "docs/checks/line-tables.md",
    .run = run,
};
