/* Cache-hit verification inside ccache's own process: the trueline-cc side (the hook itself is
 * wrapper/hook/verify_hook.c, built as libtrueline-hook.so).
 *
 * Why: verifying after the cache needs code that runs when ccache is done, and ccache has no hook after a
 * hit. A waiting wrapper is a second process on every hit; on a 2-CPU VM a do-nothing vfork+exec+wait
 * program in front of `ccache gcc` costs +0.33 ms against +0.04 ms for one that execs (bench/provenance.sh,
 * floor rows), which alone is over the +0.3 ms budget for provenance. So trueline-cc execs ccache with
 * LD_PRELOAD naming the hook: its __libc_start_main wraps ccache's main, and when main returns 0 it checks
 * the object in ccache's process, without libelf (wrapper/hook/note_section.c says why): on - off +0.13
 * to +0.24 ms (bench/recorded/benchmarks.md). Anything but a match makes it exec
 * `trueline-cc --trueline-hook-fixup`, which reports and repairs exactly as the waiting wrapper does.
 *
 * Used only where the hook is sure to run: ccache with a dynamic loader (a static ccache ignores
 * LD_PRELOAD and nothing would be verified), the hook library beside trueline-cc (PREFIX/lib/trueline/,
 * the build tree has the same layout), a path LD_PRELOAD can carry. sccache is left to the waiting
 * wrapper: its client ends with exit(), never returning from main. */
#include "provenance/verify_in_cache.h"

#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "understand/compiler.h"
#include "context.h"
#include "fingerprint/deps.h"
#include "strv.h"
#include "trueline/elf_file.h"

#define HOOK_LIB "libtrueline-hook.so"

/* 1 when the program has a PT_INTERP, i.e. a dynamic loader that honours LD_PRELOAD. */
static int has_interp(const char *path)
{
    tl_elf e;
    tl_error err = { { 0 } };
    size_t n = 0;
    int yes = 0;
    if (tl_elf_open_path(&e, path, &err) == 0 && elf_getphdrnum(e.elf, &n) == 0)
        for (size_t i = 0; i < n && !yes; i++) {
            GElf_Phdr ph;
            yes = gelf_getphdr(e.elf, (int)i, &ph) && ph.p_type == PT_INTERP;
        }
    tl_elf_close(&e);
    return yes;
}

/* Whether the chained ccache has a dynamic loader, memoized by its path and what it depends on. */
static int cache_preloads(const tlcc_invocation *inv, tlcc_memo *memo)
{
    if (inv->cache != TLCC_CACHE_CCACHE || !inv->cache_path)
        return 0;
    char *key = tlcc_concatn(TLCC_S("i\x1f"), TLCC_S(inv->cache_path), NULL);
    const char *v;
    size_t len;
    if (tlcc_memo_get_held(memo, key, &v, &len) && len == 1 && (v[0] == '0' || v[0] == '1')) {
        free(key);
        return v[0] == '1';
    }
    tlcc_deps d = { { 0 }, 0 };
    tlcc_deps_begin(&inv->ctx->deps, &d);
    tlcc_deps_note(&inv->ctx->deps, inv->cache_path);
    int yes = has_interp(inv->cache_path);
    tlcc_deps_end(&inv->ctx->deps, &d);
    tlcc_memo_put_held(memo, key, yes ? "1" : "0", &d);
    free(key);
    tlcc_deps_free(&inv->ctx->deps, &d);
    return yes;
}

/* The hook library beside this executable (*self: its real path); NULL when either cannot be had or
 * LD_PRELOAD could not carry the library's path (it splits on spaces and colons). */
static char *locate(tlcc_ctx *ctx, tlcc_memo *memo, const char **self)
{
    *self = tlcc_self_path(ctx, memo);
    const char *slash = *self ? strrchr(*self, '/') : NULL;
    char *lib = slash ? tlcc_concatn(*self, (size_t)(slash - *self), TLCC_S("/../lib/trueline/" HOOK_LIB), NULL) : NULL;
    if (lib && (strpbrk(lib, " :") || access(lib, R_OK) != 0)) {
        free(lib);
        lib = NULL;
    }
    return lib;
}

int tlcc_incache_env(const tlcc_invocation *inv, tlcc_memo *memo, const char *out, const char *ah, const char *kh,
                     const char *kp, tlcc_env_edits *env)
{
    const char *self; /* on the heap, not in 8 KiB of frame: this runs on every hit */
    char *lib = cache_preloads(inv, memo) ? locate(inv->ctx, memo, &self) : NULL;
    if (!lib)
        return -1;
    const char *old = inv->ctx->env.v[TLCC_EV_LD_PRELOAD];
    if (old && *old) {
        char *both = tlcc_concatn(TLCC_S(lib), TLCC_S(":"), TLCC_S(old), NULL);
        if (!both) {
            free(lib);
            return -1;
        }
        tlcc_env_set_copy(env, TLCC_HOOK_ENV_PRELOAD, old); /* the hook puts it back before ccache's main runs */
        tlcc_env_set_owned(env, "LD_PRELOAD", both);
        free(lib);
    } else {
        tlcc_env_set_owned(env, "LD_PRELOAD", lib);
    }
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)getpid()); /* exec keeps the pid: only ccache itself acts */
    tlcc_env_set_copy(env, TLCC_HOOK_ENV_PID, pid);
    tlcc_env_set_copy(env, TLCC_HOOK_ENV_OUT, out);
    tlcc_env_set(env, TLCC_HOOK_ENV_FP, inv->fp_hex);
    tlcc_env_set(env, TLCC_HOOK_ENV_AH, ah); /* ah, kh and self outlive the list (the plan's, the memo's) */
    tlcc_env_set(env, TLCC_HOOK_ENV_KH, kh);
    if (kp && *kp)
        tlcc_env_set(env, TLCC_HOOK_ENV_KP, kp);
    tlcc_env_set(env, TLCC_HOOK_ENV_SELF, self);
    return 0;
}
