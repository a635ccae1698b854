#include "split/fatbin_split.h"

#include <lz4.h>
#include <lz4hc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "read/fatbin.h"
#include "trueline/file_kind.h"
#include "trueline/limits.h"

/* The container header (docs/cuda-formats.md §2.1) and the entry header fields rewritten here (§2.2). */
#define CONTAINER_HDR 16u
#define E_PADDED 0x08
#define E_CSIZE 0x10
#define E_USIZE 0x38
/* zstd level for re-packed images: nvcc's own output (`--compress-mode=size`, the NVIDIA libraries) is matched
 * or beaten from level 9 on (measured on the test fixtures' cubins); higher levels cost time on the 100 MB
 * images of the large libraries for a fraction of a percent. */
#define ZSTD_LEVEL 9

static uint32_t rd32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr32(unsigned char *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i)); }
static void wr64(unsigned char *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i)); }
static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

struct buf {
    unsigned char *p;
    size_t n, cap;
};

static int reserve(struct buf *b, size_t more)
{
    if (b->cap - b->n >= more)
        return 0;
    size_t c = b->cap ? b->cap : 4096;
    while (c - b->n < more)
        c *= 2;
    unsigned char *q = realloc(b->p, c);
    if (!q)
        return -1;
    b->p = q;
    b->cap = c;
    return 0;
}

static int append(struct buf *b, const void *p, size_t n)
{
    if (reserve(b, n) != 0)
        return -1;
    if (n)
        memcpy(b->p + b->n, p, n);
    b->n += n;
    return 0;
}

static int append_zeros(struct buf *b, size_t n)
{
    if (reserve(b, n) != 0)
        return -1;
    memset(b->p + b->n, 0, n);
    b->n += n;
    return 0;
}

struct walk {
    struct tlck_fatbin_entry *e;
    size_t n, cap;
};

static int collect(const struct tlck_fatbin_entry *e, void *ctx)
{
    struct walk *w = ctx;
    if (w->n == w->cap) {
        size_t c = w->cap ? w->cap * 2 : 16;
        struct tlck_fatbin_entry *q = realloc(w->e, c * sizeof *q);
        if (!q)
            return 1;
        w->e = q;
        w->cap = c;
    }
    w->e[w->n++] = *e;
    return 0;
}

/* Compresses raw with the entry's codec into dst (appended). *stored: the bytes the payload holds. */
static int encode(enum tlck_fatbin_codec codec, const unsigned char *raw, size_t n, struct buf *dst, size_t *stored,
                  char *err, size_t errlen)
{
    if (codec == TLCK_CODEC_NONE) {
        *stored = n;
        return append(dst, raw, n);
    }
    if (codec == TLCK_CODEC_ZSTD) {
        size_t bound = ZSTD_compressBound(n);
        if (reserve(dst, bound) != 0)
            goto oom;
        size_t r = ZSTD_compress(dst->p + dst->n, bound, raw, n, ZSTD_LEVEL);
        if (ZSTD_isError(r)) {
            snprintf(err, errlen, "zstd: %s", ZSTD_getErrorName(r));
            return -1;
        }
        dst->n += r;
        *stored = r;
        return 0;
    }
    if (n > (size_t)LZ4_MAX_INPUT_SIZE) {
        snprintf(err, errlen, "image of %zu bytes too large for one LZ4 block", n);
        return -1;
    }
    int bound = LZ4_compressBound((int)n);
    if (reserve(dst, (size_t)bound) != 0)
        goto oom;
    int r = LZ4_compress_HC((const char *)raw, (char *)dst->p + dst->n, (int)n, bound, LZ4HC_CLEVEL_DEFAULT);
    if (r <= 0) {
        snprintf(err, errlen, "LZ4 compression failed");
        return -1;
    }
    dst->n += (size_t)r;
    *stored = (size_t)r;
    return 0;
oom:
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* The new form of one entry, appended to out: its header (copied, sizes rewritten) and payload. *changed: the
 * entry had line info. */
static int split_entry(const unsigned char *hdr, const struct tlck_fatbin_entry *e, struct tlck_fatbin_scratch *s,
                       tlck_line_part_fn part, void *arg, struct buf *out, int *changed,
                       struct tlck_fatbin_split_stats *st, char *err, size_t errlen)
{
    uint32_t hsize = rd32(hdr + 4);
    size_t whole = hsize + (size_t)rd64(hdr + E_PADDED);
    *changed = 0;
    int elf = e->kind == TLCK_FATBIN_KIND_ELF, ptx = e->kind == TLCK_FATBIN_KIND_PTX;
    if (elf)
        st->images++;
    if ((!elf && !ptx) || (elf && (e->flags & TLCK_FATBIN_FLAG_DEBUG)))
        return append(out, hdr, whole); /* -G images keep their full debug info; other kinds are not ours */
    const unsigned char *img;
    size_t n;
    tl_error te = { { 0 } };
    if (tlck_fatbin_image(e, s, TL_BUDGET_DEFAULT, &img, &n, &te) != 0) {
        snprintf(err, errlen, "entry %u of container %u (%s): %s", e->index, e->container,
                 tlck_fatbin_codec_name(e->codec), te.msg);
        return -1;
    }
    unsigned char *raw = NULL;
    size_t rawn = 0;
    int r;
    if (elf) {
        r = tlck_cubin_strip_lines(img, n, &raw, &rawn, err, errlen);
        if (r == 0) {
            /* an image without code (a translation unit with no kernel) has no line a core could need */
            unsigned char id[TLCK_DEVICE_ID_LEN];
            int idr = tlck_device_identity(img, n, id, err, errlen);
            if (idr < 0 || (idr == 0 && part && part(arg, id, img, n, err, errlen) != 0))
                r = -1;
        }
    } else {
        size_t len = strnlen((const char *)img, n);
        char *txt = NULL;
        size_t tn = 0;
        r = tlck_ptx_strip_lines((const char *)img, len, &txt, &tn);
        if (r == 0) {
            /* a PTX image ends in its NUL (docs/cuda-formats.md §3.2) */
            raw = (unsigned char *)txt;
            raw[tn] = 0;
            rawn = tn + (len < n ? 1 : 0);
        } else if (r < 0)
            snprintf(err, errlen, "out of memory");
    }
    if (r != 0) {
        free(raw);
        if (r > 0)
            return append(out, hdr, whole);
        char m[256];
        snprintf(m, sizeof m, "%s", err);
        snprintf(err, errlen, "entry %u of container %u (%s image): %s", e->index, e->container, elf ? "ELF" : "PTX", m);
        return -1;
    }
    size_t at = out->n;
    if (append(out, hdr, hsize) != 0) {
        free(raw);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    size_t stored = 0;
    if (encode(e->codec, raw, rawn, out, &stored, err, errlen) != 0) {
        free(raw);
        return -1;
    }
    free(raw);
    size_t padded = pad8(stored);
    if (append_zeros(out, padded - stored) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    unsigned char *h = out->p + at;
    wr64(h + E_PADDED, padded);
    if (e->codec != TLCK_CODEC_NONE) {
        wr32(h + E_CSIZE, (uint32_t)stored);
        wr64(h + E_USIZE, rawn);
    }
    *changed = 1;
    if (elf)
        st->images_split++;
    else
        st->ptx_split++;
    return 0;
}

/* One container at c (hdr + fat bytes) rewritten into out. */
static int split_container(const unsigned char *c, size_t clen, unsigned ci, enum tlck_fatbin_layout layout,
                           struct tlck_fatbin_scratch *s, tlck_line_part_fn part, void *arg, struct buf *out,
                           int *any, struct tlck_fatbin_split_stats *st, char *err, size_t errlen)
{
    unsigned hdr = c[6] | c[7] << 8;
    struct walk w = { 0 };
    tl_error te = { { 0 } };
    if (tlck_fatbin_walk(c, clen, ci, collect, &w, &te) != 0 || w.n == 0) {
        snprintf(err, errlen, "fatbin container %u: %s", ci, w.n ? te.msg : "no entries");
        free(w.e);
        return -1;
    }
    size_t start = out->n, last_at = 0;
    int changed_here = 0;
    if (append(out, c, hdr) != 0)
        goto oom;
    for (size_t k = 0; k < w.n; k++) {
        const struct tlck_fatbin_entry *e = &w.e[k];
        if (e->error) {
            snprintf(err, errlen, "fatbin container %u, entry %u: %s", ci, e->index, e->error);
            free(w.e);
            return -1;
        }
        int ch = 0;
        last_at = out->n;
        if (split_entry(c + e->offset, e, s, part, arg, out, &ch, st, err, errlen) != 0) {
            free(w.e);
            return -1;
        }
        changed_here |= ch;
    }
    free(w.e);
    size_t newlen = out->n - start;
    if (layout == TLCK_FATBIN_IN_PLACE) {
        if (newlen > clen) {
            /* the re-encoding came out larger than the original: keep the original container */
            out->n = start;
            st->containers_kept++;
            return append(out, c, clen) == 0 ? 0 : -1;
        }
        size_t slack = clen - newlen;
        if (slack) {
            /* the wrappers point at each container: it keeps its size, the last entry's padding grows */
            unsigned char *lh = out->p + last_at;
            wr64(lh + E_PADDED, rd64(lh + E_PADDED) + slack);
            if (append_zeros(out, slack) != 0)
                goto oom;
        }
    }
    wr64(out->p + start + 8, out->n - start - hdr);
    *any |= changed_here;
    return 0;
oom:
    free(w.e);
    snprintf(err, errlen, "out of memory");
    return -1;
}

int tlck_fatbin_split(const unsigned char *data, size_t n, enum tlck_fatbin_layout layout, tlck_line_part_fn part,
                      void *arg, unsigned char **out, size_t *out_n, struct tlck_fatbin_split_stats *stats, char *err,
                      size_t errlen)
{
    *out = NULL;
    *out_n = 0;
    struct tlck_fatbin_split_stats st = { 0 };
    struct tlck_fatbin_scratch s = { 0 };
    struct buf o = { 0 };
    int any = 0, rc = -1;
    size_t pos = 0, live = 0;
    unsigned ci = 0;
    while (pos < n) {
        if (data[pos] == 0) { /* zero padding between containers, kept as it was */
            if (append(&o, data + pos, 1) != 0)
                goto oom;
            pos++;
            continue;
        }
        if (n - pos < CONTAINER_HDR || rd32(data + pos) != TL_FATBIN_MAGIC) {
            snprintf(err, errlen, "offset 0x%zx: no fatbin container magic", pos);
            goto done;
        }
        unsigned hdr = data[pos + 6] | data[pos + 7] << 8;
        uint64_t fat = rd64(data + pos + 8);
        if (hdr < CONTAINER_HDR || hdr > n - pos || fat > n - pos - hdr) {
            snprintf(err, errlen, "fatbin container %u at offset 0x%zx runs past the end", ci, pos);
            goto done;
        }
        size_t before = o.n;
        if (split_container(data + pos, hdr + (size_t)fat, ci, layout, &s, part, arg, &o, &any, &st, err, errlen) != 0)
            goto done;
        /* what is left of this container before the zeros that replaced its line info */
        size_t used = o.n - before;
        if (layout == TLCK_FATBIN_IN_PLACE)
            while (used > 0 && o.p[before + used - 1] == 0)
                used--;
        live += used;
        pos += hdr + (size_t)fat;
        ci++;
    }
    st.bytes_in = n;
    st.bytes_out = layout == TLCK_FATBIN_IN_PLACE ? live : o.n;
    if (!any) {
        rc = 1;
        goto done;
    }
    *out = o.p;
    *out_n = o.n;
    o.p = NULL;
    rc = 0;
    goto done;
oom:
    snprintf(err, errlen, "out of memory");
done:
    tlck_fatbin_scratch_free(&s);
    free(o.p);
    if (stats)
        *stats = st;
    return rc;
}
