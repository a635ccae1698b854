/* The after step (after.c): what the wrapper does once the compile it waited for has ended: verify the
 * objects a cache handed back (recompiling or failing on a mismatch), stamp objects compiled without the
 * stage, record links. */
#ifndef TLCC_WRAPPER_AFTER_H
#define TLCC_WRAPPER_AFTER_H
#include <time.h>

#include "run/plan.h"

/* status: the command's wait status; started: when it started (a link's output must be newer). Returns
 * the wait status to end with. */
int tlcc_after(tlcc_plan *p, const tlcc_invocation *inv, const tlcc_prov_config *prov, int status, time_t started);
/* trueline-cc --trueline-hook-fixup OUT FP ARGV_HASH KEY_HASH CACHE-ARGV...: the hook in ccache found the
 * object wrong; report and repair it as the waiting wrapper does (argv: after the option). Returns a wait
 * status, or -1 after a usage message. */
struct tlcc_ctx;
int tlcc_after_fixup(struct tlcc_ctx *ctx, const tlcc_prov_config *prov, int argc, char **argv);

#endif
