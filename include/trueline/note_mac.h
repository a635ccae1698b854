/* The MAC of a provenance record (lib/note_mac.c): HMAC-SHA512-256 (libsodium) keyed with a key file's bytes,
 * over what tl_note_mac_span names. trueline-cc writes and checks it (wrapper/provenance/provenance_mac.c loads the key
 * from [provenance] key_file); trueline-check --attest --record-key checks it. */
#ifndef TRUELINE_NOTE_MAC_H
#define TRUELINE_NOTE_MAC_H
#include <stddef.h>

#include "trueline/note.h"

/* HMAC-SHA512-256 of a then b (blen may be 0) as TL_NOTE_MAC_HEX_LEN hex digits; -1 without MAC support
 * (built without libsodium) or without a key. */
int tl_note_mac_hex(const unsigned char *key, size_t keylen, const void *a, size_t alen, const void *b, size_t blen,
                    char hex[TL_NOTE_MAC_HEX_LEN + 1]);
/* 1 when mac (hex, as decoded from a record) is the MAC of input with key, in constant time; else 0. */
int tl_note_mac_matches(const unsigned char *key, size_t keylen, const void *input, size_t len, const char *mac);

#endif
