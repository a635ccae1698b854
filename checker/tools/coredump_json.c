/* --coredump --format json: {"cores": [ {...}, ... ]}, one object per core, fields as in docs/coredump.md. */
#include <inttypes.h>
#include <string.h>

#include "report/json_write.h"
#include "tools/coredump_report.h"

static void jdim(FILE *out, const uint32_t v[3])
{
    fprintf(out, "[%u,%u,%u]", v[0], v[1], v[2]);
}

static void member(FILE *out, const struct cd_member *m)
{
    fprintf(out, "{\"device\":%u,\"sm\":%u", m->dev, m->sm_id);
    if (m->warp_id != UINT32_MAX) {
        fprintf(out, ",\"cta\":%u,\"block_idx\":", m->cta);
        jdim(out, m->block);
        fprintf(out, ",\"warp\":%u,\"lanes\":\"0x%08x\",\"active\":\"0x%08x\",\"thread_idx_first\":", m->warp_id,
                m->lanes, m->active);
        jdim(out, m->first_thread);
        fputs(",\"thread_idx_last\":", out);
        jdim(out, m->last_thread);
        fprintf(out, ",\"cbu_state\":%u,\"call_depth\":%u", m->cbu_state, m->call_depth);
    }
    fputc('}', out);
}

static void where(FILE *out, const struct cd_where *w)
{
    if (!w->found) {
        fputs(",\"kernel\":null", out);
    } else {
        fputs(",\"kernel\":{\"name\":", out);
        tl_json_str(out, w->name);
        fputs(",\"mangled\":", out);
        tl_json_str(out, w->mangled);
        fprintf(out, ",\"offset\":%" PRIu64 ",\"section\":", w->offset);
        tl_json_str(out, w->section);
        fprintf(out, ",\"context\":%zu,\"module\":%zu,\"core_section\":%zu,\"code_size\":%" PRIu64 ",\"sm\":%u}",
                w->ctx_row, w->module_row, w->image_shndx, w->code_size, w->sm);
    }
    fputs(",\"frames\":[", out);
    for (size_t i = 0; i < w->nframes; i++) {
        const struct cd_frame *f = &w->frames[i];
        fputs(i ? ",{\"file\":" : "{\"file\":", out);
        tl_json_str(out, f->file);
        fprintf(out, ",\"line\":%u,\"column\":%u,\"function\":", f->line, f->column);
        tl_json_str(out, f->function);
        fputs(",\"source\":", out);
        tl_json_str(out, f->source);
        fputc('}', out);
    }
    fputs("],\"line_info_from\":", out);
    tl_json_str(out, w->line_origin);
    fputs(",\"note\":", out);
    tl_json_str(out, w->nframes ? NULL : w->line_note);
}

static void stop(FILE *out, const struct cd_stop *s)
{
    static const char *const kinds[] = { "error_pc", "lane_pc", "sm_error_pc" };
    fprintf(out, "{\"kind\":\"%s\",\"pc\":\"0x%" PRIx64 "\",\"exception\":", kinds[s->kind], s->pc);
    if (s->exception) {
        fprintf(out, "{\"code\":%u,\"name\":", s->exception);
        tl_json_str(out, tl_cd_exception_name(s->exception));
        fputc('}', out);
    } else {
        fputs("null", out);
    }
    if (s->grid) {
        fprintf(out, ",\"grid\":{\"id\":%" PRIu64 ",\"grid_dim\":", s->grid->grid_id);
        jdim(out, s->grid->grid_dim);
        fputs(",\"block_dim\":", out);
        jdim(out, s->grid->block_dim);
        fputc('}', out);
    } else {
        fputs(",\"grid\":null", out);
    }
    where(out, &s->where);
    fputs(",\"callers\":[", out);
    for (size_t k = 0; k < s->ncallers; k++) {
        fprintf(out, "%s{\"return_pc\":\"0x%" PRIx64 "\",\"level\":%u", k ? "," : "", s->callers[k].return_va,
                s->callers[k].level);
        where(out, &s->caller_where[k]);
        fputc('}', out);
    }
    fputs("],\"warps\":[", out);
    for (size_t i = 0; i < s->nmembers; i++) {
        if (i)
            fputc(',', out);
        member(out, &s->members[i]);
    }
    fputs("]}", out);
}

int cd_emit_json(FILE *out, const struct cd_report *r, const struct tl_options *o)
{
    (void)o;
    const struct tl_core *c = r->core;
    fputs("{\"core\":", out);
    tl_json_str(out, r->path);
    if (c->meta.present) {
        fputs(",\"producer\":{\"generator\":", out);
        tl_json_str(out, c->meta.generator);
        fprintf(out, ",\"driver\":\"%u.%u\",\"cuda\":\"%u.%u\",\"flags\":%u,\"timestamp\":%u}", c->meta.driver_major,
                c->meta.driver_minor, c->meta.cuda_major, c->meta.cuda_minor, c->meta.flags, c->meta.timestamp);
    }
    fputs(",\"devices\":[", out);
    for (size_t d = 0; d < c->ndevices; d++) {
        fputs(d ? ",{\"name\":" : "{\"name\":", out);
        tl_json_str(out, c->devices[d].name);
        fputs(",\"type\":", out);
        tl_json_str(out, c->devices[d].type);
        fputs(",\"sm\":", out);
        tl_json_str(out, c->devices[d].sm_type);
        fprintf(out, ",\"sms\":%u}", c->devices[d].num_sms);
    }
    fprintf(out, "],\"dump\":\"%s\",\"resident_warps\":%zu,\"stops\":[", r->on_exception ? "exception" : "user",
            r->nwarps_total);
    for (size_t i = 0; i < r->nstops; i++) {
        if (i)
            fputc(',', out);
        stop(out, &r->stops[i]);
    }
    fputs("]}", out);
    return ferror(out) ? -1 : 0;
}
