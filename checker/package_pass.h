/* The package pass: after the checks and the suppressions, before the report. It groups the audit's files into
 * their packages and judges each package once (package_verdict.h), leaving the verdicts in the results, so that
 * every emitter renders the same facts and none of them computes or loads anything. */
#ifndef TLCK_PACKAGE_PASS_H
#define TLCK_PACKAGE_PASS_H
#include "check_run.h"
#include "platform_table.h"
#include "report/report.h"

struct tlck_package_pass {
    const struct tlck_check_run *checks;
    struct tlck_platforms platforms; /* platform_libs.tsv joined with symbol-versions' manylinux.tsv rows */
    int have_platforms;              /* 0: platform_libs.tsv was not found */
};

/* Once per audit, after the checks were prepared and before any input is read: loads the platform tables. -1
 * with err naming the file when platform_libs.tsv is found but cannot be read (a usage error, exit 2). Not found
 * is an error only for a package that needs it (tlck_package_pass_run). */
int tlck_package_pass_prepare(struct tlck_package_pass *pp, const struct tlck_check_run *checks, tl_error *err);
/* Fills r->packages (in input order; their members are consecutive), their verdicts and r->packages_not_met.
 * A wheel of x86_64 files with no platform table to judge it by is named on stderr and counted unreadable (exit
 * 2): a release verdict is never dropped silently. */
void tlck_package_pass_run(const struct tlck_package_pass *pp, struct tlck_results *r);
void tlck_package_pass_release(struct tlck_package_pass *pp);

/* Frees what tlck_package_pass_run left in the results. */
void tlck_packages_free(struct tlck_package_summary *v, size_t n);

#endif
