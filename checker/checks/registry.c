#include "checks/checks.h"

#include <string.h>

extern const struct tlck_check tlck_check_line_tables, tlck_check_dwarf_symbols, tlck_check_stl_leak,
    tlck_check_symbol_versions, tlck_check_mixed_toolchain, tlck_check_cuda_arch, tlck_check_provenance;

/* Report order is this order. */
const struct tlck_check *const tlck_checks[] = {
    &tlck_check_line_tables,
    &tlck_check_dwarf_symbols,
    &tlck_check_stl_leak,
    &tlck_check_symbol_versions,
    &tlck_check_mixed_toolchain,
    &tlck_check_cuda_arch,
    &tlck_check_provenance,
};
const size_t tlck_ncheck = sizeof tlck_checks / sizeof *tlck_checks;

const struct tlck_check *tlck_check_by_id(const char *id)
{
    for (size_t i = 0; i < tlck_ncheck; i++)
        if (strcmp(tlck_checks[i]->id, id) == 0)
            return tlck_checks[i];
    return NULL;
}
