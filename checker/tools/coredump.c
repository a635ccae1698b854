/* --coredump CORE... [--binary FILE]... [--source-dir DIR] [--format json]: from a CUDA GPU coredump to the
 * faulting (or, for a user-triggered dump, every) warp's kernel + offset and source line with its inline chain.
 * A core that cannot be read is reported (file and reason) with exit status 2; the other cores are still read. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tools/coredump_report.h"

#define TL_STR_(x) #x
#define TL_STR(x) TL_STR_(x)
#include "tools/tools.h"

/* Frames are only what the dump supports. A return address follows a call instruction, so it lies inside a
 * function of a loaded image and never at a function's first instruction; the first one that does not ends
 * the shown stack, with the reason, instead of being printed as a frame (a trap such as a device assert can
 * leave stale call-return state for some lanes: cuda-gdb then prints addresses such as 0x7f08 as frames). */
static void trust_callers(struct cd_stop *s)
{
    s->ntrusted = s->ncallers;
    for (size_t k = 0; k < s->ncallers; k++) {
        const struct cd_where *cw = &s->caller_where[k];
        if (!cw->found)
            s->stack_end = tl_asprintf("the next return address, 0x%" PRIx64 ", lies in no device image of the core: "
                                       "the dump's call-return state ends the stack here", cw->pc);
        else if (cw->offset == 0)
            s->stack_end = tl_asprintf("the next return address, 0x%" PRIx64 ", is the first instruction of %s, which "
                                       "no call returns to: the dump's call-return state ends the stack here",
                                       cw->pc, cw->name ? cw->name : "a function");
        if (s->stack_end) {
            s->ntrusted = k;
            return;
        }
    }
}

static void resolve_lines(struct cd_images *im, const struct tl_options *o, struct cd_where *w, size_t *lookups)
{
    if (!w->found)
        return;
    if (++*lookups <= CD_MAX_LINE_LOOKUPS) {
        cd_resolve_lines(im, o, w);
        return;
    }
    free(w->line_note);
    w->line_note = strdup("not looked up: more than " TL_STR(CD_MAX_LINE_LOOKUPS) " distinct PCs in this core");
}

/* jw: the JSON writer (its "cores" array open), NULL for text. */
static int one_core(FILE *out, struct tl_jw *jw, const char *path, const struct tl_options *o, int first)
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
    size_t lookups = 0;
    for (size_t i = 0; rc == 0 && i < r.nstops; i++) {
        struct cd_stop *s = &r.stops[i];
        cd_resolve_where(im, &c, s, s->pc, &s->where);
        resolve_lines(im, o, &s->where, &lookups);
        for (size_t k = 0; k < s->ncallers; k++) {
            /* A return address: kernel + offset as is, the line of the call just before it. */
            s->caller_where[k].line_bias = 1;
            cd_resolve_where(im, &c, s, s->callers[k].return_va, &s->caller_where[k]);
            resolve_lines(im, o, &s->caller_where[k], &lookups);
        }
        trust_callers(s);
    }
    if (rc == 0) {
        if (!jw && !first)
            fputc('\n', out);
        rc = jw ? cd_emit_json(jw, &r, o) : cd_emit_text(out, &r, o);
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
    int json = strcmp(o->format, "json") == 0; /* text or json: main.c checked it */
    FILE *out = o->output ? fopen(o->output, "w") : stdout;
    if (!out) {
        tl_report_error("trueline-check", o->output, "cannot write the report");
        return TL_EXIT_BAD_INPUT;
    }
    int rc = TL_EXIT_OK, printed = 0;
    /* --binary is read only for kernels without line info in the core: check now, so a typo is not silent. */
    for (size_t i = 0; i < o->nbinaries; i++)
        if (access(o->binaries[i], R_OK) != 0) {
            tl_report_error("trueline-check", o->binaries[i], "--binary: cannot read: %s", strerror(errno));
            rc = TL_EXIT_BAD_INPUT;
        }
    struct tl_jw jw;
    tl_jw_init(&jw, out, 1);
    if (json) {
        tl_jw_object(&jw, NULL);
        tl_jw_str(&jw, "schema", "trueline-coredump-report");
        tl_jw_uint(&jw, "schema_version", 1);
        tl_jw_object(&jw, "tool");
        tl_jw_str(&jw, "name", "trueline-check");
        tl_jw_str(&jw, "version", TRUELINE_VERSION);
        tl_jw_end(&jw);
        tl_jw_array(&jw, "cores");
    }
    for (size_t i = 0; i < o->ninputs; i++) {
        int r = one_core(out, json ? &jw : NULL, o->inputs[i], o, !printed);
        if (r == TL_EXIT_OK)
            printed = 1;
        else
            rc = r;
    }
    if (json) {
        tl_jw_end(&jw);
        tl_jw_end(&jw);
        fputc('\n', out);
    }
    if (out != stdout && fclose(out) != 0) {
        tl_report_error("trueline-check", o->output, "cannot write the report");
        rc = TL_EXIT_BAD_INPUT;
    }
    return rc;
}
