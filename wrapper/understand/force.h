/* Reading the effective argv (what kind of invocation, -G, -c, -o, source, nvcc's host compiler) and
 * adding the forced line-info flags where they cannot change the meaning of the call. */
#ifndef TLCC_WRAPPER_FORCE_H
#define TLCC_WRAPPER_FORCE_H
#include "understand/invocation.h"
#include "fingerprint/memo.h"

/* Fills has_G, has_lineinfo, host_debug, compile_only, no_force(+reason), output, source and, for
 * nvcc, host_compiler/host_from (its PATH lookup memoized in memo, NULL: not memoized). */
void tlcc_analyze(tlcc_invocation *inv, tlcc_memo *memo);
/* Appends the forced flags per [wrapper] device_lineinfo / host_debug; -1 with err on a bad value. */
int tlcc_force(tlcc_invocation *inv, const tl_config *cfg, tl_error *err);
/* 1 when a -g option turns host debug info on (-g, -g1..3, -ggdb, -gdwarf-N, -gline-tables-only...). */
int tlcc_is_debug_on(const char *opt);
int tlcc_is_debug_off(const char *opt);

#endif
