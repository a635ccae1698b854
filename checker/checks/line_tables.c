/* line-tables: every defined, sized function in an executable section has line rows.
 * The host part lives in tl_line_tables_host() so that the device part (device images' kernels) can run
 * beside it from run() below. */
#include <stdlib.h>
#include <string.h>

#include "checks/device_checks.h"
#include "checks/host_util.h"

#define MAX_LISTED 100 /* uncovered functions reported one by one per file; the rest are counted */

static const char *const HINT_G = "compile every translation unit with -g (or -g1 / -gline-tables-only), or ship "
                                  "the separate debug file next to it";

static void per_cu(const struct tl_file *f, struct tl_findings *out)
{
    const struct tl_image *h = &f->host;
    for (size_t i = 0; i < h->ncus; i++) {
        const struct tl_cu *cu = &h->cus[i];
        if (cu->funcs && cu->funcs_covered < cu->funcs)
            tl_emit(out, "line-tables", TL_SEV_INFO, f->display, NULL, NULL,
                    "compile unit %s: %llu of %llu functions have line rows (%.1f%%), %llu rows",
                    cu->name ? cu->name : "?", (unsigned long long)cu->funcs_covered, (unsigned long long)cu->funcs,
                    100.0 * (double)cu->funcs_covered / (double)cu->funcs, (unsigned long long)cu->rows);
    }
}

void tl_line_tables_host(const struct tl_file *f, enum tl_severity sev, struct tl_findings *out)
{
    const struct tl_image *h = &f->host;
    size_t total = 0, covered = 0, listed = 0;
    for (size_t i = 0; i < h->nfuncs; i++)
        if (!tl_is_crt_function(h->funcs[i].name)) {
            total++;
            covered += h->funcs[i].has_lines;
        }
    if (total == 0)
        return;
    if (!h->has_debug_line && f->line_error) { /* sections there but damaged: say so, not "no .debug_line" */
        tl_emit(out, "line-tables", sev, f->display, NULL, NULL,
                "the debug sections cannot be read (%s): none of its %zu functions has usable line information",
                f->line_error, total);
        return;
    }
    if (!h->has_debug_line) {
        tl_emit(out, "line-tables", sev, f->display, NULL, HINT_G,
                "no .debug_line: none of its %zu functions has line information%s%s%s", total,
                f->warning ? " (" : "", f->warning ? f->warning : "", f->warning ? ")" : "");
        return;
    }
    if (f->line_error)
        tl_emit(out, "line-tables", TL_SEV_WARNING, f->display, NULL, NULL, "%s (rows before it were used)",
                f->line_error);
    for (size_t i = 0; i < h->nfuncs; i++) {
        const struct tl_function *fn = &h->funcs[i];
        if (fn->has_lines || tl_is_crt_function(fn->name))
            continue;
        if (listed++ >= MAX_LISTED)
            continue;
        char *d = tl_demangle(fn->name);
        tl_emit(out, "line-tables", sev, f->display, d, HINT_G, "function (%llu bytes at 0x%llx) has no line rows%s%s",
                (unsigned long long)fn->size, (unsigned long long)fn->addr, fn->cu ? "; its compile unit: " : "",
                fn->cu ? fn->cu : "");
        free(d);
    }
    if (listed > MAX_LISTED)
        tl_emit(out, "line-tables", sev, f->display, NULL, HINT_G, "... and %zu more functions without line rows",
                listed - MAX_LISTED);
    if (covered < total) {
        tl_emit(out, "line-tables", TL_SEV_INFO, f->display, NULL, NULL,
                "line coverage: %zu of %zu functions (%.1f%%), %llu line rows", covered, total,
                100.0 * (double)covered / (double)total, (unsigned long long)f->line_rows);
        per_cu(f, out);
    }
}

static void run(const struct tl_file *f, const struct tl_policy *p, enum tl_severity sev, struct tl_findings *out)
{
    (void)p;
    tl_line_tables_host(f, sev, out);
    tl_line_tables_device(f, sev, out);
}

const struct tl_check tl_check_line_tables = {
    .id = "line-tables",
    .default_severity = TL_SEV_ERROR,
    .summary = "host+device line coverage",
    .help_uri = "docs/checks/line-tables.md",
    .run = run,
};
