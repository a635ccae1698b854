#include "provenance/line_split.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "understand/compiler.h"
#include "context.h"
#include "run/process.h"
#include "strv.h"

int tlcc_line_store_read(const tl_config *cfg, char **store, tl_error *err)
{
    *store = NULL;
    const char *v = tl_config_get(cfg, "wrapper", "line_info_store");
    if (!v || !*v || tl_config_bool(cfg, "wrapper", "device_lineinfo", 1) == 0)
        return 0;
    if (v[0] == '/') {
        *store = strdup(v);
        return *store ? 0 : tl_fail(err, "[wrapper] line_info_store: out of memory");
    }
    /* Absolute now: the stage and the cache may run elsewhere, and the cache key must name one place (the
     * directory need not exist yet: trueline-check creates it). */
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) {
        char where[300];
        tl_config_origin(cfg, "wrapper", "line_info_store", where, sizeof where);
        return tl_fail(err, "%s: [wrapper] line_info_store = %s: cannot make it absolute (no working directory)",
                       where, v);
    }
    *store = tlcc_concatn(TLCC_S(cwd), TLCC_S("/"), TLCC_S(v), NULL);
    return *store ? 0 : tl_fail(err, "[wrapper] line_info_store: out of memory");
}

/* trueline-check of the same installation first (beside trueline-cc's real path: bin/ of a prefix, or the
 * build directory), so that a wrapper and a checker of different versions are not mixed; else PATH. */
static char *find_checker(tlcc_ctx *ctx)
{
    const char *self = tlcc_self_path(ctx, NULL);
    const char *slash = self ? strrchr(self, '/') : NULL;
    if (slash) {
        char *beside = tlcc_concatn(self, (size_t)(slash - self + 1), TLCC_S("trueline-check"), NULL);
        if (beside && access(beside, X_OK) == 0)
            return beside;
        free(beside);
    }
    return tlcc_find_program(ctx, NULL, "trueline-check", ctx->env.v[TLCC_EV_PATH]);
}

int tlcc_line_split(tlcc_ctx *ctx, const char *store, const char *obj, const char *who)
{
    char *checker = find_checker(ctx);
    if (!checker) {
        fprintf(stderr, "%s: error: %s: [wrapper] line_info_store is set but trueline-check was found neither "
                        "beside trueline-cc nor on PATH; the device line info was not split out\n", who, obj);
        return -1;
    }
    char *argv[] = { checker, "--split", "--in-place", "--device-only", "--debug-store", (char *)store, "--",
                     (char *)obj, NULL };
    /* Its summary line ("OBJ: N -> M bytes") goes nowhere: a compile says nothing on stdout; its errors
     * (stderr) pass through. */
    fflush(stdout);
    int saved = dup(1), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved >= 0 && null >= 0)
        dup2(null, 1);
    int st = tlcc_process_wait(argv);
    if (saved >= 0 && null >= 0)
        dup2(saved, 1);
    if (saved >= 0)
        close(saved);
    if (null >= 0)
        close(null);
    free(checker);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 0;
    /* trueline-check leaves a file it could not rewrite untouched: that is the unsplit object, newer than its
     * source, which make would take as up to date on the next run. Gone, the failed compile is retried. */
    unlink(obj);
    if (WIFSIGNALED(st))
        fprintf(stderr, "%s: error: %s: splitting the device line info into %s failed (trueline-check killed by "
                        "signal %d; object removed)\n", who, obj, store, WTERMSIG(st));
    else
        fprintf(stderr, "%s: error: %s: splitting the device line info into %s failed (trueline-check exit "
                        "status %d; object removed)\n", who, obj, store, WEXITSTATUS(st));
    return -1;
}
