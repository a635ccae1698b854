/* Which compiler runs: mode from argv[0] and argv[1], the real executable found on PATH (never
 * trueline-cc itself), and its family from the name or a memoized `--version` probe. */
#ifndef TL_WRAPPER_COMPILER_H
#define TL_WRAPPER_COMPILER_H
#include "invocation.h"
#include "memo.h"

/* Environment variable naming the trueline-cc executables already active above us ("dev:ino ...").
 * A compiler that runs another compiler through a masquerade link (nvcc -> gcc) then reaches the real
 * one directly instead of wrapping twice or looping. */
#define TL_ACTIVE_ENV "TRUELINE_CC_ACTIVE"

int tl_is_masquerade_name(const char *base);
/* ccache or sccache: a link of that name runs trueline-cc chained to the real cache. */
int tl_is_cache_name(const char *base);
/* Basename of a path (pointer into it). */
const char *tl_basename(const char *path);
/* First executable `name` on `path` (a PATH-style list) that is not a trueline-cc; malloc'ed, or NULL. */
char *tl_find_program(const char *name, const char *path);
/* tl_find_program, except that a path naming a masquerade link to trueline-cc (nvcc -ccbin DIR/g++) resolves
 * as that link runs: the first `g++` on path that is not a trueline-cc (*via_link set to 1). */
char *tl_find_program_past_link(const char *name, const char *path, int *via_link);
/* The memo tl_find_program keeps its answers in (NULL: none); set once the memo is open. */
void tl_find_program_memo(tl_memo *m);
/* 1 when path resolves to this trueline-cc or one listed in TL_ACTIVE_ENV. */
int tl_is_self(const char *path);
/* This executable's identity as TL_ACTIVE_ENV lists it ("dev:ino" in hex), or NULL when unknown. */
const char *tl_self_id(void);
/* 1 when TL_ACTIVE_ENV lists this very executable: a trueline-cc above us started this process. Any other
 * value (one leaked into a build's environment) does not count. */
int tl_self_is_active(void);
/* The value for TL_ACTIVE_ENV in children: the inherited list plus this executable. */
const char *tl_active_env_value(void);
/* This executable's real path (readlink of /proc/self/exe), memoized in the memo tl_find_program uses;
 * NULL when it cannot be had. Call it once before that memo is saved for the answer to be kept. */
const char *tl_self_path(void);

/* Fills mode, cache, compiler_arg/compiler_path, cache_path, user_args from argv. Returns -1 with err
 * when there is nothing to run (status 127), -2 on a usage error (`trueline-cc ccache` without a compiler)
 * or a bad [wrapper] cache value (status 2), -3 when the named compiler exists but is not executable
 * (status 126, as a shell). */
int tl_classify(tl_invocation *inv, int argc, char **argv, const tl_config *cfg, tl_error *err);
/* Family from the name, else from the memoized --version probe, which also fills inv->version; with
 * want_version 0 a family known by name is all (inv->version stays NULL). */
void tl_detect_family(tl_invocation *inv, tl_memo *memo, int want_version);

#endif
