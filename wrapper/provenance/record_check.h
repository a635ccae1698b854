/* The decision of a cache-hit verification from raw `.note.trueline` bytes (record_check.c), shared by the
 * waiting wrapper (verify.c reads with libelf) and the hook in ccache (hook/note_section.c). */
#ifndef TLCC_WRAPPER_RECORD_CHECK_H
#define TLCC_WRAPPER_RECORD_CHECK_H
#include <stddef.h>

#include "trueline/hash.h"
#include "trueline/note.h"

/* NOT_HOST: no host relocatable object there (a cubin, or nothing written): nothing to verify. */
enum tlcc_verify_status { TLCC_VERIFY_OK = 0, TLCC_VERIFY_NO_NOTE, TLCC_VERIFY_MISMATCH, TLCC_VERIFY_UNREADABLE,
                          TLCC_VERIFY_NOT_HOST };
typedef struct tlcc_verify_result {
    enum tlcc_verify_status status;
    int unbound; /* OK, but the record has no content digest (written before records had one) */
    char what[1024]; /* for anything but OK: exactly what differs or what is missing */
} tlcc_verify_result;

/* What a cached object's record must match. key_hash: the hash of the effective argv as the cache keys it
 * (verify_key.c), compared with the record's `kh`; key_hash_pp (NULL: none), the same without what the
 * preprocessor reads, compared instead with a record's `kp` when both have one; a record written before it
 * had either is compared by its `ah` with argv_hash. argv (argc elements) and key: this invocation's effective argv and how the cache
 * normalizes it, to name the differing elements (argv NULL: only decide, as the hook in ccache does). */
struct tlcc_key_ctx;
typedef struct tlcc_verify_expect {
    const char *fingerprint, *argv_hash, *key_hash, *key_hash_pp;
    char *const *argv;
    int argc;
    struct tlcc_key_ctx *key;
    /* tlcc_key_vector (verify_key.h), handed in so that the hook, which never names differences, links
     * none of it */
    char **(*key_vector)(struct tlcc_key_ctx *k, char *const *argv, int argc, const char *cwd, int pp, int *n);
    /* A key is configured: tlcc_mac_note_ok with mac_key, handed in so that the hook links no libsodium
     * (NULL: records are not required to carry a MAC) */
    int (*mac_ok)(void *mac_key, const tl_note *n);
    void *mac_key;
} tlcc_verify_expect;

/* Add every `.note.trueline` section of the object (-1 when one is damaged: r says so), then end, which
 * decides (unless decided already) and frees. */
typedef struct tlcc_record_check {
    tl_note *compile; /* the first compile record */
    int ncompile;
    /* The object's content digest, set by the reader (empty: it could not be computed, e.g. not exactly
     * one record section) */
    char content[TL_HASH_HEX_LEN + 1];
} tlcc_record_check;
int tlcc_record_check_add(tlcc_record_check *c, const void *sec, size_t len, int big_endian, tlcc_verify_result *r);
void tlcc_record_check_end(tlcc_record_check *c, int decided, const tlcc_verify_expect *e, tlcc_verify_result *r);

/* Output operand of an argv (without argv[0]): the value of the last -o, NULL when none. */
const char *tlcc_prov_output(char *const *argv, int argc);

#endif
