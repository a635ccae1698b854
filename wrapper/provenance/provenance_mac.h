/* Record MACs (provenance_mac.c, libsodium): HMAC-SHA512-256 keyed by a key file's bytes. */
#ifndef TLCC_WRAPPER_PROVENANCE_MAC_H
#define TLCC_WRAPPER_PROVENANCE_MAC_H
#include <stddef.h>

#include "trueline/diag.h"
#include "trueline/note.h"

typedef struct tlcc_mac_key {
    unsigned char *bytes; /* NULL: no key */
    size_t len;
} tlcc_mac_key;

/* The key is the key file's bytes (16 to 4096). */
int tlcc_mac_key_load(const char *path, tlcc_mac_key *k, tl_error *err);
void tlcc_mac_key_free(tlcc_mac_key *k);
/* HMAC-SHA512-256 of a then b, as TL_NOTE_MAC_HEX_LEN hex digits; -1 without MAC support. */
int tlcc_mac_hex(const tlcc_mac_key *k, const void *a, size_t alen, const void *b, size_t blen,
                 char hex[TL_NOTE_MAC_HEX_LEN + 1]);
/* 1 when the decoded record's MAC verifies with key (a tlcc_mac_key): the MAC is present, last, and right. */
int tlcc_mac_note_ok(void *key, const tl_note *n);

#endif
