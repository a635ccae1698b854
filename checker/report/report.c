#include "report/report.h"

#include <string.h>

int tlck_report_write(FILE *out, const struct tlck_results *r, const struct tlck_options *o)
{
    const char *fmt = o->format ? o->format : "text";
    if (strcmp(fmt, "text") == 0)
        return tlck_report_text(out, r, o);
    if (strcmp(fmt, "json") == 0)
        return tlck_report_json(out, r, o);
    if (strcmp(fmt, "sarif") == 0)
        return tlck_report_sarif(out, r, o);
    if (strcmp(fmt, "junit") == 0)
        return tlck_report_junit(out, r, o);
    return -1;
}
