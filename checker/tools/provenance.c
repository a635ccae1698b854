/* --provenance FILE...: the per-object table of `.note.trueline` records (text, or --format json), plus
 * the DWARF compile units no record names, and whether each record still binds the object's bytes (the content
 * digest, as --attest checks it). Exit 2 when an input could not be read, 1 when a record no longer binds its
 * object (changed after it was written: the record describes other code), else 0. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/provenance.h"
#include "inputs.h"
#include "load.h"
#include "read/read_ctx.h"
#include "record_binding.h"
#include "report/formats.h"
#include "report/json_write.h"
#include "tools/tools.h"

static const char *str(const char *s)
{
    return s && *s ? s : "-";
}

static const char *source_of(const struct tlck_provenance *n)
{
    return str(n->is_link ? n->output : n->source);
}

static const char *line_info(const struct tlck_provenance *n, char out[80])
{
    snprintf(out, 80, "%s%s", n->lineinfo_forced ? "forced " : "not forced", n->lineinfo_forced ? str(n->lineinfo_level) : "");
    return out;
}

static int widest(int w, const char *s)
{
    int n = (int)strlen(s);
    return n > w ? n : w;
}

/* Columns as wide as their longest value: a source path or nvcc's version string ("Cuda compilation tools,
 * release 13.0, V13.0.88") cut to a fixed width misread as another version. */
static void text_file(FILE *out, const struct tlck_file *f, const char *const *bind)
{
    fprintf(out, "%s: %zu provenance record%s\n", f->display, f->nnotes, f->nnotes == 1 ? "" : "s");
    int ws = 6, wv = 7, wl = 9; /* "SOURCE", "VERSION", "LINE INFO" */
    char li[80];
    for (size_t i = 0; i < f->nnotes; i++) {
        ws = widest(ws, source_of(&f->notes[i]));
        wv = widest(wv, str(f->notes[i].compiler_version));
        wl = widest(wl, line_info(&f->notes[i], li));
    }
    if (f->nnotes)
        fprintf(out, "  %-4s %-*s %-6s %-*s %-16s %-*s %-3s %s\n", "KIND", ws, "SOURCE", "COMP", wv, "VERSION",
                "FINGERPRINT", wl, "LINE INFO", "-G", "CONTENT");
    for (size_t i = 0; i < f->nnotes; i++) {
        const struct tlck_provenance *n = &f->notes[i];
        fprintf(out, "  %-4s %-*s %-6s %-*s %-16.16s %-*s %-3s %s\n", n->is_link ? "link" : n->at_link ? "cc@l" : "cc",
                ws, source_of(n), str(n->compiler), wv, str(n->compiler_version), str(n->fingerprint), wl,
                line_info(n, li), n->device_debug ? "yes" : "no", bind[i]);
    }
    for (size_t i = 0; i < f->nnotes; i++) /* apart from the table: a value is often longer than a line */
        for (int k = 0; k < f->notes[i].nfolded_env; k++)
            fprintf(out, "  folded from the environment into %s: %s\n", source_of(&f->notes[i]),
                    f->notes[i].folded_env[k]);
    for (size_t i = 0; i < f->nnotes; i++)
        if (strcmp(bind[i], TLCK_BIND_DIFFERS) == 0)
            fprintf(out, "  error: the object changed after its record was written (content digest differs): the "
                         "record describes other code\n");
    size_t missing = 0;
    for (size_t c = 0; c < f->host.ncus; c++) {
        const struct tlck_cu *cu = &f->host.cus[c];
        if (tlck_provenance_cu_expected(cu) && !tlck_provenance_cu_recorded(f, cu)) {
            if (!missing++)
                fprintf(out, "  compile units without a record (built outside the wrapper):\n");
            fprintf(out, "  -    %s\n", cu->name);
        }
    }
    if (f->warning)
        fprintf(out, "  warning: %s\n", f->warning);
}

static void json_record(struct tlck_jw *w, const struct tlck_provenance *n, const char *bind)
{
    tlck_jw_break(w, "\n    ");
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "kind", n->is_link ? "link" : "compile");
    tlck_jw_bool(w, "at_link", n->at_link);
    tlck_jw_str(w, "source", n->source);
    tlck_jw_str(w, "output", n->output);
    tlck_jw_str(w, "cwd", n->cwd);
    tlck_jw_str(w, "compiler", n->compiler);
    tlck_jw_str(w, "version", n->compiler_version);
    tlck_jw_str(w, "fingerprint", n->fingerprint);
    tlck_jw_str(w, "argv_hash", n->argv_hash);
    tlck_jw_bool(w, "lineinfo_forced", n->lineinfo_forced);
    tlck_jw_str(w, "lineinfo_level", n->lineinfo_level);
    tlck_jw_bool(w, "device_debug", n->device_debug);
    tlck_jw_int(w, "argc", n->argc_total);
    tlck_jw_str(w, "argv", n->argv);
    tlck_jw_array(w, "folded_env");
    for (int k = 0; k < n->nfolded_env; k++) {
        const char *v = n->folded_env[k], *eq = strchr(v, '='); /* the decoder kept only NAME=VALUE */
        tlck_jw_object(w, NULL);
        tlck_jw_strf(w, "variable", "%.*s", (int)(eq - v), v);
        tlck_jw_str(w, "value", eq + 1);
        tlck_jw_end(w);
    }
    tlck_jw_end(w);
    tlck_jw_str(w, "wrapper_version", n->wrapper_version);
    tlck_jw_str(w, "content", bind);
    tlck_jw_end(w);
}

static void json_file(struct tlck_jw *w, const struct tlck_file *f, const char *const *bind)
{
    tlck_jw_break(w, "\n  ");
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "file", f->display);
    tlck_jw_array(w, "records");
    for (size_t i = 0; i < f->nnotes; i++)
        json_record(w, &f->notes[i], bind[i]);
    tlck_jw_end(w);
    tlck_jw_array(w, "unrecorded_units");
    for (size_t c = 0; c < f->host.ncus; c++) {
        const struct tlck_cu *cu = &f->host.cus[c];
        if (tlck_provenance_cu_expected(cu) && !tlck_provenance_cu_recorded(f, cu))
            tlck_jw_str(w, NULL, cu->name);
    }
    tlck_jw_end(w);
    tlck_jw_end(w);
}

/* Each record's binding (TLCK_BIND_*). The bytes are read only where a digest can be checked: the one compile
 * record of a relocatable object. */
static int binding_of(const struct tlck_input *in, const struct tlck_options *o, const struct tlck_file *f,
                      const char **bind)
{
    size_t ncompile = tlck_compile_records(f);
    struct tlck_input_bytes b = { 0 };
    int mapped = 0;
    if (ncompile == 1 && f->elf_type == ET_REL) {
        struct tlck_read_ctx ctx;
        tl_error err;
        tlck_read_ctx_init(&ctx, o);
        if (tlck_input_map(in, &b, &ctx.budget, &err) != 0)
            return -1;
        mapped = 1;
    }
    for (size_t i = 0; i < f->nnotes; i++)
        bind[i] = tlck_record_binding(f, &f->notes[i], ncompile, &b);
    if (mapped)
        tlck_input_unmap(&b);
    return 0;
}

int tlck_tool_provenance(const struct tlck_options *o)
{
    struct tlck_inputs in = { .o = o };
    tlck_inputs_expand(&in, o->inputs, o->ninputs);
    int json = tlck_tool_output(o) == TLCK_TOOL_JSON, rc = 0; /* text or json: main.c checked it */
    FILE *out = o->output ? fopen(o->output, "w") : stdout;
    if (!out) {
        fprintf(stderr, "trueline-check: %s: cannot write\n", o->output);
        tlck_inputs_free(&in);
        return 2;
    }
    struct tlck_jw w;
    tlck_jw_init(&w, out, 0);
    if (json)
        tlck_jw_array(&w, NULL);
    for (size_t i = 0; i < in.n; i++) {
        struct tlck_file f;
        tlck_load_file(&in.v[i], o, &f);
        const char **bind = f.error ? NULL : calloc(f.nnotes + 1, sizeof *bind);
        if (!f.error && (!bind || binding_of(&in.v[i], o, &f, bind) != 0))
            f.error = tlck_strdup(bind ? "cannot read the object's bytes to check its record's content digest"
                                       : "out of memory");
        if (f.error) {
            fprintf(stderr, "trueline-check: %s: %s\n", f.display, f.error);
            rc = 2;
        } else {
            for (size_t k = 0; k < f.nnotes; k++)
                if (strcmp(bind[k], TLCK_BIND_DIFFERS) == 0 && rc == 0)
                    rc = 1;
            if (json)
                json_file(&w, &f, bind);
            else
                text_file(out, &f, bind);
        }
        free(bind);
        tlck_file_free(&f);
    }
    if (json) {
        tlck_jw_break(&w, "\n");
        tlck_jw_end(&w);
        fputc('\n', out);
    }
    if (out != stdout)
        fclose(out);
    tlck_inputs_free(&in);
    return rc;
}
