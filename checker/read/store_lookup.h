/* Device images whose line info was split out (checker/split/), and their part in the debug store: what
 * --coredump, --symbolize and the audit share on top of read/debug_store.h and read/device_identity.h. */
#ifndef TLCK_STORE_LOOKUP_H
#define TLCK_STORE_LOOKUP_H
#include <stddef.h>
#include "read/device_identity.h"
#include "trueline/elf_file.h"

/* 1 when the cubin's line info was split out: its .debug_line is there but empty (a cubin built without
 * -lineinfo has none at all). */
int tlck_cubin_lines_split(const tl_elf *e);

/* The store part of a device image: its identity (into id) and tlck_store_find's answer for it: 0 with the
 * part's path, 1 when neither the store nor a server has it, -1 with err. */
int tlck_store_find_device(const char *store, const unsigned char *img, size_t n,
                           unsigned char id[TLCK_DEVICE_ID_LEN], char *path, size_t cap, char *err, size_t errlen);

/* The identity as the store spells it: 32 hex digits. */
void tlck_device_id_hex(const unsigned char id[TLCK_DEVICE_ID_LEN], char hex[2 * TLCK_DEVICE_ID_LEN + 1]);

#endif
