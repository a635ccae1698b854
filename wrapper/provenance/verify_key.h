/* The argv a cache-hit verification compares: the effective argv as the cache keys it (verify_key.c). */
#ifndef TLCC_WRAPPER_VERIFY_KEY_H
#define TLCC_WRAPPER_VERIFY_KEY_H
#include "env_snapshot.h"
#include "trueline/hash.h"

enum tlcc_key_cache { TLCC_KEY_CCACHE, TLCC_KEY_SCCACHE };

/* How one cache rewrites argv, for one working directory. The base directories are read on first need
 * (an absolute path in the argv): CCACHE_BASEDIR or ccache.conf's base_dir; SCCACHE_BASEDIRS or the basedirs
 * of sccache's config file. */
typedef struct tlcc_key_ctx {
    enum tlcc_key_cache cache;
    const char *cwd;     /* absolute; relative paths of ccache's base_dir rewriting start here */
    const tlcc_env_snapshot *env; /* the caches' variables (CCACHE_BASEDIR, SCCACHE_CONF ...) */
    int loaded;          /* base dirs and ignore_options read */
    char *bases;         /* the base directories, NUL-separated, ending with an empty string; NULL: none */
    char *ignore;        /* ccache's ignore_options, NUL-separated the same way; NULL: none */
} tlcc_key_ctx;

void tlcc_key_init(tlcc_key_ctx *k, enum tlcc_key_cache cache, const char *cwd, const tlcc_env_snapshot *env);
void tlcc_key_free(tlcc_key_ctx *k);

/* Calls fn with every element of argv (without argv[0]) as the cache keys it, in order: the output
 * operand, dependency-file options, debug prefix maps, -L/-Wl, and ignore_options are left out; an
 * absolute path under a base directory is rewritten as the cache rewrites it (ccache: relative to cwd;
 * sccache: the base directory stripped). A rewritten element is passed in a buffer valid during the call.
 * cwd: the working directory argv was run in (NULL: k->cwd). pp: what the preprocessor reads (-D, -I,
 * -include ...) is left out too, as a cache keys the object of a gcc or clang compile: by the preprocessed
 * text, so that compiles differing only there share one object when their preprocessed text is the same. */
void tlcc_key_each(tlcc_key_ctx *k, char *const *argv, int argc, const char *cwd, int pp,
                   void (*fn)(const char *a, void *ctx), void *ctx);
/* XXH3-128 over tlcc_key_each's elements (pp 0), length-prefixed: a record's `kh`. */
tl_hash128 tlcc_key_hash(tlcc_key_ctx *k, char *const *argv, int argc);
/* `kh` and, when kp is not NULL, `kp` (the same with pp 1) in one pass over argv. */
void tlcc_key_hashes(tlcc_key_ctx *k, char *const *argv, int argc, tl_hash128 *kh, tl_hash128 *kp);
/* tlcc_key_each's elements as a malloc'ed vector (one block, NULL-terminated; *n elements), NULL on OOM. */
char **tlcc_key_vector(tlcc_key_ctx *k, char *const *argv, int argc, const char *cwd, int pp, int *n);

#endif
