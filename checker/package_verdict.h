/* One package's verdict (packages.h), judged by the package pass from the model, the audit's findings and the
 * tables the pass prepared; it opens no file. */
#ifndef TLCK_PACKAGE_VERDICT_H
#define TLCK_PACKAGE_VERDICT_H
#include <stddef.h>
#include "packages.h"
#include "report/report.h"

struct tlck_platforms;
struct tlck_blacklist;

/* What the verdict is judged against, loaded once per audit. */
struct tlck_package_tables {
    const struct tlck_platforms *platforms; /* platform_libs.tsv joined with manylinux.tsv; NULL when not found */
    const struct tlck_blacklist *blacklist; /* symbol-versions' copy of conf/platform_blacklist.tsv */
};

/* Fills v for the package whose members are r->files[first .. first + n). 1 when its platform would be judged
 * (a wheel of x86_64 files) but t has no platform table; else 0. Free with tlck_package_verdict_free. */
int tlck_package_verdict(const struct tlck_results *r, const struct tlck_package_tables *t, size_t first, size_t n,
                         struct tlck_package_verdict *v);
void tlck_package_verdict_free(struct tlck_package_verdict *v);

#endif
