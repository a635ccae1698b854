/* --binary for --coredump: the same kernel in a shipped artifact (a cubin, a .so/executable's fatbin, a
 * standalone .fatbin, or a directory such as a Triton cache), matched by name, SM and code size. */
#ifndef TLCK_COREDUMP_BINARY_H
#define TLCK_COREDUMP_BINARY_H
#include "tools/coredump/coredump_report.h"

/* On a match with line info fills w->frames and w->line_origin; otherwise appends to w->line_note what was
 * searched and found. */
void cd_lines_from_binary(const char *path, struct cd_where *w);

/* The SM a cubin is built for, from e_flags: ABI version 7 keeps it in bits 0-7, the newer ABI (version 8,
 * OS/ABI 0x41, seen in the images drivers load) in bits 8-15 (docs/coredump.md). */
unsigned cd_cubin_sm(const tl_elf *e);

#endif
