/* --symbolize on a file whose line info was split out into a debug store (--debug-store, [audit] debug_store,
 * DEBUGINFOD_URLS): device images by their identity, host code by its GNU build-id. */
#ifndef TLCK_SYMBOLIZE_STORE_H
#define TLCK_SYMBOLIZE_STORE_H
#include <stddef.h>
#include "options.h"
#include "tools/symbolize_host.h"

/* When the cubin *bytes (n bytes, malloc'd) had its line info split out: replaced by its store part (the cubin
 * as built), or, when no part is found, left as it is with a line on stderr saying so. */
void tlck_sym_store_device(const struct tlck_options *o, const char *display, const char *label,
                           unsigned char **bytes, size_t *n);

/* The host DWARF of the linked ELF file at path from the store part under its build-id; NULL with err when the
 * file has no build-id or no part is found. */
struct tlck_host_lines *tlck_sym_store_host(const struct tlck_options *o, const char *path, tl_error *err);

#endif
