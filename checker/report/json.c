/* json emitter: schema "trueline-check-report" version 1, documented in docs/json-schema.json (a JSON Schema)
 * and docs/json-report.md. Images: the host image first ({"kind": "host"}), then device images as objects of
 * kind "cubin" or "ptx" (json_device below: the device issue extends that object, nothing else). */
#include <stdio.h>
#include <stdlib.h>

#include "report/json_device.h"
#include "report/json_write.h"
#include "report/package_summary.h"
#include "report/report.h"

#define SCHEMA_VERSION 1

static const char *elf_type_name(unsigned t)
{
    static const char *const names[] = { "NONE", "REL", "EXEC", "DYN", "CORE" };
    return t < 5 ? names[t] : "OTHER";
}

static void json_cus(struct tl_jw *w, const struct tl_image *h)
{
    tl_jw_array(w, "compile_units");
    for (size_t i = 0; i < h->ncus; i++) {
        const struct tl_cu *cu = &h->cus[i];
        tl_jw_object(w, NULL);
        tl_jw_str(w, "name", cu->name);
        tl_jw_str(w, "producer", cu->producer);
        tl_jw_uint(w, "dwarf_version", cu->dwarf_version);
        tl_jw_uint(w, "language", cu->lang);
        tl_jw_uint(w, "line_rows", cu->rows);
        tl_jw_uint(w, "functions", cu->funcs);
        tl_jw_uint(w, "functions_with_lines", cu->funcs_covered);
        tl_jw_end(w);
    }
    tl_jw_end(w);
}

static void json_host(struct tl_jw *w, const struct tl_file *f)
{
    const struct tl_image *h = &f->host;
    size_t covered = 0;
    for (size_t i = 0; i < h->nfuncs; i++)
        covered += h->funcs[i].has_lines;
    tl_jw_object(w, NULL);
    tl_jw_str(w, "kind", "host");
    tl_jw_bool(w, "has_debug_info", h->has_debug_info);
    tl_jw_bool(w, "has_debug_line", h->has_debug_line);
    tl_jw_uint(w, "functions", h->nfuncs);
    tl_jw_uint(w, "functions_with_lines", covered);
    tl_jw_uint(w, "line_rows", f->line_rows);
    tl_jw_uint(w, "subprograms", h->nsubprograms);
    tl_jw_str(w, "debug_file", f->debug_file);
    json_cus(w, h);
    tl_jw_end(w);
}

static void json_finding(struct tl_jw *w, const struct tl_finding *x)
{
    char fp[33];
    tl_finding_fingerprint(x, fp);
    tl_jw_object(w, NULL);
    tl_jw_str(w, "check", x->check);
    tl_jw_str(w, "severity", tl_severity_name(x->severity));
    tl_jw_str(w, "symbol", x->symbol);
    tl_jw_str(w, "message", x->message);
    tl_jw_str(w, "hint", x->hint);
    tl_jw_bool(w, "suppressed", x->suppressed);
    tl_jw_str(w, "fingerprint", fp); /* report/baseline.c finds findings by this member, spelled so */
    tl_jw_end(w);
}

static void json_file(struct tl_jw *w, const struct tl_file *f, const struct tl_findings *fs)
{
    tl_jw_object(w, NULL);
    tl_jw_str(w, "path", f->display);
    tl_jw_str(w, "error", f->error);
    tl_jw_str(w, "warning", f->warning);
    tl_jw_str(w, "elf_type", elf_type_name(f->elf_type));
    tl_jw_uint(w, "machine", f->machine);
    tl_jw_array(w, "images");
    if (!f->error && f->machine != 190 /* EM_CUDA: a standalone device file has no host image */)
        json_host(w, f);
    for (size_t i = 0; i < f->ndevices; i++)
        tl_json_device_image(w, &f->devices[i]); /* report/json_device.c */
    tl_jw_end(w);
    tl_jw_array(w, "findings");
    for (size_t k = 0; k < fs->n; k++) {
        tl_jw_break(w, "\n      ");
        json_finding(w, &fs->v[k]);
    }
    tl_jw_end(w);
    tl_jw_end(w);
}

/* One object per package among the inputs (report/package_summary.c): its members, the oldest manylinux tag
 * their symbol versions allow, the tag its file name claims. */
static void json_packages(struct tl_jw *w, const struct tl_results *r)
{
    size_t npkg;
    struct tl_package_summary *pkg = tl_package_summaries(r, &npkg);
    tl_jw_array(w, "packages");
    for (size_t i = 0; i < npkg; i++) {
        const struct tl_package_summary *s = &pkg[i];
        tl_jw_break(w, "\n  ");
        tl_jw_object(w, NULL);
        tl_jw_str(w, "path", s->path);
        tl_jw_array(w, "members");
        for (size_t k = s->first; k < s->first + s->n; k++)
            tl_jw_str(w, NULL, r->files[k].display);
        tl_jw_end(w);
        tl_jw_uint(w, "unreadable", s->unreadable);
        tl_jw_str(w, "manylinux", s->runs_on);
        tl_jw_str(w, "claimed_tag", s->claimed[0] ? s->claimed : NULL);
        tl_jw_end(w);
    }
    tl_jw_end(w);
    free(pkg);
}

int tl_report_json(FILE *out, const struct tl_results *r, const struct tl_options *o)
{
    (void)o;
    struct tl_jw w;
    tl_jw_init(&w, out, 0);
    tl_jw_object(&w, NULL);
    tl_jw_str(&w, "schema", "trueline-check-report");
    tl_jw_uint(&w, "schema_version", SCHEMA_VERSION);
    tl_jw_break(&w, "\n ");
    tl_jw_object(&w, "tool");
    tl_jw_str(&w, "name", "trueline-check");
    tl_jw_str(&w, "version", TRUELINE_VERSION);
    tl_jw_end(&w);
    tl_jw_break(&w, "\n ");
    tl_jw_object(&w, "summary");
    tl_jw_uint(&w, "files", r->nfiles);
    tl_jw_uint(&w, "error", r->counts[TL_SEV_ERROR]);
    tl_jw_uint(&w, "warning", r->counts[TL_SEV_WARNING]);
    tl_jw_uint(&w, "info", r->counts[TL_SEV_INFO]);
    tl_jw_uint(&w, "suppressed", r->suppressed);
    tl_jw_uint(&w, "unreadable", r->unreadable);
    tl_jw_end(&w);
    tl_jw_break(&w, "\n ");
    tl_jw_array(&w, "files");
    for (size_t i = 0; i < r->nfiles; i++) {
        tl_jw_break(&w, "\n  ");
        json_file(&w, &r->files[i], &r->findings[i]);
    }
    tl_jw_break(&w, "\n ");
    tl_jw_end(&w);
    tl_jw_break(&w, "\n ");
    json_packages(&w, r);
    tl_jw_end(&w);
    fputc('\n', out);
    return ferror(out) ? -1 : 0;
}
