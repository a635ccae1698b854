/* The audit: load every input (in parallel), run the enabled checks per file, judge the packages, report, decide
 * the exit status. */
#ifndef TLCK_AUDIT_H
#define TLCK_AUDIT_H
#include "check_run.h"
#include "options.h"
#include "package_pass.h"
#include "policy.h"
#include "report/report.h"

/* Loads and checks all inputs into r (r->files in input order) with the prepared checks, then runs the prepared
 * package pass over them (r->packages). */
void tlck_audit_run(const struct tlck_options *o, const struct tlck_check_run *checks,
                    const struct tlck_package_pass *packages, struct tlck_results *r);
void tlck_results_free(struct tlck_results *r);
/* 0 / 1 (findings at or above fail_on) / 2 (an input could not be read). */
int tlck_audit_exit_status(const struct tlck_results *r, const struct tlck_options *o);
/* The whole audit: prepare the checks and the package pass (a bad configuration value or an unreadable table:
 * exit 2), run, report, release. */
int tlck_audit_main(const struct tlck_options *o, const struct tlck_policy *p);

#endif
