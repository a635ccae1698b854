/* Line coverage of host functions: decodes .debug_line with our decoder (read/line_program.c), turns each
 * sequence into covered address ranges (rows with line 0 cover nothing: compilers use line 0 for code that
 * has no source), then measures every function against them.
 *
 * Memory: ranges of consecutive rows are merged while decoding, so a file with 1M rows keeps a few thousand
 * ranges, not a million. */
#include "read/host_internal.h"

#include <stdlib.h>
#include <string.h>

struct range {
    uint64_t lo, hi;
    uint32_t unit; /* index in units[] */
};

struct unit_rows {
    uint64_t offset, rows;
};

struct cover {
    struct range *r;
    size_t n, cap;
    struct unit_rows *u;
    size_t nu, ucap;
    uint64_t rows, discarded; /* discarded: rows of runs the linker discarded, not in rows */
    /* the previous row of the current sequence */
    uint64_t prev_addr;
    uint32_t prev_line, prev_seq;
    uint64_t prev_unit;
    int have_prev, oom, is_rel, skip_seq;
    uint64_t region; /* seq_reloc_offset of the DW_LNE_set_address that started the current run of rows */
    uint64_t *maxhi; /* see first_reaching() */
    char *error;     /* the decoder's message when .debug_line is malformed */
    int present;     /* the file has .debug_line */
};

static int on_row(const struct tlck_line_unit *u, const struct tlck_line_row *row, void *ctx)
{
    struct cover *c = ctx;
    /* One sequence may hold several DW_LNE_set_address runs (GCC 8 puts all functions of a CU in one; GCC's
     * own line programs, -gno-as-loc-support, set the address before every row). A run that moves forward in
     * the same section continues the previous one: the previous row covers up to the new address, as in any
     * sequence. A run that moves back, or into another section of a relocatable object, starts afresh.
     * Linked files: runs of code the linker discarded (COMDAT duplicates, --gc-sections) keep their rows at
     * address 0 (or -1/-2 by newer linkers); they describe no code (libnccl.so.2: 513,429 of its 1,012,358
     * rows; readelf --debug-dump=decodedline prints them except those at exactly 0; all other rows are
     * identical to readelf's, row by row). */
    if (row->index_in_seq == 1 || row->seq_reloc_offset != c->region) {
        int first = row->index_in_seq == 1;
        c->region = row->seq_reloc_offset;
        int discarded = !c->is_rel && (row->address == 0 || row->address >= UINT64_MAX - 1);
        int forward = !first && !c->skip_seq && !discarded && c->have_prev && row->address >= c->prev_addr &&
                      (!c->is_rel || TLCK_ADDR_SHNDX(row->address) == TLCK_ADDR_SHNDX(c->prev_addr));
        c->skip_seq = discarded;
        if (!forward)
            c->have_prev = 0;
    }
    if (c->skip_seq) {
        c->discarded++;
        return 0;
    }
    c->rows++;
    if (c->nu == 0 || c->u[c->nu - 1].offset != u->offset) {
        if (tlck_grow((void **)&c->u, &c->ucap, c->nu + 1, sizeof *c->u) != 0)
            return c->oom = 1;
        c->u[c->nu].offset = u->offset;
        c->u[c->nu++].rows = 0;
        c->have_prev = 0;
    }
    c->u[c->nu - 1].rows++;
    if (c->have_prev && c->prev_seq == row->seq && c->prev_line != 0 && row->address > c->prev_addr) {
        struct range *last = c->n ? &c->r[c->n - 1] : NULL;
        if (last && last->hi == c->prev_addr && last->unit == c->nu - 1) {
            last->hi = row->address;
        } else {
            if (tlck_grow((void **)&c->r, &c->cap, c->n + 1, sizeof *c->r) != 0)
                return c->oom = 1;
            c->r[c->n++] = (struct range){ c->prev_addr, row->address, (uint32_t)(c->nu - 1) };
        }
    }
    c->have_prev = !row->end_sequence;
    c->prev_addr = row->address;
    c->prev_line = row->line;
    c->prev_seq = row->seq;
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    const struct range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : x->hi < y->hi ? -1 : x->hi > y->hi;
}

static int cu_by_offset(const struct tlck_image *img, uint64_t off)
{
    for (size_t i = 0; i < img->ncus; i++)
        if (img->cus[i].line_offset == off)
            return (int)i;
    return -1;
}

/* Ranges are sorted by lo; maxhi[k] = the largest hi among r[0..k] (non-decreasing), so the first range that
 * can reach `key` is found by binary search even when ranges of different units overlap. */
static size_t first_reaching(const uint64_t *maxhi, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (maxhi[mid] <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void measure(struct tlck_image *img, const struct cover *c, const uint64_t *maxhi, const int *unit_cu,
                    int is_rel, int *func_cu)
{
    for (size_t i = 0; i < img->nfuncs; i++) {
        struct tlck_function *fn = &img->funcs[i];
        uint64_t lo = is_rel ? TLCK_ADDR_KEY(fn->shndx, fn->addr) : fn->addr, hi = lo + fn->size, covered = 0, at = lo;
        int unit = -1;
        for (size_t k = first_reaching(maxhi, c->n, lo); k < c->n && c->r[k].lo < hi; k++) {
            uint64_t a = c->r[k].lo > at ? c->r[k].lo : at, b = c->r[k].hi < hi ? c->r[k].hi : hi;
            if (b > a) {
                covered += b - a;
                at = b;
                if (unit < 0)
                    unit = (int)c->r[k].unit;
            }
        }
        fn->covered = covered;
        fn->has_lines = covered > 0;
        int cu = unit >= 0 ? unit_cu[unit] : -1;
        if (func_cu)
            func_cu[i] = cu;
        if (cu >= 0) {
            fn->cu = tlck_strdup(img->cus[cu].name);
            fn->cu_unit = (unsigned)cu + 1;
        }
    }
}

struct tlck_line_cover *tlck_line_cover_decode(const struct tlck_debug_sections *ds, int is_rel)
{
    const struct tlck_debug_section *line = tlck_debug_section(ds, ".debug_line");
    const struct tlck_debug_section *str = tlck_debug_section(ds, ".debug_str");
    const struct tlck_debug_section *lstr = tlck_debug_section(ds, ".debug_line_str");
    struct cover *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->is_rel = is_rel;
    c->present = line != NULL;
    if (!line)
        return (struct tlck_line_cover *)c;
    struct tlck_line_sections s = { line->bytes.p, line->bytes.n, str ? str->bytes.p : NULL, str ? str->bytes.n : 0,
                                  lstr ? lstr->bytes.p : NULL, lstr ? lstr->bytes.n : 0, ds->addr_size, ds->budget };
    tl_error why;
    if (tlck_line_program_decode(&s, on_row, c, &why) != 0)
        c->error = strdup(why.msg);
    if (c->n) /* qsort(NULL, 0) is UB (fuzz/targets/load.c) */
        qsort(c->r, c->n, sizeof *c->r, by_lo);
    c->maxhi = malloc((c->n ? c->n : 1) * sizeof *c->maxhi);
    if (!c->maxhi)
        c->oom = 1;
    for (size_t k = 0; c->maxhi && k < c->n; k++)
        c->maxhi[k] = k && c->maxhi[k - 1] > c->r[k].hi ? c->maxhi[k - 1] : c->r[k].hi;
    return (struct tlck_line_cover *)c;
}

/* func_cu may be NULL (then only the image is filled). */
int tlck_line_cover_apply(struct tlck_file *f, struct tlck_image *img, struct tlck_line_cover *lc, int *func_cu, tl_error *err)
{
    struct cover *c = (struct cover *)lc;
    for (size_t i = 0; func_cu && i < img->nfuncs; i++)
        func_cu[i] = -1;
    if (!c)
        return tl_fail(err, "out of memory decoding .debug_line");
    int rc = 0;
    img->has_debug_line = c->present;
    f->line_rows = c->rows;
    f->line_rows_discarded = c->discarded;
    if (c->error && !f->line_error) {
        f->line_error = c->error;
        c->error = NULL;
    }
    int *unit_cu = calloc(c->nu ? c->nu : 1, sizeof *unit_cu);
    if (!unit_cu || c->oom) {
        rc = tl_fail(err, "out of memory decoding .debug_line");
    } else {
        for (size_t i = 0; i < c->nu; i++) {
            unit_cu[i] = cu_by_offset(img, c->u[i].offset);
            if (unit_cu[i] >= 0)
                img->cus[unit_cu[i]].rows += c->u[i].rows;
        }
        measure(img, c, c->maxhi, unit_cu, c->is_rel, func_cu);
    }
    free(unit_cu);
    free(c->maxhi);
    free(c->error);
    free(c->r);
    free(c->u);
    free(c);
    return rc;
}
