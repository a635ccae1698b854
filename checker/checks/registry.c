#include "checks/checks.h"

#include <string.h>

extern const struct tl_check tl_check_line_tables, tl_check_dwarf_symbols, tl_check_stl_leak,
    tl_check_symbol_versions, tl_check_mixed_toolchain, tl_check_cuda_arch, tl_check_provenance;

/* Report order is this order. */
const struct tl_check *const tl_checks[] = {
    &tl_check_line_tables,
    &tl_check_dwarf_symbols,
    &tl_check_stl_leak,
    &tl_check_symbol_versions,
    &tl_check_mixed_toolchain,
    &tl_check_cuda_arch,
    &tl_check_provenance,
};
const size_t tl_ncheck = sizeof tl_checks / sizeof *tl_checks;

const struct tl_check *tl_check_by_id(const char *id)
{
    for (size_t i = 0; i < tl_ncheck; i++)
        if (strcmp(tl_checks[i]->id, id) == 0)
            return tl_checks[i];
    return NULL;
}
