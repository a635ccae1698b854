/* dwarf-symbols: not implemented yet (scaffold; its issue fills this file). */
#include "checks/checks.h"

static void run(const struct tl_file *f, const struct tl_policy *p, enum tl_severity sev, struct tl_findings *out)
{
    (void)f; (void)p; (void)sev; (void)out;
}

const struct tl_check tl_check_dwarf_symbols = {
    .id = "dwarf-symbols",
    .default_severity = TL_SEV_ERROR,
    .summary = "DWARF vs symbols",
    .help_uri = "docs/checks/dwarf-symbols.md",
    .run = run,
};
