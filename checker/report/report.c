#include "report/report.h"

#include "report/formats.h"

int tlck_report_write(FILE *out, const struct tlck_results *r, const struct tlck_options *o)
{
    const struct tlck_output_format *f = tlck_output_format_of(o);
    return f ? f->write(out, r, o) : -1;
}
