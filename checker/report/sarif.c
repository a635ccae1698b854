/* sarif emitter: scaffold; the host-audit issue fills it. */
#include "report/report.h"

int tl_report_sarif(FILE *out, const struct tl_results *r, const struct tl_options *o)
{
    (void)out; (void)r; (void)o;
    return -1;
}
