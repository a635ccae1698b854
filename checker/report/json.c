/* json emitter: schema "trueline-check-report" version 1, documented in docs/json-schema.json (a JSON Schema)
 * and docs/json-report.md. Images: the host image first ({"kind": "host"}), then device images as objects of
 * kind "cubin" or "ptx" (json_device below: the device issue extends that object, nothing else). */
#include <stdio.h>
#include <stdlib.h>

#include "report/json_device.h"
#include "report/json_write.h"
#include "report/package_report.h"
#include "report/package_summary.h"
#include "report/report.h"
#include "trueline/file_kind.h"

#define SCHEMA_VERSION 1

static const char *elf_type_name(unsigned t)
{
    static const char *const names[] = { "NONE", "REL", "EXEC", "DYN", "CORE" };
    return t < 5 ? names[t] : "OTHER";
}

static void json_cus(struct tlck_jw *w, const struct tlck_image *h)
{
    tlck_jw_array(w, "compile_units");
    for (size_t i = 0; i < h->ncus; i++) {
        const struct tlck_cu *cu = &h->cus[i];
        tlck_jw_object(w, NULL);
        tlck_jw_str(w, "name", cu->name);
        tlck_jw_str(w, "producer", cu->producer);
        tlck_jw_uint(w, "dwarf_version", cu->dwarf_version);
        tlck_jw_uint(w, "language", cu->lang);
        tlck_jw_uint(w, "line_rows", cu->rows);
        tlck_jw_uint(w, "functions", cu->funcs);
        tlck_jw_uint(w, "functions_with_lines", cu->funcs_covered);
        tlck_jw_end(w);
    }
    tlck_jw_end(w);
}

static void json_host(struct tlck_jw *w, const struct tlck_file *f)
{
    const struct tlck_image *h = &f->host;
    size_t covered = 0;
    for (size_t i = 0; i < h->nfuncs; i++)
        covered += h->funcs[i].has_lines;
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "kind", "host");
    tlck_jw_bool(w, "has_debug_info", h->has_debug_info);
    tlck_jw_bool(w, "has_debug_line", h->has_debug_line);
    tlck_jw_uint(w, "functions", h->nfuncs);
    tlck_jw_uint(w, "functions_with_lines", covered);
    tlck_jw_uint(w, "line_rows", f->line_rows);
    tlck_jw_uint(w, "discarded_line_rows", f->line_rows_discarded);
    tlck_jw_uint(w, "subprograms", h->nsubprograms);
    tlck_jw_str(w, "debug_file", f->debug_file);
    json_cus(w, h);
    tlck_jw_end(w);
}

static void json_finding(struct tlck_jw *w, const struct tlck_finding *x)
{
    char fp[33];
    tlck_finding_fingerprint(x, fp);
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "check", x->check);
    tlck_jw_str(w, "severity", tlck_severity_name(x->severity));
    tlck_jw_str(w, "symbol", x->symbol);
    tlck_jw_str(w, "mangled", x->mangled);
    tlck_jw_str(w, "message", x->message);
    tlck_jw_str(w, "hint", x->hint);
    tlck_jw_bool(w, "suppressed", x->suppressed);
    tlck_jw_bool(w, "detail", x->detail);
    tlck_jw_str(w, "fingerprint", fp); /* report/baseline.c finds findings by this member, spelled so */
    tlck_jw_end(w);
}

static void json_file(struct tlck_jw *w, const struct tlck_file *f, const struct tlck_findings *fs)
{
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "path", f->display);
    tlck_jw_str(w, "error", f->error);
    tlck_jw_str(w, "warning", f->warning);
    tlck_jw_str(w, "elf_type", elf_type_name(f->elf_type));
    tlck_jw_uint(w, "machine", f->machine);
    tlck_jw_array(w, "images");
    if (!f->error && f->machine != TL_EM_CUDA /* a standalone device file has no host image */)
        json_host(w, f);
    for (size_t i = 0; i < f->ndevices; i++)
        tlck_json_device_image(w, &f->devices[i]); /* report/json_device.c */
    tlck_jw_end(w);
    tlck_jw_array(w, "findings");
    for (size_t k = 0; k < fs->n; k++) {
        tlck_jw_break(w, "\n      ");
        json_finding(w, &fs->v[k]);
    }
    tlck_jw_end(w);
    tlck_jw_end(w);
}

/* One object per package among the inputs (report/package_summary.c): its members, the oldest manylinux tag
 * their symbol versions allow, the tag its file name claims. */
static void json_packages(struct tlck_jw *w, const struct tlck_results *r)
{
    size_t npkg = r->npackages;
    const struct tlck_package_summary *pkg = r->packages;
    tlck_jw_array(w, "packages");
    for (size_t i = 0; i < npkg; i++) {
        const struct tlck_package_summary *s = &pkg[i];
        tlck_jw_break(w, "\n  ");
        tlck_jw_object(w, NULL);
        tlck_jw_str(w, "path", s->path);
        const char *link = tlck_package_link_of(r, s->path);
        if (link) /* only then: the key is absent for a package given as itself */
            tlck_jw_str(w, "given_as_link", link);
        tlck_jw_array(w, "members");
        for (size_t k = s->first; k < s->first + s->n; k++)
            tlck_jw_str(w, NULL, r->files[k].display);
        tlck_jw_end(w);
        tlck_jw_uint(w, "unreadable", s->unreadable);
        tlck_jw_str(w, "manylinux", s->runs_on);
        tlck_jw_str(w, "claimed_tag", s->claimed[0] ? s->claimed : NULL);
        tlck_package_json_verdict(w, r, s);
        tlck_jw_end(w);
    }
    tlck_jw_end(w);
}

int tlck_report_json(FILE *out, const struct tlck_results *r, const struct tlck_options *o)
{
    (void)o;
    struct tlck_jw w;
    tlck_jw_init(&w, out, 0);
    tlck_jw_object(&w, NULL);
    tlck_jw_str(&w, "schema", "trueline-check-report");
    tlck_jw_uint(&w, "schema_version", SCHEMA_VERSION);
    tlck_jw_break(&w, "\n ");
    tlck_jw_object(&w, "tool");
    tlck_jw_str(&w, "name", "trueline-check");
    tlck_jw_str(&w, "version", TRUELINE_VERSION);
    tlck_jw_end(&w);
    tlck_jw_break(&w, "\n ");
    tlck_jw_object(&w, "summary");
    tlck_jw_uint(&w, "files", r->nfiles);
    tlck_jw_uint(&w, "error", r->counts[TLCK_SEV_ERROR]);
    tlck_jw_uint(&w, "warning", r->counts[TLCK_SEV_WARNING]);
    tlck_jw_uint(&w, "info", r->counts[TLCK_SEV_INFO]);
    tlck_jw_uint(&w, "suppressed", r->suppressed);
    tlck_jw_uint(&w, "unreadable", r->unreadable);
    tlck_jw_uint(&w, "packages_not_met", r->packages_not_met);
    tlck_jw_object(&w, "skipped");
    tlck_jw_uint(&w, "cmake_probe_files", r->skipped_probes);
    tlck_jw_uint(&w, "links_to_directories", r->skipped_links);
    tlck_jw_uint(&w, "links_to_files", r->skipped_file_links);
    tlck_jw_uint(&w, "source_distributions", r->skipped_sdists);
    tlck_jw_end(&w);
    tlck_jw_end(&w);
    tlck_jw_break(&w, "\n ");
    tlck_jw_array(&w, "files");
    for (size_t i = 0; i < r->nfiles; i++) {
        tlck_jw_break(&w, "\n  ");
        json_file(&w, &r->files[i], &r->findings[i]);
    }
    tlck_jw_break(&w, "\n ");
    tlck_jw_end(&w);
    tlck_jw_break(&w, "\n ");
    json_packages(&w, r);
    tlck_jw_end(&w);
    fputc('\n', out);
    return ferror(out) ? -1 : 0;
}
