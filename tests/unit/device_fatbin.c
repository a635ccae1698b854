/* Fatbin walker and entry decompression on synthetic containers: cases real files never show (zero padding
 * between containers, damaged sizes, lying headers) plus zstd/LZ4 round trips through the real libraries. */
#include <lz4.h>
#include <stdlib.h>
#include <zstd.h>

#include "read/fatbin.h"
#include "unit.h"

static unsigned char buf[1 << 16];
static size_t len;

static void put32(size_t at, uint32_t v) { for (int i = 0; i < 4; i++) buf[at + i] = (unsigned char)(v >> (8 * i)); }
static void put64(size_t at, uint64_t v) { put32(at, (uint32_t)v); put32(at + 4, (uint32_t)(v >> 32)); }

static size_t container_start(void)
{
    size_t c = len;
    put32(c, 0xBA55ED50u);
    buf[c + 4] = 1, buf[c + 6] = 16;
    len += 16;
    return c;
}

static void container_end(size_t c) { put64(c + 8, len - c - 16); }

/* An entry of kind/arch with payload p (n bytes, stored as given); csize/usize 0 for stored. */
static size_t entry(unsigned kind, unsigned arch, uint64_t flags, const void *p, size_t n, size_t csize, size_t usize,
                    const char *ident)
{
    size_t e = len, hdr = 0x40 + (ident ? 8 : 0), padded = (n + 7) & ~(size_t)7;
    memset(buf + e, 0, hdr + padded);
    buf[e] = (unsigned char)kind;
    put32(e + 4, (uint32_t)hdr);
    put64(e + 8, padded);
    put32(e + 0x10, (uint32_t)csize);
    put32(e + 0x1C, arch);
    if (ident) {
        put32(e + 0x20, 0x40);
        put32(e + 0x24, (uint32_t)strlen(ident));
        memcpy(buf + e + 0x40, ident, strlen(ident));
    }
    put64(e + 0x28, flags | 0x11);
    put64(e + 0x38, usize);
    memcpy(buf + e + hdr, p, n);
    len += hdr + padded;
    return e;
}

struct seen {
    struct tlck_fatbin_entry v[16];
    int n;
};

static int collect(const struct tlck_fatbin_entry *e, void *ctx)
{
    struct seen *s = ctx;
    if (s->n < 16)
        s->v[s->n++] = *e;
    return 0;
}

static int walk(struct seen *s, tl_error *err)
{
    memset(s, 0, sizeof *s);
    return tlck_fatbin_walk(buf, len, 0, collect, s, err);
}

static const char ptx[] = ".version 9.0\n.target sm_90\n.address_size 64\n";

/* 4 KiB of text that compresses well */
static void fill_text(unsigned char *text, size_t n)
{
    for (size_t i = 0; i < n; i++)
        text[i] = (unsigned char)("abcabcabd"[i % 9]);
}

static void walk_and_padding(void)
{
    unsigned char text[4096];
    fill_text(text, sizeof text);
    tl_error err;
    struct seen s;
    struct tlck_fatbin_scratch sc = { 0 };
    const unsigned char *out;
    size_t outn;
    size_t c;

    /* two containers, zero padding between and after them */
    len = 0;
    c = container_start();
    entry(1, 90, 0, ptx, sizeof ptx, 0, 0, "k.cu");
    entry(2, 100, 0x100000, text, 100, 0, 0, NULL);
    container_end(c);
    len += 24; /* zeros */
    c = container_start();
    entry(2, 120, 0x200000, text, 64, 0, 0, NULL);
    container_end(c);
    len += 5;
    UNIT_CHECK("walk with zero padding succeeds", walk(&s, &err) == 0);
    UNIT_CHECK("three entries in two containers", s.n == 3 && s.v[0].container == 0 && s.v[2].container == 1 &&
               s.v[2].index == 0 && s.v[1].index == 1);
    UNIT_CHECK("kind, arch and flags decoded", s.v[0].kind == 1 && s.v[1].arch == 100 &&
               (s.v[1].flags & TLCK_FATBIN_FLAG_ARCH_A) && (s.v[2].flags & TLCK_FATBIN_FLAG_ARCH_F));
    UNIT_CHECK("identifier read from the header", s.v[0].ident_len == 4 && memcmp(s.v[0].ident, "k.cu", 4) == 0);
    UNIT_CHECK("stored entry is returned in place",
               tlck_fatbin_image(&s.v[0], &sc, 1 << 20, &out, &outn, &err) == 0 && out == s.v[0].payload);
    tlck_fatbin_scratch_free(&sc);
}

static void compressed_entries(void)
{
    unsigned char text[4096];
    fill_text(text, sizeof text);
    tl_error err;
    struct seen s;
    struct tlck_fatbin_scratch sc = { 0 };
    const unsigned char *out;
    size_t outn;
    size_t c;

    /* zstd and LZ4 round trips */
    unsigned char z[8192], l4[8192];
    size_t zn = ZSTD_compress(z, sizeof z, text, sizeof text, 3);
    int ln = LZ4_compress_default((const char *)text, (char *)l4, sizeof text, sizeof l4);
    len = 0;
    c = container_start();
    entry(2, 90, TLCK_FATBIN_FLAG_ZSTD, z, zn, zn, sizeof text, NULL);
    entry(2, 90, TLCK_FATBIN_FLAG_LZ4, l4, (size_t)ln, (size_t)ln, sizeof text, NULL);
    entry(2, 90, TLCK_FATBIN_FLAG_ZSTD, z, zn, zn, sizeof text + 1, NULL);  /* header lies about the size */
    entry(2, 90, TLCK_FATBIN_FLAG_LZ4, l4, (size_t)ln, (size_t)ln, sizeof text - 1, NULL);
    entry(2, 90, TLCK_FATBIN_FLAG_ZSTD | TLCK_FATBIN_FLAG_LZ4, z, zn, zn, sizeof text, NULL);
    entry(2, 90, TLCK_FATBIN_FLAG_ZSTD, text, 64, 64, sizeof text, NULL);   /* no zstd magic */
    container_end(c);
    UNIT_CHECK("walk of compressed entries", walk(&s, &err) == 0 && s.n == 6);
    UNIT_CHECK("codecs from the flags", s.v[0].codec == TLCK_CODEC_ZSTD && s.v[1].codec == TLCK_CODEC_LZ4);
    UNIT_CHECK("zstd round trip", tlck_fatbin_image(&s.v[0], &sc, 1 << 20, &out, &outn, &err) == 0 &&
               outn == sizeof text && memcmp(out, text, sizeof text) == 0);
    UNIT_CHECK("LZ4 round trip", tlck_fatbin_image(&s.v[1], &sc, 1 << 20, &out, &outn, &err) == 0 &&
               outn == sizeof text && memcmp(out, text, sizeof text) == 0);
    UNIT_CHECK("zstd: declared size differing from the frame is refused",
               tlck_fatbin_image(&s.v[2], &sc, 1 << 20, &out, &outn, &err) != 0 && strstr(err.msg, "content size"));
    UNIT_CHECK("LZ4: output bounded by the declared size",
               tlck_fatbin_image(&s.v[3], &sc, 1 << 20, &out, &outn, &err) != 0);
    UNIT_CHECK("both codec flags is an entry error", s.v[4].error != NULL &&
               tlck_fatbin_image(&s.v[4], &sc, 1 << 20, &out, &outn, &err) != 0);
    UNIT_CHECK("zstd flag without a zstd frame is refused",
               tlck_fatbin_image(&s.v[5], &sc, 1 << 20, &out, &outn, &err) != 0 && strstr(err.msg, "magic"));
    UNIT_CHECK("declared size above the limit is refused before allocating",
               tlck_fatbin_image(&s.v[0], &sc, 100, &out, &outn, &err) != 0 && strstr(err.msg, "limit"));
    for (int i = 8; i < ln; i += 7)
        l4[i] ^= 0xA5;
    len = 0;
    c = container_start();
    entry(2, 90, TLCK_FATBIN_FLAG_LZ4, l4, (size_t)ln, (size_t)ln, sizeof text, NULL);
    container_end(c);
    UNIT_CHECK("damaged LZ4 block: error, no crash",
               walk(&s, &err) == 0 && tlck_fatbin_image(&s.v[0], &sc, 1 << 20, &out, &outn, &err) != 0);
    tlck_fatbin_scratch_free(&sc);
}

static void container_damage(void)
{
    tl_error err;
    struct seen s;
    struct tlck_fatbin_scratch sc = { 0 };
    size_t c;

    /* container-level damage */
    len = 0;
    c = container_start();
    entry(1, 90, 0, ptx, sizeof ptx, 0, 0, NULL);
    container_end(c);
    put64(c + 8, 1 << 20);
    UNIT_CHECK("container size past the end is an error naming it",
               walk(&s, &err) != 0 && strstr(err.msg, "runs past the end") && s.n == 0);
    container_end(c);
    put32(16 + 4, 0x20); /* entry header smaller than 0x40 */
    UNIT_CHECK("entry header below 0x40 stops the container", walk(&s, &err) != 0 && s.n == 1 && s.v[0].error);
    put32(16 + 4, 0x40);
    put32(16 + 0x20, 0x38); /* identifier inside the fixed header fields */
    put32(16 + 0x24, 4);
    UNIT_CHECK("identifier outside the tail is an entry error", walk(&s, &err) == 0 && s.n == 1 && s.v[0].error);
    len = 0;
    memcpy(buf, "garbage!garbage!garbage!", 24);
    len = 24;
    UNIT_CHECK("no magic is an error", walk(&s, &err) != 0 && strstr(err.msg, "magic"));
    len = 10;
    memset(buf, 0, 10);
    UNIT_CHECK("all zeros is an empty fatbin", walk(&s, &err) == 0 && s.n == 0);
    tlck_fatbin_scratch_free(&sc);
}

UNIT_MAIN(UNIT_CASE(walk_and_padding),
          UNIT_CASE(compressed_entries),
          UNIT_CASE(container_damage))
