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

/* Before an audit: every id of --checks names a check, every [checks] key is a check id with a severity, and
 * the [symbol-versions] maxima are versions. A value the audit would not understand is a usage error (exit 2),
 * not a check silently skipped or a limit silently dropped. -1 with err naming what is wrong and what is valid. */
int tlck_policy_validate(const struct tlck_policy *p, tl_error *err);

/* Where a config value (a string tl_config_get or tl_config_each handed out) came from, for messages:
 * "FILE:LINE" for an entry of the loaded file, else the TRUELINE_<SECTION>_<KEY> variable that overrides it. */
void tlck_policy_value_origin(const struct tlck_policy *p, const char *section, const char *key, const char *value,
                            char *buf, size_t n);

/* What a config validator walking entries with tl_config_each carries: the first failure goes to err. */
struct tlck_policy_check {
    const struct tlck_policy *p;
    tl_error *err;
    int failed;
};

/* [symbol-versions]: every key is one of the section's, and glibc, glibcxx, cxxabi, gcc parse as maxima.
 * In checks/symbol_versions.c, next to the one parser that reads them. */
int tlck_symbol_versions_validate(const struct tlck_policy *p, tl_error *err);

#endif
