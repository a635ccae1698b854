/* The device line split on synthetic input: PTX text without its line directives, and fatbin containers whose
 * PTX entries are rewritten stored and zstd-compressed, shrunk or in place. Cubins need nvcc and are covered by
 * tests/suites/split_device.sh, against cuobjdump. */
#include <stdlib.h>
#include <zstd.h>

#include "read/fatbin.h"
#include "split/fatbin_split.h"
#include "unit.h"

static const char ptx_lines[] =
    "//\n.version 9.0\n.target sm_90\n.visible .entry k()\n{\n\t.loc\t1 11 0\n\tret;\n"
    "\t.loc\t1 9 5, function_name $L__info_string0, inlined_at 1 16 9\n}\n"
    "\t.file\t1 \"/tmp/k.cu\"\n\t.section\t.debug_str\n\t{\n$L__info_string0:\n.b8 95,90,0\n\t}\n";
static const char ptx_plain[] = "//\n.version 9.0\n.target sm_90\n.visible .entry k()\n{\n\tret;\n}\n";

static void ptx_directives_go(void)
{
    char *o = NULL;
    size_t n = 0;
    UNIT_CHECK("stripped", tlck_ptx_strip_lines(ptx_lines, strlen(ptx_lines), &o, &n) == 0);
    UNIT_CHECK("what is left is the PTX without line info", o && n == strlen(ptx_plain) && memcmp(o, ptx_plain, n) == 0);
    if (o && n != strlen(ptx_plain))
        printf("    got: %.*s\n", (int)n, o);
    free(o);
    UNIT_CHECK("PTX without line info is left alone", tlck_ptx_strip_lines(ptx_plain, strlen(ptx_plain), &o, &n) == 1);
    const char loclike[] = ".version 9.0\n.local .u32 x;\n.filex\n";
    UNIT_CHECK("only whole directive words", tlck_ptx_strip_lines(loclike, strlen(loclike), &o, &n) == 1);
}

static unsigned char buf[1 << 14];
static size_t len;
static void put32(size_t at, uint32_t v) { for (int i = 0; i < 4; i++) buf[at + i] = (unsigned char)(v >> (8 * i)); }
static void put64(size_t at, uint64_t v) { put32(at, (uint32_t)v); put32(at + 4, (uint32_t)(v >> 32)); }

/* One container with one PTX entry holding text (with its NUL), stored or zstd-compressed. */
static void make_fatbin(const char *text, int zstd)
{
    size_t tn = strlen(text) + 1;
    unsigned char z[4096];
    size_t zn = zstd ? ZSTD_compress(z, sizeof z, text, tn, 3) : 0;
    const void *p = zstd ? (const void *)z : (const void *)text;
    size_t pn = zstd ? zn : tn, padded = (pn + 7) & ~(size_t)7;
    memset(buf, 0, sizeof buf);
    put32(0, 0xBA55ED50u);
    buf[4] = 1, buf[6] = 16;
    size_t e = 16;
    buf[e] = 1;
    buf[e + 2] = 1, buf[e + 3] = 1;
    put32(e + 4, 0x40);
    put64(e + 8, padded);
    put32(e + 0x10, zstd ? (uint32_t)zn : 0);
    put32(e + 0x1C, 90);
    put64(e + 0x28, 0x11 | (zstd ? 0x8000 : 0));
    put64(e + 0x38, zstd ? tn : 0);
    memcpy(buf + e + 0x40, p, pn);
    len = e + 0x40 + padded;
    put64(8, len - 16);
}

struct got {
    char text[1024];
    unsigned entries;
};
static int read_back(const struct tlck_fatbin_entry *e, void *ctx)
{
    struct got *g = ctx;
    struct tlck_fatbin_scratch s = { 0 };
    const unsigned char *img;
    size_t n;
    tl_error err;
    g->entries++;
    if (tlck_fatbin_image(e, &s, 1 << 20, &img, &n, &err) == 0)
        snprintf(g->text, sizeof g->text, "%.*s", (int)strnlen((const char *)img, n), (const char *)img);
    tlck_fatbin_scratch_free(&s);
    return 0;
}

static void check_layout(int zstd, enum tlck_fatbin_layout layout)
{
    make_fatbin(ptx_lines, zstd);
    unsigned char *o = NULL;
    size_t on = 0;
    struct tlck_fatbin_split_stats st;
    char err[256] = "";
    UNIT_CHECK("split", tlck_fatbin_split(buf, len, layout, NULL, NULL, &o, &on, &st, err, sizeof err) == 0);
    if (!o) {
        printf("    %s\n", err);
        return;
    }
    UNIT_CHECK("one PTX image split", st.ptx_split == 1 && st.images == 0);
    if (layout == TLCK_FATBIN_IN_PLACE)
        UNIT_CHECK("in place: same length", on == len);
    else
        UNIT_CHECK("shrunk", on < len);
    struct got g = { "", 0 };
    tl_error werr;
    UNIT_CHECK("the result walks", tlck_fatbin_walk(o, on, 0, read_back, &g, &werr) == 0);
    UNIT_CHECK("one entry", g.entries == 1);
    UNIT_STREQ("its text", g.text, ptx_plain);
    free(o);
    make_fatbin(ptx_plain, zstd);
    UNIT_CHECK("nothing to split", tlck_fatbin_split(buf, len, layout, NULL, NULL, &o, &on, &st, err, sizeof err) == 1);
}

static void stored_shrink(void) { check_layout(0, TLCK_FATBIN_SHRINK); }
static void stored_in_place(void) { check_layout(0, TLCK_FATBIN_IN_PLACE); }
static void zstd_shrink(void) { check_layout(1, TLCK_FATBIN_SHRINK); }
static void zstd_in_place(void) { check_layout(1, TLCK_FATBIN_IN_PLACE); }

static void damaged_is_refused(void)
{
    make_fatbin(ptx_lines, 1);
    buf[16 + 0x40 + 5] ^= 0xff; /* inside the zstd frame */
    unsigned char *o = NULL;
    size_t on = 0;
    char err[256] = "";
    UNIT_CHECK("a damaged entry is an error", tlck_fatbin_split(buf, len, TLCK_FATBIN_SHRINK, NULL, NULL, &o, &on, NULL,
                                                                err, sizeof err) == -1);
    UNIT_CHECK("nothing written", o == NULL);
    UNIT_CHECK("the error names the entry", strstr(err, "entry 0 of container 0") != NULL);
    make_fatbin(ptx_lines, 0);
    buf[0] = 0x51;
    UNIT_CHECK("no magic is an error", tlck_fatbin_split(buf, len, TLCK_FATBIN_SHRINK, NULL, NULL, &o, &on, NULL, err,
                                                         sizeof err) == -1);
}

UNIT_MAIN(UNIT_CASE(ptx_directives_go), UNIT_CASE(stored_shrink), UNIT_CASE(stored_in_place), UNIT_CASE(zstd_shrink),
          UNIT_CASE(zstd_in_place), UNIT_CASE(damaged_is_refused))
