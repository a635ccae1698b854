/* The hook's check of one object (note_section.c). */
#ifndef TLCC_WRAPPER_HOOK_NOTE_SECTION_H
#define TLCC_WRAPPER_HOOK_NOTE_SECTION_H
#include "provenance/record_check.h"

/* 1 when path is a host object whose one compile record carries this fingerprint and argv hash as the
 * cache keys it (key_hash; argv_hash for a record without one); 0 for
 * anything else (a mismatch, no record, an unreadable or unusual file), which trueline-cc then examines
 * with libelf and reports. */
int tlcc_hook_object_matches(const char *path, const char *fingerprint, const char *argv_hash, const char *key_hash,
                             const char *key_hash_pp);
/* Feeds every `.note.trueline` section of path to c: 0, or -1 when not sure (anything but the plain layout,
 * a bound that does not hold) or a section is damaged (r says so). */
int tlcc_hook_read_record(const char *path, tlcc_record_check *c, tlcc_verify_result *r);

#endif
