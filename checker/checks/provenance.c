/* provenance: not implemented yet (scaffold; its issue fills this file). */
#include "checks/checks.h"

static void run(const struct tl_file *f, const struct tl_policy *p, enum tl_severity sev, struct tl_findings *out)
{
    (void)f; (void)p; (void)sev; (void)out;
}

const struct tl_check tl_check_provenance = {
    .id = "provenance",
    .default_severity = TL_SEV_ERROR,
    .summary = "provenance notes",
    .help_uri = "docs/checks/provenance.md",
    .run = run,
};
