/* Resolving recorded toolchain fingerprints into components on this machine (toolchain.c): trueline-cc
 * --trueline-toolchain DRIVER prints what it fingerprints for DRIVER now; where that fingerprint equals a
 * record's, the components are the record's too, and each gets a sha256 read here. */
#ifndef TLCK_ATTEST_TOOLCHAIN_H
#define TLCK_ATTEST_TOOLCHAIN_H
#include <stddef.h>

#include "attest/facts.h"
#include "trueline/diag.h"

/* sha256 of a file's bytes, read to its end; -1 (err names the file) on any read error. */
int tlck_sha256_file(const char *path, char out[TLCK_SHA256_HEX], tl_error *err);

/* Fills a->tc: one entry per distinct compile-record fingerprint. drivers (ndrivers, may be 0: then the
 * drivers the records name) are asked through trueline-cc, found beside self_exe or on PATH. A query that
 * fails leaves fingerprints unresolved and says why on stderr; -1 only without memory. */
int tlck_att_resolve_toolchains(struct tlck_attestation *a, const char *const *drivers, size_t ndrivers,
                                const char *self_exe);

#endif
