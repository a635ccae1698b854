/* --coredump: the lines of a kernel whose line info was split out, from the debug store (--debug-store,
 * [audit] debug_store, DEBUGINFOD_URLS). */
#ifndef TLCK_COREDUMP_STORE_H
#define TLCK_COREDUMP_STORE_H
#include <stddef.h>
#include "tools/coredump/coredump_report.h"

/* Fills w->frames and w->line_origin and returns 0; else -1 with note saying what was looked for. */
int cd_lines_from_store(const struct tlck_options *o, struct cd_where *w, char *note, size_t notelen);

#endif
