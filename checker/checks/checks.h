/* Checks: each has a stable id, a default severity and one file in checker/checks/. They read the model only. */
#ifndef TLCK_CHECKS_H
#define TLCK_CHECKS_H
#include "model.h"
#include "policy.h"

struct tlck_check {
    const char *id;                       /* stable: used in config, suppressions, SARIF rule ids */
    enum tlck_severity default_severity;
    const char *summary;                  /* one line for --list-checks and SARIF rule text */
    const char *help_uri;                 /* docs/checks/<id>.md */
    /* Emits findings for one file at severity sev (already resolved from policy). */
    void (*run)(const struct tlck_file *f, const struct tlck_policy *p, enum tlck_severity sev, struct tlck_findings *out);
};

extern const struct tlck_check *const tlck_checks[];
extern const size_t tlck_ncheck;

const struct tlck_check *tlck_check_by_id(const char *id);

#endif
