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

static const char *source_of(const struct tl_provenance *n)
{
    return str(n->is_link ? n->output : n->source);
}

static const char *line_info(const struct tl_provenance *n, char out[80])
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
static void text_file(FILE *out, const struct tl_file *f)
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
        const struct tl_provenance *n = &f->notes[i];
        fprintf(out, "  %-4s %-*s %-6s %-*s %-16.16s %-*s %s\n", n->is_link ? "link" : n->at_link ? "cc@l" : "cc",
                ws, source_of(n), str(n->compiler), wv, str(n->compiler_version), str(n->fingerprint), wl,
                line_info(n, li), n->device_debug ? "yes" : "no");
    }
    size_t missing = 0;
    for (size_t c = 0; c < f->host.ncus; c++) {
        const struct tl_cu *cu = &f->host.cus[c];
        if (tl_provenance_cu_expected(cu) && !tl_provenance_cu_recorded(f, cu)) {
            if (!missing++)
                fprintf(out, "  compile units without a record (built outside the wrapper):\n");
            fprintf(out, "  -    %s\n", cu->name);
        }
    }
    if (f->warning)
        fprintf(out, "  warning: %s\n", f->warning);
}

static void json_record(struct tl_jw *w, const struct tl_provenance *n)
{
    tl_jw_break(w, "\n    ");
    tl_jw_object(w, NULL);
    tl_jw_str(w, "kind", n->is_link ? "link" : "compile");
    tl_jw_bool(w, "at_link", n->at_link);
    tl_jw_str(w, "source", n->source);
    tl_jw_str(w, "output", n->output);
    tl_jw_str(w, "cwd", n->cwd);
    tl_jw_str(w, "compiler", n->compiler);
    tl_jw_str(w, "version", n->compiler_version);
    tl_jw_str(w, "fingerprint", n->fingerprint);
    tl_jw_str(w, "argv_hash", n->argv_hash);
    tl_jw_bool(w, "lineinfo_forced", n->lineinfo_forced);
    tl_jw_str(w, "lineinfo_level", n->lineinfo_level);
    tl_jw_bool(w, "device_debug", n->device_debug);
    tl_jw_int(w, "argc", n->argc_total);
    tl_jw_str(w, "argv", n->argv);
    tl_jw_str(w, "wrapper_version", n->wrapper_version);
    tl_jw_end(w);
}

static void json_file(struct tl_jw *w, const struct tl_file *f)
{
    tl_jw_break(w, "\n  ");
    tl_jw_object(w, NULL);
    tl_jw_str(w, "file", f->display);
    tl_jw_array(w, "records");
    for (size_t i = 0; i < f->nnotes; i++)
        json_record(w, &f->notes[i]);
    tl_jw_end(w);
    tl_jw_array(w, "unrecorded_units");
    for (size_t c = 0; c < f->host.ncus; c++) {
        const struct tl_cu *cu = &f->host.cus[c];
        if (tl_provenance_cu_expected(cu) && !tl_provenance_cu_recorded(f, cu))
            tl_jw_str(w, NULL, cu->name);
    }
    tl_jw_end(w);
    tl_jw_end(w);
}

int tl_tool_provenance(const struct tl_options *o)
{
    struct tl_inputs in = { 0 };
    tl_inputs_expand(&in, o->inputs, o->ninputs);
    int json = o->format && strcmp(o->format, "json") == 0, rc = 0; /* text or json: main.c checked it */
    FILE *out = o->output ? fopen(o->output, "w") : stdout;
    if (!out) {
        fprintf(stderr, "trueline-check: %s: cannot write\n", o->output);
        tl_inputs_free(&in);
        return 2;
    }
    struct tl_jw w;
    tl_jw_init(&w, out, 0);
    if (json)
        tl_jw_array(&w, NULL);
    for (size_t i = 0; i < in.n; i++) {
        struct tl_file f;
        tl_load_file(&in.v[i], o, &f);
        if (f.error) {
            fprintf(stderr, "trueline-check: %s: %s\n", f.display, f.error);
            rc = 2;
        } else if (json) {
            json_file(&w, &f);
        } else {
            text_file(out, &f);
        }
        tl_file_free(&f);
    }
    if (json) {
        tl_jw_break(&w, "\n");
        tl_jw_end(&w);
        fputc('\n', out);
    }
    if (out != stdout)
        fclose(out);
    tl_inputs_free(&in);
    return rc;
}
