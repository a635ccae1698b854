/* Fatbin container walking and entry decompression; layout and evidence in docs/cuda-formats.md §2-3. */
#include "read/fatbin.h"
#include "trueline/limits.h"

#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <zstd.h>

#define CONTAINER_HDR 16u
#define ENTRY_HDR_MIN 0x40u

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const unsigned char *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

const char *tlck_fatbin_codec_name(enum tlck_fatbin_codec c)
{
    return c == TLCK_CODEC_ZSTD ? "zstd" : c == TLCK_CODEC_LZ4 ? "lz4" : "none";
}

/* A string field {offset, length} relative to the entry start; it must lie inside the entry header. */
static int header_string(const unsigned char *entry, uint32_t hdr, uint32_t off, uint32_t len, const char **s,
                         size_t *n)
{
    *s = NULL;
    *n = 0;
    if (off == 0)
        return 0;
    if (off < ENTRY_HDR_MIN || off > hdr || len > hdr - off)
        return -1;
    *s = (const char *)entry + off;
    /* The writer pads with NULs; stop at the first one so callers get a plain string. */
    const char *z = memchr(*s, 0, len);
    *n = z ? (size_t)(z - *s) : len;
    return 0;
}

/* Fills e from the entry header at h (avail bytes up to the container end). Returns the entry's total size,
 * or 0 when the header itself is unusable (the container cannot be walked further). */
static uint64_t parse_entry(const unsigned char *h, uint64_t avail, struct tlck_fatbin_entry *e)
{
    if (avail < ENTRY_HDR_MIN) {
        e->error = "entry header truncated by the container end";
        return 0;
    }
    uint32_t hdr = rd32(h + 4);
    uint64_t padded = rd64(h + 8);
    if (hdr < ENTRY_HDR_MIN || hdr > avail || padded > avail - hdr) {
        e->error = "entry header or payload size runs past the container end";
        return 0;
    }
    e->kind = rd16(h);
    e->code_minor = rd16(h + 0x18);
    e->code_major = rd16(h + 0x1A);
    e->arch = rd32(h + 0x1C);
    e->flags = rd64(h + 0x28);
    e->payload = h + hdr;
    e->payload_size = (size_t)padded;
    e->size = padded;
    uint32_t csize = rd32(h + 0x10);
    uint64_t usize = rd64(h + 0x38);
    int z = (e->flags & TLCK_FATBIN_FLAG_ZSTD) != 0, l = (e->flags & TLCK_FATBIN_FLAG_LZ4) != 0;
    if (z && l)
        e->error = "entry claims both zstd and LZ4 compression";
    else if (z || l) {
        e->codec = z ? TLCK_CODEC_ZSTD : TLCK_CODEC_LZ4;
        if (csize == 0 || csize > padded || usize == 0)
            e->error = "compressed entry with an impossible compressed or uncompressed size";
        else {
            e->payload_size = csize;
            e->size = usize;
        }
    }
    const unsigned char *od = NULL;
    uint32_t optd = rd32(h + 0x14);
    if (optd && (optd < ENTRY_HDR_MIN || optd > hdr - 8 || hdr < 8))
        e->error = "options descriptor outside the entry header";
    else if (optd)
        od = h + optd;
    if (header_string(h, hdr, rd32(h + 0x20), rd32(h + 0x24), &e->ident, &e->ident_len) != 0)
        e->error = "identifier outside the entry header";
    /* Only PTX entries carry an option string there; ELF entries (sm_100+) carry the .nv.compat blob. */
    if (od && e->kind == TLCK_FATBIN_KIND_PTX &&
        header_string(h, hdr, rd32(od), rd32(od + 4), &e->options, &e->options_len) != 0)
        e->error = "PTX options outside the entry header";
    return (uint64_t)hdr + padded;
}

static int walk_container(const unsigned char *c, uint64_t n, unsigned ci, uint64_t base, tlck_fatbin_entry_fn fn,
                          void *ctx, tl_error *err)
{
    uint64_t pos = 0;
    for (unsigned idx = 0; pos < n; idx++) {
        struct tlck_fatbin_entry e = { .container = ci, .index = idx, .offset = base + pos };
        uint64_t step = parse_entry(c + pos, n - pos, &e);
        if (fn(&e, ctx))
            return 1;
        if (step == 0)
            return tl_fail(err, "fatbin container %u at offset 0x%llx: entry %u at 0x%llx: %s", ci,
                           (unsigned long long)(base - CONTAINER_HDR), idx, (unsigned long long)(base + pos),
                           e.error);
        pos += step;
    }
    return 0;
}

int tlck_fatbin_walk(const unsigned char *p, size_t n, unsigned first_container, tlck_fatbin_entry_fn fn, void *ctx,
                   tl_error *err)
{
    size_t pos = 0;
    unsigned ci = first_container;
    while (pos < n) {
        /* Containers are contiguous in every file examined; zero padding up to the next one is tolerated. */
        if (p[pos] == 0) {
            pos++;
            continue;
        }
        if (n - pos < CONTAINER_HDR || rd32(p + pos) != TL_FATBIN_MAGIC)
            return tl_fail(err, "offset 0x%zx: no fatbin container magic (0x%08x expected)", pos,
                           TL_FATBIN_MAGIC);
        unsigned hdr = rd16(p + pos + 6);
        uint64_t fat = rd64(p + pos + 8);
        if (hdr < CONTAINER_HDR || hdr > n - pos || fat > n - pos - hdr)
            return tl_fail(err, "fatbin container %u at offset 0x%zx: declared size 0x%llx runs past the end "
                           "(0x%zx bytes left)", ci, pos, (unsigned long long)fat, n - pos);
        int r = walk_container(p + pos + hdr, fat, ci, pos + hdr, fn, ctx, err);
        if (r)
            return r < 0 ? -1 : 0;
        pos += hdr + fat;
        ci++;
    }
    return 0;
}

#define SCRATCH_KEEP ((size_t)32 << 20)
/* From this size a buffer is its own anonymous mapping with a transparent-huge-page hint. Decompressing into
 * fresh 4 KB pages made the kernel's page zeroing and fault handling a quarter of a full audit of
 * libnccl.so.2 (1338 MB of images); 2 MB pages take 512 times fewer faults. Where THP is off the hint is
 * ignored and nothing else changes. */
#define SCRATCH_MAP ((size_t)4 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static void release(struct tlck_fatbin_scratch *s)
{
    if (s->mapped)
        munmap(s->buf, s->cap);
    else
        free(s->buf);
    s->buf = NULL;
    s->cap = 0;
    s->mapped = 0;
}

/* A buffer of exactly c bytes (rounded up to whole huge pages when mapped); old contents are not kept. */
static int alloc_buf(struct tlck_fatbin_scratch *s, size_t c)
{
    release(s);
    if (c >= SCRATCH_MAP) {
        c = (c + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *m = mmap(NULL, c, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return -1;
#ifdef MADV_HUGEPAGE
        madvise(m, c, MADV_HUGEPAGE);
#endif
        s->buf = m;
        s->mapped = 1;
    } else if (!(s->buf = malloc(c)))
        return -1;
    s->cap = c;
    return 0;
}

static int grow(struct tlck_fatbin_scratch *s, size_t need)
{
    if (s->cap >= need)
        return 0;
    size_t c = s->cap ? s->cap : 1 << 20;
    while (c < need && c < SCRATCH_KEEP)
        c *= 2;
    if (c < need)
        c = need; /* no rounding for the rare huge image */
    return alloc_buf(s, c);
}

int tlck_fatbin_scratch_reserve(struct tlck_fatbin_scratch *s, size_t n)
{
    if (s->cap < n && alloc_buf(s, n) != 0)
        return -1;
    s->reserved = 1;
    return 0;
}

void tlck_fatbin_scratch_shrink(struct tlck_fatbin_scratch *s)
{
    if (s->cap > SCRATCH_KEEP && !s->reserved)
        release(s);
    else if (s->mapped && s->used > SCRATCH_KEEP) {
        /* A reserved buffer keeps its address space, not the pages a huge image touched past SCRATCH_KEEP: with
         * one such buffer per thread they held 250 MB of libnccl.so.2's read resident to the end. The next huge
         * image faults them in again (zeroed huge pages); the common small image never reaches them. */
        madvise(s->buf + SCRATCH_KEEP, s->cap - SCRATCH_KEEP, MADV_DONTNEED);
    }
    s->used = 0;
}

void tlck_fatbin_scratch_free(struct tlck_fatbin_scratch *s)
{
    release(s);
    ZSTD_freeDCtx(s->zstd);
    memset(s, 0, sizeof *s);
}

static int unzstd(const struct tlck_fatbin_entry *e, struct tlck_fatbin_scratch *s, tl_error *err)
{
    static const unsigned char magic[4] = { 0x28, 0xB5, 0x2F, 0xFD };
    if (e->payload_size < 4 || memcmp(e->payload, magic, 4) != 0)
        return tl_fail(err, "flagged zstd but the payload has no zstd frame magic");
    /* The frame states its content size (checked on every NVIDIA payload); it must agree with the header. */
    unsigned long long fcs = ZSTD_getFrameContentSize(e->payload, e->payload_size);
    if (fcs == ZSTD_CONTENTSIZE_ERROR)
        return tl_fail(err, "zstd frame header is invalid");
    if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != e->size)
        return tl_fail(err, "zstd frame content size %llu differs from the entry's %llu", fcs,
                       (unsigned long long)e->size);
    if (!s->zstd && !(s->zstd = ZSTD_createDCtx()))
        return tl_fail(err, "out of memory for a zstd context");
    size_t r = ZSTD_decompressDCtx(s->zstd, s->buf, (size_t)e->size, e->payload, e->payload_size);
    if (ZSTD_isError(r))
        return tl_fail(err, "zstd: %s", ZSTD_getErrorName(r));
    if (r != e->size)
        return tl_fail(err, "zstd produced %zu bytes, entry declares %llu", r, (unsigned long long)e->size);
    return 0;
}

static int unlz4(const struct tlck_fatbin_entry *e, unsigned char *dst, tl_error *err)
{
    if (e->payload_size > (size_t)LZ4_MAX_INPUT_SIZE || e->size > (uint64_t)INT32_MAX)
        return tl_fail(err, "LZ4 entry too large for one block");
    /* One raw LZ4 block, no frame (docs/cuda-formats.md §3.2); _safe never writes past dst+size. */
    int r = LZ4_decompress_safe((const char *)e->payload, (char *)dst, (int)e->payload_size, (int)e->size);
    if (r < 0)
        return tl_fail(err, "LZ4 block is malformed");
    if ((uint64_t)r != e->size)
        return tl_fail(err, "LZ4 produced %d bytes, entry declares %llu", r, (unsigned long long)e->size);
    return 0;
}

int tlck_fatbin_size_ok(const struct tlck_fatbin_entry *e, size_t max, tl_error *err)
{
    if (e->size > max)
        return tl_fail(err, "declared uncompressed size %llu exceeds the limit of %zu bytes",
                       (unsigned long long)e->size, max);
    /* the same ratio bound as every decompression: a size no payload of this length can expand to is a lie */
    unsigned ratio = e->codec == TLCK_CODEC_ZSTD ? TL_ZSTD_MAX_RATIO : TL_LZ4_MAX_RATIO;
    if (e->size > tl_decompress_bound(e->payload_size, ratio))
        return tl_fail(err, "declares %llu uncompressed bytes for %zu compressed bytes: impossible, the entry is corrupt",
                       (unsigned long long)e->size, e->payload_size);
    return 0;
}

int tlck_fatbin_image(const struct tlck_fatbin_entry *e, struct tlck_fatbin_scratch *s, size_t max,
                    const unsigned char **out, size_t *out_n, tl_error *err)
{
    if (e->error)
        return tl_fail(err, "%s", e->error);
    if (e->codec == TLCK_CODEC_NONE) {
        *out = e->payload;
        *out_n = e->payload_size;
        return 0;
    }
    if (tlck_fatbin_size_ok(e, max, err) != 0)
        return -1;
    if (grow(s, (size_t)e->size) != 0)
        return tl_fail(err, "out of memory for %llu bytes", (unsigned long long)e->size);
    s->used = (size_t)e->size;
    if ((e->codec == TLCK_CODEC_ZSTD ? unzstd(e, s, err) : unlz4(e, s->buf, err)) != 0)
        return -1;
    *out = s->buf;
    *out_n = (size_t)e->size;
    return 0;
}
