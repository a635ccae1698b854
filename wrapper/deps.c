#include "deps.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEP_FIELD '\x1f'
#define SEP_ITEM '\x1e'
/* Timestamps within this many seconds of now make an answer "racily clean" (see deps.h). */
#define RACY_SECONDS 2

/* ---- per-process stat cache ---- */

struct cached {
    char *path;
    struct stat st;
    int err; /* 0: st valid */
};
static struct cached *g_cache;
static int g_ncache, g_capcache;

int tl_stat_cached(const char *path, struct stat *st)
{
    for (int i = 0; i < g_ncache; i++)
        if (strcmp(g_cache[i].path, path) == 0) {
            if (g_cache[i].err) {
                errno = g_cache[i].err;
                return -1;
            }
            *st = g_cache[i].st;
            return 0;
        }
    int rc = stat(path, st), e = rc ? errno : 0;
    if (g_ncache == g_capcache) {
        int cap = g_capcache ? g_capcache * 2 : 32;
        struct cached *c = realloc(g_cache, (size_t)cap * sizeof *c);
        if (!c)
            goto out;
        g_cache = c;
        g_capcache = cap;
    }
    char *p = strdup(path);
    if (p)
        g_cache[g_ncache++] = (struct cached){ p, *st, e };
out:
    errno = e;
    return rc;
}

/* ---- identities ---- */

static char *put_hex(char *o, unsigned long long v, char after)
{
    char tmp[16];
    int n = 0;
    do
        tmp[n++] = "0123456789abcdef"[v & 15];
    while (v >>= 4);
    while (n)
        *o++ = tmp[--n];
    *o++ = after;
    return o;
}

/* dev:ino:size:mtime.ns:ctime.ns:mode in hex, "-" when absent. By hand, not snprintf: a warm nvcc
 * lookup checks ~25 of these, and snprintf was a third of the wrapper's instructions (callgrind). */
static void stat_id(const struct stat *st, char out[160])
{
    if (!st) {
        out[0] = '-';
        out[1] = 0;
        return;
    }
    char *o = out;
    o = put_hex(o, (unsigned long long)st->st_dev, ':');
    o = put_hex(o, (unsigned long long)st->st_ino, ':');
    o = put_hex(o, (unsigned long long)st->st_size, ':');
    o = put_hex(o, (unsigned long long)st->st_mtim.tv_sec, '.');
    o = put_hex(o, (unsigned long long)st->st_mtim.tv_nsec, ':');
    o = put_hex(o, (unsigned long long)st->st_ctim.tv_sec, '.');
    o = put_hex(o, (unsigned long long)st->st_ctim.tv_nsec, ':');
    o = put_hex(o, (unsigned long long)st->st_mode, 0);
}

/* ---- recording ---- */

static tl_deps *g_active[4];
static int g_nactive;

void tl_deps_begin(tl_deps *d)
{
    if (g_nactive < 4)
        g_active[g_nactive++] = d;
    else
        d->unmemoizable = 1;
}

void tl_deps_end(tl_deps *d)
{
    for (int i = 0; i < g_nactive; i++)
        if (g_active[i] == d) {
            memmove(g_active + i, g_active + i + 1, (size_t)(g_nactive - i - 1) * sizeof *g_active);
            g_nactive--;
            return;
        }
}

void tl_deps_free(tl_deps *d)
{
    tl_deps_end(d);
    tl_strv_free(&d->items);
    d->unmemoizable = 0;
}

void tl_deps_taint(void)
{
    for (int i = 0; i < g_nactive; i++)
        g_active[i]->unmemoizable = 1;
}

static int has_path(const tl_deps *d, const char *path, size_t len)
{
    for (int i = 0; i < d->items.n; i++)
        if (strncmp(d->items.v[i], path, len) == 0 && d->items.v[i][len] == SEP_FIELD)
            return 1;
    return 0;
}

static void add_item(const char *path, size_t plen, const char *id)
{
    for (int i = 0; i < g_nactive; i++) {
        tl_deps *d = g_active[i];
        if (d->unmemoizable || has_path(d, path, plen))
            continue; /* the first (earliest) identity is the conservative one */
        tl_strv_pushf(&d->items, "%.*s%c%s", (int)plen, path, SEP_FIELD, id);
    }
}

void tl_deps_note_stat(const char *path, const struct stat *st)
{
    if (!g_nactive)
        return;
    if (path[0] != '/' || strpbrk(path, "\t\n\x1d\x1e\x1f")) {
        tl_deps_taint();
        return;
    }
    if (st) {
        time_t now = time(NULL);
        if (st->st_mtime >= now - RACY_SECONDS || st->st_ctime >= now - RACY_SECONDS) {
            tl_deps_taint();
            return;
        }
    }
    char id[160];
    stat_id(st, id);
    add_item(path, strlen(path), id);
}

void tl_deps_note_absent(const char *path)
{
    struct stat lst;
    /* absent through a dangling symlink: its target appearing would change nothing we stat */
    if (g_nactive && (path[0] != '/' || lstat(path, &lst) == 0))
        tl_deps_taint();
}

void tl_deps_note(const char *path)
{
    if (!g_nactive)
        return;
    struct stat st;
    int ok = tl_stat_cached(path, &st) == 0;
    if (!ok)
        tl_deps_note_absent(path);
    tl_deps_note_stat(path, ok ? &st : NULL);
}

void tl_deps_note_serialized(const char *s)
{
    if (!g_nactive)
        return;
    while (s && *s) {
        const char *end = strchr(s, SEP_ITEM), *f = strchr(s, SEP_FIELD);
        if (!end)
            end = s + strlen(s);
        if (f && f < end) {
            char id[160];
            snprintf(id, sizeof id, "%.*s", (int)(end - f - 1), f + 1);
            add_item(s, (size_t)(f - s), id);
        }
        s = *end ? end + 1 : end;
    }
}

char *tl_deps_serialize(const tl_deps *d)
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

int tl_deps_hold(const char *s)
{
    char path[4096], id[160];
    if (!s || !*s)
        return 0; /* every real answer depends on something: an empty list is a damaged entry */
    while (*s) {
        const char *end = strchr(s, SEP_ITEM), *f = strchr(s, SEP_FIELD);
        if (!end || !f || f > end || (size_t)(f - s) >= sizeof path)
            return 0; /* malformed: never trusted */
        memcpy(path, s, (size_t)(f - s));
        path[f - s] = 0;
        struct stat st;
        stat_id(tl_stat_cached(path, &st) == 0 ? &st : NULL, id);
        size_t idlen = (size_t)(end - f - 1);
        if (strlen(id) != idlen || memcmp(id, f + 1, idlen) != 0)
            return 0;
        s = end + 1;
    }
    return 1;
}
