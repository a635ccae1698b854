/* Device-image summaries kept across runs (image_cache.h says what and why). The serialized form is this
 * program's own: nothing else reads it, and a file from any other build of trueline-check has another key. */
#include "read/image_cache.h"

#include "trueline/files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "TLIMG\0\2\0" /* format 2: format 1 + lines_split and the image identity */
#define MAGIC_LEN 8
#define ENTRY_MAX ((size_t)1 << 30) /* libcublasLt's 5737 summaries take a few MB: a bigger file is not one of ours */
#define NO_STRING 0xFFFFFFFFu

struct tlck_image_cache {
    char *dir;
    uint64_t cap;
    tl_hash128 self; /* this binary's content: a rebuilt trueline-check never reads another build's summaries */
    atomic_uint_fast64_t hits, misses, stored, seq;
};

/* ---- encoding ---- */

struct out {
    unsigned char *p;
    size_t n, cap;
    int failed;
};

static void put(struct out *o, const void *v, size_t n)
{
    if (o->failed)
        return;
    if (o->n + n > o->cap) {
        size_t c = o->cap ? o->cap * 2 : 4096;
        while (c < o->n + n)
            c *= 2;
        unsigned char *q = realloc(o->p, c);
        if (!q) {
            o->failed = 1;
            return;
        }
        o->p = q;
        o->cap = c;
    }
    memcpy(o->p + o->n, v, n);
    o->n += n;
}

static void put_u64(struct out *o, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    put(o, b, 8);
}

static void put_u32(struct out *o, uint32_t v) { put_u64(o, v); }

static void put_str(struct out *o, const char *s)
{
    if (!s) {
        put_u32(o, NO_STRING);
        return;
    }
    size_t n = strlen(s);
    put_u32(o, (uint32_t)n);
    put(o, s, n);
}

static void encode_one(struct out *oo, const struct tlck_image *img)
{
    struct out o = *oo;
    const struct tlck_device_info *d = &img->dev;
    put_u32(&o, d->sm);
    put_u32(&o, (uint32_t)(unsigned char)d->arch_suffix);
    put_u32(&o, (uint32_t)(d->is_debug | d->is_relocatable << 1 | d->has_lineinfo << 2 | img->has_debug_line << 3 |
                           img->has_debug_info << 4 | img->dwarf_read_error << 5 | d->lines_split << 6));
    put(&o, d->line_id, sizeof d->line_id);
    put_u32(&o, d->nkernels);
    put_u64(&o, d->line_bytes);
    put_str(&o, d->producer);
    put_str(&o, d->toolkit_version);
    put_str(&o, d->ptxas_options);
    put_u64(&o, img->nfuncs);
    for (size_t i = 0; i < img->nfuncs; i++) {
        const struct tlck_function *f = &img->funcs[i];
        put_str(&o, f->name);
        put_u64(&o, f->addr);
        put_u64(&o, f->size);
        put_u32(&o, f->shndx);
        put_u32(&o, (uint32_t)(f->bind | f->visibility << 8 | f->is_kernel << 16 | f->has_lines << 17));
        put_u64(&o, f->covered);
        put_str(&o, f->cu);
        put_u32(&o, f->cu_unit);
    }
    put_u64(&o, img->ncus);
    for (size_t i = 0; i < img->ncus; i++) {
        const struct tlck_cu *u = &img->cus[i];
        put_str(&o, u->name);
        put_str(&o, u->comp_dir);
        put_str(&o, u->producer);
        put_u32(&o, u->lang);
        put_u32(&o, u->dwarf_version);
        put_u64(&o, u->rows);
        put_u64(&o, u->line_offset);
        put_u64(&o, u->funcs);
        put_u64(&o, u->funcs_covered);
    }
    put_u64(&o, img->nsubprograms);
    for (size_t i = 0; i < img->nsubprograms; i++) {
        const struct tlck_subprogram *s = &img->subprograms[i];
        put_str(&o, s->name);
        put_str(&o, s->linkage_name);
        put_u64(&o, s->low_pc);
        put_u64(&o, s->high_pc);
        put_u32(&o, s->shndx);
        put_u64(&o, (uint64_t)(int64_t)s->cu);
    }
    *oo = o;
}

unsigned char *tlck_image_summary_encode(const struct tlck_image *imgs, size_t n, size_t *len)
{
    struct out o = { 0 };
    put(&o, MAGIC, MAGIC_LEN);
    put_u64(&o, n);
    for (size_t i = 0; i < n; i++)
        encode_one(&o, &imgs[i]);
    if (o.failed) {
        free(o.p);
        return NULL;
    }
    *len = o.n;
    return o.p;
}

/* ---- decoding: every read is bounded by what is left; any inconsistency fails the whole summary ---- */

struct in {
    const unsigned char *p;
    size_t n, at;
    int bad;
};

static uint64_t get_u64(struct in *r)
{
    if (r->bad || r->n - r->at < 8) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | r->p[r->at + (size_t)i];
    r->at += 8;
    return v;
}

static uint32_t get_u32(struct in *r)
{
    uint64_t v = get_u64(r);
    if (v > UINT32_MAX)
        r->bad = 1;
    return (uint32_t)v;
}

static char *get_str(struct in *r)
{
    uint32_t len = get_u32(r);
    if (r->bad || len == NO_STRING)
        return NULL;
    if (len > r->n - r->at || memchr(r->p + r->at, 0, len)) {
        r->bad = 1;
        return NULL;
    }
    char *s = strndup((const char *)r->p + r->at, len);
    if (!s)
        r->bad = 1;
    r->at += len;
    return s;
}

static void get_bytes(struct in *r, unsigned char *out, size_t n)
{
    if (r->bad || r->n - r->at < n) {
        r->bad = 1;
        memset(out, 0, n);
        return;
    }
    memcpy(out, r->p + r->at, n);
    r->at += n;
}

/* A count of records of at least min bytes each: no more than what is left can hold. */
static size_t get_count(struct in *r, size_t min)
{
    uint64_t v = get_u64(r);
    if (r->bad || v > (r->n - r->at) / min) {
        r->bad = 1;
        return 0;
    }
    return (size_t)v;
}

/* One image's summary into t (zeroed by the caller); 0, or -1 with whatever was decoded left in t to free. */
static int decode_one(struct in *rr, struct tlck_image *t)
{
    struct in r = *rr;
    struct tlck_device_info *d = &t->dev;
    d->sm = get_u32(&r);
    uint32_t suffix = get_u32(&r);
    if (suffix != 0 && suffix != 'a' && suffix != 'f')
        r.bad = 1;
    d->arch_suffix = (char)suffix;
    uint32_t bits = get_u32(&r);
    if (bits >> 7)
        r.bad = 1; /* a bit this format does not define: not ours */
    d->lines_split = bits >> 6 & 1;
    get_bytes(&r, d->line_id, sizeof d->line_id);
    d->is_debug = bits & 1, d->is_relocatable = bits >> 1 & 1, d->has_lineinfo = bits >> 2 & 1;
    t->has_debug_line = bits >> 3 & 1, t->has_debug_info = bits >> 4 & 1, t->dwarf_read_error = bits >> 5 & 1;
    d->nkernels = get_u32(&r);
    d->line_bytes = get_u64(&r);
    d->producer = get_str(&r);
    d->toolkit_version = get_str(&r);
    d->ptxas_options = get_str(&r);
    size_t nf = get_count(&r, 60);
    if (nf && !(t->funcs = calloc(nf, sizeof *t->funcs)))
        r.bad = 1;
    for (size_t i = 0; i < nf && !r.bad; i++, t->nfuncs++) {
        struct tlck_function *f = &t->funcs[i];
        f->name = get_str(&r);
        f->addr = get_u64(&r);
        f->size = get_u64(&r);
        f->shndx = get_u32(&r);
        uint32_t fb = get_u32(&r);
        if (fb >> 18)
            r.bad = 1;
        f->bind = (unsigned char)fb, f->visibility = (unsigned char)(fb >> 8);
        f->is_kernel = fb >> 16 & 1, f->has_lines = fb >> 17 & 1;
        f->covered = get_u64(&r);
        f->cu = get_str(&r);
        f->cu_unit = get_u32(&r);
    }
    size_t nc = get_count(&r, 72);
    if (nc && !(t->cus = calloc(nc, sizeof *t->cus)))
        r.bad = 1;
    for (size_t i = 0; i < nc && !r.bad; i++, t->ncus++) {
        struct tlck_cu *u = &t->cus[i];
        u->name = get_str(&r);
        u->comp_dir = get_str(&r);
        u->producer = get_str(&r);
        u->lang = get_u32(&r);
        u->dwarf_version = get_u32(&r);
        u->rows = get_u64(&r);
        u->line_offset = get_u64(&r);
        u->funcs = get_u64(&r);
        u->funcs_covered = get_u64(&r);
    }
    size_t ns = get_count(&r, 48);
    if (ns && !(t->subprograms = calloc(ns, sizeof *t->subprograms)))
        r.bad = 1;
    for (size_t i = 0; i < ns && !r.bad; i++, t->nsubprograms++) {
        struct tlck_subprogram *s = &t->subprograms[i];
        s->name = get_str(&r);
        s->linkage_name = get_str(&r);
        s->low_pc = get_u64(&r);
        s->high_pc = get_u64(&r);
        s->shndx = get_u32(&r);
        int64_t cu = (int64_t)get_u64(&r);
        if (cu < -1 || cu >= (int64_t)t->ncus)
            r.bad = 1;
        s->cu = (int)cu;
    }
    for (size_t i = 0; i < t->nfuncs && !r.bad; i++)
        if (t->funcs[i].cu_unit > t->ncus)
            r.bad = 1;
    *rr = r;
    return r.bad ? -1 : 0;
}

/* Moves t's summary fields into img, which was described from its entry header: those fields stay. */
static void apply(struct tlck_image *img, struct tlck_image *t)
{
    const struct tlck_device_info *d = &t->dev;
    struct tlck_device_info *to = &img->dev;
    free(to->producer);
    free(to->toolkit_version);
    free(to->ptxas_options);
    to->sm = d->sm;
    to->arch_suffix = d->arch_suffix;
    to->is_debug = d->is_debug, to->is_relocatable = d->is_relocatable, to->has_lineinfo = d->has_lineinfo;
    to->nkernels = d->nkernels;
    to->lines_split = d->lines_split;
    memcpy(to->line_id, d->line_id, sizeof to->line_id);
    to->line_bytes = d->line_bytes;
    to->producer = d->producer, to->toolkit_version = d->toolkit_version, to->ptxas_options = d->ptxas_options;
    img->has_debug_line = t->has_debug_line, img->has_debug_info = t->has_debug_info;
    img->dwarf_read_error = t->dwarf_read_error;
    img->funcs = t->funcs, img->nfuncs = t->nfuncs;
    img->cus = t->cus, img->ncus = t->ncus;
    img->subprograms = t->subprograms, img->nsubprograms = t->nsubprograms;
    memset(t, 0, sizeof *t);
}

int tlck_image_summary_decode(const unsigned char *p, size_t len, struct tlck_image *imgs, size_t n)
{
    if (len < MAGIC_LEN || memcmp(p, MAGIC, MAGIC_LEN) != 0)
        return -1;
    struct in r = { p, len, MAGIC_LEN, 0 };
    if (get_u64(&r) != n || r.bad)
        return -1;
    struct tlck_image *t = calloc(n ? n : 1, sizeof *t); /* moved into imgs only when all of it decoded */
    int bad = !t;
    for (size_t i = 0; i < n && !bad; i++)
        bad = decode_one(&r, &t[i]) != 0;
    bad = bad || r.at != len;
    for (size_t i = 0; t && i < n; i++) {
        if (!bad)
            apply(&imgs[i], &t[i]);
        tlck_image_free(&t[i]);
    }
    free(t);
    return bad ? -1 : 0;
}

/* ---- files ---- */

char *tlck_image_cache_default_dir(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    char *dir = NULL;
    if (xdg && *xdg) {
        if (asprintf(&dir, "%s/trueline/images", xdg) < 0)
            dir = NULL;
    } else if (home && *home && asprintf(&dir, "%s/.cache/trueline/images", home) < 0)
        dir = NULL;
    return dir;
}

struct tlck_image_cache *tlck_image_cache_open(const char *dir, uint64_t cap)
{
    tl_error err;
    struct tlck_image_cache *c = calloc(1, sizeof *c);
    if (!c || tl_mkdirs(dir, 0700) != 0 || tl_hash_file("/proc/self/exe", &c->self, &err) != 0 || !(c->dir = strdup(dir))) {
        free(c);
        return NULL;
    }
    c->cap = cap ? cap : TLCK_IMAGE_CACHE_CAP_DEFAULT;
    return c;
}

const char *tlck_image_cache_dir(const struct tlck_image_cache *c) { return c->dir; }

struct tlck_image_cache_stats tlck_image_cache_stats(const struct tlck_image_cache *c)
{
    return (struct tlck_image_cache_stats){ atomic_load(&c->hits), atomic_load(&c->misses), atomic_load(&c->stored) };
}

tl_hash128 tlck_image_cache_key(const struct tlck_image_cache *c, const struct tlck_device_refs *refs, size_t image_cap,
                               size_t input_cap, void (*done)(const struct tlck_fatbin_entry *))
{
    tl_hasher *h = tl_hasher_new();
    uint64_t caps[2] = { image_cap, input_cap };
    tl_hasher_update(h, &c->self, sizeof c->self);
    tl_hasher_update(h, caps, sizeof caps);
    for (size_t i = 0; i < refs->n; i++) {
        const struct tlck_fatbin_entry *fe = &refs->v[i].fe;
        uint64_t head[9] = { fe->kind, fe->arch, fe->flags, fe->codec, fe->size, fe->payload_size,
                             refs->v[i].is_cubin_file, fe->options != NULL, fe->options ? fe->options_len : 0 };
        tl_hasher_update(h, head, sizeof head);
        if (fe->options)
            tl_hasher_update(h, fe->options, fe->options_len);
        tl_hasher_update(h, fe->payload, fe->payload_size);
        if (done)
            done(fe);
    }
    return tl_hasher_final(h);
}

static char *entry_path(const struct tlck_image_cache *c, tl_hash128 key, int dir_only)
{
    char hex[TL_HASH_HEX_LEN + 1], *p = NULL;
    tl_hash_hex(key, hex);
    if ((dir_only ? asprintf(&p, "%s/%.2s", c->dir, hex) : asprintf(&p, "%s/%.2s/%s", c->dir, hex, hex + 2)) < 0)
        return NULL;
    return p;
}

static unsigned char *read_all(const char *path, size_t *n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return NULL;
    unsigned char *buf = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (size_t)st.st_size <= ENTRY_MAX &&
        (buf = malloc((size_t)st.st_size))) {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            ssize_t k = read(fd, buf + got, (size_t)st.st_size - got);
            if (k <= 0)
                break;
            got += (size_t)k;
        }
        if (got != (size_t)st.st_size) {
            free(buf);
            buf = NULL;
        }
        *n = got;
    }
    close(fd);
    return buf;
}

int tlck_image_cache_get(struct tlck_image_cache *c, tl_hash128 key, struct tlck_image *imgs, size_t n)
{
    char *path = entry_path(c, key, 0);
    size_t len = 0;
    unsigned char *buf = path ? read_all(path, &len) : NULL;
    int hit = buf && tlck_image_summary_decode(buf, len, imgs, n) == 0;
    if (hit)
        utimensat(AT_FDCWD, path, NULL, 0); /* recently used: trimmed last */
    free(buf);
    free(path);
    atomic_fetch_add(hit ? &c->hits : &c->misses, 1);
    return hit;
}

void tlck_image_cache_put(struct tlck_image_cache *c, tl_hash128 key, const struct tlck_image *imgs, size_t n)
{
    size_t len;
    unsigned char *buf = tlck_image_summary_encode(imgs, n, &len);
    char *dir = entry_path(c, key, 1), *path = entry_path(c, key, 0), *tmp = NULL;
    if (buf && dir && path && (mkdir(dir, 0700) == 0 || errno == EEXIST) &&
        asprintf(&tmp, "%s.%ld.%llu.tmp", path, (long)getpid(), (unsigned long long)atomic_fetch_add(&c->seq, 1)) >= 0) {
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        int ok = fd >= 0 && tl_write_all(fd, buf, len) == 0;
        if (fd >= 0 && close(fd) != 0)
            ok = 0;
        if (ok && rename(tmp, path) == 0)
            atomic_fetch_add(&c->stored, 1);
        else if (fd >= 0)
            unlink(tmp);
    }
    free(tmp);
    free(path);
    free(dir);
    free(buf);
}

/* ---- trimming ---- */

struct aged {
    char *path;
    uint64_t size;
    struct timespec mtime;
};

static int older_first(const void *a, const void *b)
{
    const struct aged *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec)
        return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : x->mtime.tv_nsec > y->mtime.tv_nsec;
}

static int push(struct aged **v, size_t *n, size_t *cap, char *path, const struct stat *st)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 256;
        struct aged *w = realloc(*v, c * sizeof *w);
        if (!w)
            return -1;
        *v = w;
        *cap = c;
    }
    (*v)[(*n)++] = (struct aged){ path, (uint64_t)st->st_size, st->st_mtim };
    return 0;
}

/* The oldest entries go until the cache holds at most 9/10 of its cap, so that trimming is not needed again on
 * the next run. Only files named like entries (or left-over temporaries) in two-hex-digit folders are touched. */
static void trim(const struct tlck_image_cache *c)
{
    struct aged *v = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    DIR *top = opendir(c->dir);
    for (struct dirent *t; top && (t = readdir(top));) {
        if (strlen(t->d_name) != 2 || !strchr("0123456789abcdef", t->d_name[0]) || !strchr("0123456789abcdef", t->d_name[1]))
            continue;
        char *sub = NULL;
        if (asprintf(&sub, "%s/%s", c->dir, t->d_name) < 0)
            continue;
        DIR *d = opendir(sub);
        for (struct dirent *e; d && (e = readdir(d));) {
            struct stat st;
            char *p = NULL;
            if (e->d_name[0] == '.' || asprintf(&p, "%s/%s", sub, e->d_name) < 0)
                continue;
            if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode) || push(&v, &n, &cap, p, &st) != 0) {
                free(p);
                continue;
            }
            total += (uint64_t)st.st_size;
        }
        if (d)
            closedir(d);
        free(sub);
    }
    if (top)
        closedir(top);
    if (total > c->cap && v) {
        qsort(v, n, sizeof *v, older_first);
        for (size_t i = 0; i < n && total > c->cap / 10 * 9; i++)
            if (unlink(v[i].path) == 0)
                total -= v[i].size;
    }
    for (size_t i = 0; i < n; i++)
        free(v[i].path);
    free(v);
}

void tlck_image_cache_close(struct tlck_image_cache *c)
{
    if (!c)
        return;
    if (atomic_load(&c->stored))
        trim(c);
    free(c->dir);
    free(c);
}
