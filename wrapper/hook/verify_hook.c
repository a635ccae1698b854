/* libtrueline-hook.so: loaded into ccache by trueline-cc (LD_PRELOAD) to verify a cache hit in ccache's
 * own process, so that no second process has to wait for ccache (why, and when trueline-cc uses it:
 * wrapper/provenance/verify_in_cache.c).
 *
 * It has no dependencies and exports one symbol: a preloaded library and everything it needs join the
 * scope of every symbol lookup ccache's start-up makes (libstdc++'s thousands). So it carries no libelf:
 * note_section.c finds the record, record_check.c decides, as in the waiting wrapper.
 *
 * Interposing __libc_start_main is the one way into a program's end that sees main's return value: an
 * atexit handler does not, and a failed compile must not be "verified" against a stale object. The
 * variables trueline-cc set are taken out of the environment before ccache's main runs, so that nothing
 * ccache starts (the stamping stage, the compiler) loads the hook again. Built against the C library
 * ccache uses (glibc), without sanitizers, exporting only __libc_start_main. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "note_section.h"
#include "provenance/prov_stats.h"
#include "provenance/verify_in_cache.h"

typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);

extern char **environ;

static main_fn real_main;
static char *g_out, *g_fp, *g_ah, *g_kh, *g_kp, *g_self; /* g_kp NULL: the compile has no `kp` */
static char **g_env; /* the environment trueline-cc gave ccache: ccache changes its own (CCACHE_DISABLE=1) */

/* The variable's value, copied, and the variable removed. */
static char *take(const char *name)
{
    const char *v = getenv(name);
    char *copy = v ? strdup(v) : NULL;
    unsetenv(name);
    return copy;
}

/* Hands the object to trueline-cc, which names what differs and recompiles (or fails, by configuration),
 * in the environment ccache was given. Returns only when that cannot be started. */
static int repair(int argc, char **argv)
{
    char **v = calloc((size_t)argc + 8, sizeof *v);
    if (!v)
        return 1;
    v[0] = g_self;
    v[1] = (char *)TLCC_HOOK_FIXUP_OPTION;
    v[2] = g_out, v[3] = g_fp, v[4] = g_ah, v[5] = g_kh, v[6] = g_kp ? g_kp : (char *)"";
    memcpy(v + 7, argv, (size_t)argc * sizeof *v);
    fflush(NULL);
    execve(g_self, v, g_env ? g_env : environ);
    fprintf(stderr, "trueline-cc: cannot run %s to repair %s: %m\n", g_self, g_out);
    return 1;
}

/* After a successful run of ccache: a match is counted and ccache exits as it would have; anything else,
 * the verifier unavailable included, goes to trueline-cc. */
static int verify_then_return(int argc, char **argv, char **envp)
{
    int status = real_main(argc, argv, envp);
    if (status != 0)
        return status;
    if (!tlcc_hook_object_matches(g_out, g_fp, g_ah, g_kh, g_kp))
        return repair(argc, argv); /* trueline-cc reads it again with libelf, reports and repairs */
    /* where the counters go: ccache's environment, as trueline-cc handed it on */
    tlcc_stats_home where = { getenv("XDG_CACHE_HOME"), getenv("HOME") };
    tlcc_stats_add(&where, TLCC_STAT_VERIFIED, 1);
    return status;
}

__attribute__((visibility("default"))) int __libc_start_main(main_fn main, int argc, char **argv,
                                                              void (*init)(void), void (*fini)(void),
                                                              void (*rtld_fini)(void), void *stack_end)
{
    char *preload = take(TLCC_HOOK_ENV_PRELOAD), *pid = take(TLCC_HOOK_ENV_PID);
    if (preload)
        setenv("LD_PRELOAD", preload, 1);
    else
        unsetenv("LD_PRELOAD");
    free(preload);
    g_out = take(TLCC_HOOK_ENV_OUT), g_fp = take(TLCC_HOOK_ENV_FP), g_ah = take(TLCC_HOOK_ENV_AH);
    g_kh = take(TLCC_HOOK_ENV_KH), g_kp = take(TLCC_HOOK_ENV_KP);
    g_self = take(TLCC_HOOK_ENV_SELF);
    /* Only the process trueline-cc exec'd (same pid) verifies, and only with everything it needs. */
    if (pid && strtol(pid, NULL, 10) == (long)getpid() && g_out && g_fp && g_ah && g_kh && g_self) {
        size_t n = 0;
        while (environ[n])
            n++;
        /* the strings stay valid: setenv and unsetenv replace and shift pointers, never free the originals */
        if ((g_env = malloc((n + 1) * sizeof *g_env)))
            memcpy(g_env, environ, (n + 1) * sizeof *g_env);
        real_main = main;
        main = verify_then_return;
    }
    free(pid);
    start_fn real = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    return real(main, argc, argv, init, fini, rtld_fini, stack_end);
}
