/* The in-toto Statement v1 with a SLSA provenance v1 predicate (statement.c writes it, statement_read.c reads
 * a verified one back into facts). docs/attest.md shows its shape. */
#ifndef TLCK_ATTEST_STATEMENT_H
#define TLCK_ATTEST_STATEMENT_H
#include <stdio.h>

#include "attest/facts.h"
#include "trueline/diag.h"

#define TLCK_INTOTO_STATEMENT "https://in-toto.io/Statement/v1"
#define TLCK_SLSA_PROVENANCE "https://slsa.dev/provenance/v1"
#define TLCK_BUILD_TYPE "urn:trueline:build-records:v1"

/* Writes the statement (compact JSON, no newline). */
void tlck_statement_write(FILE *out, const struct tlck_attestation *a);
/* Reads a statement's subjects, objects and policy back; err says what is missing. */
int tlck_statement_read(const char *json, size_t n, struct tlck_attestation *a, tl_error *err);

#endif
