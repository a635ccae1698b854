/* --coredump CORE... [--binary FILE]... [--source-dir DIR] [--format json]: from a CUDA GPU coredump to the
 * faulting (or, for a user-triggered dump, every) warp's kernel + offset and source line with its inline chain.
 * A core that cannot be read is reported (file and reason) with exit status 2; the other cores are still read. */
#include <stdio.h>
#include <string.h>

#include "tools/coredump_report.h"
#include "tools/tools.h"

static int one_core(FILE *out, const char *path, const struct tl_options *o, int json, int first)
{
    struct tl_core c;
    tl_error err;
    if (tl_core_open(&c, path, &err) != 0) {
        tl_report_error("trueline-check", path, "%s", err.msg);
        tl_core_close(&c);
        return TL_EXIT_BAD_INPUT;
    }
    struct cd_report r = { .path = path, .core = &c };
    struct cd_images *im = cd_images_new(&c);
    int rc = im && cd_collect_stops(&r, &err) == 0 ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < r.nstops; i++) {
        cd_resolve_where(im, &c, &r.stops[i], &r.stops[i].where);
        cd_resolve_lines(im, o, &r.stops[i].where);
    }
    if (rc == 0) {
        if (json && !first)
            fputc(',', out);
        else if (!json && !first)
            fputc('\n', out);
        rc = json ? cd_emit_json(out, &r, o) : cd_emit_text(out, &r, o);
    } else {
        tl_report_error("trueline-check", path, "%s", im ? err.msg : "out of memory");
    }
    cd_report_free(&r);
    cd_images_free(im);
    tl_core_close(&c);
    return rc == 0 ? TL_EXIT_OK : TL_EXIT_BAD_INPUT;
}

int tl_tool_coredump(const struct tl_options *o)
{
    int json = strcmp(o->format, "json") == 0;
    if (!json && strcmp(o->format, "text") != 0) {
        fprintf(stderr, "trueline-check: --coredump writes text or json, not '%s'\n", o->format);
        return TL_EXIT_BAD_INPUT;
    }
    FILE *out = o->output ? fopen(o->output, "w") : stdout;
    if (!out) {
        tl_report_error("trueline-check", o->output, "cannot write the report");
        return TL_EXIT_BAD_INPUT;
    }
    int rc = TL_EXIT_OK, printed = 0;
    if (json)
        fputs("{\"cores\":[", out);
    for (size_t i = 0; i < o->ninputs; i++) {
        int r = one_core(out, o->inputs[i], o, json, !printed);
        if (r == TL_EXIT_OK)
            printed = 1;
        else
            rc = r;
    }
    if (json)
        fputs("]}\n", out);
    if (out != stdout && fclose(out) != 0) {
        tl_report_error("trueline-check", o->output, "cannot write the report");
        rc = TL_EXIT_BAD_INPUT;
    }
    return rc;
}
