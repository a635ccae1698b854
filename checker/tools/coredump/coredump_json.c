/* --coredump --format json: {"cores": [ {...}, ... ]}, one object per core, fields as in docs/coredump.md.
 * Compact (no spaces), unlike the audit report: a busy core lists ~10^4 warps. */
#include <inttypes.h>

#include "tools/coredump/coredump_report.h"

static void jdim(struct tlck_jw *w, const char *key, const uint32_t v[3])
{
    tlck_jw_array(w, key);
    for (int i = 0; i < 3; i++)
        tlck_jw_uint(w, NULL, v[i]);
    tlck_jw_end(w);
}

static void member(struct tlck_jw *w, const struct cd_member *m)
{
    tlck_jw_object(w, NULL);
    tlck_jw_uint(w, "device", m->dev);
    tlck_jw_uint(w, "sm", m->sm_id);
    if (m->warp_id != UINT32_MAX) {
        tlck_jw_uint(w, "cta", m->cta);
        jdim(w, "block_idx", m->block);
        tlck_jw_uint(w, "warp", m->warp_id);
        tlck_jw_strf(w, "lanes", "0x%08x", m->lanes);
        tlck_jw_strf(w, "active", "0x%08x", m->active);
        jdim(w, "thread_idx_first", m->first_thread);
        jdim(w, "thread_idx_last", m->last_thread);
        tlck_jw_uint(w, "cbu_state", m->cbu_state);
        tlck_jw_uint(w, "call_depth", m->call_depth);
    }
    tlck_jw_end(w);
}

static void kernel(struct tlck_jw *w, const struct cd_where *wh)
{
    if (!wh->found) {
        tlck_jw_null(w, "kernel");
        return;
    }
    tlck_jw_object(w, "kernel");
    tlck_jw_str(w, "name", wh->name);
    tlck_jw_str(w, "mangled", wh->mangled);
    tlck_jw_uint(w, "offset", wh->offset);
    tlck_jw_str(w, "section", wh->section);
    tlck_jw_uint(w, "context", wh->ctx_row);
    tlck_jw_uint(w, "module", wh->module_row);
    tlck_jw_uint(w, "core_section", wh->image_shndx);
    tlck_jw_uint(w, "code_size", wh->code_size);
    tlck_jw_uint(w, "sm", wh->sm);
    tlck_jw_end(w);
}

/* The members of a resolved PC, inside the stop's or the caller's object. */
static void where(struct tlck_jw *w, const struct cd_where *wh)
{
    kernel(w, wh);
    tlck_jw_array(w, "frames");
    for (size_t i = 0; i < wh->nframes; i++) {
        const struct cd_frame *f = &wh->frames[i];
        tlck_jw_object(w, NULL);
        tlck_jw_str(w, "file", f->file);
        tlck_jw_uint(w, "line", f->line);
        tlck_jw_uint(w, "column", f->column);
        tlck_jw_str(w, "function", f->function);
        tlck_jw_str(w, "source", f->source);
        tlck_jw_end(w);
    }
    tlck_jw_end(w);
    tlck_jw_str(w, "line_info_from", wh->line_origin);
    tlck_jw_str(w, "note", wh->nframes ? NULL : wh->line_note);
}

/* A caller implied by the image's calls, not in the dump: no return address, the CALL instruction's instead. */
static void inferred(struct tlck_jw *w, const struct cd_inferred *f)
{
    tlck_jw_object(w, NULL);
    tlck_jw_bool(w, "inferred", 1);
    tlck_jw_null(w, "return_pc");
    tlck_jw_null(w, "level");
    tlck_jw_strf(w, "call_pc", "0x%" PRIx64, f->where.pc);
    tlck_jw_uint(w, "depth", f->depth);
    tlck_jw_bool(w, "recursion", f->recursion);
    tlck_jw_bool(w, "indirect", f->indirect);
    if (f->recursion) {
        tlck_jw_null(w, "candidate");
        tlck_jw_null(w, "candidates");
    } else {
        tlck_jw_uint(w, "candidate", f->candidate);
        tlck_jw_uint(w, "candidates", f->ncandidates);
    }
    where(w, &f->where);
    tlck_jw_end(w);
}

static void stop(struct tlck_jw *w, const struct cd_stop *s)
{
    static const char *const kinds[] = { "error_pc", "lane_pc", "sm_error_pc", "trap", "resident" };
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "kind", kinds[s->kind]);
    tlck_jw_strf(w, "pc", "0x%" PRIx64, s->pc);
    if (s->exception) {
        tlck_jw_object(w, "exception");
        tlck_jw_uint(w, "code", s->exception);
        tlck_jw_str(w, "name", tlck_cd_exception_name(s->exception));
        tlck_jw_end(w);
    } else {
        tlck_jw_null(w, "exception");
    }
    tlck_jw_str(w, "signal", s->kind == CD_STOP_TRAP ? "SIGTRAP" : NULL);
    if (s->trap_insn) {
        tlck_jw_object(w, "trap_instruction");
        tlck_jw_str(w, "name", s->trap_insn);
        tlck_jw_strf(w, "pc", "0x%" PRIx64, s->trap_pc);
        tlck_jw_end(w);
    } else {
        tlck_jw_null(w, "trap_instruction");
    }
    if (s->grid) {
        tlck_jw_object(w, "grid");
        tlck_jw_uint(w, "id", s->grid->grid_id);
        jdim(w, "grid_dim", s->grid->grid_dim);
        jdim(w, "block_dim", s->grid->block_dim);
        tlck_jw_end(w);
    } else {
        tlck_jw_null(w, "grid");
    }
    where(w, &s->where);
    tlck_jw_array(w, "callers");
    for (size_t k = 0; k < s->ntrusted; k++) {
        tlck_jw_object(w, NULL);
        tlck_jw_bool(w, "inferred", 0);
        tlck_jw_strf(w, "return_pc", "0x%" PRIx64, s->callers[k].return_va);
        tlck_jw_uint(w, "level", s->callers[k].level);
        where(w, &s->caller_where[k]);
        tlck_jw_end(w);
    }
    for (size_t k = 0; k < s->ninferred; k++)
        inferred(w, &s->inferred[k]);
    tlck_jw_end(w);
    tlck_jw_uint(w, "callers_in_dump", s->ncallers_dump);
    tlck_jw_str(w, "stack_end", s->stack_end);
    tlck_jw_str(w, "inferred_note", s->inferred_note);
    tlck_jw_array(w, "warps");
    for (size_t i = 0; i < s->nmembers; i++)
        member(w, &s->members[i]);
    tlck_jw_end(w);
    tlck_jw_end(w);
}

static void devices(struct tlck_jw *w, const struct tlck_core *c)
{
    tlck_jw_array(w, "devices");
    for (size_t d = 0; d < c->ndevices; d++) {
        tlck_jw_object(w, NULL);
        tlck_jw_str(w, "name", c->devices[d].name);
        tlck_jw_str(w, "type", c->devices[d].type);
        tlck_jw_str(w, "sm", c->devices[d].sm_type);
        tlck_jw_uint(w, "sms", c->devices[d].num_sms);
        tlck_jw_end(w);
    }
    tlck_jw_end(w);
}

int cd_emit_json(struct tlck_jw *w, const struct cd_report *r, const struct tlck_options *o)
{
    (void)o;
    const struct tlck_core *c = r->core;
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "core", r->path);
    if (c->meta.present) {
        tlck_jw_object(w, "producer");
        tlck_jw_str(w, "generator", c->meta.generator);
        tlck_jw_strf(w, "driver", "%u.%u", c->meta.driver_major, c->meta.driver_minor);
        tlck_jw_strf(w, "cuda", "%u.%u", c->meta.cuda_major, c->meta.cuda_minor);
        tlck_jw_uint(w, "flags", c->meta.flags);
        tlck_jw_uint(w, "timestamp", c->meta.timestamp);
        tlck_jw_end(w);
    }
    devices(w, c);
    tlck_jw_str(w, "dump", !r->on_exception ? "user" : r->ntrapped ? "trap" : "exception");
    tlck_jw_uint(w, "trapped_warps", r->ntrapped);
    tlck_jw_uint(w, "resident_warps", r->nwarps_total);
    tlck_jw_array(w, "stops");
    for (size_t i = 0; i < r->nstops; i++)
        stop(w, &r->stops[i]);
    tlck_jw_end(w);
    tlck_jw_end(w);
    return ferror(w->out) ? -1 : 0;
}
