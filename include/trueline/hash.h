/* XXH3-128 content hashes, the currency of fingerprints and provenance notes. */
#ifndef TRUELINE_HASH_H
#define TRUELINE_HASH_H
#include <stddef.h>
#include <stdint.h>
#include "trueline/diag.h"

typedef struct tl_hash128 {
    uint64_t lo, hi;
} tl_hash128;

#define TL_HASH_HEX_LEN 32

tl_hash128 tl_hash_bytes(const void *data, size_t len);
/* Hashes a file's content (mmap, falling back to read for special files). */
int tl_hash_file(const char *path, tl_hash128 *out, tl_error *err);
/* Writes 32 lowercase hex digits plus NUL. */
void tl_hash_hex(tl_hash128 h, char out[TL_HASH_HEX_LEN + 1]);
int tl_hash_from_hex(const char *hex, tl_hash128 *out);
int tl_hash_from_hexn(const char *hex, size_t len, tl_hash128 *out); /* exactly len hex digits, no end needed */
int tl_hash_equal(tl_hash128 a, tl_hash128 b);

/* Streaming: combine many parts in order (the fingerprint of a toolchain). */
typedef struct tl_hasher tl_hasher;
tl_hasher *tl_hasher_new(void);
void tl_hasher_update(tl_hasher *h, const void *data, size_t len);
/* Adds a length-prefixed string so ("ab","c") and ("a","bc") differ. */
void tl_hasher_update_str(tl_hasher *h, const char *s);
tl_hash128 tl_hasher_final(tl_hasher *h); /* frees h */

#endif
