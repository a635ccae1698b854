/* One run of trueline-cc: what it keeps from start to exit, made once in main.c and handed down (like ccache's
 * Context). The environment as it was at start, the stat cache and the recorder of memoized answers'
 * dependencies, what the shared-library walk read, this executable's identity. Per-compile decisions are
 * not here: they are the invocation's (invocation.h) and the plan's (plan.h). Nothing of a run is kept in
 * file-scope variables (tests/suites/architecture.sh checks the objects); the exceptions are the signal
 * forwarding of process.c, which a signal handler reaches. */
#ifndef TLCC_WRAPPER_CONTEXT_H
#define TLCC_WRAPPER_CONTEXT_H

#include <sys/stat.h>

#include "fingerprint/deps.h"
#include "fingerprint/dynlibs.h"
#include "env_snapshot.h"

/* This executable: by its path as executed, checked against its own ELF size, else /proc/self/exe
 * (compiler.c). */
typedef struct tlcc_self {
    int known;       /* -1 not looked at yet, 0 unknown, 1 st holds */
    struct stat st;
    char id[40];     /* "dev:ino" in hex, as TRUELINE_CC_ACTIVE lists it */
    char *active;    /* TRUELINE_CC_ACTIVE's value for children, when it had to be built */
    char *path;      /* the real path (tlcc_self_path) */
    int path_tried;
} tlcc_self;

typedef struct tlcc_ctx {
    tlcc_env_snapshot env;
    tlcc_deps_ctx deps;
    tlcc_dynlibs_cache dynlibs;
    tlcc_self self;
} tlcc_ctx;

/* Takes the environment snapshot from envp; the rest starts empty. */
void tlcc_ctx_init(tlcc_ctx *ctx, char *const *envp);
void tlcc_ctx_free(tlcc_ctx *ctx);

#endif
