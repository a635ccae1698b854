/* The address ranges of a DWARF DIE that has DW_AT_ranges (DWARF 2-4 .debug_ranges, DWARF 5 .debug_rnglists),
 * for the readers and tools that turn DIEs into address ranges (line cover, subprograms, --symbolize). */
#ifndef TLCK_DWARF_RANGES_H
#define TLCK_DWARF_RANGES_H
#include <libdwarf.h>

/* Calls each(ctx, lo, hi) for every non-empty range of die's DW_AT_ranges; version is the unit's DWARF version,
 * cu_base its base address (DW_AT_low_pc of the unit) for DWARF 2-4 offsets. Nothing when die has none. */
void tlck_dw_die_ranges(Dwarf_Debug dbg, Dwarf_Die die, unsigned version, Dwarf_Addr cu_base,
                        void (*each)(void *ctx, Dwarf_Addr lo, Dwarf_Addr hi), void *ctx);

#endif
