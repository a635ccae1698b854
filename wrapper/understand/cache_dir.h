/* Keeping the working directory out of the cache's key when trueline-cc forces host line info
 * (cache_dir.c): what each cache needs so that a forced -g1 costs no hit across build directories. */
#ifndef TLCC_WRAPPER_CACHE_DIR_H
#define TLCC_WRAPPER_CACHE_DIR_H
#include "env_snapshot.h"
#include "understand/invocation.h"

/* Called once trueline-cc has forced host debug info on a compile the user gave no -g: appends (to args and
 * forced) what the row of the chained cache and the compiler's family asks for, unless the user's own options
 * already settle it. 0, or -1 when out of memory. */
int tlcc_cache_dir_neutral(tlcc_invocation *inv);

/* The working directory as gcc and ccache name it: $PWD when it is absolute and the same directory as ".",
 * else getcwd. malloc'ed; NULL when neither can be had. */
char *tlcc_apparent_cwd(const tlcc_env_snapshot *env);

#endif
