#include "report/formats.h"

#include <string.h>

/* The first row is the default (options.h: format "text"). */
const struct tlck_output_format tlck_output_formats[] = {
    { "text", "txt", tlck_report_text, TLCK_TOOL_TEXT },
    { "json", "json", tlck_report_json, TLCK_TOOL_JSON },  /* docs/json-schema.json */
    { "sarif", "sarif", tlck_report_sarif, TLCK_TOOL_NONE }, /* SARIF 2.1.0 for code-scanning upload */
    { "junit", "xml", tlck_report_junit, TLCK_TOOL_NONE },  /* one test case per file and check, for CI test views */
};
const size_t tlck_noutput_formats = sizeof tlck_output_formats / sizeof *tlck_output_formats;

const struct tlck_output_format *tlck_output_format_find(const char *name)
{
    for (size_t i = 0; name && i < tlck_noutput_formats; i++)
        if (strcmp(tlck_output_formats[i].name, name) == 0)
            return &tlck_output_formats[i];
    return NULL;
}

const struct tlck_output_format *tlck_output_format_of(const struct tlck_options *o)
{
    return o->format ? tlck_output_format_find(o->format) : &tlck_output_formats[0];
}

enum tlck_tool_output tlck_tool_output(const struct tlck_options *o)
{
    const struct tlck_output_format *f = tlck_output_format_of(o);
    return f && f->tool != TLCK_TOOL_NONE ? f->tool : TLCK_TOOL_TEXT;
}

const char *tlck_output_format_names(char *buf, size_t n, const char *sep, int tools_only)
{
    size_t used = 0, count = 0, total = 0;
    for (size_t i = 0; i < tlck_noutput_formats; i++)
        total += !tools_only || tlck_output_formats[i].tool != TLCK_TOOL_NONE;
    buf[0] = 0;
    for (size_t i = 0; i < tlck_noutput_formats && used < n; i++) {
        if (tools_only && tlck_output_formats[i].tool == TLCK_TOOL_NONE)
            continue;
        const char *join = count == 0 ? "" : sep ? sep : count + 1 == total ? " or " : ", ";
        int w = snprintf(buf + used, n - used, "%s%s", join, tlck_output_formats[i].name);
        if (w < 0)
            break;
        used += (size_t)w;
        count++;
    }
    return buf;
}
