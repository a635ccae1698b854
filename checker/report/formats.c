#include "report/formats.h"

#include <string.h>

/* The first row is the default (options.h: format "text"). */
const struct tlck_output_format tlck_output_formats[] = {
    { "text", "txt", tlck_report_text, 1 },
    { "json", "json", tlck_report_json, 1 },  /* docs/json-schema.json */
    { "sarif", "sarif", tlck_report_sarif, 0 }, /* SARIF 2.1.0 for code-scanning upload */
    { "junit", "xml", tlck_report_junit, 0 },  /* one test case per file and check, for CI test views */
};
const size_t tlck_noutput_formats = sizeof tlck_output_formats / sizeof *tlck_output_formats;

const struct tlck_output_format *tlck_output_format_find(const char *name)
{
    for (size_t i = 0; name && i < tlck_noutput_formats; i++)
        if (strcmp(tlck_output_formats[i].name, name) == 0)
            return &tlck_output_formats[i];
    return NULL;
}

const char *tlck_output_format_names(char *buf, size_t n, const char *sep, int tools_only)
{
    size_t used = 0, count = 0, total = 0;
    for (size_t i = 0; i < tlck_noutput_formats; i++)
        total += !tools_only || tlck_output_formats[i].tools;
    buf[0] = 0;
    for (size_t i = 0; i < tlck_noutput_formats && used < n; i++) {
        if (tools_only && !tlck_output_formats[i].tools)
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
