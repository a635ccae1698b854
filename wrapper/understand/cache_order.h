/* Whether a compiler cache runs trueline-cc as its compiler (`ccache trueline-cc gcc`, CMake's
 * "ccache;trueline-cc"): the reversed order, refused (cache_order.c). */
#ifndef TLCC_WRAPPER_CACHE_ORDER_H
#define TLCC_WRAPPER_CACHE_ORDER_H
#include "env_snapshot.h"

/* The cache's name ("ccache", "sccache") when one runs this process as its compiler, else NULL; *how says
 * what showed it. chains_cache: this run chains a cache itself (the right order): only ccache's certain mark
 * is looked at, no /proc read and no CCACHE_DISABLE (a user may set it in front of the right order). */
const char *tlcc_cache_runs_us(const tlcc_env_snapshot *env, int chains_cache, const char **how);

#endif
