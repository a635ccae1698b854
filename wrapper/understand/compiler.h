/* Which compiler runs: mode from argv[0] and argv[1], the real executable found on PATH (never
 * trueline-cc itself), and its family from the name or a memoized `--version` probe. */
#ifndef TLCC_WRAPPER_COMPILER_H
#define TLCC_WRAPPER_COMPILER_H
#include "understand/invocation.h"
#include "fingerprint/memo.h"

struct tlcc_ctx; /* context.h: the run */

/* Environment variable naming the trueline-cc executables already active above us ("dev:ino ...").
 * A compiler that runs another compiler through a masquerade link (nvcc -> gcc) then reaches the real
 * one directly instead of wrapping twice or looping. */
#define TLCC_ACTIVE_ENV "TRUELINE_CC_ACTIVE"

int tlcc_is_masquerade_name(const char *base);
/* ccache or sccache: a link of that name runs trueline-cc chained to the real cache. */
int tlcc_is_cache_name(const char *base);
/* Basename of a path (pointer into it). */
const char *tlcc_basename(const char *path);
/* First executable `name` on `path` (a PATH-style list) that is not a trueline-cc; malloc'ed, or NULL.
 * Memoized in memo (NULL: not memoized). */
char *tlcc_find_program(struct tlcc_ctx *ctx, tlcc_memo *memo, const char *name, const char *path);
/* tlcc_find_program, except that a path naming a masquerade link to trueline-cc (nvcc -ccbin DIR/g++) resolves
 * as that link runs: the first `g++` on path that is not a trueline-cc (*via_link set to 1). */
char *tlcc_find_program_past_link(struct tlcc_ctx *ctx, tlcc_memo *memo, const char *name, const char *path,
                                  int *via_link);
/* 1 when path resolves to this trueline-cc or one listed in TLCC_ACTIVE_ENV. */
int tlcc_is_self(struct tlcc_ctx *ctx, const char *path);
/* This executable's identity as TLCC_ACTIVE_ENV lists it ("dev:ino" in hex), or NULL when unknown. */
const char *tlcc_self_id(struct tlcc_ctx *ctx);
/* 1 when TLCC_ACTIVE_ENV lists this very executable: a trueline-cc above us started this process. Any other
 * value (one leaked into a build's environment) does not count. */
int tlcc_self_is_active(struct tlcc_ctx *ctx);
/* The value for TLCC_ACTIVE_ENV in children: the inherited list plus this executable. */
const char *tlcc_active_env_value(struct tlcc_ctx *ctx);
/* This executable's real path (readlink of /proc/self/exe), memoized in memo; NULL when it cannot be had.
 * Asked once per run (the answer is kept in the context: it is the process's own identity). */
const char *tlcc_self_path(struct tlcc_ctx *ctx, tlcc_memo *memo);

/* Fills mode, cache, compiler_arg/compiler_path, cache_path, user_args from argv. Returns -1 with err
 * when there is nothing to run (status 127), -2 on a usage error (`trueline-cc ccache` without a compiler)
 * or a bad [wrapper] cache value (status 2), -3 when the named compiler exists but is not executable
 * (status 126, as a shell). */
int tlcc_classify(tlcc_invocation *inv, int argc, char **argv, const tl_config *cfg, tlcc_memo *memo, tl_error *err);
/* Family from the name, else from the memoized --version probe, which also fills inv->version; with
 * want_version 0 a family known by name is all (inv->version stays NULL). */
void tlcc_detect_family(tlcc_invocation *inv, tlcc_memo *memo, int want_version);

#endif
