/* The output formats: one row each. --format's parsing and --help come from this table, and the audit writes its
 * report through the row's emitter, so a new format is its emitter (report/<name>.c) plus one row. */
#ifndef TLCK_FORMATS_H
#define TLCK_FORMATS_H
#include <stddef.h>
#include <stdio.h>
#include "options.h"
#include "report/report.h"

struct tlck_output_format {
    const char *name;      /* --format NAME */
    const char *extension; /* what a file of it is usually called: report.json, report.sarif */
    int (*write)(FILE *out, const struct tlck_results *r, const struct tlck_options *o);
    int tools;             /* the tools (--list, --symbolize, --coredump, --provenance) write it too */
};

extern const struct tlck_output_format tlck_output_formats[];
extern const size_t tlck_noutput_formats;

/* The row called name, NULL for none. */
const struct tlck_output_format *tlck_output_format_find(const char *name);
/* The names joined by sep ("text|json|sarif|junit"), or, sep NULL, as words ("text, json, sarif or junit");
 * tools_only: those the tools write. Into buf, which is returned. */
const char *tlck_output_format_names(char *buf, size_t n, const char *sep, int tools_only);

#endif
