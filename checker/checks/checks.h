/* Checks: each has a stable id, a default severity and one file in checker/checks/. They read the model only. */
#ifndef TLCK_CHECKS_H
#define TLCK_CHECKS_H
#include "model.h"
#include "policy.h"
#include "trueline/diag.h"

struct tlck_check {
    const char *id;                       /* stable: used in config, suppressions, SARIF rule ids */
    enum tlck_severity default_severity;
    const char *summary;                  /* one line for --list-checks and SARIF rule text */
    const char *help_uri;                 /* docs/checks/<id>.md */
    /* Once per audit, before any input is read: validates the check's configuration and loads what it needs
     * (tables, parsed limits) into *state. A value it would not understand is -1 with err naming where it was
     * set and what is valid: a usage error (exit 2), never a limit silently dropped. NULL: nothing to prepare. */
    int (*prepare)(const struct tlck_policy *p, void **state, tl_error *err);
    /* Frees what prepare made (called with its state, also NULL). NULL: nothing to free. */
    void (*release)(void *state);
    /* Emits findings for one file at severity sev (already resolved from policy); state is prepare's. */
    void (*run)(const struct tlck_file *f, const struct tlck_policy *p, const void *state, enum tlck_severity sev,
                struct tlck_findings *out);
};

extern const struct tlck_check *const tlck_checks[];
extern const size_t tlck_ncheck;

const struct tlck_check *tlck_check_by_id(const char *id);

#endif
