/* Whether a compile record still binds the object it sits in ("ch", lib/content_digest.c): one answer for
 * --attest and --provenance, so that the table never calls genuine what the attestation calls changed. */
#ifndef TLCK_RECORD_BINDING_H
#define TLCK_RECORD_BINDING_H
#include <stddef.h>

#include "inputs.h"
#include "model.h"

#define TLCK_BIND_MATCHES "matches"        /* the object's bytes are the ones the record was sealed over */
#define TLCK_BIND_DIFFERS "differs"        /* changed after the record was written */
#define TLCK_BIND_ABSENT "absent"          /* a record written before records carried a digest */
#define TLCK_BIND_LINKED "not checkable: linked" /* the record's object was linked into this file */

/* n: one of f's records; ncompile: how many of f's records are compile records; b: f's bytes. */
const char *tlck_record_binding(const struct tlck_file *f, const struct tlck_provenance *n, size_t ncompile,
                                const struct tlck_input_bytes *b);
/* How many of f's records are compile records (the digest is checkable only when there is exactly one). */
size_t tlck_compile_records(const struct tlck_file *f);

#endif
