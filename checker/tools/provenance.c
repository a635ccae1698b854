/* --provenance FILE...: the per-object table of `.note.trueline` records (text, or --format json), plus
 * the DWARF compile units no record names. Exit 2 when an input could not be read, else 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/provenance.h"
#include "inputs.h"
#include "load.h"
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
static void text_file(FILE *out, const struct tlck_file *f)
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
        fprintf(out, "  %-4s %-*s %-6s %-*s %-16s %-*s %s\n", "KIND", ws, "SOURCE", "COMP", wv, "VERSION",
                "FINGERPRINT", wl, "LINE INFO", "-G");
    for (size_t i = 0; i < f->nnotes; i++) {
        const struct tlck_provenance *n = &f->notes[i];
        fprintf(out, "  %-4s %-*s %-6s %-*s %-16.16s %-*s %s\n", n->is_link ? "link" : n->at_link ? "cc@l" : "cc",
                ws, source_of(n), str(n->compiler), wv, str(n->compiler_version), str(n->fingerprint), wl,
                line_info(n, li), n->device_debug ? "yes" : "no");
    }
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

static void json_record(struct tlck_jw *w, const struct tlck_provenance *n)
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
    tlck_jw_str(w, "wrapper_version", n->wrapper_version);
    tlck_jw_end(w);
}

static void json_file(struct tlck_jw *w, const struct tlck_file *f)
{
    tlck_jw_break(w, "\n  ");
    tlck_jw_object(w, NULL);
    tlck_jw_str(w, "file", f->display);
    tlck_jw_array(w, "records");
    for (size_t i = 0; i < f->nnotes; i++)
        json_record(w, &f->notes[i]);
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

int tlck_tool_provenance(const struct tlck_options *o)
{
    struct tlck_inputs in = { .o = o };
    tlck_inputs_expand(&in, o->inputs, o->ninputs);
    int json = o->format && strcmp(o->format, "json") == 0, rc = 0; /* text or json: main.c checked it */
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
        if (f.error) {
            fprintf(stderr, "trueline-check: %s: %s\n", f.display, f.error);
            rc = 2;
        } else if (json) {
            json_file(&w, &f);
        } else {
            text_file(out, &f);
        }
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
