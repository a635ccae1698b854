/* --coredump CORE... [--binary FILE]... [--source-dir DIR] [--format json]: from a CUDA GPU coredump to the
 * faulting (or, for a user-triggered dump, every) warp's kernel + offset and source line with its inline chain.
 * A core that cannot be read is reported (file and reason) with exit status 2; the other cores are still read. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/formats.h"
#include "tools/coredump/coredump_report.h"

#define TLCK_STR_(x) #x
#define TLCK_STR(x) TLCK_STR_(x)
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
            s->stack_end = tlck_asprintf("the next return address, 0x%" PRIx64 ", lies in no device image of the core: "
                                       "the dump's call-return state ends the stack here", cw->pc);
        else if (cw->offset == 0)
            s->stack_end = tlck_asprintf("the next return address, 0x%" PRIx64 ", is the first instruction of %s, which "
                                       "no call returns to: the dump's call-return state ends the stack here",
                                       cw->pc, cw->name ? cw->name : "a function");
        if (s->stack_end) {
            s->ntrusted = k;
            return;
        }
    }
    if (s->ncallers_dump > s->ncallers)
        s->stack_end = tlck_asprintf("cut after frame #%zu: the dump holds %zu return addresses, the first %zu are "
                                   "shown (a device stack this deep is more likely a corrupt row count)", s->ncallers,
                                   s->ncallers_dump, s->ncallers);
}

static void resolve_lines(struct cd_images *im, const struct tlck_options *o, struct cd_where *w, size_t *lookups)
{
    if (!w->found)
        return;
    if (++*lookups <= CD_MAX_LINE_LOOKUPS) {
        cd_resolve_lines(im, o, w);
        return;
    }
    free(w->line_note);
    w->line_note = strdup("not looked up: more than " TLCK_STR(CD_MAX_LINE_LOOKUPS) " distinct PCs in this core");
}

/* What --coredump reads of one core, then prints (detail) or sums up (several cores). */
struct loaded {
    struct tlck_core c;
    struct cd_report r;
    struct cd_images *im;
    struct cd_graphs *graphs;  /* the images' call graphs, for inferred callers */
};

/* Opens the core and resolves every stop; -1 with err (the caller names the file). */
static int load_core(struct loaded *L, const char *path, const struct tlck_options *o, tl_error *err)
{
    memset(L, 0, sizeof *L);
    if (tlck_core_open(&L->c, path, err) != 0)
        return -1;
    L->r = (struct cd_report){ .path = path, .core = &L->c };
    L->im = cd_images_new(&L->c);
    L->graphs = cd_graphs_new();
    if (!L->im || !L->graphs)
        return tl_fail(err, "out of memory");
    if (cd_collect_stops(&L->r, err) != 0)
        return -1;
    size_t lookups = 0;
    for (size_t i = 0; i < L->r.nstops; i++) {
        struct cd_stop *s = &L->r.stops[i];
        cd_resolve_where(L->im, &L->c, s, s->pc, &s->where);
        resolve_lines(L->im, o, &s->where, &lookups);
        for (size_t k = 0; k < s->ncallers; k++) {
            /* A return address: kernel + offset as is, the line of the call just before it. */
            s->caller_where[k].line_bias = 1;
            cd_resolve_where(L->im, &L->c, s, s->callers[k].return_va, &s->caller_where[k]);
            if (k && s->callers[k].return_va == s->callers[k - 1].return_va)
                cd_lines_copy(&s->caller_where[k], &s->caller_where[k - 1]); /* recursion: one lookup */
            else
                resolve_lines(L->im, o, &s->caller_where[k], &lookups);
        }
        trust_callers(s);
        if (s->kind == CD_STOP_TRAP && (s->trap_insn = cd_trap_insn(L->im, &s->where, s->pc)) != NULL)
            s->trap_pc = s->pc - 16;
        cd_infer_callers(L->im, L->graphs, &L->c, s);
        for (size_t k = 0; k < s->ninferred; k++)
            resolve_lines(L->im, o, &s->inferred[k].where, &lookups);
    }
    return 0;
}

static void unload_core(struct loaded *L)
{
    cd_report_free(&L->r);
    cd_graphs_free(L->graphs); /* points into the images */
    cd_images_free(L->im);
    tlck_core_close(&L->c);
}

/* jw: the JSON writer (its "cores" array open), NULL for text. summary: filled when non-NULL (several cores). */
static int one_core(FILE *out, struct tlck_jw *jw, const char *path, const struct tlck_options *o, int first,
                    struct cd_summary *summary)
{
    struct loaded L;
    tl_error err;
    int rc = load_core(&L, path, o, &err);
    if (rc != 0) {
        tl_report_error("trueline-check", path, "%s", err.msg);
        if (summary)
            summary->path = strdup(path);
    } else if (summary)
        cd_summarize(&L.r, summary);
    else {
        if (!jw && !first)
            fputc('\n', out);
        rc = jw ? cd_emit_json(jw, &L.r, o) : cd_emit_text(out, &L.r, o);
    }
    unload_core(&L);
    return rc == 0 ? TL_EXIT_OK : TL_EXIT_BAD_INPUT;
}

int tlck_tool_coredump(const struct tlck_options *o)
{
    int json = tlck_tool_output(o) == TLCK_TOOL_JSON; /* text or json: main.c checked it */
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
    struct tlck_jw jw;
    tlck_jw_init(&jw, out, 1);
    if (json) {
        tlck_jw_object(&jw, NULL);
        tlck_jw_str(&jw, "schema", "trueline-coredump-report");
        tlck_jw_uint(&jw, "schema_version", 1);
        tlck_jw_object(&jw, "tool");
        tlck_jw_str(&jw, "name", "trueline-check");
        tlck_jw_str(&jw, "version", TRUELINE_VERSION);
        tlck_jw_end(&jw);
    }
    struct cd_cores cores = { 0 };
    if (cd_cores_expand(&cores, o->inputs, o->ninputs) != 0)
        rc = TL_EXIT_BAD_INPUT; /* named there; the cores found are still read */
    /* Several cores (one per rank of a tensor-parallel job): the table of their states first, then the detail
     * of each core that is not in the most common state (JSON: the groups, then every core). */
    struct cd_summary *sum = cores.n > 1 ? calloc(cores.n, sizeof *sum) : NULL;
    if (sum) {
        for (size_t i = 0; i < cores.n; i++)
            if (one_core(out, NULL, cores.v[i], o, 0, &sum[i]) != TL_EXIT_OK)
                rc = TL_EXIT_BAD_INPUT;
        if (!json)
            cd_emit_summary_text(out, sum, cores.n);
    }
    if (json) {
        if (sum)
            cd_emit_summary_json(&jw, sum, cores.n);
        tlck_jw_array(&jw, "cores");
    }
    for (size_t i = 0; i < cores.n; i++) {
        if (sum && (!sum[i].ok || (!json && !sum[i].odd)))
            continue; /* text: only the odd ones in detail; an unreadable core was named already */
        int r = one_core(out, json ? &jw : NULL, cores.v[i], o, !printed && !sum, NULL);
        if (r == TL_EXIT_OK)
            printed = 1;
        else
            rc = r;
    }
    if (json) {
        tlck_jw_end(&jw);
        tlck_jw_end(&jw);
        fputc('\n', out);
    }
    for (size_t i = 0; sum && i < cores.n; i++)
        cd_summary_free(&sum[i]);
    free(sum);
    cd_cores_free(&cores);
    if (out != stdout && fclose(out) != 0) {
        tl_report_error("trueline-check", o->output, "cannot write the report");
        rc = TL_EXIT_BAD_INPUT;
    }
    return rc;
}
