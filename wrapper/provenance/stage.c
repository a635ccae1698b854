/* The stamping stage: what ccache/sccache run as "the compiler", so that the object they store already
 * carries its `.note.trueline` and a later hit can be verified.
 *
 * The cache gets a path $XDG_CACHE_HOME/trueline/stage/<id>/<name of the real compiler>, a symlink to this
 * trueline-cc. Named like the real compiler, ccache keeps its per-compiler argument handling (nvcc's
 * -ccbin host-compiler hashing, direct and depend mode); the wrapper also sets CCACHE_COMPILERTYPE because
 * ccache 4.7 may follow symlinks when guessing. The real compiler and the encoded record travel in
 * TRUELINE_STAGE_* variables, which neither ccache nor sccache hashes; the stage removes them before it
 * runs the compiler, so a trueline-cc masquerading as the host compiler under nvcc never sees them. */
#include "provenance/stage.h"

#include "context.h"
#include "provenance/line_split.h"
#include "run/process.h"
#include "provenance/prov_stats.h"
#include "provenance/provenance_mac.h"
#include "provenance/record_check.h"
#include "provenance/stamp.h"
#include "strv.h"
#include "trueline/hash.h"
#include "provenance/verify.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define STAGE_DIR "/trueline/stage/"

int tlcc_stage_is_stage(const tlcc_ctx *ctx, const char *argv0)
{
    return argv0 && strstr(argv0, STAGE_DIR) && ctx->env.v[TLCC_EV_TRUELINE_STAGE_REAL] != NULL;
}

static int nibble(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int unhex(const char *hex, unsigned char **out, size_t *len)
{
    size_t n = strlen(hex);
    if (n % 2)
        return -1;
    unsigned char *p = malloc(n / 2 + 1);
    if (!p)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(p);
            return -1;
        }
        p[i] = (unsigned char)(hi << 4 | lo);
    }
    *out = p;
    *len = n / 2;
    return 0;
}

char *tlcc_stage_note_env(const tl_note *n, size_t argv_max, tl_error *err)
{
    unsigned char *rec;
    size_t len;
    if (tl_note_encode(n, argv_max, &rec, &len, err) != 0)
        return NULL;
    /* By table, not sprintf("%02x"): this runs on every cached compile, hits included, and sprintf per
     * byte was 160 k instructions of the wrapper's 430 k on a gcc hit (callgrind). */
    static const char digits[] = "0123456789abcdef";
    char *hex = malloc(2 * len + 1);
    if (hex)
        for (size_t i = 0; i < len; i++) {
            hex[2 * i] = digits[rec[i] >> 4];
            hex[2 * i + 1] = digits[rec[i] & 15];
        }
    if (hex)
        hex[2 * len] = 0;
    free(rec);
    return hex;
}

/* Through tlcc_process_wait, the one spawn-and-wait that forwards SIGINT/TERM/HUP/QUIT to its child: ccache
 * answers its own SIGTERM by killing its compiler, which is this stage, and a plain fork+wait here left the
 * real compiler running as an orphan. */
static int run_real(const char *real, char **argv)
{
    argv[0] = (char *)real;
    int st = tlcc_process_wait(argv);
    if (WIFSIGNALED(st))
        tlcc_process_exit_like(st); /* the compiler's own death, so the cache (and make) see the signal */
    return WIFEXITED(st) ? WEXITSTATUS(st) : 127;
}

int tlcc_stage_main(tlcc_ctx *ctx, int argc, char **argv)
{
    const char *const *env = ctx->env.v;
    char *real = strdup(env[TLCC_EV_TRUELINE_STAGE_REAL]);
    const char *hex_env = env[TLCC_EV_TRUELINE_STAGE_NOTE];
    char *hex = hex_env ? strdup(hex_env) : NULL;
    const char *key_env = env[TLCC_EV_TRUELINE_STAGE_KEY_FILE];
    char *key_file = key_env && *key_env ? strdup(key_env) : NULL;
    const char *store_env = env[TLCC_EV_TRUELINE_STAGE_LINE_INFO_STORE];
    char *store = store_env && *store_env ? strdup(store_env) : NULL;
    unsetenv(TLCC_STAGE_ENV_LINE_STORE);
    unsetenv(TLCC_STAGE_ENV_KEY_FILE);
    unsetenv(TLCC_STAGE_ENV_REAL);
    unsetenv(TLCC_STAGE_ENV_NOTE);
    unsetenv(TLCC_STAGE_ENV_ARGV_MAX);
    int rc = run_real(real, argv);
    const char *out = tlcc_prov_output(argv + 1, argc - 1);
    /* Only the compile step writes a host object (-E/-M runs of the cache's preprocessor mode do not). */
    if (rc == 0 && hex && out && tlcc_prov_is_host_object(out)) {
        unsigned char *rec;
        size_t len;
        tl_error err;
        tlcc_mac_key key = { 0 };
        /* The split first, so that the record binds the object the cache stores and the link reads. */
        if (store && tlcc_line_split(ctx, store, out, "trueline-cc (stage)") != 0) {
            rc = 1;
        } else if (key_file && tlcc_mac_key_load(key_file, &key, &err) != 0) {
            fprintf(stderr, "trueline-cc (stage): %s: %s\n", out, err.msg);
            rc = 1;
        } else if (unhex(hex, &rec, &len) != 0) {
            fprintf(stderr, "trueline-cc (stage): %s: malformed %s\n", out, TLCC_STAGE_ENV_NOTE);
            rc = 1;
        } else {
            if (tlcc_stamp_sealed(out, rec, len, key_file ? &key : NULL, &err) != 0) {
                /* Fail rather than let the cache store an object that every later hit would reject. */
                fprintf(stderr, "trueline-cc (stage): %s\n", err.msg);
                rc = 1;
            } else {
                tlcc_stats_home where = { env[TLCC_EV_XDG_CACHE_HOME], env[TLCC_EV_HOME] };
                tlcc_stats_add(&where, TLCC_STAT_STAMPED, 1);
            }
            free(rec);
        }
        tlcc_mac_key_free(&key);
    }
    free(key_file);
    free(store);
    free(real);
    free(hex);
    return rc;
}

/* -1 with errno from the first directory that could not be made: a parent's EACCES or EROFS, not the
 * ENOENT its missing child then gets. */
static int ensure_dir(const char *path)
{
    char buf[PATH_MAX];
    int first = 0;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST && !first)
                first = errno;
            *p = '/';
        }
    if (mkdir(buf, 0777) == 0 || errno == EEXIST)
        return 0;
    if (first)
        errno = first;
    return -1;
}

/* A new stage link, made by symlink to a private name and rename: concurrent first uses all end with the
 * same link. Apart from the warm path (its buffers would be ~12 KiB of stack touched on every hit). */
__attribute__((noinline)) static int make_link(const char *self, const char *link, tl_error *err)
{
    char tmp[PATH_MAX + 300], dir[PATH_MAX];
    const char *slash = strrchr(link, '/');
    size_t n = slash ? (size_t)(slash - link) : 0;
    if (!n || n >= sizeof dir)
        return tl_fail(err, "stage: cannot create %s: not an absolute path", link);
    memcpy(dir, link, n);
    dir[n] = 0;
    if (ensure_dir(dir) != 0)
        return tl_fail(err, "stage: cannot create %s: %s", dir, strerror(errno));
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", link, (long)getpid());
    unlink(tmp);
    if (symlink(self, tmp) != 0 || rename(tmp, link) != 0) {
        int e = errno;
        unlink(tmp);
        return tl_fail(err, "stage: cannot create %s: %s", link, strerror(e));
    }
    return 0;
}

char *tlcc_stage_link_path(const tlcc_env_snapshot *env, const char *self, const char *real_compiler, tl_error *err)
{
    size_t n = self ? strlen(self) : 0;
    if (!n || n >= PATH_MAX)
        return tl_fail(err, "stage: cannot find trueline-cc itself (/proc/self/exe)"), NULL;
    const char *x = env->v[TLCC_EV_XDG_CACHE_HOME], *home = env->v[TLCC_EV_HOME];
    if ((!x || !*x) && (!home || !*home))
        return tl_fail(err, "stage: neither XDG_CACHE_HOME nor HOME is set"), NULL;
    char hex[TL_HASH_HEX_LEN + 1];
    /* One directory per (trueline-cc binary, real compiler): several builds of trueline-cc never share
     * a link, and sccache, which caches compiler detection per path, sees each toolchain at its own. */
    tl_hasher *h = tl_hasher_new();
    tl_hasher_update_str(h, self);
    tl_hasher_update_str(h, real_compiler);
    tl_hash_hex(tl_hasher_final(h), hex);
    const char *base = strrchr(real_compiler, '/');
    base = base ? base + 1 : real_compiler;
    char *link = x && *x ? tlcc_concatn(TLCC_S(x), TLCC_S(STAGE_DIR), hex, (size_t)16, TLCC_S("/"), TLCC_S(base), NULL)
                         : tlcc_concatn(TLCC_S(home), TLCC_S("/.cache" STAGE_DIR), hex, (size_t)16, TLCC_S("/"),
                                        TLCC_S(base), NULL);
    if (!link || strlen(link) >= PATH_MAX) {
        free(link);
        return tl_fail(err, "stage: no room for the stage directory's path"), NULL;
    }
    return link;
}

int tlcc_stage_ensure(const char *link, const char *self, tl_error *err)
{
    size_t n = strlen(self);
    char *cur = malloc(n + 2);
    if (!cur)
        return tl_fail(err, "stage: out of memory");
    ssize_t m = readlink(link, cur, n + 1); /* one byte more than self: a longer target differs */
    int same = m > 0 && (size_t)m == n && memcmp(cur, self, n) == 0;
    free(cur);
    return same ? 0 : make_link(self, link, err);
}
