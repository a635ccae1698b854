/* What a statement says, as data: the attest step fills it from the model (tools/attest.c), the verify step
 * from a verified statement (tools/attest_verify.c); statement.c writes it, policy.c judges it. Every string
 * is owned (tlck_att_free frees them). */
#ifndef TLCK_ATTEST_FACTS_H
#define TLCK_ATTEST_FACTS_H
#include <stddef.h>

#include "attest/keys.h"
#include "record_binding.h" /* TLCK_BIND_*: whether a compile record still binds its object */

/* Whether a record's MAC verifies with the record key given to --attest (--record-key). */
#define TLCK_MAC_VERIFIED "verified"
#define TLCK_MAC_WRONG "does not verify"
#define TLCK_MAC_UNCHECKED "not checked: no record key given"
#define TLCK_MAC_ABSENT "absent"

/* One environment variable trueline-cc folded into a compile's argv, as it was set. */
struct tlck_att_folded {
    char *variable, *value;
};

struct tlck_att_record {
    char *kind;              /* "compile" or "link" */
    char *source, *driver, *compiler_version, *fingerprint, *lineinfo_level, *argv;
    int lineinfo_forced, device_debug;
    char **forced; size_t nforced; /* the flags trueline-cc added, one per element (none: not forced) */
    struct tlck_att_folded *folded; size_t nfolded;
    int folded_known;        /* the record carries its argv, and so the variables folded into it */
    int keyed;               /* carries a MAC ([provenance] key_file at build time) */
    char *mac;               /* TLCK_MAC_*: whether that MAC was checked, and how it came out */
    char *binding;           /* TLCK_BIND_* */
    char **args; size_t nargs; /* the compile's arguments as recorded, and its directory: --attest asks */
    char *cwd;                 /* trueline-cc what this very compile fingerprints now (not in the statement) */
};

struct tlck_att_object {
    char *file;              /* "pkg.whl!lib/x.so", "lib.a(m.o)", "x.so" */
    char sha256[TLCK_SHA256_HEX];
    struct tlck_att_record *rec; size_t nrec;
    char **unrecorded; size_t nunrecorded; /* DWARF compile units no record names */
};

struct tlck_att_component {
    char *role, *path, *xxh3, *sha256; /* sha256 NULL when the component is absent */
};

/* One distinct fingerprint the records name, resolved on the attesting machine when a driver asked for now
 * has the same fingerprint (components listed), else components unknown. */
struct tlck_att_toolchain {
    char *fingerprint, *driver, *compiler_version;
    const struct tlck_att_record *first; /* the first compile record with it (borrowed), NULL when read back */
    int resolved;
    char *replayed; /* what asking as recorded fingerprinted instead, when it did (said when unresolved) */
    struct tlck_att_component *comp; size_t ncomp;
};

struct tlck_att_subject {
    char *name;
    char sha256[TLCK_SHA256_HEX];
};

struct tlck_attestation {
    struct tlck_att_subject *subj; size_t nsubj;
    struct tlck_att_object *obj; size_t nobj;
    struct tlck_att_toolchain *tc; size_t ntc;
    char *policy;            /* the requirements as given (--require), NULL: none */
    char **violations; size_t nviolations;
};

void tlck_att_free(struct tlck_attestation *a);
/* Appends a zeroed element to *v (n elements); NULL without memory. */
void *tlck_att_push(void *v, size_t *n, size_t elem);
/* Appends a copy of one forced flag, or of one folded variable (its name is variable's first nvariable bytes);
 * -1 without memory. */
int tlck_att_add_forced(struct tlck_att_record *r, const char *flag);
int tlck_att_add_folded(struct tlck_att_record *r, const char *variable, size_t nvariable, const char *value);

#endif
