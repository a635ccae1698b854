#include "trueline/diag.h"

#include <stdio.h>

int tl_vfail(tl_error *err, const char *fmt, va_list ap)
{
    if (err)
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return -1;
}

int tl_fail(tl_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tl_vfail(err, fmt, ap);
    va_end(ap);
    return -1;
}

void tl_report_error(const char *prog, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (file)
        fprintf(stderr, "%s: %s: ", prog, file);
    else
        fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
