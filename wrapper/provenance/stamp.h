/* Adding provenance records to an ELF file's `.note.trueline` in place (stamp.c). Record format:
 * include/trueline/note.h. */
#ifndef TLCC_WRAPPER_STAMP_H
#define TLCC_WRAPPER_STAMP_H
#include <stddef.h>

#include "provenance/provenance_mac.h"
#include "trueline/diag.h"
#include "trueline/note.h"

/* Appends the record for n to path's `.note.trueline` (created when absent). Existing bytes keep their
 * offsets, so it is safe for objects, shared objects and executables. */
int tlcc_stamp_file(const char *path, const tl_note *n, size_t argv_max, tl_error *err);
/* The same with an already encoded record (tl_note_encode). */
int tlcc_stamp_record(const char *path, const unsigned char *rec, size_t rec_len, tl_error *err);
/* Stamps a compile record encoded with placeholders (seal_content, seal_mac) and then fills them in place:
 * the content digest of the stamped file, and the MAC with key (NULL: no MAC placeholder expected). */
int tlcc_stamp_sealed(const char *path, const unsigned char *rec, size_t rec_len, const tlcc_mac_key *key,
                      tl_error *err);

#endif
