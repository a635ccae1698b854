/* The output formats: one row each. --format's parsing and --help come from this table, and the audit writes its
 * report through the row's emitter, so a new format is its emitter (report/<name>.c) plus one row. */
#ifndef TLCK_FORMATS_H
#define TLCK_FORMATS_H
#include <stddef.h>
#include <stdio.h>
#include "options.h"
#include "report/report.h"

/* What a tool (--list, --symbolize, --coredump, --provenance, --split) writes for a format: the tools have a
 * text and a JSON writer each, and choose between them by the row, never by the format's name. */
enum tlck_tool_output { TLCK_TOOL_NONE = 0, TLCK_TOOL_TEXT, TLCK_TOOL_JSON };

struct tlck_output_format {
    const char *name;      /* --format NAME */
    const char *extension; /* what a file of it is usually called: report.json, report.sarif */
    int (*write)(FILE *out, const struct tlck_results *r, const struct tlck_options *o);
    enum tlck_tool_output tool; /* what the tools write for it; NONE: only the audit writes it */
};

extern const struct tlck_output_format tlck_output_formats[];
extern const size_t tlck_noutput_formats;

/* The row called name, NULL for none. */
const struct tlck_output_format *tlck_output_format_find(const char *name);
/* The row of o->format (the first row when none was given; NULL for a name no row has). */
const struct tlck_output_format *tlck_output_format_of(const struct tlck_options *o);
/* What a tool writes for o->format: TEXT for a format the tools do not write (main.c refuses it before). */
enum tlck_tool_output tlck_tool_output(const struct tlck_options *o);
/* The names joined by sep ("text|json|sarif|junit"), or, sep NULL, as words ("text, json, sarif or junit");
 * tools_only: those the tools write. Into buf, which is returned. */
const char *tlck_output_format_names(char *buf, size_t n, const char *sep, int tools_only);

#endif
