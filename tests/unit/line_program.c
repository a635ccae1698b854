/* Line-program decoder on hand-assembled units: DWARF 2 with NVIDIA ops and header u32, DWARF 5 entry formats,
 * DWARF 3 in the 64-bit format, VLIW op_index, malformed units (every truncation point must fail cleanly). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/line_program.h"
#include "unit.h"

struct buf {
    unsigned char b[4096];
    size_t n;
};
static void u8(struct buf *b, unsigned v) { b->b[b->n++] = (unsigned char)v; }
static void fixed(struct buf *b, uint64_t v, unsigned n) { for (unsigned i = 0; i < n; i++) u8(b, (unsigned)(v >> (8 * i)) & 0xff); }
static void uleb(struct buf *b, uint64_t v) { do { unsigned c = v & 0x7f; v >>= 7; u8(b, c | (v ? 0x80 : 0)); } while (v); }
static void sleb(struct buf *b, int64_t v)
{
    for (;;) {
        unsigned c = (unsigned)(v & 0x7f);
        v >>= 7;
        if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40))) { u8(b, c); return; }
        u8(b, c | 0x80);
    }
}
static void str(struct buf *b, const char *s) { size_t n = strlen(s) + 1; memcpy(b->b + b->n, s, n); b->n += n; }
static void patch32(struct buf *b, size_t at, uint64_t v) { for (unsigned i = 0; i < 4; i++) b->b[at + i] = (unsigned char)(v >> (8 * i)); }
static void patch64(struct buf *b, size_t at, uint64_t v) { for (unsigned i = 0; i < 8; i++) b->b[at + i] = (unsigned char)(v >> (8 * i)); }
static void set_address(struct buf *b, uint64_t a) { u8(b, 0); uleb(b, 9); u8(b, 2); fixed(b, a, 8); }
static void end_seq(struct buf *b) { u8(b, 0); uleb(b, 1); u8(b, 1); }

#define MAXROWS 64
struct got {
    struct tlck_line_row rows[MAXROWS];
    char files[MAXROWS][128];
    unsigned version[MAXROWS];
    uint32_t str_base[MAXROWS];
    size_t n;
    int stop_after;
};

static int collect(const struct tlck_line_unit *u, const struct tlck_line_row *r, void *ctx)
{
    struct got *g = ctx;
    if (g->n < MAXROWS) {
        g->rows[g->n] = *r;
        const char *f = r->file < u->nfiles ? u->files[r->file] : NULL;
        snprintf(g->files[g->n], sizeof g->files[g->n], "%s", f ? f : "(none)");
        g->version[g->n] = u->version;
        g->str_base[g->n] = u->nv_str_base;
        g->n++;
    }
    return g->stop_after && (int)g->n >= g->stop_after;
}

/* NVIDIA-style DWARF 2 unit (cuda-formats.md §5): opcode_base 10, u32 str base after the file table. */
static size_t nvidia_v2(struct buf *b, uint32_t str_base)
{
    size_t start = b->n;
    fixed(b, 0, 4);
    fixed(b, 2, 2);
    size_t hl = b->n;
    fixed(b, 0, 4);
    size_t hstart = b->n;
    u8(b, 1); u8(b, 1); u8(b, (unsigned)-5 & 0xff); u8(b, 14); u8(b, 10);
    const unsigned char lens[] = { 0, 1, 1, 1, 1, 0, 0, 0, 1 };
    for (unsigned i = 0; i < 9; i++) u8(b, lens[i]);
    str(b, "/build/dir"); u8(b, 0);
    str(b, "k.cu"); uleb(b, 1); uleb(b, 0); uleb(b, 0);
    str(b, "/abs/h.cuh"); uleb(b, 1); uleb(b, 0); uleb(b, 0);
    u8(b, 0);
    fixed(b, str_base, 4);
    patch32(b, hl, b->n - hstart);
    /* sequence 0 */
    set_address(b, 0);
    u8(b, 3); sleb(b, 13); u8(b, 1);                 /* row 1: 0x00 line 14 */
    u8(b, 2); uleb(b, 0x70); u8(b, 1);               /* row 2: 0x70 line 14 (call site) */
    u8(b, 0); uleb(b, 3); u8(b, 0x90); uleb(b, 2); uleb(b, 5);
    u8(b, 4); uleb(b, 2); u8(b, 3); sleb(b, -11); u8(b, 1); /* row 3: 0x70 h.cuh:3 ctx 2 fn 5 */
    u8(b, 0); uleb(b, 2); u8(b, 0x91); uleb(b, 0);
    u8(b, 10 + (3 - (-5)) + 14 * 2);                 /* special: addr += 2, line += 3 -> row 4 */
    u8(b, 0); uleb(b, 3); u8(b, 0x90); uleb(b, 0); uleb(b, 0); /* back to the kernel */
    u8(b, 2); uleb(b, 0x10);
    end_seq(b);                                     /* row 5 */
    /* sequence 1: registers must have been reset */
    set_address(b, 0x100);
    u8(b, 1);                                       /* row 6 */
    u8(b, 0); uleb(b, 2); u8(b, 0x77); u8(b, 0xff); /* unknown extended op 0x77, skipped by length */
    u8(b, 9); fixed(b, 0x20, 2);                    /* fixed_advance_pc */
    end_seq(b);                                     /* row 7 */
    patch32(b, start, b->n - start - 4);
    return start;
}

static void test_nvidia_v2(void)
{
    struct buf b = { .n = 0 };
    nvidia_v2(&b, 0);
    unsigned char strs[] = "\0\0\0\0\0_Z6helperfi\0";
    struct tlck_line_sections s = { .line = b.b, .line_n = b.n, .str = strs, .str_n = sizeof strs, .addr_size = 8 };
    struct got g = { .n = 0 };
    tl_error err = { { 0 } };
    int rc = tlck_line_program_decode(&s, collect, &g, &err);
    UNIT_CHECK("nvidia v2 decodes", rc == 0);
    if (rc) printf("    %s\n", err.msg);
    UNIT_CHECK("nvidia v2 row count", g.n == 7);
    if (g.n < 7) return;
    UNIT_CHECK("row1 line 14 addr 0", g.rows[0].address == 0 && g.rows[0].line == 14 && g.rows[0].index_in_seq == 1);
    UNIT_STREQ("row1 file joined with dir", g.files[0], "/build/dir/k.cu");
    UNIT_CHECK("row1 seq_reloc_offset", g.rows[0].seq_reloc_offset != UINT64_MAX && b.b[g.rows[0].seq_reloc_offset - 1] == 2);
    UNIT_CHECK("row2 0x70 no context", g.rows[1].address == 0x70 && g.rows[1].context == 0 && g.rows[1].function_name == UINT64_MAX);
    UNIT_CHECK("row3 inlined ctx 2 fn 5", g.rows[2].context == 2 && g.rows[2].function_name == 5 && g.rows[2].line == 3);
    UNIT_STREQ("row3 absolute file kept", g.files[2], "/abs/h.cuh");
    UNIT_STREQ("row3 function name", tlck_line_function_name(&s, &(struct tlck_line_unit){ .nv_str_base = g.str_base[2] }, g.rows[2].function_name), "_Z6helperfi");
    UNIT_CHECK("row4 special opcode", g.rows[3].address == 0x72 && g.rows[3].line == 6 && g.rows[3].function_name == 0 && g.rows[3].context == 2);
    UNIT_CHECK("row5 end_sequence", g.rows[4].end_sequence && g.rows[4].address == 0x82 && g.rows[4].context == 0 && g.rows[4].index_in_seq == 5);
    UNIT_CHECK("seq 1 registers reset", g.rows[5].seq == 1 && g.rows[5].address == 0x100 && g.rows[5].line == 1 &&
               g.rows[5].file == 1 && g.rows[5].context == 0 && g.rows[5].function_name == UINT64_MAX && g.rows[5].index_in_seq == 1);
    const struct tlck_line_row *last = &g.rows[g.n - 1];
    UNIT_CHECK("seq 1 ends", last->end_sequence && last->seq == 1);
    UNIT_CHECK("fixed_advance_pc", last->address >= 0x120);

    /* header base: function names resolve through nv_str_base */
    struct buf b2 = { .n = 0 };
    nvidia_v2(&b2, 4);
    s.line = b2.b;
    s.line_n = b2.n;
    g.n = 0;
    rc = tlck_line_program_decode(&s, collect, &g, &err);
    UNIT_CHECK("str base read from header", rc == 0 && g.str_base[0] == 4);
    struct tlck_line_unit u = { .nv_str_base = 4 };
    UNIT_STREQ("str base applied", tlck_line_function_name(&s, &u, 1), "_Z6helperfi");
    UNIT_CHECK("name out of range is NULL", tlck_line_function_name(&s, &u, 1000) == NULL);
    UNIT_CHECK("no name is NULL", tlck_line_function_name(&s, &u, UINT64_MAX) == NULL);
}

/* DWARF 5 as gcc 12 writes it: line_strp paths, udata directory index, data16 MD5. */
static void test_v5(void)
{
    unsigned char lstr[] = "/src\0include\0a.c\0b.h\0";
    struct buf b = { .n = 0 };
    fixed(&b, 0, 4);
    fixed(&b, 5, 2);
    u8(&b, 8); u8(&b, 0);
    size_t hl = b.n;
    fixed(&b, 0, 4);
    size_t hstart = b.n;
    u8(&b, 1); u8(&b, 1); u8(&b, 1); u8(&b, (unsigned)-5 & 0xff); u8(&b, 14); u8(&b, 13);
    const unsigned char lens[] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
    for (unsigned i = 0; i < 12; i++) u8(&b, lens[i]);
    u8(&b, 1); uleb(&b, 1); uleb(&b, 0x1f);             /* dirs: path line_strp */
    uleb(&b, 2); fixed(&b, 0, 4); fixed(&b, 5, 4);
    u8(&b, 3); uleb(&b, 1); uleb(&b, 0x1f); uleb(&b, 2); uleb(&b, 0x0b); uleb(&b, 5); uleb(&b, 0x1e);
    uleb(&b, 2);
    fixed(&b, 13, 4); u8(&b, 0); fixed(&b, 0, 8); fixed(&b, 0, 8);
    fixed(&b, 17, 4); u8(&b, 1); fixed(&b, 0, 8); fixed(&b, 0, 8);
    patch32(&b, hl, b.n - hstart);
    set_address(&b, 0x401000);
    u8(&b, 4); uleb(&b, 0); u8(&b, 5); uleb(&b, 7); u8(&b, 1);
    u8(&b, 4); uleb(&b, 1); u8(&b, 6); u8(&b, 8); u8(&b, 1);   /* negate_stmt, const_add_pc */
    u8(&b, 12); uleb(&b, 3);                                 /* set_isa (skipped by its length) */
    u8(&b, 2); uleb(&b, 4); end_seq(&b);
    patch32(&b, 0, b.n - 4);
    struct tlck_line_sections s = { .line = b.b, .line_n = b.n, .line_str = lstr, .line_str_n = sizeof lstr, .addr_size = 8 };
    struct got g = { .n = 0 };
    tl_error err = { { 0 } };
    int rc = tlck_line_program_decode(&s, collect, &g, &err);
    UNIT_CHECK("v5 decodes", rc == 0 && g.n == 3);
    if (rc) printf("    %s\n", err.msg);
    if (g.n < 3) return;
    UNIT_STREQ("v5 file 0 joined", g.files[0], "/src/a.c");
    UNIT_STREQ("v5 file 1 in dir 1", g.files[1], "include/b.h");
    UNIT_CHECK("v5 column and version", g.rows[0].column == 7 && g.version[0] == 5 && g.rows[0].address == 0x401000);
    UNIT_CHECK("v5 const_add_pc 17", g.rows[1].address == 0x401000 + (255 - 13) / 14 && !g.rows[1].is_stmt);
    UNIT_CHECK("v5 end", g.rows[2].end_sequence && g.rows[2].address == 0x401000 + 17 + 4);
}

/* DWARF 3 in the 64-bit format followed by a DWARF 4 VLIW unit (max_ops 3). */
static void test_v3_64_and_vliw(void)
{
    struct buf b = { .n = 0 };
    fixed(&b, 0xffffffffu, 4);
    fixed(&b, 0, 8);
    fixed(&b, 3, 2);
    size_t hl = b.n;
    fixed(&b, 0, 8);
    size_t hstart = b.n;
    u8(&b, 4); u8(&b, 1); u8(&b, (unsigned)-3 & 0xff); u8(&b, 12); u8(&b, 10);
    const unsigned char lens[] = { 0, 1, 1, 1, 1, 0, 0, 0, 1 };
    for (unsigned i = 0; i < 9; i++) u8(&b, lens[i]);
    u8(&b, 0);
    str(&b, "x.c"); uleb(&b, 0); uleb(&b, 0); uleb(&b, 0);
    u8(&b, 0);
    patch64(&b, hl, b.n - hstart);
    set_address(&b, 0x1000);
    u8(&b, 2); uleb(&b, 3); u8(&b, 1);   /* advance_pc 3 * min_inst 4 */
    end_seq(&b);
    patch64(&b, 4, b.n - 12);
    size_t second = b.n;
    fixed(&b, 0, 4);
    fixed(&b, 4, 2);
    hl = b.n;
    fixed(&b, 0, 4);
    hstart = b.n;
    u8(&b, 8); u8(&b, 3); u8(&b, 1); u8(&b, (unsigned)-3 & 0xff); u8(&b, 12); u8(&b, 10);
    for (unsigned i = 0; i < 9; i++) u8(&b, lens[i]);
    u8(&b, 0); u8(&b, 0);
    patch32(&b, hl, b.n - hstart);
    set_address(&b, 0x2000);
    u8(&b, 2); uleb(&b, 4); u8(&b, 1);   /* 4 ops with 3 per bundle: address + 8, op_index 1 */
    end_seq(&b);
    patch32(&b, second, b.n - second - 4);
    u8(&b, 0); u8(&b, 0); /* section padding */
    struct tlck_line_sections s = { .line = b.b, .line_n = b.n, .addr_size = 8 };
    struct got g = { .n = 0 };
    tl_error err = { { 0 } };
    int rc = tlck_line_program_decode(&s, collect, &g, &err);
    UNIT_CHECK("v3 64-bit + v4 decode", rc == 0 && g.n == 4);
    if (rc) printf("    %s\n", err.msg);
    if (g.n < 4) return;
    UNIT_CHECK("v3 min_inst 4", g.rows[0].address == 0x100c && g.version[0] == 3);
    UNIT_STREQ("v3 file without dir", g.files[0], "x.c");
    UNIT_CHECK("v4 VLIW advance", g.rows[2].address == 0x2008 && g.version[2] == 4);
    UNIT_STREQ("v4 empty file table", g.files[2], "(none)");
}

/* Every truncation of a valid section either decodes what is complete or fails with a message; never reads
 * outside (the bytes are copied to an exact-size heap block so ASan sees any overrun). */
static void test_truncations(void)
{
    struct buf b = { .n = 0 };
    nvidia_v2(&b, 0);
    int ok = 1, some_err = 0;
    for (size_t n = 0; n < b.n; n++) {
        unsigned char *copy = malloc(n ? n : 1);
        memcpy(copy, b.b, n);
        struct tlck_line_sections s = { .line = copy, .line_n = n, .addr_size = 8 };
        struct got g = { .n = 0 };
        tl_error err = { { 0 } };
        int rc = tlck_line_program_decode(&s, collect, &g, &err);
        if (rc != 0) {
            some_err = 1;
            if (!strstr(err.msg, ".debug_line unit at 0x0"))
                ok = 0;
        }
        free(copy);
    }
    UNIT_CHECK("truncated units fail with the unit offset", ok && some_err);

    struct buf c = { .n = 0 };
    nvidia_v2(&c, 0);
    c.b[4 + 2 + 4 + 3] = 0; /* line_range = 0 */
    struct tlck_line_sections s = { .line = c.b, .line_n = c.n, .addr_size = 8 };
    struct got g = { .n = 0 };
    tl_error err = { { 0 } };
    UNIT_CHECK("line_range 0 rejected", tlck_line_program_decode(&s, collect, &g, &err) != 0 && strstr(err.msg, "line_range"));
    c.b[4] = 7; /* version 7 */
    UNIT_CHECK("version 7 rejected", tlck_line_program_decode(&s, collect, &g, &err) != 0 && strstr(err.msg, "version 7"));
}

static void test_stop(void)
{
    struct buf b = { .n = 0 };
    nvidia_v2(&b, 0);
    struct tlck_line_sections s = { .line = b.b, .line_n = b.n, .addr_size = 8 };
    struct got g = { .n = 0, .stop_after = 2 };
    tl_error err = { { 0 } };
    UNIT_CHECK("callback stops decoding", tlck_line_program_decode(&s, collect, &g, &err) == 0 && g.n == 2);
}

/* File names joined with a long directory make the name buffer grow while the directory is being copied from
 * it (found by ASan on libnccl.so.2). */
static void test_long_dirs(void)
{
    static struct { unsigned char b[16384]; size_t n; } big;
    big.n = 0;
    char dir[3000];
    memset(dir, 'd', sizeof dir - 1);
    dir[0] = '/';
    dir[sizeof dir - 1] = 0;
#define B8(v) (big.b[big.n++] = (unsigned char)(v))
    size_t start = big.n;
    for (int i = 0; i < 4; i++) B8(0);
    B8(2); B8(0);
    size_t hl = big.n;
    for (int i = 0; i < 4; i++) B8(0);
    size_t hs = big.n;
    B8(1); B8(1); B8(0xfb); B8(14); B8(10);
    const unsigned char lens[] = { 0, 1, 1, 1, 1, 0, 0, 0, 1 };
    for (int i = 0; i < 9; i++) B8(lens[i]);
    memcpy(big.b + big.n, dir, sizeof dir); big.n += sizeof dir;
    B8(0);
    for (int f = 0; f < 3; f++) { B8('a' + f); B8('.'); B8('c'); B8(0); B8(1); B8(0); B8(0); }
    B8(0);
    size_t hlen = big.n - hs;
    for (int i = 0; i < 4; i++) big.b[hl + i] = (unsigned char)(hlen >> (8 * i));
    B8(4); B8(3); B8(1); /* set_file 3, copy */
    B8(0); B8(1); B8(1); /* end_sequence */
    size_t len = big.n - start - 4;
    for (int i = 0; i < 4; i++) big.b[start + i] = (unsigned char)(len >> (8 * i));
#undef B8
    unsigned char *copy = malloc(big.n);
    memcpy(copy, big.b, big.n);
    struct tlck_line_sections s = { .line = copy, .line_n = big.n, .addr_size = 8 };
    struct got g = { .n = 0 };
    tl_error err = { { 0 } };
    int rc = tlck_line_program_decode(&s, collect, &g, &err);
    UNIT_CHECK("long directory joins", rc == 0 && g.n == 2 && strlen(g.files[0]) == 127 && g.files[0][0] == '/');
    free(copy);
}

/* GCC's own line programs (-gno-as-loc-support): DW_LNE_set_address before every row, all in one sequence. The
 * rows stay one sequence (line_cover.c lets a forward set_address continue its range); each names its own
 * set_address operand, the offset a relocation covers in an object. */
static void test_set_address_every_row(void)
{
    struct buf b = { .n = 0 };
    fixed(&b, 0, 4);
    fixed(&b, 4, 2);
    size_t hl = b.n;
    fixed(&b, 0, 4);
    size_t hstart = b.n;
    u8(&b, 1); u8(&b, 1); u8(&b, 1); u8(&b, (unsigned)-5 & 0xff); u8(&b, 14); u8(&b, 13);
    const unsigned char lens[] = { 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1 };
    for (unsigned i = 0; i < 12; i++) u8(&b, lens[i]);
    u8(&b, 0);
    str(&b, "a.c"); uleb(&b, 0); uleb(&b, 0); uleb(&b, 0);
    u8(&b, 0);
    patch32(&b, hl, b.n - hstart);
    size_t ops[3];
    const uint64_t addr[3] = { 0x10, 0x14, 0x1c };
    for (int i = 0; i < 3; i++) {
        ops[i] = b.n + 3;
        set_address(&b, addr[i]);
        u8(&b, 3); sleb(&b, 1); u8(&b, 1); /* advance_line 1, copy */
    }
    set_address(&b, 0x20);
    end_seq(&b);
    patch32(&b, 0, b.n - 4);
    struct tlck_line_sections s = { .line = b.b, .line_n = b.n, .addr_size = 8 };
    struct got g = { .n = 0 };
    tl_error err = { { 0 } };
    int rc = tlck_line_program_decode(&s, collect, &g, &err);
    UNIT_CHECK("set_address per row: decodes 3 rows and the end", rc == 0 && g.n == 4);
    if (g.n < 4) return;
    for (int i = 0; i < 3; i++) {
        UNIT_CHECK("set_address per row: address and line", g.rows[i].address == addr[i] && g.rows[i].line == 2u + (unsigned)i);
        UNIT_CHECK("set_address per row: one sequence, counted on", g.rows[i].seq == 0 && g.rows[i].index_in_seq == (uint32_t)i + 1);
        UNIT_CHECK("set_address per row: each names its own operand", g.rows[i].seq_reloc_offset == ops[i]);
    }
    UNIT_CHECK("set_address per row: the end row at the last address", g.rows[3].end_sequence && g.rows[3].address == 0x20 &&
               g.rows[3].seq == 0);
}

UNIT_MAIN(UNIT_CASE(test_long_dirs),
          UNIT_CASE(test_nvidia_v2),
          UNIT_CASE(test_v5),
          UNIT_CASE(test_v3_64_and_vliw),
          UNIT_CASE(test_truncations),
          UNIT_CASE(test_stop),
          UNIT_CASE(test_set_address_every_row))
