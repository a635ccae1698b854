/* --coredump text output: one block per PC group, the faulting PC first. */
#include <inttypes.h>
#include <string.h>

#include "tools/coredump/coredump_report.h"

#define MAX_MEMBERS_SHOWN 8

/* "0-15,20,22-31" */
static void lane_ranges(uint32_t mask, char *buf, size_t n)
{
    size_t at = 0;
    buf[0] = 0;
    for (int i = 0; i < 32 && at < n; i++) {
        if (!(mask >> i & 1u))
            continue;
        int j = i;
        while (j + 1 < 32 && (mask >> (j + 1) & 1u))
            j++;
        at += (size_t)snprintf(buf + at, n - at, j > i ? "%s%d-%d" : "%s%d", at ? "," : "", i, j);
        i = j;
    }
}

/* CUDBGCbuThreadState (cudadebugger.h, r575+); only the states worth a word are named. */
static void cbu_text(uint32_t s, char *buf, size_t n)
{
    buf[0] = 0;
    if (s >= 9 && s != UINT32_MAX)
        snprintf(buf, n, ", blocked on convergence barrier B%u", s - 9);
    else if (s >= 2 && s <= 8) {
        static const char *const t[] = { "", "", "yielded", "sleeping", "sleeping (yield)", "ready at next",
                                         "blocked (plus)", "blocked (all)", "blocked (collective)" };
        snprintf(buf, n, ", %s", t[s]);
    }
}

static void print_member(FILE *out, const struct cd_member *m, size_t ncallers)
{
    if (m->warp_id == UINT32_MAX) {
        fprintf(out, "device %u sm %u (the faulting warp has exited)\n", m->dev, m->sm_id);
        return;
    }
    char lanes[160], cbu[80];
    lane_ranges(m->lanes, lanes, sizeof lanes);
    cbu_text(m->cbu_state, cbu, sizeof cbu);
    const char *act = m->active == m->lanes ? "" : m->active ? ", partly active" : ", inactive";
    fprintf(out, "device %u sm %u cta %u blockIdx (%u,%u,%u) warp %u lanes %s threadIdx (%u,%u,%u)", m->dev,
            m->sm_id, m->cta, m->block[0], m->block[1], m->block[2], m->warp_id, lanes, m->first_thread[0],
            m->first_thread[1], m->first_thread[2]);
    if (m->lanes & (m->lanes - 1))
        fprintf(out, "..(%u,%u,%u)", m->last_thread[0], m->last_thread[1], m->last_thread[2]);
    fprintf(out, "%s%s", act, cbu);
    if (m->call_depth)
        fprintf(out, ", %u non-inlined call%s deep%s", m->call_depth, m->call_depth == 1 ? "" : "s",
                ncallers ? "" : " (the core has no backtrace rows for it: callers not shown)");
    fputc('\n', out);
}

/* Frames numbered from *no on (callers continue the numbering of the frames they called); tag marks each
 * frame ("(inferred) "), or is "". */
static void print_lines(FILE *out, const struct cd_where *w, size_t *no, const char *tag)
{
    if (!w->nframes) {
        fprintf(out, "  line:    none: %s\n", w->line_note ? w->line_note : "no line info");
        return;
    }
    for (size_t i = 0; i < w->nframes; i++) {
        const struct cd_frame *f = &w->frames[i];
        fprintf(out, "  %s#%zu %s%s:%u", i == 0 ? "line:    " : "         ", (*no)++, tag, f->file ? f->file : "?",
                f->line);
        if (f->function)
            fprintf(out, " in %s", f->function);
        if (i + 1 < w->nframes)
            fputs("  (inlined)", out);
        fputc('\n', out);
        if (f->source)
            fprintf(out, "            %6u | %s\n", f->line, f->source);
    }
    if (w->line_origin && strcmp(w->line_origin, "core") != 0)
        fprintf(out, "           (line info from %s: the image in the core has none)\n", w->line_origin);
}

/* A caller repeated run times: its frames once, numbered for the whole run ("#1..#100" for a frame with no
 * inline chain). */
static void print_run(FILE *out, const struct cd_where *w, size_t *no, size_t run)
{
    if (run == 1 || w->nframes != 1) {
        size_t first = *no;
        print_lines(out, w, no, "");
        *no = first + (*no - first) * run;
        return;
    }
    const struct cd_frame *f = &w->frames[0];
    fprintf(out, "  line:    #%zu..#%zu %s:%u", *no, *no + run - 1, f->file ? f->file : "?", f->line);
    if (f->function)
        fprintf(out, " in %s", f->function);
    fputc('\n', out);
    if (f->source)
        fprintf(out, "            %6u | %s\n", f->line, f->source);
    *no += run;
}

/* The callers implied by the image's calls: numbered on from the shown stack, the candidates of one depth
 * under one number. */
static void print_inferred(FILE *out, const struct cd_stop *s, size_t no)
{
    if (s->ninferred)
        fputs("  inferred from the image's call instructions (these callers are not in the dump):\n", out);
    size_t start = no, next = no;
    for (size_t k = 0; k < s->ninferred; k++) {
        const struct cd_inferred *f = &s->inferred[k];
        const struct cd_where *cw = &f->where;
        if (k == 0 || f->depth != s->inferred[k - 1].depth)
            start = next;
        no = start;
        char what[128] = "";
        if (f->indirect)
            snprintf(what, sizeof what, ", candidate %u of %u, an indirect call (through a pointer: the code does not "
                     "name its target)", f->candidate, f->ncandidates);
        else if (f->recursion)
            snprintf(what, sizeof what, ", recursion (repeats an unknown number of times)");
        else if (f->ncandidates > 1)
            snprintf(what, sizeof what, ", candidate %u of %u", f->candidate, f->ncandidates);
        if (!cw->found) {
            fprintf(out, "  inferred caller%s: call at 0x%" PRIx64 ", in no function of the images\n", what, cw->pc);
            continue;
        }
        fprintf(out, "  inferred caller%s: %s + %" PRIu64 " (call at 0x%" PRIx64 ")  [%s, module %zu of context %zu]\n",
                what, cw->name, cw->offset, cw->pc, cw->section, cw->module_row, cw->ctx_row);
        print_lines(out, cw, &no, "(inferred) ");
        if (no > next)
            next = no;
    }
    if (s->inferred_note)
        fprintf(out, "  %s: %s\n", s->ninferred ? "inferred chain ends" : "callers not inferred", s->inferred_note);
}

static void print_stop(FILE *out, const struct cd_report *r, const struct cd_stop *s)
{
    const struct cd_where *w = &s->where;
    const char *exc = s->exception ? tlck_cd_exception_name(s->exception) : NULL;
    switch (s->kind) {
    case CD_STOP_ERROR_PC:
        fprintf(out, "CUDA Exception: %s (%u), triggered at PC 0x%" PRIx64 "\n", exc ? exc : "none", s->exception,
                s->pc);
        break;
    case CD_STOP_SM_ERROR_PC:
        fprintf(out, "CUDA Exception: %s (%u) at PC 0x%" PRIx64 ", kept by the SM after the warp exited\n",
                exc ? exc : "none", s->exception, s->pc);
        break;
    case CD_STOP_LANE_PC:
        fprintf(out, "%s at PC 0x%" PRIx64 "%s%s%s\n", r->on_exception ? "Lanes now" : "Warps", s->pc,
                exc ? " (" : "", exc ? exc : "", exc ? ")" : "");
        break;
    case CD_STOP_TRAP:
        fprintf(out, "SIGTRAP: the warp stopped at a trap or breakpoint, lanes at PC 0x%" PRIx64 "\n", s->pc);
        if (s->trap_insn)
            fprintf(out, "  trap:    %s at 0x%" PRIx64 ", the instruction before this PC (the PC and its line are the "
                    "next instruction's, as cuda-gdb shows)\n", s->trap_insn, s->trap_pc);
        else
            fputs("  trap:    the PC is the instruction after the trap (as cuda-gdb shows)\n", out);
        break;
    case CD_STOP_RESIDENT:
        fprintf(out, "Resident, no exception: warps at PC 0x%" PRIx64 "%s%s%s\n", s->pc, exc ? " (" : "",
                exc ? exc : "", exc ? ")" : "");
        break;
    }
    if (w->found)
        fprintf(out, "  kernel:  %s + %" PRIu64 "  [%s, module %zu of context %zu, core section %zu]\n", w->name,
                w->offset, w->section, w->module_row, w->ctx_row, w->image_shndx);
    else
        fprintf(out, "  kernel:  unknown: %s\n", w->line_note ? w->line_note : "PC in no device image");
    if (s->grid)
        fprintf(out, "  grid:    %" PRIu64 ", gridDim (%u,%u,%u) blockDim (%u,%u,%u)\n", s->grid->grid_id,
                s->grid->grid_dim[0], s->grid->grid_dim[1], s->grid->grid_dim[2], s->grid->block_dim[0],
                s->grid->block_dim[1], s->grid->block_dim[2]);
    for (size_t i = 0; i < s->nmembers && i < MAX_MEMBERS_SHOWN; i++) {
        fputs(i == 0 ? "  where:   " : "           ", out);
        print_member(out, &s->members[i], s->ncallers);
    }
    if (s->nmembers > MAX_MEMBERS_SHOWN)
        fprintf(out, "           ... and %zu more warps at this PC\n", s->nmembers - MAX_MEMBERS_SHOWN);
    size_t no = 0;
    if (w->found)
        print_lines(out, w, &no, "");
    for (size_t k = 0; k < s->ntrusted;) {
        const struct cd_where *cw = &s->caller_where[k];
        size_t run = 1; /* the same return address again and again: a recursion, folded ("(x100)") */
        while (k + run < s->ntrusted && s->callers[k + run].return_va == s->callers[k].return_va)
            run++;
        if (run < 3)
            run = 1;
        char times[32] = "";
        if (run > 1)
            snprintf(times, sizeof times, " (x%zu)", run);
        fprintf(out, "  called from %s + %" PRIu64 " (return address 0x%" PRIx64 ")%s  [%s, module %zu of context "
                "%zu]\n", cw->name, cw->offset, cw->pc, times, cw->section, cw->module_row, cw->ctx_row);
        print_run(out, cw, &no, run);
        k += run;
    }
    if (s->stack_end)
        fprintf(out, "  stack ends: %s\n", s->stack_end);
    print_inferred(out, s, no);
}

int cd_emit_text(FILE *out, const struct cd_report *r, const struct tlck_options *o)
{
    (void)o;
    const struct tlck_core *c = r->core;
    fprintf(out, "%s: CUDA GPU coredump", r->path);
    if (c->meta.present)
        fprintf(out, " by driver %u.%u (CUDA %u.%u)", c->meta.driver_major, c->meta.driver_minor, c->meta.cuda_major,
                c->meta.cuda_minor);
    fputc('\n', out);
    for (size_t d = 0; d < c->ndevices; d++)
        fprintf(out, "device %zu: %s (%s, %s), %u SMs\n", d, c->devices[d].name, c->devices[d].type,
                c->devices[d].sm_type, c->devices[d].num_sms);
    size_t others = 0;
    for (size_t i = 0; i < r->nstops; i++)
        if (r->stops[i].kind == CD_STOP_RESIDENT)
            others += r->stops[i].nmembers;
    if (r->on_exception) {
        fprintf(out, "dump taken on %s: the %s warps", r->ntrapped ? "a trap or breakpoint (SIGTRAP)" : "an exception",
                r->ntrapped ? "stopped" : "faulting");
        if (others)
            fprintf(out, ", then the %zu other resident warp%s by kernel", others, others == 1 ? "" : "s");
        fprintf(out, " (%zu resident warp%s in all)\n", r->nwarps_total, r->nwarps_total == 1 ? "" : "s");
    }
    else
        fprintf(out, "dump with no exception (user-triggered, e.g. a hang): %zu resident warp%s, grouped by PC\n",
                r->nwarps_total, r->nwarps_total == 1 ? "" : "s");
    if (!r->nstops)
        fprintf(out, "no warps in this dump\n");
    for (size_t i = 0; i < r->nstops; i++) {
        fputc('\n', out);
        print_stop(out, r, &r->stops[i]);
    }
    return ferror(out) ? -1 : 0;
}
