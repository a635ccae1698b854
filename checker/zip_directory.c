#include "zip_directory.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOCATOR 0x07064b50u
#define SIG_DESCRIPTOR 0x08074b50u
#define END_LEN 22u
#define END64_LEN 56u
#define LOCATOR_LEN 20u
#define TAIL_LEN (65535u + END_LEN) /* the end record and the longest comment it may carry */
#define CD_MAX ((uint64_t)256 << 20) /* a central directory larger than this is refused, not read */
#define FLAG_DESCRIPTOR 0x8u       /* sizes and CRC follow the data, in a data descriptor */

/* What a problem is, allocated; where that fails, still a problem (never a zip that reads as agreeing). */
static char oom_msg[] = "(no memory to say more)";

static char *say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *say(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = oom_msg;
    va_end(ap);
    return s;
}

static void unsay(char *s)
{
    if (s != oom_msg)
        free(s);
}

static uint32_t le16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const unsigned char *p) { return le16(p) | le16(p + 2) << 16; }
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

/* The zip: a file, or bytes in memory (a zip inside a package, decompressed). */
struct zfile {
    int fd;
    const unsigned char *mem;
    uint64_t size;
};

/* 0 when all n bytes at off were read. */
static int rd(const struct zfile *f, uint64_t off, void *buf, size_t n)
{
    if (off > f->size || n > f->size - off)
        return -1;
    if (f->mem) {
        memcpy(buf, f->mem + off, n);
        return 0;
    }
    for (size_t got = 0; got < n;) {
        ssize_t k = pread(f->fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    return 0;
}

/* One entry of the central directory, with where its local header says its bytes end. */
struct zentry {
    uint64_t off, end, csize, usize;
    uint32_t crc, flags, method;
    const unsigned char *name; /* in the directory's copy */
    uint32_t nlen;
};

static int by_offset(const void *a, const void *b)
{
    const struct zentry *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* A zip64 extended-information field (id 1) in extra: the values whose 32-bit fields are all ones, in order. */
static void zip64_extra(const unsigned char *x, size_t xlen, uint64_t *usize, uint64_t *csize, uint64_t *off,
                        uint64_t *disk)
{
    for (size_t at = 0; at + 4 <= xlen;) {
        size_t id = le16(x + at), len = le16(x + at + 2), k = at + 4;
        if (len > xlen - k)
            return;
        if (id == 1) {
            uint64_t *v[] = { usize, csize, off };
            for (size_t i = 0; i < 3; i++)
                if (v[i] && *v[i] == 0xFFFFFFFFu && k + 8 <= at + 4 + len)
                    *v[i] = le64(x + k), k += 8;
            if (disk && *disk == 0xFFFFu && k + 4 <= at + 4 + len)
                *disk = le32(x + k);
            return;
        }
        at = k + len;
    }
}

#define NAME(e) (int)(e)->nlen, (const char *)(e)->name

/* Reads the local header of e and where its member ends; NULL when it agrees with the directory, else why not. */
/* An LZMA or xz member names the dictionary its decoder allocates, before any byte is decoded: 442 bytes could
 * make liblzma allocate gigabytes (found by the package fuzz target). 7-Zip's largest zip setting is 64 MiB. */
#define DICT_MAX ((uint64_t)128 << 20)

static int vli(const unsigned char *b, size_t n, size_t *i, uint64_t *v) /* xz's variable-length integer */
{
    *v = 0;
    for (int k = 0; k < 9 && *i < n; k++) {
        unsigned char c = b[(*i)++];
        *v |= (uint64_t)(c & 0x7f) << (7 * k);
        if (!(c & 0x80))
            return 0;
    }
    return -1;
}

/* The dictionary size an LZMA (zip method 14) or xz (95) member declares; 0 when it names none readable here
 * (the decoder then finds the damage itself). */
static uint64_t lzma_dict(const struct zfile *f, uint64_t data, uint32_t method)
{
    unsigned char b[12 + 1024];
    size_t n = f->size - data < sizeof b ? (size_t)(f->size - data) : sizeof b;
    if (rd(f, data, b, n) != 0)
        return 0;
    if (method == 14) /* LZMA SDK version (2 bytes), properties size, then lc/lp/pb and the dictionary size */
        return n >= 9 && le16(b + 2) >= 5 ? le32(b + 5) : 0;
    /* xz: the 12-byte stream header, then the first block header and its filters; LZMA2 (0x21) codes the
     * dictionary in one byte */
    if (n < 14 || memcmp(b, "\xfd" "7zXZ\0", 6) != 0)
        return 0;
    size_t hlen = ((size_t)b[12] + 1) * 4, i = 14;
    if (b[12] == 0 || 12 + hlen > n)
        return 0;
    unsigned flags = b[13];
    uint64_t v, dict = 0;
    if ((flags & 0x40) && vli(b, 12 + hlen, &i, &v) != 0)
        return 0;
    if ((flags & 0x80) && vli(b, 12 + hlen, &i, &v) != 0)
        return 0;
    for (unsigned k = 0; k <= (flags & 3); k++) {
        uint64_t id, psize;
        if (vli(b, 12 + hlen, &i, &id) != 0 || vli(b, 12 + hlen, &i, &psize) != 0 || psize > 12 + hlen - i)
            return 0;
        if (id == 0x21 && psize == 1 && b[i] <= 40)
            dict = b[i] == 40 ? UINT32_MAX : (uint64_t)(2 | (b[i] & 1)) << (b[i] / 2 + 11);
        i += psize;
    }
    return dict;
}

static char *dict_too_big(const struct zfile *f, uint64_t data, uint32_t method, int nlen, const char *name)
{
    method &= 0xff; /* libarchive keeps the method's low byte: 0xa70e is LZMA to it */
    uint64_t dict = method == 14 || method == 95 ? lzma_dict(f, data, method) : 0;
    if (dict <= DICT_MAX)
        return NULL;
    return say("member %.*s declares a %s dictionary of %llu MiB (at most %llu MiB is read): its decoder would "
               "allocate it before reading a byte", nlen, name, method == 14 ? "LZMA" : "xz",
               (unsigned long long)(dict >> 20), (unsigned long long)(DICT_MAX >> 20));
}

/* A zip without an end record is read by a streaming reader, which finds each member by the local header
 * signature wherever the previous member's data really ended: every such signature in the file is a member it
 * may decode, so each is asked its dictionary (the file is already an error: pip cannot install it). */
static char *local_dicts(const struct zfile *f)
{
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = malloc(CHUNK + 4);
    if (!buf)
        return NULL;
    char *big = NULL;
    for (uint64_t at = 0; at < f->size && !big; at += CHUNK) {
        size_t n = f->size - at < CHUNK + 4 ? (size_t)(f->size - at) : CHUNK + 4;
        if (rd(f, at, buf, n) != 0)
            break;
        for (size_t i = 0; i + 4 <= n && i < CHUNK && !big; i++) {
            unsigned char h[30], name[256];
            if (buf[i] != 'P' || le32(buf + i) != SIG_LOCAL || rd(f, at + i, h, sizeof h) != 0)
                continue;
            uint32_t nlen = le16(h + 26), xlen = le16(h + 28);
            size_t shown = nlen < sizeof name ? nlen : sizeof name;
            if (rd(f, at + i + 30, name, shown) != 0)
                shown = 0;
            big = dict_too_big(f, at + i + 30 + nlen + xlen, le16(h + 8), (int)shown, (const char *)name);
        }
    }
    free(buf);
    return big;
}

static char *check_local(const struct zfile *f, struct zentry *e)
{
    unsigned char h[30];
    if (rd(f, e->off, h, sizeof h) != 0 || le32(h) != SIG_LOCAL)
        return say("the central directory puts member %.*s at offset %llu, where no local header is",
                   NAME(e), (unsigned long long)e->off);
    uint32_t flags = le16(h + 6), nlen = le16(h + 26), xlen = le16(h + 28);
    unsigned char *nx = malloc((size_t)nlen + xlen + 1);
    if (!nx || rd(f, e->off + 30, nx, (size_t)nlen + xlen) != 0) {
        free(nx);
        return say("the local header of member %.*s is cut short", NAME(e));
    }
    char *why = NULL;
    uint64_t csize = le32(h + 18), usize = le32(h + 22);
    zip64_extra(nx + nlen, xlen, &usize, &csize, NULL, NULL);
    if (nlen != e->nlen || memcmp(nx, e->name, nlen) != 0)
        why = say("the central directory names member %.*s, its local header %.*s", NAME(e), (int)nlen,
                  (const char *)nx);
    else if (le16(h + 8) != e->method || (flags & FLAG_DESCRIPTOR) != (e->flags & FLAG_DESCRIPTOR))
        why = say("member %.*s is stored differently in its local header and the central directory",
                  NAME(e));
    else if (!(flags & FLAG_DESCRIPTOR) && (le32(h + 14) != e->crc || csize != e->csize || usize != e->usize))
        why = say("member %.*s has another size or CRC in its local header (%llu bytes, %llu compressed, "
                  "CRC %08x) than in the central directory (%llu, %llu, %08x)", NAME(e),
                  (unsigned long long)usize, (unsigned long long)csize, (unsigned)le32(h + 14),
                  (unsigned long long)e->usize, (unsigned long long)e->csize, (unsigned)e->crc);
    else if ((flags & FLAG_DESCRIPTOR) && ((le32(h + 14) && le32(h + 14) != e->crc) ||
                                           (csize && csize != e->csize) || (usize && usize != e->usize)))
        why = say("member %.*s has another size or CRC in its local header than in the central directory",
                  NAME(e));
    free(nx);
    if (why)
        return why;
    uint64_t data = e->off + 30 + nlen + xlen;
    if (e->csize > f->size || data > f->size - e->csize)
        return say("member %.*s runs past the end of the file", NAME(e));
    e->end = data + e->csize;
    char *big = dict_too_big(f, data, e->method, NAME(e));
    if (big)
        return big;
    if (!(flags & FLAG_DESCRIPTOR))
        return NULL;
    /* the data descriptor: an optional signature, the CRC, then both sizes (8 bytes each in a zip64 member) */
    unsigned char d[24] = { 0 };
    size_t n = f->size - e->end < sizeof d ? (size_t)(f->size - e->end) : sizeof d, s = 0;
    if (rd(f, e->end, d, n) != 0)
        n = 0;
    if (n >= 4 && le32(d) == SIG_DESCRIPTOR)
        s = 4;
    /* a zip64 member's descriptor holds 8-byte sizes; which form it is, only its agreeing with the directory says */
    if (n >= s + 12 && le32(d + s) == e->crc && le32(d + s + 4) == e->csize && le32(d + s + 8) == e->usize) {
        e->end += s + 12;
        return NULL;
    }
    if (n >= s + 20 && le32(d + s) == e->crc && le64(d + s + 4) == e->csize && le64(d + s + 12) == e->usize) {
        e->end += s + 20;
        return NULL;
    }
    return say("member %.*s has no data descriptor matching the central directory after its data", NAME(e));
}

/* What a reader of the local headers finds at `at`, where no member of the central directory is: why bytes
 * there (n of them, after member prev or at the start) are an error. */
static char *stray(const struct zfile *f, uint64_t at, uint64_t n, const struct zentry *prev)
{
    unsigned char h[30];
    char where[96];
    if (prev)
        snprintf(where, sizeof where, "after member %.*s", prev->nlen > 60 ? 60 : (int)prev->nlen,
                 (const char *)prev->name);
    else
        snprintf(where, sizeof where, "before the first member");
    int got = rd(f, at, h, n < sizeof h ? (size_t)n : sizeof h) == 0;
    if (got && n >= 4 && le32(h) == SIG_CENTRAL)
        return say("a stray central-directory signature at offset %llu, %s: a reader of the local "
                   "headers stops there, pip reads on to the central directory at offset %llu",
                   (unsigned long long)at, where, (unsigned long long)(at + n));
    if (got && n >= 30 && le32(h) == SIG_LOCAL) {
        uint32_t nlen = le16(h + 26);
        char *name = calloc(1, (size_t)nlen + 1);
        if (name && rd(f, at + 30, name, nlen) != 0)
            name[0] = 0;
        char *why = say("a local header at offset %llu, %s, holds member %s, which no entry of the central "
                        "directory points at (a reader of the local headers sees it, pip does not)",
                        (unsigned long long)at, where, name ? name : "?");
        free(name);
        return why;
    }
    return say("%llu bytes at offset %llu, %s, belong to no member of the central directory",
               (unsigned long long)n, (unsigned long long)at, where);
}

/* The entries of the directory dir (cd_size bytes, `count` of them by the end record) into v. */
static char *parse_directory(const unsigned char *dir, uint64_t cd_size, uint64_t count, struct zentry *v)
{
    uint64_t at = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (at + 46 > cd_size || le32(dir + at) != SIG_CENTRAL)
            return say("the end record counts %llu members, the central directory holds %llu",
                       (unsigned long long)count, (unsigned long long)i);
        const unsigned char *c = dir + at;
        uint64_t nlen = le16(c + 28), xlen = le16(c + 30), next = at + 46 + nlen + xlen + le16(c + 32);
        if (next > cd_size)
            return say("central-directory entry %llu runs past the directory", (unsigned long long)i);
        struct zentry *e = &v[i];
        e->flags = le16(c + 8);
        e->method = le16(c + 10);
        e->crc = le32(c + 16);
        e->csize = le32(c + 20);
        e->usize = le32(c + 24);
        e->off = le32(c + 42);
        e->name = c + 46;
        e->nlen = (uint32_t)nlen;
        uint64_t disk = le16(c + 34);
        zip64_extra(c + 46 + nlen, (size_t)xlen, &e->usize, &e->csize, &e->off, &disk);
        if (disk != 0)
            return say("member %.*s is on disk %llu of a zip split over several disks", NAME(e),
                       (unsigned long long)disk);
        at = next;
    }
    if (at == cd_size)
        return NULL;
    if (cd_size - at >= 4 && le32(dir + at) == SIG_CENTRAL)
        return say("the central directory holds more entries than the %llu its end record counts (a "
                   "trailing central-directory signature at offset %llu of it)",
                   (unsigned long long)count, (unsigned long long)at);
    return say("%llu bytes of the central directory after its last entry belong to none",
               (unsigned long long)(cd_size - at));
}

/* The end records: where the central directory starts, its size and entry count, where it must end. */
struct zend {
    uint64_t eocd, cd_offset, cd_size, count, cd_end;
};

/* A disk number other than 0 is noted in *disks (the directory is still read, so that the message can name the
 * member a reader of the local headers would see instead); other problems are returned. */
static char *read_end(const struct zfile *f, unsigned char *tail, uint64_t start, size_t n, struct zend *z,
                      char **disks)
{
    /* python's zipfile takes the end record at the very end, else the last signature in the tail */
    size_t i = n - END_LEN + 1;
    while (i-- > 0 && le32(tail + i) != SIG_END) {
    }
    const unsigned char *e = tail + i;
    z->eocd = start + i;
    if (z->eocd + END_LEN + le16(e + 20) != f->size)
        return say("the end record at offset %llu is followed by %lld bytes its comment length does not "
                   "account for", (unsigned long long)z->eocd,
                   (long long)(f->size - z->eocd - END_LEN) - (long long)le16(e + 20));
    if (le16(e + 4) != 0 || le16(e + 6) != 0 || le16(e + 8) != le16(e + 10))
        *disks = say("the end record says disk %u, central directory on disk %u, %u of %u entries on "
                     "this disk: a zip split over several disks, which readers take apart differently",
                     le16(e + 4), le16(e + 6), le16(e + 8), le16(e + 10));
    z->count = le16(e + 10);
    z->cd_size = le32(e + 12);
    z->cd_offset = le32(e + 16);
    z->cd_end = z->eocd;
    if (z->eocd >= LOCATOR_LEN + END64_LEN && i >= LOCATOR_LEN && le32(e - LOCATOR_LEN) == SIG_LOCATOR) {
        const unsigned char *l = e - LOCATOR_LEN;
        unsigned char r[END64_LEN];
        uint64_t at = z->eocd - LOCATOR_LEN - END64_LEN; /* where python looks, whatever the locator says */
        if (le32(l + 4) != 0 || le32(l + 16) > 1)
            return say("the zip64 end locator says disk %u of %u: a zip split over several disks",
                       le32(l + 4), le32(l + 16));
        if (le64(l + 8) != at || rd(f, at, r, sizeof r) != 0 || le32(r) != SIG_END64)
            return say("the zip64 end record is not right before its locator (it says offset %llu)",
                       (unsigned long long)le64(l + 8));
        if (le32(r + 16) != 0 || le32(r + 20) != 0 || le64(r + 24) != le64(r + 32))
            return say("the zip64 end record says disk %u, central directory on disk %u: a zip split over "
                       "several disks", le32(r + 16), le32(r + 20));
        uint64_t count = le64(r + 32), size = le64(r + 40), off = le64(r + 48);
        if ((z->count != 0xFFFF && z->count != count) || (z->cd_size != 0xFFFFFFFFu && z->cd_size != size) ||
            (z->cd_offset != 0xFFFFFFFFu && z->cd_offset != off))
            return say("the end record and the zip64 end record place the central directory differently");
        z->count = count;
        z->cd_size = size;
        z->cd_offset = off;
        z->cd_end = at;
    }
    /* another end record from where the directory starts on: readers that search forward take that one */
    for (size_t k = 0; k + 4 <= n; k++)
        if (start + k >= z->cd_offset && start + k != z->eocd && le32(tail + k) == SIG_END)
            return say("a second end record at offset %llu (the one pip reads is at offset %llu)",
                       (unsigned long long)(start + k), (unsigned long long)z->eocd);
    if (z->cd_offset > z->cd_end || z->cd_size != z->cd_end - z->cd_offset)
        return say("the central directory (%llu bytes at offset %llu by the end record) does not end "
                   "where the end record starts (offset %llu)", (unsigned long long)z->cd_size,
                   (unsigned long long)z->cd_offset, (unsigned long long)z->cd_end);
    if (z->cd_size > CD_MAX)
        return say("a central directory of %llu bytes, over the bound of %llu MiB",
                   (unsigned long long)z->cd_size, (unsigned long long)(CD_MAX >> 20));
    return NULL;
}

/* The first disagreement, or NULL; *view says what it is when it is not one (no end record, not compared). */
static char *compare(const struct zfile *f, const tl_budget *budget, enum tlck_zip_view *view)
{
    size_t n = f->size < TAIL_LEN ? (size_t)f->size : TAIL_LEN;
    uint64_t start = f->size - n;
    unsigned char *tail = malloc(n ? n : 1), *dir = NULL;
    struct zentry *v = NULL;
    struct zend z = { 0 };
    char *why = NULL, *disks = NULL;
    if (!tail || rd(f, start, tail, n) != 0) {
        why = say("cannot read the end of the zip");
        *view = TLCK_ZIP_UNCOMPARED;
        goto done;
    }
    int found = 0;
    for (size_t i = 0; n >= END_LEN && i <= n - END_LEN && !found; i++)
        found = le32(tail + i) == SIG_END;
    if (!found) {
        /* members are then read from their local headers: a dictionary no decoder should allocate is still
         * refused first */
        *view = (why = local_dicts(f)) ? TLCK_ZIP_DISAGREES : TLCK_ZIP_NO_END_RECORD;
        goto done;
    }
    if ((why = read_end(f, tail, start, n, &z, &disks)) != NULL)
        goto done;
    if (z.count > z.cd_size / 46) {
        why = say("the end record counts %llu members, more than its central directory of %llu bytes "
                  "can hold", (unsigned long long)z.count, (unsigned long long)z.cd_size);
        goto done;
    }
    dir = malloc(z.cd_size ? (size_t)z.cd_size : 1);
    v = calloc(z.count ? (size_t)z.count : 1, sizeof *v);
    if (!dir || !v) {
        why = say("no memory for the central directory");
        *view = TLCK_ZIP_UNCOMPARED;
        goto done;
    }
    if (rd(f, z.cd_offset, dir, (size_t)z.cd_size) != 0) {
        why = say("cannot read the central directory");
        *view = TLCK_ZIP_UNCOMPARED;
        goto done;
    }
    if ((why = parse_directory(dir, z.cd_size, z.count, v)) != NULL)
        goto done;
    tl_error err;
    for (uint64_t i = 0; i < z.count && !why; i++) {
        if (i % 4096 == 0 && budget && tl_budget_check(budget, &err) != 0) {
            why = say("%s", err.msg);
            *view = TLCK_ZIP_UNCOMPARED;
            break;
        }
        why = check_local(f, &v[i]);
    }
    if (why)
        goto done;
    /* the members must tile the bytes before the directory: what a reader front to back meets is what pip reads */
    qsort(v, (size_t)z.count, sizeof *v, by_offset);
    uint64_t at = 0;
    for (uint64_t i = 0; i < z.count && !why; i++) {
        struct zentry *e = &v[i], *prev = i ? &v[i - 1] : NULL;
        if (e->off < at)
            why = say("members %.*s and %.*s overlap at offset %llu (entries sharing bytes, as zip bombs "
                      "have)", NAME(prev), NAME(e), (unsigned long long)e->off);
        else if (e->off > at)
            why = stray(f, at, e->off - at, prev);
        at = e->end;
    }
    if (!why && at > z.cd_offset)
        why = say("member %.*s runs into the central directory", NAME(&v[z.count - 1]));
    else if (!why && at < z.cd_offset)
        why = stray(f, at, z.cd_offset - at, z.count ? &v[z.count - 1] : NULL);
    if (!why && z.count == 0)
        *view = TLCK_ZIP_EMPTY;
done:
    free(tail);
    free(dir);
    free(v);
    if (disks && why) {
        char *both = say("%s; %s", disks, why);
        unsay(disks);
        unsay(why);
        return both;
    }
    return why ? why : disks;
}

enum tlck_zip_view tlck_zip_directory_check(const char *path, const tl_budget *budget, char **why)
{
    struct zfile f = { .fd = open(path, O_RDONLY | O_CLOEXEC) };
    struct stat st;
    enum tlck_zip_view view = TLCK_ZIP_DISAGREES;
    char *problem = NULL;
    if (f.fd < 0 || fstat(f.fd, &st) != 0) {
        problem = say("cannot open it: %s", strerror(errno));
        view = TLCK_ZIP_UNCOMPARED;
    } else {
        f.size = (uint64_t)st.st_size;
        problem = compare(&f, budget, &view);
    }
    if (f.fd >= 0)
        close(f.fd);
    *why = problem == oom_msg ? NULL : problem;
    if (view == TLCK_ZIP_NO_END_RECORD || view == TLCK_ZIP_EMPTY)
        return view;
    return problem ? view : TLCK_ZIP_AGREES;
}

enum tlck_zip_view tlck_zip_memory_check(const unsigned char *p, size_t n, const tl_budget *budget, char **why)
{
    struct zfile f = { .fd = -1, .mem = p, .size = n };
    enum tlck_zip_view view = TLCK_ZIP_DISAGREES;
    char *problem = compare(&f, budget, &view);
    *why = problem == oom_msg ? NULL : problem;
    if (view == TLCK_ZIP_NO_END_RECORD || view == TLCK_ZIP_EMPTY)
        return view;
    return problem ? view : TLCK_ZIP_AGREES;
}
