#include "fingerprint/deps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fingerprint/bytes.h"

#define SEP_FIELD '\x1f'
#define SEP_ITEM '\x1e'
/* Timestamps within this many seconds of now make an answer "racily clean" (see deps.h). */
#define RACY_SECONDS 2

/* ---- the run's stat cache (tlcc_deps_ctx) ---- */

/* What the callers read of a stat, kept compactly: a struct stat is 144 bytes, and ~40 entries of them
 * spread over one more page (a page fault each, on every warm run). */
struct ident {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtim, ctim;
    mode_t mode;
};

struct tlcc_stat_entry {
    const char *path; /* our copy, or (owned 0) a memo mapping's bytes: see tlcc_deps_hold */
    struct ident st;
    unsigned len; /* compared before the bytes: a warm nvcc run looks up ~50 paths among ~35 */
    int err : 31; /* 0: st valid */
    unsigned owned : 1;
    /* An identity text (ending at SEP_ITEM, in the memo's mapping) already found to hold for this path:
     * the same text in another record is compared, not parsed again (a warm nvcc hit checks ~58
     * identities of ~35 paths). */
    const char *held_text;
};

static struct tlcc_stat_entry *find_cached(const tlcc_deps_ctx *dc, const char *path, size_t len)
{
    for (int i = 0; i < dc->ncache; i++)
        if (dc->cache[i].len == len && memcmp(dc->cache[i].path, path, len) == 0)
            return &dc->cache[i];
    return NULL;
}

static struct ident ident_of(const struct stat *st)
{
    return (struct ident){ st->st_dev, st->st_ino, st->st_size, st->st_mtim, st->st_ctim, st->st_mode };
}

static void to_stat(const struct ident *id, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_dev = id->dev;
    st->st_ino = id->ino;
    st->st_size = id->size;
    st->st_mtim = id->mtim;
    st->st_ctim = id->ctim;
    st->st_mode = id->mode;
}

/* stat(2) through the cache, the identity in *id; *entry is path's cache entry (NULL only when the cache
 * could not grow). path need not end at len (a dependency list is read in place). With borrow, path[0..len)
 * outlives the cache entry (it lies in the memo's mapping, and tlcc_memo_close drops the cache before
 * unmapping): no copy is kept, ~25 allocations and a page of heap less on a warm hit. */
static int stat_entry(tlcc_deps_ctx *dc, const char *path, size_t len, int borrow, struct ident *id,
                      struct tlcc_stat_entry **entry)
{
    struct tlcc_stat_entry *c = find_cached(dc, path, len);
    *entry = c;
    if (c) {
        if (c->err) {
            errno = c->err;
            return -1;
        }
        *id = c->st;
        return 0;
    }
    char buf[256], *p = borrow && len < sizeof buf ? buf : malloc(len + 1); /* small: the warm frame's depth */
    if (!p) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(p, path, len);
    p[len] = 0;
    struct stat st;
    int rc = stat(p, &st), e = rc ? errno : 0;
    if (rc == 0)
        *id = ident_of(&st);
    if (dc->ncache == dc->capcache) {
        int cap = dc->capcache ? dc->capcache * 2 : 48; /* a warm nvcc run stats ~36 paths: never regrown */
        struct tlcc_stat_entry *grown = realloc(dc->cache, (size_t)cap * sizeof *grown);
        if (!grown)
            goto out;
        dc->cache = grown;
        dc->capcache = cap;
    }
    dc->cache[dc->ncache] = (struct tlcc_stat_entry){ p == buf ? path : p, rc == 0 ? *id : (struct ident){ 0 },
                                                      (unsigned)len, e, p != buf, NULL };
    *entry = &dc->cache[dc->ncache++];
    p = NULL;
out:
    if (p != buf)
        free(p);
    errno = e;
    return rc;
}

void tlcc_stat_cache_drop(tlcc_deps_ctx *dc)
{
    for (int i = 0; i < dc->ncache; i++)
        if (dc->cache[i].owned)
            free((char *)dc->cache[i].path);
    free(dc->cache);
    dc->cache = NULL;
    dc->ncache = dc->capcache = 0;
}

int tlcc_stat_cached(tlcc_deps_ctx *dc, const char *path, struct stat *st)
{
    struct tlcc_stat_entry *c;
    struct ident id;
    int rc = stat_entry(dc, path, strlen(path), 0, &id, &c);
    if (rc == 0)
        to_stat(&id, st);
    return rc;
}

/* ---- identities ---- */

/* dev:ino:size:mtime.ns:ctime.ns:mode in hex, "-" when absent. By hand, not snprintf: a warm nvcc
 * lookup checks ~25 of these, and snprintf was a third of the wrapper's instructions (callgrind). */
static size_t stat_id(const struct ident *st, char out[160])
{
    if (!st) {
        out[0] = '-';
        out[1] = 0;
        return 1;
    }
    char *o = out;
    o = tlcc_put_hex(o, (unsigned long long)st->dev, ':');
    o = tlcc_put_hex(o, (unsigned long long)st->ino, ':');
    o = tlcc_put_hex(o, (unsigned long long)st->size, ':');
    o = tlcc_put_hex(o, (unsigned long long)st->mtim.tv_sec, '.');
    o = tlcc_put_hex(o, (unsigned long long)st->mtim.tv_nsec, ':');
    o = tlcc_put_hex(o, (unsigned long long)st->ctim.tv_sec, '.');
    o = tlcc_put_hex(o, (unsigned long long)st->ctim.tv_nsec, ':');
    o = tlcc_put_hex(o, (unsigned long long)st->mode, 0);
    return (size_t)(o - out) - 1;
}

/* ---- recording ---- */

void tlcc_deps_begin(tlcc_deps_ctx *dc, tlcc_deps *d)
{
    if (dc->nactive < 4)
        dc->active[dc->nactive++] = d;
    else
        d->unmemoizable = 1;
}

void tlcc_deps_end(tlcc_deps_ctx *dc, tlcc_deps *d)
{
    for (int i = 0; i < dc->nactive; i++)
        if (dc->active[i] == d) {
            memmove(dc->active + i, dc->active + i + 1, (size_t)(dc->nactive - i - 1) * sizeof *dc->active);
            dc->nactive--;
            return;
        }
}

void tlcc_deps_free(tlcc_deps_ctx *dc, tlcc_deps *d)
{
    tlcc_deps_end(dc, d);
    tlcc_strv_free(&d->items);
    d->unmemoizable = 0;
}

void tlcc_deps_taint(tlcc_deps_ctx *dc)
{
    for (int i = 0; i < dc->nactive; i++)
        dc->active[i]->unmemoizable = 1;
}

static int has_path(const tlcc_deps *d, const char *path, size_t len)
{
    for (int i = 0; i < d->items.n; i++)
        if (strncmp(d->items.v[i], path, len) == 0 && d->items.v[i][len] == SEP_FIELD)
            return 1;
    return 0;
}

static void add_item(tlcc_deps_ctx *dc, const char *path, size_t plen, const char *id)
{
    for (int i = 0; i < dc->nactive; i++) {
        tlcc_deps *d = dc->active[i];
        if (d->unmemoizable || has_path(d, path, plen))
            continue; /* the first (earliest) identity is the conservative one */
        tlcc_strv_pushf(&d->items, "%.*s%c%s", (int)plen, path, SEP_FIELD, id);
    }
}

void tlcc_deps_note_stat(tlcc_deps_ctx *dc, const char *path, const struct stat *st)
{
    if (!dc->nactive)
        return;
    if (path[0] != '/' || strpbrk(path, "\t\n\x1d\x1e\x1f")) {
        tlcc_deps_taint(dc);
        return;
    }
    if (st) {
        time_t now = time(NULL);
        if (st->st_mtime >= now - RACY_SECONDS || st->st_ctime >= now - RACY_SECONDS) {
            tlcc_deps_taint(dc);
            return;
        }
    }
    char id[160];
    struct ident i = st ? ident_of(st) : (struct ident){ 0 };
    stat_id(st ? &i : NULL, id);
    add_item(dc, path, strlen(path), id);
}

void tlcc_deps_note_absent(tlcc_deps_ctx *dc, const char *path)
{
    struct stat lst;
    /* absent through a dangling symlink: its target appearing would change nothing we stat */
    if (dc->nactive && (path[0] != '/' || lstat(path, &lst) == 0))
        tlcc_deps_taint(dc);
}

void tlcc_deps_note(tlcc_deps_ctx *dc, const char *path)
{
    if (!dc->nactive)
        return;
    struct stat st;
    int ok = tlcc_stat_cached(dc, path, &st) == 0;
    if (!ok)
        tlcc_deps_note_absent(dc, path);
    tlcc_deps_note_stat(dc, path, ok ? &st : NULL);
}

void tlcc_deps_note_serialized(tlcc_deps_ctx *dc, const char *s, size_t n)
{
    if (!dc->nactive)
        return;
    for (const char *stop = s + n; s < stop;) {
        const char *end = memchr(s, SEP_ITEM, (size_t)(stop - s)), *f;
        if (!end)
            end = stop;
        f = memchr(s, SEP_FIELD, (size_t)(end - s));
        if (f && end - f - 1 < 160) {
            char id[160];
            memcpy(id, f + 1, (size_t)(end - f - 1));
            id[end - f - 1] = 0;
            add_item(dc, s, (size_t)(f - s), id);
        }
        s = end + 1;
    }
}

char *tlcc_deps_serialize(const tlcc_deps *d)
{
    if (d->unmemoizable)
        return NULL;
    size_t len = 1;
    for (int i = 0; i < d->items.n; i++)
        len += strlen(d->items.v[i]) + 1;
    char *out = malloc(len), *o = out;
    if (!out)
        return NULL;
    for (int i = 0; i < d->items.n; i++) {
        size_t n = strlen(d->items.v[i]);
        memcpy(o, d->items.v[i], n);
        o += n;
        *o++ = SEP_ITEM;
    }
    *o = 0;
    return out;
}

/* Whether held (a text ending at SEP_ITEM) is s[0..n): s[i] for i < n is never SEP_ITEM, so the loop stops
 * at held's end at the latest. */
static int same_text(const char *held, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && held[i] == s[i])
        i++;
    return i == n && held[n] == SEP_ITEM;
}

/* Whether the identity text s[0..n) (stat_id's form, "-" for absent) is the one path stats as now. The text
 * is read and compared field by field, not ours formatted and compared: nothing is kept per path (a
 * formatted copy of each identity was ~2 KB of heap on a warm hit) and stat_id's code and digit table stay
 * out of the hit's cache footprint. It runs more instructions (~15 % more on a warm gcc hit, callgrind),
 * which are cheap next to cache misses on a cold cache: a warm hit is ~10 us faster with caches evicted
 * between runs (docs/internals/wrapper-hit-path.md). */
static int id_holds(tlcc_deps_ctx *dc, const char *path, size_t len, int borrow, const char *s, size_t n)
{
    struct ident st;
    struct tlcc_stat_entry *c;
    if (stat_entry(dc, path, len, borrow, &st, &c) != 0) /* one search of the cache, not two */
        return n == 1 && s[0] == '-';
    if (c && c->held_text && same_text(c->held_text, s, n))
        return 1;
    const char *text = s;
    const unsigned long long want[8] = { (unsigned long long)st.dev,          (unsigned long long)st.ino,
                                         (unsigned long long)st.size,         (unsigned long long)st.mtim.tv_sec,
                                         (unsigned long long)st.mtim.tv_nsec, (unsigned long long)st.ctim.tv_sec,
                                         (unsigned long long)st.ctim.tv_nsec, (unsigned long long)st.mode };
    static const char after[8] = { ':', ':', ':', '.', ':', '.', ':', SEP_ITEM };
    /* The text is followed by SEP_ITEM (tlcc_deps_hold found it there), which is no hex digit: every field's
     * digits end by the time s reaches it, so no bound is checked per byte. */
    const char *end = s + n;
    for (int i = 0; i < 8; i++) {
        const char *digits = s;
        unsigned long long v = 0;
        for (;; s++) {
            unsigned ch = (unsigned char)*s, d = ch - '0';
            if (d > 9 && (d = ch - 'a' + 10) - 10 > 5)
                break;
            v = v << 4 | d;
        }
        if (s == digits || s - digits > 16 || v != want[i] || *s != after[i])
            return 0;
        s++;
    }
    if (s != end + 1)
        return 0;
    if (c && borrow) /* the text lies in the mapping, which outlives the cache */
        c->held_text = text;
    return 1;
}

int tlcc_deps_hold(tlcc_deps_ctx *dc, const char *s, size_t n, int borrow)
{
    int held = 0;
    if (!s || !n)
        return 0; /* every real answer depends on something: an empty list is a damaged entry */
    for (const char *stop = s + n; s < stop; held++) {
        const char *end = memchr(s, SEP_ITEM, (size_t)(stop - s));
        const char *f = end ? memchr(s, SEP_FIELD, (size_t)(end - s)) : NULL;
        if (!f || f == s || (size_t)(f - s) >= 4096)
            return 0; /* malformed: never trusted */
        if (!id_holds(dc, s, (size_t)(f - s), borrow, f + 1, (size_t)(end - f - 1))) /* the path, read in place */
            return 0;
        s = end + 1;
    }
    return held;
}
