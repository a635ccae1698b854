/* The provenance record of one invocation (record.c): what it says, and which objects a -c compile writes
 * (the files it goes into). */
#ifndef TLCC_WRAPPER_RECORD_H
#define TLCC_WRAPPER_RECORD_H
#include <stddef.h>

#include "understand/invocation.h"
#include "trueline/note.h"

/* What a record says beyond the invocation itself, computed once by the plan. */
typedef struct tlcc_record_ctx {
    const char *cwd;      /* the working directory (NULL: unreadable) */
    const char *key_hash; /* the effective argv as the cache keys it (verify_key.c): a cached -c compile only */
    const char *key_hash_pp; /* the same without what the preprocessor reads: gcc and clang compiles only */
    int mac;              /* a key is configured: an object's record gets a MAC placeholder */
} tlcc_record_ctx;

/* The record of type for source src (NULL for a link record); strings point into inv, c and li (the
 * line-info flags in effect, written there). */
tl_note tlcc_record_note(const tlcc_invocation *inv, const tlcc_record_ctx *c, unsigned type, const char *src,
                         char *li, size_t lilen);
/* The objects a -c compile writes, one per inv->sources element. */
void tlcc_compile_outputs(const tlcc_invocation *inv, tlcc_strv *outs);

#endif
