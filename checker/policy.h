/* What the user asked of an audit: configuration, thresholds and per-check severities. */
#ifndef TL_POLICY_H
#define TL_POLICY_H
#include "model.h"
#include "trueline/config.h"

struct tl_policy {
    const tl_config *cfg;        /* [checks], [suppress], [cuda-arch], [symbol-versions] ... */
    enum tl_severity fail_on;    /* exit 1 when an unsuppressed finding is at or above this */
    const char *platform;        /* --policy manylinux_2_28 (symbol-versions), NULL when not given */
    const char *only;            /* --checks id,id (NULL = all enabled) */
    int release;                 /* --release: a release audit (e.g. -G device images are findings) */
};

/* Severity of check id under this policy: [checks] id = error|warning|info|off overrides the default. */
enum tl_severity tl_policy_severity(const struct tl_policy *p, const char *id, enum tl_severity dflt);

#endif
