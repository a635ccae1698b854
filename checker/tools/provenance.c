/* --provenance FILE...: the per-object table of `.note.trueline` records (text, or --format json), plus
 * the DWARF compile units no record names. Exit 2 when an input could not be read, else 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/provenance.h"
#include "inputs.h"
#include "load.h"
#include "tools/tools.h"

static const char *str(const char *s)
{
    return s && *s ? s : "-";
}

static void json_str(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void text_file(FILE *out, const struct tl_file *f)
{
    fprintf(out, "%s: %zu provenance record%s\n", f->display, f->nnotes, f->nnotes == 1 ? "" : "s");
    if (f->nnotes)
        fprintf(out, "  %-4s %-28s %-6s %-40s %-16s %-18s %s\n", "KIND", "SOURCE", "COMP", "VERSION",
                "FINGERPRINT", "LINE INFO", "-G");
    for (size_t i = 0; i < f->nnotes; i++) {
        const struct tl_provenance *n = &f->notes[i];
        char li[64];
        snprintf(li, sizeof li, "%s%s", n->lineinfo_forced ? "forced " : "not forced",
                 n->lineinfo_forced ? str(n->lineinfo_level) : "");
        fprintf(out, "  %-4s %-28s %-6s %-40.40s %-16.16s %-18s %s\n", n->is_link ? "link" : "cc",
                str(n->is_link ? n->output : n->source), str(n->compiler), str(n->compiler_version),
                str(n->fingerprint), li, n->device_debug ? "yes" : "no");
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

static void json_file(FILE *out, const struct tl_file *f, int first)
{
    fprintf(out, "%s\n  {\"file\": ", first ? "" : ",");
    json_str(out, f->display);
    fputs(", \"records\": [", out);
    for (size_t i = 0; i < f->nnotes; i++) {
        const struct tl_provenance *n = &f->notes[i];
        fprintf(out, "%s\n    {\"kind\": \"%s\", \"source\": ", i ? "," : "", n->is_link ? "link" : "compile");
        json_str(out, n->source);
        fputs(", \"output\": ", out);
        json_str(out, n->output);
        fputs(", \"cwd\": ", out);
        json_str(out, n->cwd);
        fputs(", \"compiler\": ", out);
        json_str(out, n->compiler);
        fputs(", \"version\": ", out);
        json_str(out, n->compiler_version);
        fputs(", \"fingerprint\": ", out);
        json_str(out, n->fingerprint);
        fputs(", \"argv_hash\": ", out);
        json_str(out, n->argv_hash);
        fprintf(out, ", \"lineinfo_forced\": %s, \"lineinfo_level\": ", n->lineinfo_forced ? "true" : "false");
        json_str(out, n->lineinfo_level);
        fprintf(out, ", \"device_debug\": %s, \"argc\": %d, \"argv\": ", n->device_debug ? "true" : "false",
                n->argc_total);
        json_str(out, n->argv);
        fputs(", \"wrapper_version\": ", out);
        json_str(out, n->wrapper_version);
        fputc('}', out);
    }
    fputs("], \"unrecorded_units\": [", out);
    int first_cu = 1;
    for (size_t c = 0; c < f->host.ncus; c++) {
        const struct tl_cu *cu = &f->host.cus[c];
        if (tl_provenance_cu_expected(cu) && !tl_provenance_cu_recorded(f, cu)) {
            fputs(first_cu ? "" : ", ", out);
            json_str(out, cu->name);
            first_cu = 0;
        }
    }
    fputs("]}", out);
}

int tl_tool_provenance(const struct tl_options *o)
{
    struct tl_inputs in = { 0 };
    tl_inputs_expand(&in, o->inputs, o->ninputs);
    int json = o->format && strcmp(o->format, "json") == 0, rc = 0, first = 1;
    if (o->format && !json && strcmp(o->format, "text") != 0) {
        fprintf(stderr, "trueline-check: --provenance prints text or json, not %s\n", o->format);
        tl_inputs_free(&in);
        return 2;
    }
    FILE *out = o->output ? fopen(o->output, "w") : stdout;
    if (!out) {
        fprintf(stderr, "trueline-check: %s: cannot write\n", o->output);
        tl_inputs_free(&in);
        return 2;
    }
    if (json)
        fputc('[', out);
    for (size_t i = 0; i < in.n; i++) {
        struct tl_file f;
        tl_load_file(&in.v[i], o, &f);
        if (f.error) {
            fprintf(stderr, "trueline-check: %s: %s\n", f.display, f.error);
            rc = 2;
        } else if (json) {
            json_file(out, &f, first);
            first = 0;
        } else {
            text_file(out, &f);
        }
        tl_file_free(&f);
    }
    if (json)
        fputs("\n]\n", out);
    if (out != stdout)
        fclose(out);
    tl_inputs_free(&in);
    return rc;
}
