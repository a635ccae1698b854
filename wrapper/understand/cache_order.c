/* `ccache trueline-cc gcc ...` puts the cache first: the cache keys the compile before trueline-cc has added
 * anything, so it hands back objects built with other forced flags, another toolchain or other env-injected
 * flags (NVCC_PREPEND_FLAGS), and trueline-cc never sees its hits to verify them. CMake's
 * "ccache;trueline-cc" launcher list makes it easy to write. It is refused before anything runs.
 *
 * How a cache is recognised, measured with ccache 4.7 and sccache 0.16:
 * - ccache sets UNCACHED_ERR_FD and CCACHE_DISABLE=1 in the environment of the compiler it runs (its parent
 *   is then ccache). When it gives up on caching a command it execs the "compiler" in its own place with
 *   CCACHE_DISABLE=1 alone: CMake's "ccache;trueline-cc" always ends there (ccache takes the compiler's path
 *   after trueline-cc for a second source file: "multiple_source_files"), so that build silently caches
 *   nothing. CCACHE_DISABLE is taken only where trueline-cc chains no cache itself: a user may set it in front
 *   of the right order; one who sets it around trueline-cc without a cache is told to unset it.
 * - sccache's server runs the compiler with the server's environment and marks nothing: its parent process is
 *   named sccache (/proc/PPID/comm). Read only where trueline-cc chains no cache itself: a hit in the right
 *   order pays nothing for it.
 * trueline-cc in the right order sets TRUELINE_CC_ACTIVE for everything below it, so a masquerade link that
 * the cache runs there (nvcc's host gcc, a `ccache` link's real cache running a `gcc` link) returns as nested
 * before this check. A link named ccache in front of the real one is trueline-cc, run by the build, not by a
 * cache: not refused. */
#include "understand/cache_order.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The parent's command name (comm: the executable's file name, at most 15 bytes). */
static int parent_is(const char *name)
{
    char path[64], comm[32];
    snprintf(path, sizeof path, "/proc/%ld/comm", (long)getppid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, comm, sizeof comm - 1);
    close(fd);
    if (n <= 0)
        return 0;
    comm[n] = 0;
    comm[strcspn(comm, "\n")] = 0;
    return strcmp(comm, name) == 0;
}

const char *tlcc_cache_runs_us(const tlcc_env_snapshot *env, int chains_cache, const char **how)
{
    *how = "";
    if (env->v[TLCC_EV_UNCACHED_ERR_FD])
        return "ccache";
    if (chains_cache)
        return NULL;
    static const char *const caches[] = { "sccache", "ccache", NULL };
    for (const char *const *c = caches; *c; c++)
        if (parent_is(*c))
            return *c;
    if (env->v[TLCC_EV_CCACHE_DISABLE]) {
        *how = " (CCACHE_DISABLE is set, as ccache sets it for the command it runs in its place: if you set it "
               "yourself, unset it for trueline-cc)";
        return "ccache";
    }
    return NULL;
}
