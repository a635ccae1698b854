/* Cache-hit verification inside ccache's own process (verify_in_cache.c; the hook: wrapper/hook/). */
#ifndef TL_WRAPPER_VERIFY_IN_CACHE_H
#define TL_WRAPPER_VERIFY_IN_CACHE_H
#include "invocation.h"
#include "memo.h"

/* What trueline-cc hands the hook in ccache's environment (the hook takes them out again). */
#define TL_HOOK_ENV_PID "TRUELINE_HOOK_PID"
#define TL_HOOK_ENV_OUT "TRUELINE_HOOK_OUT"
#define TL_HOOK_ENV_FP "TRUELINE_HOOK_FP"
#define TL_HOOK_ENV_AH "TRUELINE_HOOK_ARGV_HASH"
#define TL_HOOK_ENV_KH "TRUELINE_HOOK_KEY_HASH" /* the argv hash as the cache keys it (verify_key.c) */
#define TL_HOOK_ENV_SELF "TRUELINE_HOOK_SELF"
#define TL_HOOK_ENV_PRELOAD "TRUELINE_HOOK_PRELOAD" /* the LD_PRELOAD the user had, if any */
/* The hidden option the hook execs trueline-cc with when the object is not what this compile builds:
 * trueline-cc --trueline-hook-fixup OUT FINGERPRINT ARGV_HASH KEY_HASH CACHE-ARGV... */
#define TL_HOOK_FIXUP_OPTION "--trueline-hook-fixup"

/* Sets inv->cache_preloads: whether the chained ccache has a dynamic loader (memoized by its identity;
 * call before the memo is saved). */
void tl_incache_probe(tl_invocation *inv, tl_memo *memo);
/* Prepares the environment so that the hook verifies out in ccache's process; 0 when it will, -1 when
 * the wrapper must wait and verify itself (environment untouched). */
int tl_incache_arm(const tl_invocation *inv, const char *out, const char *argv_hash, const char *key_hash);

#endif
