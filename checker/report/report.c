#include "report/report.h"

#include "report/formats.h"

int tlck_report_write(FILE *out, const struct tlck_results *r, const struct tlck_options *o)
{
    const struct tlck_output_format *f = tlck_output_format_find(o->format ? o->format : tlck_output_formats[0].name);
    return f ? f->write(out, r, o) : -1;
}
