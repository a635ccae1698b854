#ifndef TRUELINE_WRAPPER_DEPTH_GUARD_H
#define TRUELINE_WRAPPER_DEPTH_GUARD_H
#include "env_snapshot.h"
#include "trueline/diag.h"

/* How many trueline-cc processes may run inside one another. Real nesting is shallow (nvcc under
 * trueline-cc running its host compiler through a masquerade link: 2; a -ccbin script calling
 * `trueline-cc g++`: 3). A compiler on PATH that is a script calling trueline-cc again recurses without
 * end, and no identity check sees through a script. */
#define TLCC_MAX_DEPTH 8
#define TLCC_DEPTH_ENV "TRUELINE_CC_DEPTH"

/* Counts this process in TLCC_DEPTH_ENV ("<self id> <depth>": a value naming another executable, or
 * malformed, starts again at 1, so a stray value can neither switch the guard off nor trip it for another
 * trueline-cc) and exports it to every child. -1 with err past TLCC_MAX_DEPTH. */
int tlcc_depth_enter(tlcc_env_snapshot *env, const char *self_id, const char *tool, tl_error *err);

#endif
