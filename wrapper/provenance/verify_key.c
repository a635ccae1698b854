/* The effective argv as the cache keys it: what cache-hit verification compares (with the toolchain
 * fingerprint), so that it keeps exactly the hits the cache treats as the same compile.
 *
 * A cache hands one object to every compile whose key matches, and it builds the key from a normalized
 * argv. Comparing the raw argv instead rejected hits the cache is right to make: every build directory has
 * its own -MF path, and two checkouts sharing a cache under ccache's base_dir have different absolute -I
 * and source paths. What is left out or rewritten here, and why it does not decide the object's bits:
 *
 * - the output operand (-o X): caches key without it; the object does not depend on its name;
 * - dependency-file options (gcc -MD -MMD -MF -MT -MQ -MP -Wp,-MD,F; nvcc's long spellings): they write a
 *   second file and leave the object alone; ccache 4.7 hits across -MF, -MT and -MQ values (measured);
 * - debug prefix maps (-fdebug-prefix-map, -ffile-prefix-map, -fmacro-prefix-map): ccache leaves their text
 *   out and, with hash_dir, hashes the working directory as mapped instead (measured: it hits across
 *   -fdebug-prefix-map=/a=. and =/b=.). They rename directories in debug information; the code is the same;
 * - -L and -Wl,...: ccache leaves them out for gcc and nvcc; a -c compile does not link;
 * - ccache's ignore_options (CCACHE_IGNOREOPTIONS, `ignore_options`): the user told the cache so;
 * - an absolute path under a base directory (ccache's base_dir, sccache's basedirs) is rewritten
 *   as the cache rewrites it: ccache makes it relative to the working directory (and runs the compiler with
 *   that path, so it is what the object was built from), sccache strips the base directory.
 *
 * Everything else counts as written: -D, -O, -I directories outside a base directory, forced and folded
 * flags, -ccbin. A record holds the hash of this argv (`kh`, lib/note.c), computed when the object was
 * stamped; the hit computes its own and compares. Only trueline-cc computes it; the hook in ccache's
 * process compares the hash it is handed (the hook needs none of this code).
 *
 * A gcc or clang compile's record also holds `kp`, the same hash with what the preprocessor reads left out
 * (-D, -U, -I, -include, -isystem ..., the rows marked TLCC_OPT_KEY_PP), and a hit of such a record is
 * compared by it. ccache keys the object by the preprocessed text and the options that are not these
 * (ccache's AFFECTS_CPP options are not hashed in its preprocessor mode), sccache by the same text and its
 * non-preprocessor arguments: a source built by two targets whose -D sets do not change its preprocessed
 * text gets one object (measured: fmt's test-main.cc, with and without -DFMT_HEADER_ONLY=1). Compared by
 * `kh`, each such hit would be a mismatch, recompiled, and the fresh object would replace the other target's,
 * so that every rebuild recompiled them again. What the preprocessor reads is then the cache's to key, like the
 * sources and headers themselves, which no record hash covers either. nvcc compiles keep `kh` alone: ccache
 * keys them with their -D (measured: a -D that changes only device code is a miss). */
#include "provenance/verify_key.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "understand/options.h"
#include "trueline/note.h"

void tlcc_key_init(tlcc_key_ctx *k, enum tlcc_key_cache cache, const char *cwd, const tlcc_env_snapshot *env)
{
    memset(k, 0, sizeof *k);
    k->cache = cache;
    k->cwd = cwd;
    k->env = env;
}

void tlcc_key_free(tlcc_key_ctx *k)
{
    free(k->bases);
    free(k->ignore);
    k->bases = k->ignore = NULL;
    k->loaded = 0;
}

/* ---- configuration: base directories and ignore_options ---- */

/* Appends the words of s (split on any of seps) to a NUL-separated list; absolute_only: skip relative ones
 * (both caches ignore a relative base directory). */
static void add_words(char **list, const char *s, const char *seps, int absolute_only)
{
    size_t have = 0;
    if (*list)
        for (const char *p = *list; *p; p += strlen(p) + 1)
            have = (size_t)(p + strlen(p) + 1 - *list);
    char *grown = realloc(*list, have + strlen(s) + 2);
    if (!grown)
        return;
    *list = grown;
    char *w = grown + have;
    while (*s) {
        size_t n = strcspn(s, seps);
        if (n && (!absolute_only || s[0] == '/')) {
            while (absolute_only && n > 1 && s[n - 1] == '/') /* "/base/" matches like "/base" */
                n--;
            memcpy(w, s, n);
            w[n] = 0;
            w += n + 1;
        }
        s += n;
        s += strspn(s, seps);
    }
    *w = 0;
    if (w == grown) { /* nothing added and nothing before */
        free(grown);
        *list = NULL;
    }
}

/* One ccache.conf: `key = value` lines, # comments. Sets the values it has (a later file overrides). */
static void read_ccache_conf(const char *path, char **base, char **ignore)
{
    FILE *f = path ? fopen(path, "re") : NULL;
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        char *eq = strchr(p, '=');
        if (*p == '#' || !eq)
            continue;
        char *end = eq;
        while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        *end = 0;
        char *v = eq + 1;
        v += strspn(v, " \t");
        v[strcspn(v, "\r\n")] = 0;
        for (size_t n = strlen(v); n && (v[n - 1] == ' ' || v[n - 1] == '\t'); n--)
            v[n - 1] = 0;
        char **slot = strcmp(p, "base_dir") == 0 ? base : strcmp(p, "ignore_options") == 0 ? ignore : NULL;
        if (slot) {
            free(*slot);
            *slot = strdup(v);
        }
    }
    fclose(f);
}

/* ccache 4.7's order: the system file, then the primary one ($CCACHE_CONFIGPATH, else $CCACHE_DIR/ccache.conf,
 * else ~/.ccache/ccache.conf when that directory exists, else $XDG_CONFIG_HOME/ccache/ccache.conf), then the
 * environment, each overriding the one before. */
static void load_ccache(tlcc_key_ctx *k)
{
    const char *const *env = k->env->v;
    const char *env_base = env[TLCC_EV_CCACHE_BASEDIR], *env_ignore = env[TLCC_EV_CCACHE_IGNOREOPTIONS];
    char *base = NULL, *ignore = NULL;
    if (!env_base || !env_ignore) {
        char path[4096];
        const char *cp = env[TLCC_EV_CCACHE_CONFIGPATH], *dir = env[TLCC_EV_CCACHE_DIR], *home = env[TLCC_EV_HOME];
        const char *xdg = env[TLCC_EV_XDG_CONFIG_HOME];
        read_ccache_conf("/etc/ccache.conf", &base, &ignore);
        FILE *legacy = NULL;
        if (cp)
            snprintf(path, sizeof path, "%s", cp);
        else if (dir && *dir)
            snprintf(path, sizeof path, "%s/ccache.conf", dir);
        else if (home && (snprintf(path, sizeof path, "%s/.ccache/ccache.conf", home), (legacy = fopen(path, "re"))))
            fclose(legacy);
        else if (xdg && *xdg)
            snprintf(path, sizeof path, "%s/ccache/ccache.conf", xdg);
        else if (home)
            snprintf(path, sizeof path, "%s/.config/ccache/ccache.conf", home);
        else
            path[0] = 0;
        if (path[0])
            read_ccache_conf(path, &base, &ignore);
    }
    add_words(&k->bases, env_base ? env_base : base ? base : "", "", 1);
    add_words(&k->ignore, env_ignore ? env_ignore : ignore ? ignore : "", " \t", 0);
    free(base);
    free(ignore);
}

/* sccache's config file ($SCCACHE_CONF, else $XDG_CONFIG_HOME/sccache/config or ~/.config/sccache/config):
 * the top-level TOML array `basedirs = ["/a", "/b"]`, which may span lines. */
static void read_sccache_conf(tlcc_key_ctx *k)
{
    char path[4096];
    const char *const *env = k->env->v;
    const char *conf = env[TLCC_EV_SCCACHE_CONF], *xdg = env[TLCC_EV_XDG_CONFIG_HOME], *home = env[TLCC_EV_HOME];
    if (conf)
        snprintf(path, sizeof path, "%s", conf);
    else if (xdg && *xdg)
        snprintf(path, sizeof path, "%s/sccache/config", xdg);
    else if (home)
        snprintf(path, sizeof path, "%s/.config/sccache/config", home);
    else
        return;
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    char line[4096];
    int in_array = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line + strspn(line, " \t");
        if (!in_array) {
            if (*p == '[') /* a table: top-level keys are over */
                break;
            if (strncmp(p, "basedirs", 8) != 0 || !strchr(p, '['))
                continue;
            p = strchr(p, '[') + 1;
            in_array = 1;
        }
        /* the quoted strings of this line, up to the closing bracket */
        for (char *q; (q = strpbrk(p, "\"']")) && *q != ']';) {
            char *end = strchr(q + 1, *q);
            if (!end)
                break;
            *end = 0;
            add_words(&k->bases, q + 1, "", 1);
            p = end + 1;
        }
        if (strchr(p, ']'))
            break;
    }
    fclose(f);
}

static void load(tlcc_key_ctx *k)
{
    if (k->loaded)
        return;
    k->loaded = 1;
    if (k->cache == TLCC_KEY_CCACHE) {
        load_ccache(k);
    } else {
        const char *v = k->env->v[TLCC_EV_SCCACHE_BASEDIRS]; /* sccache 0.16: colon-separated, longest match wins */
        if (v)
            add_words(&k->bases, v, ":", 1);
        else
            read_sccache_conf(k);
    }
}

/* The longest base directory that prefixes path (ccache compares the strings, as here), else NULL. */
static const char *base_of(const tlcc_key_ctx *k, const char *path, size_t *len)
{
    const char *best = NULL;
    *len = 0;
    for (const char *b = k->bases; b && *b; b += strlen(b) + 1) {
        size_t n = strlen(b);
        if (n > *len && strncmp(path, b, n) == 0 && (k->cache == TLCC_KEY_CCACHE || path[n] == '/' || !path[n]))
            best = b, *len = n;
    }
    return best;
}

/* ---- rewriting one path ---- */

/* Splits an absolute path into components, "." dropped and ".." applied (lexically: the caches do not
 * resolve symbolic links of the directories they compare either). Returns the count (at most max). */
static int components(const char *p, const char **c, size_t *len, int max)
{
    int n = 0;
    while (*p) {
        p += strspn(p, "/");
        size_t l = strcspn(p, "/");
        if (l == 0)
            break;
        if (l == 1 && p[0] == '.') {
        } else if (l == 2 && p[0] == '.' && p[1] == '.') {
            if (n)
                n--;
        } else if (n < max) {
            c[n] = p, len[n++] = l;
        }
        p += l;
    }
    return n;
}

#define MAX_DEPTH 128

/* path relative to cwd, written to out (size outsz); 0 when it fits. */
static int relative(const char *cwd, const char *path, char *out, size_t outsz)
{
    const char *a[MAX_DEPTH], *b[MAX_DEPTH];
    size_t al[MAX_DEPTH], bl[MAX_DEPTH];
    int na = components(cwd, a, al, MAX_DEPTH), nb = components(path, b, bl, MAX_DEPTH), same = 0;
    while (same < na && same < nb && al[same] == bl[same] && memcmp(a[same], b[same], al[same]) == 0)
        same++;
    size_t used = 0;
    out[0] = 0;
    for (int i = same; i < na; i++)
        used += (size_t)snprintf(out + used, used < outsz ? outsz - used : 0, "%s..", used ? "/" : "");
    for (int i = same; i < nb; i++)
        used += (size_t)snprintf(out + used, used < outsz ? outsz - used : 0, "%s%.*s", used ? "/" : "", (int)bl[i], b[i]);
    if (!used)
        used = (size_t)snprintf(out, outsz, ".");
    return used < outsz ? 0 : -1;
}

/* Writes prefix + the rewritten path into out; 0 when path lies under a base directory and it fits. */
static int rewrite(tlcc_key_ctx *k, const char *cwd, const char *prefix, size_t plen, const char *path, char *out,
                   size_t outsz)
{
    load(k);
    size_t blen;
    if (!k->bases || !base_of(k, path, &blen) || plen >= outsz)
        return -1;
    memcpy(out, prefix, plen);
    if (k->cache == TLCC_KEY_SCCACHE) {
        const char *rest = path + blen + strspn(path + blen, "/");
        return snprintf(out + plen, outsz - plen, "%s", rest) < (int)(outsz - plen) ? 0 : -1;
    }
    return cwd && cwd[0] == '/' ? relative(cwd, path, out + plen, outsz - plen) : -1;
}

/* ---- the argv ---- */

/* What the option tables say about one option for the key: all families' tables are asked, since the key is
 * computed where the family may not be known (the hook's fixup) and must not depend on it. */

/* How many elements from argv[i] on are left out (0: kept); *pp: only because the preprocessor reads them. */
static int dropped_count(tlcc_key_ctx *k, char *const *argv, int argc, int i, int *pp)
{
    *pp = 0;
    const char *a = argv[i];
    if (a[0] != '-')
        return 0;
    if (k->cache == TLCC_KEY_CCACHE) {
        load(k);
        for (const char *p = k->ignore; p && *p; p += strlen(p) + 1) {
            size_t n = strlen(p);
            if (p[n - 1] == '*' ? strncmp(a, p, n - 1) == 0 : strcmp(a, p) == 0)
                return 1; /* ccache ignores the option itself, not a separate value */
        }
    }
    if (tl_note_joined_output(a)) /* -oFILE, -o=FILE, --output-file=FILE: as the record's argv hash reads it */
        return 1;
    for (const tlcc_opt_table *const *t = tlcc_opt_tables; *t; t++) {
        const char *v;
        const tlcc_opt *o = tlcc_opt_find(*t, a, TLCC_OPT_KEY_DROP | TLCC_OPT_KEY_PP, &v);
        if (!o)
            continue;
        if (!v && (o->flags & TLCC_OPT_OUTPUT) && (o->flags & TLCC_OPT_SEPARATE))
            return i + 1 < argc ? 2 : 1; /* the output operand */
        if (!(o->flags & (TLCC_OPT_KEY_DROP | TLCC_OPT_KEY_PP)))
            continue;
        *pp = !(o->flags & TLCC_OPT_KEY_DROP);
        if (!v) /* spelt alone: its value, if it takes one, is the next argument */
            return (o->flags & TLCC_OPT_SEPARATE) && i + 1 < argc ? 2 : 1;
        /* -MFdep.d, -MF=dep.d, --dependency-output=dep.d, -fdebug-prefix-map=...; -Wp,-MD,FILE only alone
         * (ccache: only a lone dependency file) */
        return (o->flags & TLCC_OPT_KEY_LONE) && strchr(v, ',') ? 0 : 1;
    }
    return 0;
}

/* Whether an option spelt p[0..n) before a '/' has a path value the caches rewrite: joined (-I/abs,
 * ccache's TAKES_PATH) or after '=' (--sysroot=/abs, nvcc's -I=/abs). The separate form is caught because its
 * value is itself an absolute path. */
static int path_option(const char *p, size_t n)
{
    if (tlcc_opt_any_exact(p, n, TLCC_OPT_PATH | TLCC_OPT_JOINED))
        return 1;
    return n > 1 && p[n - 1] == '=' && tlcc_opt_any_exact(p, n - 1, TLCC_OPT_PATH | TLCC_OPT_EQ);
}

/* Every element as the cache keys it, each with pp set when the preprocessor reads it (left out of `kp`). */
static void walk(tlcc_key_ctx *k, char *const *argv, int argc, const char *cwd,
                 void (*fn)(const char *a, int pp, void *ctx), void *ctx)
{
    char buf[4096];
    if (!cwd)
        cwd = k->cwd;
    for (int i = 0, pp_left = 0; i < argc; i++, pp_left -= pp_left > 0) {
        int pp = 0, skip = pp_left ? 0 : dropped_count(k, argv, argc, i, &pp);
        if (skip && !pp) {
            i += skip - 1;
            continue;
        }
        if (skip) /* this element and the value after it, if it takes one */
            pp_left = skip;
        const char *a = argv[i], *slash = strchr(a, '/');
        if (a[0] == '/' && rewrite(k, cwd, "", 0, a, buf, sizeof buf) == 0) {
            fn(buf, pp_left > 0, ctx);
            continue;
        }
        if (a[0] == '-' && slash && slash[-1] != '/') {
            size_t plen = (size_t)(slash - a);
            if (path_option(a, plen) && rewrite(k, cwd, a, plen, slash, buf, sizeof buf) == 0)
                a = buf;
        }
        fn(a, pp_left > 0, ctx);
    }
}

struct each { void (*fn)(const char *a, void *ctx); void *ctx; int pp; };

static void each_one(const char *a, int pp, void *ctx)
{
    struct each *e = ctx;
    if (!(pp && e->pp))
        e->fn(a, e->ctx);
}

void tlcc_key_each(tlcc_key_ctx *k, char *const *argv, int argc, const char *cwd, int pp,
                   void (*fn)(const char *a, void *ctx), void *ctx)
{
    struct each e = { fn, ctx, pp };
    walk(k, argv, argc, cwd, each_one, &e);
}

struct two { tl_hasher *kh, *kp; };

static void hash_one(const char *a, int pp, void *ctx)
{
    struct two *h = ctx;
    tl_hasher_update_str(h->kh, a);
    if (h->kp && !pp)
        tl_hasher_update_str(h->kp, a);
}

void tlcc_key_hashes(tlcc_key_ctx *k, char *const *argv, int argc, tl_hash128 *kh, tl_hash128 *kp)
{
    struct two h = { tl_hasher_new(), kp ? tl_hasher_new() : NULL };
    walk(k, argv, argc, NULL, hash_one, &h);
    *kh = tl_hasher_final(h.kh);
    if (kp)
        *kp = tl_hasher_final(h.kp);
}

tl_hash128 tlcc_key_hash(tlcc_key_ctx *k, char *const *argv, int argc)
{
    tl_hash128 kh;
    tlcc_key_hashes(k, argv, argc, &kh, NULL);
    return kh;
}

/* Two passes: sizes, then copies into one block. */
struct vec { char **v; char *text; int n; size_t bytes; };

static void measure(const char *a, void *ctx)
{
    struct vec *v = ctx;
    v->n++;
    v->bytes += strlen(a) + 1;
}

static void copy(const char *a, void *ctx)
{
    struct vec *v = ctx;
    size_t n = strlen(a) + 1;
    memcpy(v->text, a, n);
    v->v[v->n++] = v->text;
    v->text += n;
}

char **tlcc_key_vector(tlcc_key_ctx *k, char *const *argv, int argc, const char *cwd, int pp, int *n)
{
    struct vec v = { 0 };
    tlcc_key_each(k, argv, argc, cwd, pp, measure, &v);
    char **out = malloc((size_t)(v.n + 1) * sizeof *out + v.bytes);
    if (!out)
        return NULL;
    struct vec w = { out, (char *)(out + v.n + 1), 0, 0 };
    tlcc_key_each(k, argv, argc, cwd, pp, copy, &w);
    out[w.n] = NULL;
    *n = w.n;
    return out;
}
