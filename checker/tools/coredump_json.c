/* --coredump --format json: {"cores": [ {...}, ... ]}, one object per core, fields as in docs/coredump.md.
 * Compact (no spaces), unlike the audit report: a busy core lists ~10^4 warps. */
#include <inttypes.h>

#include "tools/coredump_report.h"

static void jdim(struct tl_jw *w, const char *key, const uint32_t v[3])
{
    tl_jw_array(w, key);
    for (int i = 0; i < 3; i++)
        tl_jw_uint(w, NULL, v[i]);
    tl_jw_end(w);
}

static void member(struct tl_jw *w, const struct cd_member *m)
{
    tl_jw_object(w, NULL);
    tl_jw_uint(w, "device", m->dev);
    tl_jw_uint(w, "sm", m->sm_id);
    if (m->warp_id != UINT32_MAX) {
        tl_jw_uint(w, "cta", m->cta);
        jdim(w, "block_idx", m->block);
        tl_jw_uint(w, "warp", m->warp_id);
        tl_jw_strf(w, "lanes", "0x%08x", m->lanes);
        tl_jw_strf(w, "active", "0x%08x", m->active);
        jdim(w, "thread_idx_first", m->first_thread);
        jdim(w, "thread_idx_last", m->last_thread);
        tl_jw_uint(w, "cbu_state", m->cbu_state);
        tl_jw_uint(w, "call_depth", m->call_depth);
    }
    tl_jw_end(w);
}

static void kernel(struct tl_jw *w, const struct cd_where *wh)
{
    if (!wh->found) {
        tl_jw_null(w, "kernel");
        return;
    }
    tl_jw_object(w, "kernel");
    tl_jw_str(w, "name", wh->name);
    tl_jw_str(w, "mangled", wh->mangled);
    tl_jw_uint(w, "offset", wh->offset);
    tl_jw_str(w, "section", wh->section);
    tl_jw_uint(w, "context", wh->ctx_row);
    tl_jw_uint(w, "module", wh->module_row);
    tl_jw_uint(w, "core_section", wh->image_shndx);
    tl_jw_uint(w, "code_size", wh->code_size);
    tl_jw_uint(w, "sm", wh->sm);
    tl_jw_end(w);
}

/* The members of a resolved PC, inside the stop's or the caller's object. */
static void where(struct tl_jw *w, const struct cd_where *wh)
{
    kernel(w, wh);
    tl_jw_array(w, "frames");
    for (size_t i = 0; i < wh->nframes; i++) {
        const struct cd_frame *f = &wh->frames[i];
        tl_jw_object(w, NULL);
        tl_jw_str(w, "file", f->file);
        tl_jw_uint(w, "line", f->line);
        tl_jw_uint(w, "column", f->column);
        tl_jw_str(w, "function", f->function);
        tl_jw_str(w, "source", f->source);
        tl_jw_end(w);
    }
    tl_jw_end(w);
    tl_jw_str(w, "line_info_from", wh->line_origin);
    tl_jw_str(w, "note", wh->nframes ? NULL : wh->line_note);
}

static void stop(struct tl_jw *w, const struct cd_stop *s)
{
    static const char *const kinds[] = { "error_pc", "lane_pc", "sm_error_pc" };
    tl_jw_object(w, NULL);
    tl_jw_str(w, "kind", kinds[s->kind]);
    tl_jw_strf(w, "pc", "0x%" PRIx64, s->pc);
    if (s->exception) {
        tl_jw_object(w, "exception");
        tl_jw_uint(w, "code", s->exception);
        tl_jw_str(w, "name", tl_cd_exception_name(s->exception));
        tl_jw_end(w);
    } else {
        tl_jw_null(w, "exception");
    }
    if (s->grid) {
        tl_jw_object(w, "grid");
        tl_jw_uint(w, "id", s->grid->grid_id);
        jdim(w, "grid_dim", s->grid->grid_dim);
        jdim(w, "block_dim", s->grid->block_dim);
        tl_jw_end(w);
    } else {
        tl_jw_null(w, "grid");
    }
    where(w, &s->where);
    tl_jw_array(w, "callers");
    for (size_t k = 0; k < s->ntrusted; k++) {
        tl_jw_object(w, NULL);
        tl_jw_strf(w, "return_pc", "0x%" PRIx64, s->callers[k].return_va);
        tl_jw_uint(w, "level", s->callers[k].level);
        where(w, &s->caller_where[k]);
        tl_jw_end(w);
    }
    tl_jw_end(w);
    tl_jw_str(w, "stack_end", s->stack_end);
    tl_jw_array(w, "warps");
    for (size_t i = 0; i < s->nmembers; i++)
        member(w, &s->members[i]);
    tl_jw_end(w);
    tl_jw_end(w);
}

static void devices(struct tl_jw *w, const struct tl_core *c)
{
    tl_jw_array(w, "devices");
    for (size_t d = 0; d < c->ndevices; d++) {
        tl_jw_object(w, NULL);
        tl_jw_str(w, "name", c->devices[d].name);
        tl_jw_str(w, "type", c->devices[d].type);
        tl_jw_str(w, "sm", c->devices[d].sm_type);
        tl_jw_uint(w, "sms", c->devices[d].num_sms);
        tl_jw_end(w);
    }
    tl_jw_end(w);
}

int cd_emit_json(struct tl_jw *w, const struct cd_report *r, const struct tl_options *o)
{
    (void)o;
    const struct tl_core *c = r->core;
    tl_jw_object(w, NULL);
    tl_jw_str(w, "core", r->path);
    if (c->meta.present) {
        tl_jw_object(w, "producer");
        tl_jw_str(w, "generator", c->meta.generator);
        tl_jw_strf(w, "driver", "%u.%u", c->meta.driver_major, c->meta.driver_minor);
        tl_jw_strf(w, "cuda", "%u.%u", c->meta.cuda_major, c->meta.cuda_minor);
        tl_jw_uint(w, "flags", c->meta.flags);
        tl_jw_uint(w, "timestamp", c->meta.timestamp);
        tl_jw_end(w);
    }
    devices(w, c);
    tl_jw_str(w, "dump", r->on_exception ? "exception" : "user");
    tl_jw_uint(w, "resident_warps", r->nwarps_total);
    tl_jw_array(w, "stops");
    for (size_t i = 0; i < r->nstops; i++)
        stop(w, &r->stops[i]);
    tl_jw_end(w);
    tl_jw_end(w);
    return ferror(w->out) ? -1 : 0;
}
