/* The provenance check's matching of DWARF compile units to .note.trueline records, shared with
 * --provenance (tools/provenance.c) so the table and the check agree on "built outside the wrapper". */
#ifndef TLCK_CHECKS_PROVENANCE_H
#define TLCK_CHECKS_PROVENANCE_H
#include "model.h"

/* A unit that should have a record (not an assembler-only unit). */
int tlck_provenance_cu_expected(const struct tlck_cu *cu);
/* A compile record names this unit (comp_dir/name = cwd/src, same basename, or nvcc's tmpxft copy). */
int tlck_provenance_cu_recorded(const struct tlck_file *f, const struct tlck_cu *cu);

#endif
