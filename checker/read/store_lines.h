/* The audit's view of device images shipped without their line info: each split image's line facts (which
 * functions have rows, how many bytes they cover, the line-program unit) read from its debug-store part, so
 * that line-tables judges the shipped file as it judges the build it came from. */
#ifndef TLCK_STORE_LINES_H
#define TLCK_STORE_LINES_H
#include "model.h"
#include "options.h"

/* For each device image of f with dev.lines_split: looks its identity up (o->debug_store, then DEBUGINFOD_URLS)
 * and, when found, fills its functions' line facts from the part and sets dev.line_store. Does nothing when
 * neither a store nor DEBUGINFOD_URLS is given (line-tables then says once that the store was not given). */
void tlck_store_lines_apply(struct tlck_file *f, const struct tlck_options *o);

#endif
