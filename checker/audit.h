/* The audit: load every input (in parallel), run the enabled checks per file, report, decide the exit status. */
#ifndef TL_AUDIT_H
#define TL_AUDIT_H
#include "options.h"
#include "policy.h"
#include "report/report.h"

/* Loads and checks all inputs into r (r->files in input order). */
void tl_audit_run(const struct tl_options *o, const struct tl_policy *p, struct tl_results *r);
void tl_results_free(struct tl_results *r);
/* 0 / 1 (findings at or above fail_on) / 2 (an input could not be read). */
int tl_audit_exit_status(const struct tl_results *r, const struct tl_options *o);
int tl_audit_main(const struct tl_options *o, const struct tl_policy *p);

#endif
