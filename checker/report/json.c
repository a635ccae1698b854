/* json emitter: schema "trueline-check-report" version 1, documented in docs/json-schema.json (a JSON Schema)
 * and docs/json-report.md. Images: the host image first ({"kind": "host"}), then device images as objects of
 * kind "cubin" or "ptx" (json_device below: the device issue extends that object, nothing else). */
#include <stdio.h>

#include "report/json_device.h"
#include "report/json_write.h"
#include "report/report.h"

#define SCHEMA_VERSION 1

static const char *elf_type_name(unsigned t)
{
    static const char *const names[] = { "NONE", "REL", "EXEC", "DYN", "CORE" };
    return t < 5 ? names[t] : "OTHER";
}

static void json_cus(FILE *out, const struct tl_image *h)
{
    fputs("\"compile_units\": [", out);
    for (size_t i = 0; i < h->ncus; i++) {
        const struct tl_cu *cu = &h->cus[i];
        fputs(i ? ", {\"name\": " : "{\"name\": ", out);
        tl_json_str(out, cu->name);
        fputs(", \"producer\": ", out);
        tl_json_str(out, cu->producer);
        fprintf(out, ", \"dwarf_version\": %u, \"language\": %u, \"line_rows\": %llu, \"functions\": %llu, "
                     "\"functions_with_lines\": %llu}", cu->dwarf_version, cu->lang, (unsigned long long)cu->rows,
                (unsigned long long)cu->funcs, (unsigned long long)cu->funcs_covered);
    }
    fputs("]", out);
}

static void json_host(FILE *out, const struct tl_file *f)
{
    const struct tl_image *h = &f->host;
    size_t covered = 0;
    for (size_t i = 0; i < h->nfuncs; i++)
        covered += h->funcs[i].has_lines;
    fprintf(out, "{\"kind\": \"host\", \"has_debug_info\": %s, \"has_debug_line\": %s, \"functions\": %zu, "
                 "\"functions_with_lines\": %zu, \"line_rows\": %llu, \"subprograms\": %zu, \"debug_file\": ",
            h->has_debug_info ? "true" : "false", h->has_debug_line ? "true" : "false", h->nfuncs, covered,
            (unsigned long long)f->line_rows, h->nsubprograms);
    tl_json_str(out, f->debug_file);
    fputs(", ", out);
    json_cus(out, h);
    fputs("}", out);
}

static void json_finding(FILE *out, const struct tl_finding *x)
{
    char fp[33];
    tl_finding_fingerprint(x, fp);
    fputs("{\"check\": ", out);
    tl_json_str(out, x->check);
    fprintf(out, ", \"severity\": \"%s\", \"symbol\": ", tl_severity_name(x->severity));
    tl_json_str(out, x->symbol);
    fputs(", \"message\": ", out);
    tl_json_str(out, x->message);
    fputs(", \"hint\": ", out);
    tl_json_str(out, x->hint);
    fprintf(out, ", \"suppressed\": %s, \"fingerprint\": \"%s\"}", x->suppressed ? "true" : "false", fp);
}

static void json_file(FILE *out, const struct tl_file *f, const struct tl_findings *fs)
{
    fputs("{\"path\": ", out);
    tl_json_str(out, f->display);
    fputs(", \"error\": ", out);
    tl_json_str(out, f->error);
    fputs(", \"warning\": ", out);
    tl_json_str(out, f->warning);
    fprintf(out, ", \"elf_type\": \"%s\", \"machine\": %u, \"images\": [", elf_type_name(f->elf_type), f->machine);
    int first = 1;
    if (!f->error && f->machine != 190 /* EM_CUDA: a standalone device file has no host image */) {
        json_host(out, f);
        first = 0;
    }
    for (size_t i = 0; i < f->ndevices; i++) {
        fputs(first ? "" : ", ", out);
        tl_json_device_image(out, &f->devices[i]); /* report/json_device.c */
        first = 0;
    }
    fputs("], \"findings\": [", out);
    for (size_t k = 0; k < fs->n; k++) {
        fputs(k ? ",\n      " : "\n      ", out);
        json_finding(out, &fs->v[k]);
    }
    fputs("]}", out);
}

int tl_report_json(FILE *out, const struct tl_results *r, const struct tl_options *o)
{
    (void)o;
    fprintf(out, "{\"schema\": \"trueline-check-report\", \"schema_version\": %d,\n \"tool\": {\"name\": "
                 "\"trueline-check\", \"version\": \"%s\"},\n",
            SCHEMA_VERSION, TRUELINE_VERSION);
    fprintf(out, " \"summary\": {\"files\": %zu, \"error\": %zu, \"warning\": %zu, \"info\": %zu, \"suppressed\": %zu, "
                 "\"unreadable\": %zu},\n \"files\": [",
            r->nfiles, r->counts[TL_SEV_ERROR], r->counts[TL_SEV_WARNING], r->counts[TL_SEV_INFO], r->suppressed,
            r->unreadable);
    for (size_t i = 0; i < r->nfiles; i++) {
        fputs(i ? ",\n  " : "\n  ", out);
        json_file(out, &r->files[i], &r->findings[i]);
    }
    fputs("\n ]}\n", out);
    return ferror(out) ? -1 : 0;
}
