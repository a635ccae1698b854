/* The record key (--attest --record-key FILE): the key file trueline-cc's [provenance] key_file names, whose
 * bytes key the records' MACs (trueline/note_mac.h). Read here with the wrapper's bounds: 16 to 4096 bytes. */
#ifndef TLCK_ATTEST_RECORD_KEY_H
#define TLCK_ATTEST_RECORD_KEY_H
#include <stddef.h>
#include "trueline/diag.h"

struct tlck_record_key {
    unsigned char *bytes; /* NULL: none given */
    size_t len;
};

int tlck_record_key_load(const char *path, struct tlck_record_key *k, tl_error *err);
void tlck_record_key_free(struct tlck_record_key *k);

#endif
