/* Explain mode (TRUELINE_EXPLAIN=1 or --trueline-explain): everything that decides the cache key, the
 * first thing to read when a cache behaves strangely. Written to stderr, one fact per line. */
#ifndef TLCC_WRAPPER_EXPLAIN_H
#define TLCC_WRAPPER_EXPLAIN_H
#include <stdio.h>

#include "understand/invocation.h"

void tlcc_explain(const tlcc_invocation *inv, double fingerprint_ms, FILE *out);
/* --trueline-toolchain: what the fingerprint covers, for programs (trueline-check --attest), one tab-separated
 * line each: "compiler PATH", "version TEXT", "component ROLE XXH3 PATH" ("component ROLE absent -" for a tool
 * not found), "environment NAME=VALUE", then "fingerprint HEX". */
void tlcc_explain_toolchain(const tlcc_invocation *inv, FILE *out);

#endif
