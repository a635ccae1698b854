/* Ed25519 signing keys as files (keys.c): securesystemslib's key dictionaries, so that Python's
 * securesystemslib and in-toto read them as they are (docs/attest.md shows how).
 *   NAME.pub  {"keyid": K, "keytype": "ed25519", "scheme": "ed25519", "keyval": {"public": HEX}}
 *   NAME      the same with keyval.private: the 32-byte seed in hex; mode 0600
 * keyid: sha256 of the canonical JSON of {"keytype", "keyval": {"public"}, "scheme"} (securesystemslib's
 * compute_default_keyid), so a key file's "keyid" is recomputed on load, never trusted. */
#ifndef TLCK_ATTEST_KEYS_H
#define TLCK_ATTEST_KEYS_H
#include <stddef.h>
#include "trueline/diag.h"

#define TLCK_SHA256_HEX 65 /* 64 hex digits and the NUL */

struct tlck_sign_key {
    unsigned char pub[32];
    unsigned char sec[64]; /* libsodium's secret key: seed then public key; zero for a public key */
    int has_secret;
    char keyid[TLCK_SHA256_HEX];
};

void tlck_sha256_hex(const void *p, size_t n, char out[TLCK_SHA256_HEX]);
/* Writes NAME (secret, created 0600, never over an existing file) and NAME.pub. */
int tlck_key_generate(const char *name, tl_error *err);
/* Reads a key file; want_secret: it must hold the private half. err names the file and what is wrong. */
int tlck_key_load(const char *path, int want_secret, struct tlck_sign_key *k, tl_error *err);
void tlck_key_wipe(struct tlck_sign_key *k);

#endif
