#include <stdio.h>
#include <unistd.h>

#include <stdlib.h>

#include "report/package_report.h"
#include "report/package_summary.h"
#include "report/report.h"

int tlck_report_text(FILE *out, const struct tlck_results *r, const struct tlck_options *o)
{
    int color = o->color < 0 ? isatty(fileno(out)) : o->color;
    const char *red = color ? "\033[31m" : "", *yel = color ? "\033[33m" : "", *off = color ? "\033[0m" : "";
    for (size_t i = 0; i < r->nfiles; i++) {
        const struct tlck_file *f = &r->files[i];
        if (f->error) {
            fprintf(out, "%s: %serror%s: cannot read: %s\n", f->display, red, off, f->error);
            continue;
        }
        const struct tlck_findings *fs = &r->findings[i];
        for (size_t k = 0; k < fs->n; k++) {
            const struct tlck_finding *x = &fs->v[k];
            const char *c = x->severity == TLCK_SEV_ERROR ? red : x->severity == TLCK_SEV_WARNING ? yel : "";
            fprintf(out, "%s: %s%s%s [%s]%s %s%s%s\n", x->file, c, tlck_severity_name(x->severity), off, x->check,
                    x->suppressed ? " (suppressed)" : "", x->symbol ? x->symbol : "", x->symbol ? ": " : "",
                    x->message ? x->message : "");
            if (x->hint)
                fprintf(out, "    hint: %s\n", x->hint);
        }
    }
    size_t npkg;
    struct tlck_package_summary *pkg = tlck_package_summaries(r, &npkg);
    for (size_t i = 0; i < npkg; i++) {
        const struct tlck_package_summary *s = &pkg[i];
        fprintf(out, "package %s: %zu file(s) audited, %zu unreadable", s->path, s->n - s->unreadable, s->unreadable);
        if (s->runs_on)
            fprintf(out, "; symbol versions allow %s and newer", s->runs_on);
        if (s->claimed[0])
            fprintf(out, "; the file name claims %s", s->claimed);
        fputc('\n', out);
        tlck_package_text_block(out, r, s);
    }
    tlck_package_text_table(out, r, pkg, npkg);
    free(pkg);
    fprintf(out, "%zu file(s) checked: %zu error(s), %zu warning(s), %zu info, %zu suppressed, %zu unreadable",
            r->nfiles, r->counts[TLCK_SEV_ERROR], r->counts[TLCK_SEV_WARNING], r->counts[TLCK_SEV_INFO], r->suppressed,
            r->unreadable);
    if (r->skipped_probes)
        fprintf(out, "; skipped %zu CMake compiler-probe file%s", r->skipped_probes, r->skipped_probes == 1 ? "" : "s");
    if (r->skipped_links)
        fprintf(out, "; did not follow %zu link%s to directories (--follow-symlinks)", r->skipped_links,
                r->skipped_links == 1 ? "" : "s");
    fputc('\n', out);
    return 0;
}
