/* Checks: each has a stable id, a default severity and one file in checker/checks/. They read the model only. */
#ifndef TL_CHECKS_H
#define TL_CHECKS_H
#include "model.h"
#include "policy.h"

struct tl_check {
    const char *id;                       /* stable: used in config, suppressions, SARIF rule ids */
    enum tl_severity default_severity;
    const char *summary;                  /* one line for --list-checks and SARIF rule text */
    const char *help_uri;                 /* docs/checks/<id>.md */
    /* Emits findings for one file at severity sev (already resolved from policy). */
    void (*run)(const struct tl_file *f, const struct tl_policy *p, enum tl_severity sev, struct tl_findings *out);
};

extern const struct tl_check *const tl_checks[];
extern const size_t tl_ncheck;

const struct tl_check *tl_check_by_id(const char *id);

#endif
