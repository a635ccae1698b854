/* What the user asked of an audit: configuration, thresholds and per-check severities. */
#ifndef TLCK_POLICY_H
#define TLCK_POLICY_H
#include <stddef.h>
#include "model.h"
#include "trueline/config.h"
#include "trueline/diag.h"

struct tlck_policy {
    const tl_config *cfg;        /* [checks], [suppress], [cuda-arch], [symbol-versions] ... */
    enum tlck_severity fail_on;    /* exit 1 when an unsuppressed finding is at or above this */
    const char *platform;        /* --policy manylinux_2_28 (symbol-versions), NULL when not given */
    const char *only;            /* --checks id,id (NULL = all enabled; blanks around ids ignored) */
    int release;                 /* --release: a release audit (e.g. -G device images are findings) */
    const struct tlck_profile *profile; /* --profile (profile.h); NULL: the build profile */
};

/* Severity of check id under this policy: [checks] id = error|warning|info|off overrides the default. */
enum tlck_severity tlck_policy_severity(const struct tlck_policy *p, const char *id, enum tlck_severity dflt);

/* Before an audit: every id of --checks names a check, every [checks] key is a check id with a severity.
 * A value the audit would not understand is a usage error (exit 2), not a check silently skipped. -1 with err
 * naming what is wrong and what is valid. Each check validates its own section (struct tlck_check's prepare). */
int tlck_policy_validate(const struct tlck_policy *p, tl_error *err);

#endif
