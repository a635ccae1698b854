/* DSSE envelopes (dsse.c), https://github.com/secure-systems-lab/dsse: the signature covers
 * PAE(type, payload) = "DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload, lengths in ASCII decimal.
 * One envelope is one JSON object on one line of a .intoto.jsonl file. */
#ifndef TLCK_ATTEST_DSSE_H
#define TLCK_ATTEST_DSSE_H
#include <stddef.h>
#include <stdio.h>

#include "attest/keys.h"

#define TLCK_INTOTO_PAYLOAD_TYPE "application/vnd.in-toto+json"

/* The PAE bytes (malloc'ed; NULL without memory). */
unsigned char *tlck_dsse_pae(const char *type, const void *payload, size_t n, size_t *len);
/* Signs payload with k and writes the envelope and a newline; -1 when it cannot be written. */
int tlck_dsse_write(FILE *out, const void *payload, size_t n, const struct tlck_sign_key *k);

enum tlck_dsse_verdict { TLCK_DSSE_OK = 0, TLCK_DSSE_BAD = 1, TLCK_DSSE_MALFORMED = 2 };
/* Checks one envelope (a line of text) against the public key: OK fills *payload (malloc'ed, NUL-ended);
 * BAD (signature or key does not match) and MALFORMED (not an envelope) say why in why[]. */
enum tlck_dsse_verdict tlck_dsse_verify(const char *line, const struct tlck_sign_key *k, char **payload,
                                        size_t *n, char *why, size_t whylen);

#endif
