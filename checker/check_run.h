/* The checks of one audit: prepared once (each check's configuration validated and loaded) before any input is
 * read, run on every loaded file, released after the report has been written. */
#ifndef TLCK_CHECK_RUN_H
#define TLCK_CHECK_RUN_H
#include "checks/checks.h"

struct tlck_check_run {
    const struct tlck_policy *p;
    void **state; /* state[i]: what tlck_checks[i]->prepare loaded */
};

/* Validates the policy (--checks, [checks]) and prepares every registered check, enabled or not (a bad value is a
 * usage error whichever checks run). -1 with err naming the first bad value; nothing stays allocated then. */
int tlck_check_run_prepare(struct tlck_check_run *r, const struct tlck_policy *p, tl_error *err);
/* Runs every check the policy enables on f, each at its configured severity. */
void tlck_check_run_file(const struct tlck_check_run *r, const struct tlck_file *f, struct tlck_findings *out);
/* The prepared state of check c (NULL when it has none, or r is NULL). */
const void *tlck_check_run_state(const struct tlck_check_run *r, const struct tlck_check *c);
void tlck_check_run_release(struct tlck_check_run *r);

#endif
