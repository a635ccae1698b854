#include "understand/compiler.h"

#include "fingerprint/bytes.h"
#include "context.h"
#include "fingerprint/deps.h"
#include "understand/families.h"
#include "strv.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

int tlcc_is_masquerade_name(const char *base)
{
    return tlcc_family_answers_to(base);
}

/* A link named ccache or sccache first on PATH: build systems that pick the cache themselves
 * (CMAKE_<LANG>_COMPILER_LAUNCHER=ccache) run trueline-cc in front of the real cache. */
int tlcc_is_cache_name(const char *base)
{
    return strcmp(base, "ccache") == 0 || strcmp(base, "sccache") == 0;
}

const char *tlcc_basename(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The size our own ELF file has: its section header table ends it (as every linker writes it). */
static off_t own_elf_size(void)
{
    const unsigned char *phdr = (const unsigned char *)getauxval(AT_PHDR);
    if (!phdr)
        return -1;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(phdr - sizeof(ElfW(Ehdr)));
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_phoff != sizeof(ElfW(Ehdr)) || eh->e_shoff == 0)
        return -1;
    return (off_t)(eh->e_shoff + (ElfW(Off))eh->e_shnum * eh->e_shentsize);
}

/* Our own file by the path it was executed as, checked against our ELF header's size: a stat of
 * /proc/self/exe costs ~13 us in a fresh process (the kernel builds /proc/PID first), a plain stat ~2 us,
 * on every cache hit. /proc/self/exe stays the answer whenever the cheap one is in doubt (a script run
 * through trueline-cc as its interpreter, a file replaced since the exec). */
static void know_self(tlcc_ctx *ctx)
{
    tlcc_self *me = &ctx->self;
    if (me->known >= 0)
        return;
    const char *fn = (const char *)getauxval(AT_EXECFN);
    off_t size = own_elf_size();
    /* through the stat cache: on a hit the memoized tlcc_self_path depends on this same path */
    if (fn && size > 0 && tlcc_stat_cached(&ctx->deps, fn, &me->st) == 0 && S_ISREG(me->st.st_mode) &&
        me->st.st_size == size)
        me->known = 1;
    else
        me->known = stat("/proc/self/exe", &me->st) == 0;
}

/* "dev:ino" in hex: how TRUELINE_CC_ACTIVE and the memo name an executable. */
static const char *dev_ino(const struct stat *st, char out[40])
{
    tlcc_put_hex(tlcc_put_hex(out, (unsigned long long)st->st_dev, ':'), (unsigned long long)st->st_ino, 0);
    return out;
}

/* Whether the space-separated list (TRUELINE_CC_ACTIVE's value) has id as one of its entries. */
static int list_has(const char *list, const char *id)
{
    size_t n = strlen(id);
    for (const char *p = list; p && *p;) {
        const char *end = strchrnul(p, ' ');
        if ((size_t)(end - p) == n && memcmp(p, id, n) == 0)
            return 1;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int is_self_stat(tlcc_ctx *ctx, const char *path, const struct stat *st)
{
    char id[40];
    know_self(ctx);
    const tlcc_self *me = &ctx->self;
    if (me->known && st->st_dev == me->st.st_dev && st->st_ino == me->st.st_ino)
        return 1;
    /* A copy of trueline-cc under a compiler's name: same size is rare enough to afford a content check. */
    if (me->known && st->st_size == me->st.st_size && S_ISREG(st->st_mode)) {
        tl_hash128 a, b;
        if (tl_hash_file(path, &a, NULL) == 0 && tl_hash_file("/proc/self/exe", &b, NULL) == 0 && tl_hash_equal(a, b))
            return 1;
    }
    return list_has(ctx->env.v[TLCC_EV_TRUELINE_CC_ACTIVE], dev_ino(st, id));
}

/* Identity by (device, inode), never by name: a masquerade link, a hard link or a copy under another
 * name all resolve to the same file. */
int tlcc_is_self(tlcc_ctx *ctx, const char *path)
{
    struct stat st;
    return tlcc_stat_cached(&ctx->deps, path, &st) == 0 && is_self_stat(ctx, path, &st);
}

const char *tlcc_self_id(tlcc_ctx *ctx)
{
    know_self(ctx);
    return ctx->self.known ? dev_ino(&ctx->self.st, ctx->self.id) : NULL;
}

int tlcc_self_is_active(tlcc_ctx *ctx)
{
    const char *id = tlcc_self_id(ctx);
    return id && list_has(ctx->env.v[TLCC_EV_TRUELINE_CC_ACTIVE], id);
}

const char *tlcc_active_env_value(tlcc_ctx *ctx)
{
    know_self(ctx);
    const char *active = ctx->env.v[TLCC_EV_TRUELINE_CC_ACTIVE];
    if (!ctx->self.known)
        return active ? active : "";
    char id[40];
    if (list_has(active, dev_ino(&ctx->self.st, id))) /* already there (main set it) */
        return active;
    free(ctx->self.active);
    ctx->self.active = active && *active ? tlcc_concatn(TLCC_S(active), TLCC_S(" "), TLCC_S(id), NULL) : strdup(id);
    return ctx->self.active ? ctx->self.active : "";
}

/* readlink of /proc/self/exe costs ~13 us in a fresh process (the kernel builds /proc/PID first); the
 * stamping stage and the in-cache hook need it on every hit. Memoized by the path this executable was run
 * as (absolute only) and the identity of the file that path names now; the dependency is the real path's
 * own identity, so a replaced or moved executable is looked up again. */
__attribute__((noinline)) static char *read_proc_self(void) /* the miss: its buffer off the warm frame */
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = 0;
    return strdup(buf);
}

const char *tlcc_self_path(tlcc_ctx *ctx, tlcc_memo *memo)
{
    tlcc_self *me = &ctx->self;
    if (me->path_tried)
        return me->path;
    me->path_tried = 1;
    const char *fn = (const char *)getauxval(AT_EXECFN);
    char *key = NULL, id[40];
    know_self(ctx);
    if (memo && me->known && fn && fn[0] == '/') {
        key = tlcc_concatn(TLCC_S("s\x1f"), TLCC_S(fn), TLCC_S("\x1f"), TLCC_S(dev_ino(&me->st, id)), NULL);
    }
    const char *v;
    size_t len;
    if (tlcc_memo_get_held(memo, key, &v, &len) && len) {
        me->path = strndup(v, len);
        free(key);
        return me->path;
    }
    me->path = read_proc_self();
    tlcc_deps d = { { 0 }, 0 };
    tlcc_deps_begin(&ctx->deps, &d);
    if (me->path)
        tlcc_deps_note(&ctx->deps, me->path);
    tlcc_deps_end(&ctx->deps, &d);
    if (me->path)
        tlcc_memo_put_held(memo, key, me->path, &d);
    free(key);
    tlcc_deps_free(&ctx->deps, &d);
    return me->path;
}

/* The PATH walk. Every directory looked in before the hit and every candidate that exists is a dependency
 * of the answer (deps.h): a new entry in an earlier directory, or a changed candidate, changes it. The hit's
 * own directory is none: the hit's identity covers it (the hit replaced, removed or retargeted changes that
 * identity; another entry there changes nothing), a stat less on every warm lookup. */
static char *search(tlcc_ctx *ctx, const char *name, const char *path)
{
    char buf[4096];
    for (const char *p = path ? path : ""; ; ) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        /* An empty PATH element means the current directory, as execvp treats it. */
        if (len == 0)
            snprintf(buf, sizeof buf, ".");
        else
            snprintf(buf, sizeof buf, "%.*s", (int)len, p);
        size_t dl = strlen(buf);
        snprintf(buf + dl, sizeof buf - dl, "/%s", name);
        struct stat st;
        int found = tlcc_stat_cached(&ctx->deps, buf, &st) == 0;
        if (found)
            tlcc_deps_note_stat(&ctx->deps, buf, &st); /* a relative path makes the answer unmemoizable */
        else
            tlcc_deps_note_absent(&ctx->deps, buf);
        if (found && S_ISREG(st.st_mode) && (st.st_mode & 0111) && !is_self_stat(ctx, buf, &st))
            return strdup(buf);
        buf[dl] = 0;
        tlcc_deps_note(&ctx->deps, buf); /* an absent candidate is covered by its directory's identity */
        if (!end)
            return NULL;
        p = end + 1;
    }
}

/* Memoized by (name, PATH, the active trueline-cc list) with the walk's dependencies: a warm lookup costs
 * one stat per PATH directory, shared by every program looked up in this process. */
char *tlcc_find_program(tlcc_ctx *ctx, tlcc_memo *memo, const char *name, const char *path)
{
    if (strchr(name, '/')) {
        tlcc_deps_note(&ctx->deps, name);
        return access(name, X_OK) == 0 && !tlcc_is_self(ctx, name) ? strdup(name) : NULL;
    }
    const char *active = ctx->env.v[TLCC_EV_TRUELINE_CC_ACTIVE];
    char *key = tlcc_concatn(TLCC_S("r\x1f"), TLCC_S(name), TLCC_S("\x1f"), TLCC_S(path ? path : ""), TLCC_S("\x1f"),
                           TLCC_S(active ? active : ""), NULL);
    if (!key)
        return search(ctx, name, path);
    const char *v;
    size_t len;
    if (tlcc_memo_get_held(memo, key, &v, &len)) { /* an outer recording (the closure) joins its deps */
        free(key);
        return len ? strndup(v, len) : NULL;
    }
    tlcc_deps d = { { 0 }, 0 };
    tlcc_deps_begin(&ctx->deps, &d);
    char *found = search(ctx, name, path);
    tlcc_deps_end(&ctx->deps, &d);
    tlcc_memo_put_held(memo, key, found, &d);
    tlcc_deps_free(&ctx->deps, &d);
    free(key);
    return found;
}

/* nvcc's -ccbin (or NVCC_CCBIN) naming a masquerade link: what runs there is trueline-cc's nested mode,
 * which runs the first program of the link's name on the PATH it was given that is not a trueline-cc
 * (main.c run_nested), so that program is the answer. Any other path is tlcc_find_program's; the extra
 * tlcc_is_self is answered by the stat cache, and only when that path was refused. */
char *tlcc_find_program_past_link(tlcc_ctx *ctx, tlcc_memo *memo, const char *name, const char *path, int *via_link)
{
    *via_link = 0;
    char *found = tlcc_find_program(ctx, memo, name, path);
    if (found || !strchr(name, '/') || !tlcc_is_masquerade_name(tlcc_basename(name)) || !tlcc_is_self(ctx, name))
        return found;
    *via_link = 1;
    return tlcc_find_program(ctx, memo, tlcc_basename(name), path); /* memoized like every PATH lookup */
}

static enum tlcc_cache cache_by_name(const char *name)
{
    const char *b = tlcc_basename(name);
    if (strcmp(b, "ccache") == 0)
        return TLCC_CACHE_CCACHE;
    if (strcmp(b, "sccache") == 0)
        return TLCC_CACHE_SCCACHE;
    return TLCC_CACHE_NONE;
}

int tlcc_classify(tlcc_invocation *inv, int argc, char **argv, const tl_config *cfg, tlcc_memo *memo, tl_error *err)
{
    const char *self = tlcc_basename(argv[0]);
    const char *path = inv->ctx->env.v[TLCC_EV_PATH];
    int i = 1;
    if (tlcc_is_masquerade_name(self)) {
        inv->mode = TLCC_MODE_MASQUERADE;
        inv->compiler_arg = strdup(self);
    } else if (tlcc_is_cache_name(self)) {
        /* "ccache COMPILER ARGS..." through a link named ccache: chained to the real one (main.c sends the
         * cache's own commands, "ccache -s", to it untouched) */
        if (argc < 2)
            return tl_fail(err, "usage: %s COMPILER ARGS... (no compiler given)", self), -2;
        inv->mode = TLCC_MODE_CHAINED;
        inv->cache = cache_by_name(self);
        if (!(inv->cache_path = tlcc_find_program(inv->ctx, memo, self, path)))
            return tl_fail(err, "%s: no real %s on PATH (other than trueline-cc)", self, self);
        inv->compiler_arg = strdup(argv[i++]);
    } else {
        if (argc < 2)
            return tl_fail(err, "usage: trueline-cc [ccache|sccache] COMPILER ARGS..."), -2;
        inv->mode = TLCC_MODE_LAUNCHER;
        inv->cache = cache_by_name(argv[1]);
        if (inv->cache != TLCC_CACHE_NONE) {
            /* a usage error (status 2), whether or not the cache is installed */
            if (argc < 3)
                return tl_fail(err, "usage: trueline-cc %s COMPILER ARGS... (no compiler given)", argv[1]), -2;
            inv->mode = TLCC_MODE_CHAINED;
            if (!(inv->cache_path = tlcc_find_program(inv->ctx, memo, argv[1], path)))
                return tl_fail(err, "%s: cache program not found on PATH", argv[1]);
            i = 2;
        }
        inv->compiler_arg = strdup(argv[i++]);
    }
    if (inv->cache == TLCC_CACHE_NONE) {
        /* The configuration may chain a cache for every compile (CC="trueline-cc gcc"). */
        const char *c = tl_config_get(cfg, "wrapper", "cache");
        if (c && *c && strcmp(c, "none") != 0) {
            inv->cache = cache_by_name(c);
            if (inv->cache == TLCC_CACHE_NONE) {
                char where[300];
                tl_config_origin(cfg, "wrapper", "cache", where, sizeof where);
                tl_fail(err, "%s: [wrapper] cache = %s: expected none, ccache or sccache", where, c);
                return -2;
            }
            if (!(inv->cache_path = tlcc_find_program(inv->ctx, memo, c, path)))
                return tl_fail(err, "%s: cache program (from [wrapper] cache) not found on PATH", c);
            inv->mode = inv->mode == TLCC_MODE_MASQUERADE ? inv->mode : TLCC_MODE_CHAINED;
        }
    }
    if (!(inv->compiler_path = tlcc_find_program(inv->ctx, memo, inv->compiler_arg, path))) {
        /* as a shell says it: a named file that exists but cannot be executed is status 126, not 127 */
        if (strchr(inv->compiler_arg, '/') && access(inv->compiler_arg, F_OK) == 0 && access(inv->compiler_arg, X_OK) != 0) {
            tl_fail(err, "%s: Permission denied (not executable)", inv->compiler_arg);
            return -3;
        }
        return tl_fail(err, "%s: compiler not found%s", inv->compiler_arg,
                       strchr(inv->compiler_arg, '/') ? " (or it is trueline-cc itself)" : " on PATH (other than trueline-cc)");
    }
    for (; i < argc; i++)
        tlcc_strv_push(&inv->user_args, argv[i]);
    return 0;
}

void tlcc_detect_family(tlcc_invocation *inv, tlcc_memo *memo, int want_version)
{
    inv->family = tlcc_family_by_name(inv->compiler_arg);
    if (inv->family != TLCC_FAM_OTHER && !want_version)
        return; /* a warm hit with nothing to record: no probe lookup (its key, search and copy) */
    char *probe[] = { inv->compiler_path, "--version", NULL };
    const char *v = tlcc_memo_probe(memo, probe);
    if (inv->family == TLCC_FAM_OTHER)
        inv->family = tlcc_family_by_version(v);
    if (v) {
        const char *from = tlcc_family_of(inv->family)->version_line, *line = from ? strstr(v, from) : NULL;
        line = line ? line : v;
        size_t len = strcspn(line, "\n");
        inv->version = strndup(line, len);
    }
}
