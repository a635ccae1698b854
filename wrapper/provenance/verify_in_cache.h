/* Cache-hit verification inside ccache's own process (verify_in_cache.c; the hook: wrapper/hook/). */
#ifndef TLCC_WRAPPER_VERIFY_IN_CACHE_H
#define TLCC_WRAPPER_VERIFY_IN_CACHE_H
#include "run/env_edits.h"
#include "understand/invocation.h"
#include "fingerprint/memo.h"

/* What trueline-cc hands the hook in ccache's environment (the hook takes them out again). */
#define TLCC_HOOK_ENV_PID "TRUELINE_HOOK_PID"
#define TLCC_HOOK_ENV_OUT "TRUELINE_HOOK_OUT"
#define TLCC_HOOK_ENV_FP "TRUELINE_HOOK_FP"
#define TLCC_HOOK_ENV_AH "TRUELINE_HOOK_ARGV_HASH"
#define TLCC_HOOK_ENV_KH "TRUELINE_HOOK_KEY_HASH" /* the argv hash as the cache keys it (verify_key.c) */
#define TLCC_HOOK_ENV_KP "TRUELINE_HOOK_KEY_HASH_PP" /* the same without what the preprocessor reads, if compared */
#define TLCC_HOOK_ENV_SELF "TRUELINE_HOOK_SELF"
#define TLCC_HOOK_ENV_PRELOAD "TRUELINE_HOOK_PRELOAD" /* the LD_PRELOAD the user had, if any */
/* The hidden option the hook execs trueline-cc with when the object is not what this compile builds:
 * trueline-cc --trueline-hook-fixup OUT FINGERPRINT ARGV_HASH KEY_HASH KEY_HASH_PP CACHE-ARGV... (KEY_HASH_PP
 * empty when the compile has none) */
#define TLCC_HOOK_FIXUP_OPTION "--trueline-hook-fixup"

/* The variables that make the hook verify out in ccache's process, added to env (ah, kh and kp must outlive it;
 * kp NULL or empty: none):
 * 0 when it will (ccache has a dynamic loader, memoized in memo by ccache's identity; the hook library is
 * beside this trueline-cc), -1 when the wrapper must wait and verify itself (env untouched). */
int tlcc_incache_env(const tlcc_invocation *inv, tlcc_memo *memo, const char *out, const char *argv_hash,
                     const char *key_hash, const char *key_hash_pp, tlcc_env_edits *env);

#endif
