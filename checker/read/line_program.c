/* DWARF line-program decoder (versions 2-5) plus NVIDIA's extensions; the contract is in line_program.h.
 *
 * Why our own: libdwarf's dwarf_srclines_b is ~40x slower than readelf on libnccl.so.2 and rejects NVIDIA's
 * extended opcodes 0x90/0x91 (docs/field-notes.md, shared/docs/cuda-formats.md §5). Rows are delivered from
 * registers on the stack: no allocation per row; the file table of a unit lives in one reused buffer.
 *
 * Byte order: little-endian only (x86-64, aarch64, CUDA); big-endian ELF is rejected before this point. */
#include "read/line_program.h"

#include "trueline/limits.h"

#include <stdlib.h>
#include <string.h>

enum {
    LNS_copy = 1, LNS_advance_pc, LNS_advance_line, LNS_set_file, LNS_set_column, LNS_negate_stmt,
    LNS_set_basic_block, LNS_const_add_pc, LNS_fixed_advance_pc, LNS_set_prologue_end, LNS_set_epilogue_begin,
    LNS_set_isa,
    LNE_end_sequence = 1, LNE_set_address, LNE_define_file, LNE_set_discriminator,
    LNE_NVIDIA_inlined_call = 0x90, LNE_NVIDIA_set_function_name = 0x91,
    LNCT_path = 1, LNCT_directory_index = 2,
    FORM_block2 = 0x03, FORM_block4 = 0x04, FORM_data2 = 0x05, FORM_data4 = 0x06, FORM_data8 = 0x07,
    FORM_string = 0x08, FORM_block = 0x09, FORM_block1 = 0x0a, FORM_data1 = 0x0b, FORM_flag = 0x0c,
    FORM_sdata = 0x0d, FORM_strp = 0x0e, FORM_udata = 0x0f, FORM_strx = 0x1a, FORM_data16 = 0x1e,
    FORM_line_strp = 0x1f, FORM_strx1 = 0x25, FORM_strx2 = 0x26, FORM_strx3 = 0x27, FORM_strx4 = 0x28,
};

/* A bounded cursor: reads past `end` set `bad` and return 0, so parsing code checks once per construct. */
struct cur {
    const unsigned char *p, *end;
    int bad;
};

static inline uint64_t rd_fixed(struct cur *c, unsigned n)
{
    if ((size_t)(c->end - c->p) < n) {
        c->bad = 1;
        c->p = c->end;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0; i < n && i < 8; i++)
        v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    return v;
}

static inline uint64_t rd_uleb(struct cur *c)
{
    uint64_t v = 0;
    unsigned shift = 0;
    while (c->p < c->end) {
        unsigned char b = *c->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80))
            return v;
    }
    c->bad = 1;
    return 0;
}

static inline int64_t rd_sleb(struct cur *c)
{
    uint64_t v = 0;
    unsigned shift = 0;
    while (c->p < c->end) {
        unsigned char b = *c->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) {
            if (shift < 64 && (b & 0x40))
                v |= ~(uint64_t)0 << shift;
            return (int64_t)v;
        }
    }
    c->bad = 1;
    return 0;
}

static const char *rd_cstr(struct cur *c)
{
    const unsigned char *z = memchr(c->p, 0, (size_t)(c->end - c->p));
    if (!z) {
        c->bad = 1;
        c->p = c->end;
        return NULL;
    }
    const char *s = (const char *)c->p;
    c->p = z + 1;
    return s;
}

static const char *str_at(const unsigned char *sec, size_t n, uint64_t off)
{
    if (!sec || off >= n || !memchr(sec + off, 0, n - off))
        return NULL;
    return (const char *)sec + off;
}

/* The file table of one unit: names are joined into `buf` (offsets while it grows, pointers at the end). */
struct table {
    char *buf;
    size_t len, cap;
    size_t *dir_off, ndirs, dcap;   /* offsets into buf */
    size_t *file_off, nfiles, fcap;
    const char **files;             /* final pointers (nfiles) */
    size_t files_cap;
};

static int buf_reserve(struct table *t, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *b = realloc(t->buf, cap);
        if (!b)
            return -1;
        t->buf = b;
        t->cap = cap;
    }
    return 0;
}

/* s must not point into t->buf unless buf_reserve made room for it first (realloc moves the buffer). */
static int buf_put(struct table *t, const char *s, size_t n)
{
    if (buf_reserve(t, n) != 0)
        return -1;
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = 0;
    return 0;
}

static int push_off(size_t **v, size_t *n, size_t *cap, size_t off)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        size_t *p = realloc(*v, nc * sizeof *p);
        if (!p)
            return -1;
        *v = p;
        *cap = nc;
    }
    (*v)[(*n)++] = off;
    return 0;
}

static int add_dir(struct table *t, const char *d)
{
    size_t off = t->len;
    if (buf_put(t, d ? d : "", d ? strlen(d) : 0) != 0 || buf_put(t, "", 0) != 0)
        return -1;
    t->len++; /* keep the NUL */
    return push_off(&t->dir_off, &t->ndirs, &t->dcap, off);
}

/* dir == SIZE_MAX: no directory. Absolute names are kept as they are. */
static int add_file(struct table *t, const char *name, size_t dir)
{
    if (!name)
        return push_off(&t->file_off, &t->nfiles, &t->fcap, SIZE_MAX);
    size_t off = t->len;
    if (name[0] != '/' && dir < t->ndirs) {
        /* the directory lives in t->buf: make room first so that copying it cannot move it */
        if (buf_reserve(t, strlen(t->buf + t->dir_off[dir]) + 2 + strlen(name)) != 0)
            return -1;
        const char *d = t->buf + t->dir_off[dir];
        size_t dl = strlen(d);
        if (dl && (buf_put(t, d, dl) != 0 || (d[dl - 1] != '/' && buf_put(t, "/", 1) != 0)))
            return -1;
    }
    if (buf_put(t, name, strlen(name)) != 0)
        return -1;
    t->len++;
    return push_off(&t->file_off, &t->nfiles, &t->fcap, off);
}

static int finish_table(struct table *t, struct tlck_line_unit *u)
{
    if (t->nfiles > t->files_cap) {
        const char **f = realloc(t->files, t->nfiles * sizeof *f);
        if (!f)
            return -1;
        t->files = f;
        t->files_cap = t->nfiles;
    }
    for (size_t i = 0; i < t->nfiles; i++)
        t->files[i] = t->file_off[i] == SIZE_MAX ? NULL : t->buf + t->file_off[i];
    u->files = t->files;
    u->nfiles = t->nfiles;
    return 0;
}

struct header {
    uint64_t offset;
    int dwarf64;
    unsigned version, addr_size, min_inst, max_ops, line_range, opcode_base;
    int line_base, default_is_stmt;
    unsigned char std_len[256];
    const unsigned char *prog, *end; /* program bytes: header + header_length .. unit end */
};

/* DWARF 2-4 tables: strings until an empty one; files (name, dir ULEB, mtime, size). Index 0 unused. */
static int read_tables_v2(struct cur *c, struct table *t)
{
    const char *d;
    if (add_dir(t, NULL) != 0) /* directory 0 is the compilation directory, unknown here */
        return -1;
    while ((d = rd_cstr(c)) && *d)
        if (add_dir(t, d) != 0)
            return -1;
    if (add_file(t, NULL, SIZE_MAX) != 0)
        return -1;
    const char *name;
    while ((name = rd_cstr(c)) && *name) {
        uint64_t dir = rd_uleb(c);
        rd_uleb(c);
        rd_uleb(c);
        if (add_file(t, name, dir) != 0)
            return -1;
    }
    return c->bad ? -1 : 0;
}

/* Reads one attribute value of a DWARF 5 entry; string forms resolve through .debug_str/.debug_line_str. */
static int read_form(struct cur *c, const struct tlck_line_sections *s, const struct header *h, unsigned form,
                     const char **str, uint64_t *num)
{
    unsigned osz = h->dwarf64 ? 8 : 4;
    *str = NULL;
    *num = 0;
    switch (form) {
    case FORM_string: *str = rd_cstr(c); break;
    case FORM_line_strp: *str = str_at(s->line_str, s->line_str_n, rd_fixed(c, osz)); break;
    case FORM_strp: *str = str_at(s->str, s->str_n, rd_fixed(c, osz)); break;
    case FORM_strx: case FORM_udata: *num = rd_uleb(c); break; /* strx: .debug_str_offsets not handed to us */
    case FORM_sdata: *num = (uint64_t)rd_sleb(c); break;
    case FORM_data1: case FORM_flag: case FORM_strx1: *num = rd_fixed(c, 1); break;
    case FORM_data2: case FORM_strx2: *num = rd_fixed(c, 2); break;
    case FORM_strx3: *num = rd_fixed(c, 3); break;
    case FORM_data4: case FORM_strx4: *num = rd_fixed(c, 4); break;
    case FORM_data8: *num = rd_fixed(c, 8); break;
    case FORM_data16: rd_fixed(c, 8); rd_fixed(c, 8); break;
    case FORM_block1: case FORM_block2: case FORM_block4: case FORM_block: {
        uint64_t n = form == FORM_block ? rd_uleb(c) : rd_fixed(c, form == FORM_block1 ? 1 : form == FORM_block2 ? 2 : 4);
        if (n > (uint64_t)(c->end - c->p))
            c->bad = 1;
        else
            c->p += n;
        break;
    }
    default: return -1;
    }
    return c->bad ? -1 : 0;
}

/* DWARF 5: entry formats, then entries; directory 0 and file 0 are real entries. */
static int read_entries_v5(struct cur *c, const struct tlck_line_sections *s, const struct header *h,
                           struct table *t, int files)
{
    unsigned nfmt = (unsigned)rd_fixed(c, 1);
    uint64_t fmt[2 * 255];
    for (unsigned i = 0; i < nfmt; i++) {
        fmt[2 * i] = rd_uleb(c);
        fmt[2 * i + 1] = rd_uleb(c);
    }
    uint64_t count = rd_uleb(c);
    if (c->bad || count > (uint64_t)(c->end - c->p))
        return -1;
    for (uint64_t k = 0; k < count; k++) {
        const char *path = NULL;
        uint64_t dir = 0;
        for (unsigned i = 0; i < nfmt; i++) {
            const char *str;
            uint64_t num;
            if (read_form(c, s, h, (unsigned)fmt[2 * i + 1], &str, &num) != 0)
                return -1;
            if (fmt[2 * i] == LNCT_path)
                path = str ? str : "?";
            else if (fmt[2 * i] == LNCT_directory_index)
                dir = num;
        }
        if ((files ? add_file(t, path, dir) : add_dir(t, path)) != 0)
            return -1;
    }
    return 0;
}

static int read_header(struct cur *c, const struct tlck_line_sections *s, struct header *h, tl_error *err)
{
    const char *bad = NULL;
    uint64_t len = rd_fixed(c, 4);
    h->dwarf64 = len == 0xffffffffu;
    if (h->dwarf64)
        len = rd_fixed(c, 8);
    if (c->bad || len > (uint64_t)(c->end - c->p))
        return tl_fail(err, ".debug_line unit at 0x%llx: length %llu runs past the section end",
                       (unsigned long long)h->offset, (unsigned long long)len);
    h->end = c->p + len;
    c->end = h->end;
    h->version = (unsigned)rd_fixed(c, 2);
    h->addr_size = s->addr_size ? s->addr_size : 8;
    if (h->version < 2 || h->version > 5)
        return tl_fail(err, ".debug_line unit at 0x%llx: unsupported version %u", (unsigned long long)h->offset,
                       h->version);
    if (h->version >= 5) {
        h->addr_size = (unsigned)rd_fixed(c, 1);
        rd_fixed(c, 1); /* segment selector size */
    }
    uint64_t hlen = rd_fixed(c, h->dwarf64 ? 8 : 4);
    if (!c->bad && hlen <= (uint64_t)(c->end - c->p))
        h->prog = c->p + hlen;
    h->min_inst = (unsigned)rd_fixed(c, 1);
    h->max_ops = h->version >= 4 ? (unsigned)rd_fixed(c, 1) : 1;
    h->default_is_stmt = rd_fixed(c, 1) != 0;
    h->line_base = (signed char)rd_fixed(c, 1);
    h->line_range = (unsigned)rd_fixed(c, 1);
    h->opcode_base = (unsigned)rd_fixed(c, 1);
    memset(h->std_len, 0, sizeof h->std_len);
    for (unsigned i = 1; i < h->opcode_base && !c->bad; i++)
        h->std_len[i] = (unsigned char)rd_fixed(c, 1);
    if (c->bad || !h->prog)
        bad = "header_length runs past the unit";
    else if (c->p > h->prog) /* the tables would then start past their own end (found by fuzz/targets/line_program.c) */
        bad = "header_length is shorter than the fixed header fields";
    else if (h->line_range == 0)
        bad = "line_range is 0";
    else if (h->opcode_base == 0)
        bad = "opcode_base is 0";
    else if (h->max_ops == 0)
        h->max_ops = 1;
    if (bad)
        return tl_fail(err, ".debug_line unit at 0x%llx: %s", (unsigned long long)h->offset, bad);
    return 0;
}

struct regs {
    struct tlck_line_row r;
    uint32_t op_index;
};

static void regs_reset(struct regs *g, const struct header *h)
{
    uint32_t seq = g->r.seq;
    memset(g, 0, sizeof *g);
    g->r.seq = seq;
    g->r.file = 1;
    g->r.line = 1;
    g->r.is_stmt = h->default_is_stmt ? 1 : 0;
    g->r.function_name = UINT64_MAX;
    g->r.seq_reloc_offset = UINT64_MAX;
}

static inline void advance(struct regs *g, const struct header *h, uint64_t op_advance)
{
    if (h->max_ops == 1) {
        g->r.address += h->min_inst * op_advance;
    } else { /* VLIW (DWARF 4 §6.2.5.1) */
        uint64_t t = g->op_index + op_advance;
        g->r.address += h->min_inst * (t / h->max_ops);
        g->op_index = (uint32_t)(t % h->max_ops);
    }
}

static inline int emit(struct regs *g, const struct tlck_line_unit *u, tlck_line_row_fn fn, void *ctx)
{
    g->r.index_in_seq++;
    return fn(u, &g->r, ctx);
}

/* Extended opcode at c->p (after the 0 byte). Returns 1 when the callback asked to stop, -1 on bad bytes. */
static int extended_op(struct cur *c, const struct tlck_line_sections *s, const struct header *h,
                       const struct tlck_line_unit *u, struct regs *g, tlck_line_row_fn fn, void *ctx)
{
    uint64_t len = rd_uleb(c);
    if (c->bad || len == 0 || len > (uint64_t)(c->end - c->p))
        return -1;
    const unsigned char *next = c->p + len;
    struct cur op = { c->p + 1, next, 0 };
    int stop = 0;
    switch (*c->p) {
    case LNE_end_sequence:
        g->r.end_sequence = 1;
        stop = emit(g, u, fn, ctx);
        g->r.seq++;
        regs_reset(g, h);
        break;
    case LNE_set_address:
        g->r.seq_reloc_offset = (uint64_t)(op.p - s->line);
        g->r.address = rd_fixed(&op, (unsigned)(len - 1 > 8 ? 8 : len - 1));
        g->op_index = 0;
        break;
    case LNE_set_discriminator:
        break;
    case LNE_NVIDIA_inlined_call:
        g->r.context = (uint32_t)rd_uleb(&op);
        g->r.function_name = rd_uleb(&op);
        break;
    case LNE_NVIDIA_set_function_name:
        g->r.function_name = rd_uleb(&op);
        break;
    default: /* DW_LNE_define_file (DWARF 2-4, never seen in practice) and vendor ops: skipped by length */
        break;
    }
    c->p = next;
    return op.bad ? -1 : stop ? 1 : 0;
}

/* Runs one unit's program. Returns 1 when stopped by the callback, -1 on malformed bytes, else 0. */
static int run_program(const struct tlck_line_sections *s, const struct header *h, const struct tlck_line_unit *u,
                       tlck_line_row_fn fn, void *ctx, tl_error *err)
{
    struct cur c = { h->prog, h->end, 0 };
    struct regs g = { 0 };
    regs_reset(&g, h);
    while (c.p < c.end) {
        unsigned op = *c.p++;
        int stop = 0;
        if (op >= h->opcode_base) {
            unsigned adj = op - h->opcode_base;
            advance(&g, h, adj / h->line_range);
            g.r.line += (uint32_t)(h->line_base + (int)(adj % h->line_range));
            stop = emit(&g, u, fn, ctx);
        } else if (op == 0) {
            stop = extended_op(&c, s, h, u, &g, fn, ctx);
            if (stop < 0)
                return tl_fail(err, ".debug_line unit at 0x%llx: bad extended opcode at 0x%llx",
                               (unsigned long long)h->offset, (unsigned long long)(c.p - s->line));
        } else {
            switch (op) {
            case LNS_copy: stop = emit(&g, u, fn, ctx); break;
            case LNS_advance_pc: advance(&g, h, rd_uleb(&c)); break;
            case LNS_advance_line: g.r.line += (uint32_t)rd_sleb(&c); break;
            case LNS_set_file: g.r.file = (uint32_t)rd_uleb(&c); break;
            case LNS_set_column: g.r.column = (uint32_t)rd_uleb(&c); break;
            case LNS_negate_stmt: g.r.is_stmt = !g.r.is_stmt; break;
            case LNS_const_add_pc: advance(&g, h, (255u - h->opcode_base) / h->line_range); break;
            case LNS_fixed_advance_pc: g.r.address += rd_fixed(&c, 2); g.op_index = 0; break;
            case LNS_set_basic_block: case LNS_set_prologue_end: case LNS_set_epilogue_begin: break;
            default: /* LNS_set_isa and unknown standard opcodes: skip their declared ULEB operands */
                for (unsigned i = 0; i < h->std_len[op]; i++)
                    rd_uleb(&c);
            }
            if (c.bad)
                return tl_fail(err, ".debug_line unit at 0x%llx: truncated opcode operand",
                               (unsigned long long)h->offset);
        }
        if (stop)
            return 1;
    }
    return 0;
}

static void table_free(struct table *t)
{
    free(t->buf);
    free(t->dir_off);
    free(t->file_off);
    free(t->files);
}

/* Parses the header and file table of the unit at `p`; fills h, u and t. */
static int read_unit_head(const struct tlck_line_sections *s, const unsigned char *p, struct header *h,
                          struct tlck_line_unit *u, struct table *t, tl_error *err)
{
    struct cur c = { p, s->line + s->line_n, 0 };
    memset(h, 0, sizeof *h);
    h->offset = (uint64_t)(p - s->line);
    if (read_header(&c, s, h, err) != 0)
        return -1;
    t->len = t->ndirs = t->nfiles = 0;
    c.end = h->prog; /* the tables end where the program starts (NVIDIA may add bytes between) */
    int rc = h->version >= 5 ? (read_entries_v5(&c, s, h, t, 0) || read_entries_v5(&c, s, h, t, 1) ? -1 : 0)
                             : read_tables_v2(&c, t);
    if (rc != 0)
        return tl_fail(err, ".debug_line unit at 0x%llx: malformed directory/file table",
                       (unsigned long long)h->offset);
    memset(u, 0, sizeof *u);
    u->offset = h->offset;
    u->version = h->version;
    /* NVIDIA: a u32 .debug_str base may follow the file table inside header_length (cuda-formats.md §5.1). */
    if (h->version < 5 && (size_t)(h->prog - c.p) >= 4)
        u->nv_str_base = (uint32_t)rd_fixed(&c, 4);
    if (finish_table(t, u) != 0)
        return tl_fail(err, "out of memory");
    return 0;
}

int tlck_line_program_decode(const struct tlck_line_sections *s, tlck_line_row_fn fn, void *ctx, tl_error *err)
{
    struct table t = { 0 };
    if (!s->line || s->line_n == 0)
        return 0; /* nothing to decode; also keeps NULL + 0 (undefined) out of the pointer arithmetic below */
    const unsigned char *p = s->line, *end = s->line + s->line_n;
    int rc = 0;
    while (p < end) {
        struct header h;
        struct tlck_line_unit u;
        if ((size_t)(end - p) < 4 && p[0] == 0)
            break; /* alignment padding at the section end */
        if (tl_budget_check(s->budget, err) != 0) { /* the deadline: libnccl.so.2 alone has a million rows */
            rc = -1;
            break;
        }
        if (read_unit_head(s, p, &h, &u, &t, err) != 0) {
            rc = -1;
            break;
        }
        int r = run_program(s, &h, &u, fn, ctx, err);
        if (r < 0)
            rc = -1;
        if (r != 0)
            break;
        p = h.end;
    }
    table_free(&t);
    return rc;
}

const char *tlck_line_function_name(const struct tlck_line_sections *s, const struct tlck_line_unit *u, uint64_t off)
{
    if (off == UINT64_MAX || !u)
        return NULL;
    uint64_t o = (uint64_t)u->nv_str_base + off;
    return o < off ? NULL : str_at(s->str, s->str_n, o);
}
