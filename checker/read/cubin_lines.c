/* Cubin line tables: sequence → .text section mapping, coverage, and inline chains (see cubin_lines.h). */
#include "read/cubin_lines.h"

#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "read/line_program.h"

#define R_CUDA_64 2 /* the only relocation type seen on .rel(a).debug_line (docs/cuda-formats.md §5.1) */

/* base: the symbol's value plus, for RELA, the addend. REL (ptxas for sm_75 and older) keeps the addend in the
 * operand itself (implicit). */
struct reloc { uint64_t off; unsigned shndx; uint64_t base; int implicit; };

struct sym { const char *name; uint64_t value, size; unsigned shndx; int is_func; };

/* What one cubin offers for line work; all pointers into e or owned bytes. */
struct code_sec { unsigned shndx; uint64_t addr, size; };

struct cubin_dbg {
    tl_bytes line, str, rela;
    /* Code sections with a nonzero sh_addr: images relocated by the driver (GPU core dumps) hold device
     * addresses in symbols and line rows; everything here is kept section-relative. */
    struct code_sec *code; size_t ncode;
    struct tlck_line_sections s;
    struct reloc *rel; size_t nrel;
    struct sym *syms; size_t nsyms;
};

static int cmp_reloc(const void *a, const void *b)
{
    const struct reloc *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static void dbg_free(struct cubin_dbg *d)
{
    tl_bytes_free(&d->line);
    tl_bytes_free(&d->str);
    tl_bytes_free(&d->rela);
    free(d->rel);
    free(d->syms);
    free(d->code);
    memset(d, 0, sizeof *d);
}

static uint64_t section_addr(const tl_elf *e, unsigned shndx)
{
    GElf_Shdr sh;
    Elf_Scn *scn = shndx && shndx < SHN_LORESERVE ? elf_getscn(e->elf, shndx) : NULL;
    return scn && gelf_getshdr(scn, &sh) ? sh.sh_addr : 0;
}

static int load_code_sections(const tl_elf *e, struct cubin_dbg *d)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    size_t cap = 0;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_addr) {
            if (tlck_grow((void **)&d->code, &cap, d->ncode + 1, sizeof *d->code) != 0)
                return -1;
            d->code[d->ncode++] = (struct code_sec){ (unsigned)elf_ndxscn(scn), sh.sh_addr, sh.sh_size };
        }
    return 0;
}

static int load_symbols(const tl_elf *e, struct cubin_dbg *d)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    if (load_code_sections(e, d) != 0)
        return -1;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
            continue;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t n = data && sh.sh_entsize ? data->d_size / sh.sh_entsize : 0;
        d->syms = calloc(n ? n : 1, sizeof *d->syms);
        if (!d->syms)
            return -1;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym s;
            if (!gelf_getsym(data, (int)i, &s))
                continue;
            const char *name = elf_strptr(e->elf, sh.sh_link, s.st_name);
            uint64_t base = d->ncode ? section_addr(e, s.st_shndx) : 0;
            d->syms[i] = (struct sym){ name ? name : "", s.st_value - base, s.st_size, s.st_shndx,
                                       GELF_ST_TYPE(s.st_info) == STT_FUNC };
        }
        d->nsyms = n;
        return 0;
    }
    return 0;
}

/* Appends the R_CUDA_64 entries of one REL or RELA section; other types (R_CUDA_32 on a header's .debug_str
 * offset) place no sequence. */
static int add_relocs(struct cubin_dbg *d, Elf_Scn *scn, const GElf_Shdr *sh, size_t *cap, tl_error *err)
{
    int rela = sh->sh_type == SHT_RELA;
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t n = data && sh->sh_entsize ? data->d_size / sh->sh_entsize : 0;
    if (tlck_grow((void **)&d->rel, cap, d->nrel + n + 1, sizeof *d->rel) != 0)
        return tl_fail(err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        GElf_Rela r = { 0 };
        GElf_Rel rl;
        int ok = rela ? gelf_getrela(data, (int)i, &r) != NULL : gelf_getrel(data, (int)i, &rl) != NULL;
        if (ok && !rela)
            r = (GElf_Rela){ rl.r_offset, rl.r_info, 0 };
        if (!ok || GELF_R_TYPE(r.r_info) != R_CUDA_64 || GELF_R_SYM(r.r_info) >= d->nsyms)
            continue;
        const struct sym *s = &d->syms[GELF_R_SYM(r.r_info)];
        d->rel[d->nrel++] = (struct reloc){ r.r_offset, s->shndx, s->value + (uint64_t)r.r_addend, !rela };
    }
    return 0;
}

/* By name too: nvlink sets flag bits in the sh_info of some relocation sections. */
static int names_debug_line(const tl_elf *e, const GElf_Shdr *sh)
{
    const char *name = elf_strptr(e->elf, e->shstrndx, sh->sh_name);
    return name && (strcmp(name, ".rel.debug_line") == 0 || strcmp(name, ".rela.debug_line") == 0);
}

/* Every REL and RELA section that applies to .debug_line, together: ptxas writes REL for sm_75 and older and
 * RELA for newer targets, and an sm_80 -rdc cubin has both (RELA for a header's string offset, REL for the
 * sequences' addresses), so taking either one alone loses the other's sequences. */
static int load_relocs(const tl_elf *e, Elf_Scn *line, struct cubin_dbg *d, tl_error *err)
{
    size_t target = elf_ndxscn(line), cap = 0;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
            (sh.sh_info == target || names_debug_line(e, &sh)) && add_relocs(d, scn, &sh, &cap, err) != 0)
            return -1;
    if (d->nrel > 1)
        qsort(d->rel, d->nrel, sizeof *d->rel, cmp_reloc);
    return 0;
}

/* Returns 1 when the cubin has a .debug_line to decode. */
static int dbg_open(const tl_elf *e, struct cubin_dbg *d, tl_error *err)
{
    memset(d, 0, sizeof *d);
    Elf_Scn *line = tl_elf_section(e, ".debug_line", NULL);
    if (!line)
        return 0;
    if (tl_elf_section_bytes(e, line, &d->line, err) != 0)
        return -1;
    if (d->line.n == 0 || !d->line.p)
        return 0; /* empty or NOBITS .debug_line: nothing to decode (and no NULL base for the decoder) */
    Elf_Scn *str = tl_elf_section(e, ".debug_str", NULL);
    if (str && tl_elf_section_bytes(e, str, &d->str, err) != 0)
        return -1;
    d->s = (struct tlck_line_sections){ .line = d->line.p, .line_n = d->line.n, .str = d->str.p, .str_n = d->str.n,
                                      .addr_size = e->ehdr.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8 };
    if (load_symbols(e, d) != 0 || load_relocs(e, line, d, err) != 0)
        return -1;
    return 1;
}

/* Maps a sequence to (section, offset base) through the relocation on its set_address operand. */
static int seq_section(const struct cubin_dbg *d, uint64_t reloc_off, uint64_t address, unsigned *shndx,
                       uint64_t *delta)
{
    struct reloc key = { .off = reloc_off };
    /* bsearch on a NULL array is undefined, even for 0 rows */
    const struct reloc *r = reloc_off == UINT64_MAX || !d->nrel ? NULL
                            : bsearch(&key, d->rel, d->nrel, sizeof *d->rel, cmp_reloc);
    if (!r || reloc_off > d->line.n || d->line.n - reloc_off < 8) {
        /* No relocation (already applied in a relocated image): the row address is a device address. */
        for (size_t i = 0; i < d->ncode; i++)
            if (address >= d->code[i].addr && address - d->code[i].addr < d->code[i].size) {
                *shndx = d->code[i].shndx;
                *delta = (uint64_t)0 - d->code[i].addr;
                return 0;
            }
        return -1;
    }
    /* RELA: the program's operand is ignored by a linker; the row address minus it is the offset. REL: the
     * operand is the addend, so row addresses are offsets from the symbol already. */
    uint64_t operand = 0;
    for (int i = 7; i >= 0; i--)
        operand = operand << 8 | d->line.p[reloc_off + (unsigned)i];
    *shndx = r->shndx;
    *delta = r->implicit ? r->base : r->base - operand;
    return 0;
}

/* ---- coverage ---- */

struct cov_state {
    const struct cubin_dbg *d;
    struct tlck_cubin_coverage *cov;
    uint64_t unit, seq_key; int have_seq, have_prev, mapped;
    unsigned shndx; uint64_t delta, prev_addr; uint32_t prev_line;
};

static int add_range(struct tlck_cubin_coverage *c, unsigned shndx, uint64_t lo, uint64_t hi)
{
    if (c->n && c->v[c->n - 1].shndx == shndx && c->v[c->n - 1].hi == lo) {
        c->v[c->n - 1].hi = hi;
        return 0;
    }
    if (tlck_grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v) != 0)
        return -1;
    c->v[c->n++] = (struct tlck_cubin_range){ shndx, lo, hi };
    return 0;
}

static int by_section_lo(const void *a, const void *b)
{
    const struct tlck_cubin_range *x = a, *y = b;
    if (x->shndx != y->shndx)
        return x->shndx < y->shndx ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorted by (section, lo) and overlaps joined, so that each function's coverage is a binary search: a cubin
 * has one function per section, but a damaged one may put every function and row in one (function x range
 * was quadratic). Bytes covered twice now count once. */
static void merge_ranges(struct tlck_cubin_coverage *c)
{
    if (c->n < 2)
        return;
    qsort(c->v, c->n, sizeof *c->v, by_section_lo);
    size_t k = 0;
    for (size_t i = 1; i < c->n; i++) {
        struct tlck_cubin_range *last = &c->v[k];
        if (c->v[i].shndx == last->shndx && c->v[i].lo <= last->hi) {
            if (c->v[i].hi > last->hi)
                last->hi = c->v[i].hi;
        } else
            c->v[++k] = c->v[i];
    }
    c->n = k + 1;
}

static int cov_row(const struct tlck_line_unit *u, const struct tlck_line_row *row, void *ctx)
{
    struct cov_state *st = ctx;
    if (!st->have_seq || st->unit != u->offset) {
        st->cov->units++;
        if (!st->cov->first_file)
            for (size_t i = 0; i < u->nfiles; i++)
                if (u->files[i]) {
                    st->cov->first_file = tlck_strdup(u->files[i]);
                    break;
                }
    }
    uint64_t key = row->seq;
    if (!st->have_seq || st->unit != u->offset || st->seq_key != key) {
        st->have_seq = 1, st->unit = u->offset, st->seq_key = key, st->have_prev = 0;
        st->mapped = seq_section(st->d, row->seq_reloc_offset, row->address, &st->shndx, &st->delta) == 0;
    }
    if (!st->mapped)
        return 0;
    uint64_t addr = row->address + st->delta;
    if (st->have_prev && st->prev_line != 0 && addr > st->prev_addr &&
        add_range(st->cov, st->shndx, st->prev_addr, addr) != 0)
        return 1;
    if (!row->end_sequence && row->line != 0)
        st->cov->rows++;
    st->have_prev = !row->end_sequence;
    st->prev_addr = addr;
    st->prev_line = row->line;
    return 0;
}

int tlck_cubin_coverage(const tl_elf *e, struct tlck_cubin_coverage *cov, tl_error *err)
{
    memset(cov, 0, sizeof *cov);
    struct cubin_dbg d;
    int r = dbg_open(e, &d, err);
    if (r <= 0) {
        dbg_free(&d);
        return r;
    }
    struct cov_state st = { .d = &d, .cov = cov };
    r = tlck_line_program_decode(&d.s, cov_row, &st, err);
    dbg_free(&d);
    merge_ranges(cov);
    return r;
}

uint64_t tlck_cubin_covered(const struct tlck_cubin_coverage *cov, unsigned shndx, uint64_t lo, uint64_t hi)
{
    /* first range of the section that ends after lo (ranges are sorted and disjoint: merge_ranges) */
    size_t a = 0, b = cov->n;
    while (a < b) {
        size_t m = a + (b - a) / 2;
        const struct tlck_cubin_range *r = &cov->v[m];
        if (r->shndx < shndx || (r->shndx == shndx && r->hi <= lo))
            a = m + 1;
        else
            b = m;
    }
    uint64_t total = 0;
    for (size_t i = a; i < cov->n && cov->v[i].shndx == shndx && cov->v[i].lo < hi; i++) {
        const struct tlck_cubin_range *r = &cov->v[i];
        uint64_t x = r->lo > lo ? r->lo : lo, y = r->hi < hi ? r->hi : hi;
        if (y > x)
            total += y - x;
    }
    return total;
}

void tlck_cubin_coverage_free(struct tlck_cubin_coverage *cov)
{
    free(cov->v);
    free(cov->first_file);
    memset(cov, 0, sizeof *cov);
}

/* ---- symbolization ---- */

struct srow {
    uint64_t addr, unit;
    uint32_t seq, index, context, line, column;
    char *file, *fname;
    int end;
};

struct sym_state {
    const struct cubin_dbg *d;
    unsigned want;
    struct srow *v; size_t n, cap;
    uint64_t unit, seq_key; int have_seq, mapped;
    unsigned shndx; uint64_t delta;
};

static int sym_row(const struct tlck_line_unit *u, const struct tlck_line_row *row, void *ctx)
{
    struct sym_state *st = ctx;
    if (!st->have_seq || st->unit != u->offset || st->seq_key != row->seq) {
        st->have_seq = 1, st->unit = u->offset, st->seq_key = row->seq;
        st->mapped = seq_section(st->d, row->seq_reloc_offset, row->address, &st->shndx, &st->delta) == 0 &&
                     st->shndx == st->want;
    }
    if (!st->mapped)
        return 0;
    if (tlck_grow((void **)&st->v, &st->cap, st->n + 1, sizeof *st->v) != 0)
        return 1;
    const char *file = row->file < u->nfiles && u->files[row->file] ? u->files[row->file] : "?";
    const char *fn = row->function_name == UINT64_MAX ? NULL
                     : tlck_line_function_name(&st->d->s, u, row->function_name);
    st->v[st->n++] = (struct srow){ .addr = row->address + st->delta, .unit = u->offset, .seq = row->seq,
                                    .index = row->index_in_seq, .context = row->context, .line = row->line,
                                    .column = row->column, .file = strdup(file), .fname = tlck_strdup(fn),
                                    .end = row->end_sequence };
    return 0;
}

static const struct sym *enclosing(const struct cubin_dbg *d, unsigned shndx, uint64_t addr)
{
    const struct sym *best = NULL;
    for (size_t i = 0; i < d->nsyms; i++) {
        const struct sym *s = &d->syms[i];
        if (s->is_func && s->shndx == shndx && s->size && addr >= s->value && addr - s->value < s->size &&
            (!best || s->size < best->size))
            best = s;
    }
    return best;
}

static int same_seq(const struct srow *a, const struct srow *b)
{
    return a->seq == b->seq && a->unit == b->unit;
}

/* The row in effect at addr: the last row at the highest address <= addr of a sequence that spans addr. One pass:
 * each sequence's end is found once (per row it was quadratic in the length of a sequence). */
static const struct srow *row_at(const struct sym_state *st, uint64_t addr)
{
    const struct srow *best = NULL;
    for (size_t s = 0; s < st->n;) {
        const struct srow *first = &st->v[s];
        if (first->end) {
            s++;
            continue;
        }
        size_t j = s + 1;
        while (j < st->n && !st->v[j].end && same_seq(&st->v[j], first))
            j++;
        /* v[j] ends the sequence; a row counts only when the row after it belongs to the same sequence */
        size_t last = j < st->n && same_seq(&st->v[j], first) ? j : j - 1;
        if (j < st->n && st->v[j].addr > addr)
            for (size_t i = s; i < last; i++)
                if (st->v[i].addr <= addr && (!best || st->v[i].addr >= best->addr))
                    best = &st->v[i];
        s = j;
    }
    return best;
}

static const struct srow *context_row(const struct sym_state *st, const struct srow *r)
{
    for (size_t i = 0; i < st->n; i++)
        if (st->v[i].unit == r->unit && st->v[i].seq == r->seq && st->v[i].index == r->context)
            return &st->v[i];
    return NULL;
}

static int build_chain(const struct cubin_dbg *d, const struct sym_state *st, const struct srow *r,
                       struct tlck_cubin_chain *out)
{
    const struct sym *owner = enclosing(d, st->want, r->addr);
    size_t cap = 0;
    for (unsigned depth = 0; r && depth < 256; depth++) {
        if (tlck_grow((void **)&out->v, &cap, out->n + 1, sizeof *out->v) != 0)
            return -1;
        const char *fn = r->context && r->fname ? r->fname : owner ? owner->name : "?";
        out->v[out->n++] = (struct tlck_cubin_frame){ strdup(r->file), r->line, r->column, strdup(fn) };
        r = r->context ? context_row(st, r) : NULL;
    }
    return 0;
}

static int symbolize_in(const tl_elf *e, unsigned shndx, uint64_t sec_off, struct tlck_cubin_chain *out,
                        tl_error *err)
{
    struct cubin_dbg d;
    int r = dbg_open(e, &d, err);
    if (r <= 0) {
        dbg_free(&d);
        return r < 0 ? -1 : 1;
    }
    struct sym_state st = { .d = &d, .want = shndx };
    r = tlck_line_program_decode(&d.s, sym_row, &st, err);
    const struct srow *row = r == 0 ? row_at(&st, sec_off) : NULL;
    if (r == 0 && row) {
        out->row_address = row->addr;
        r = build_chain(&d, &st, row, out) == 0 ? 0 : tl_fail(err, "out of memory");
    } else if (r == 0)
        r = 1;
    for (size_t i = 0; i < st.n; i++) {
        free(st.v[i].file);
        free(st.v[i].fname);
    }
    free(st.v);
    dbg_free(&d);
    return r;
}

int tlck_cubin_symbolize(const unsigned char *cubin, size_t n, const char *name, const char *function,
                       uint64_t offset, struct tlck_cubin_chain *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    tl_elf e;
    if (tl_elf_open_mem(&e, name, cubin, n, err) != 0) {
        tl_elf_close(&e);
        return -1;
    }
    struct cubin_dbg d;
    memset(&d, 0, sizeof d);
    int r = load_symbols(&e, &d);
    const struct sym *s = NULL;
    for (size_t i = 0; r == 0 && i < d.nsyms; i++)
        if (d.syms[i].is_func && d.syms[i].shndx && strcmp(d.syms[i].name, function) == 0)
            s = &d.syms[i];
    if (!s)
        r = tl_fail(err, "no function '%s' in this cubin", function);
    else if (s->size && offset >= s->size)
        r = tl_fail(err, "offset 0x%llx is past the end of %s (size 0x%llx)", (unsigned long long)offset,
                    function, (unsigned long long)s->size);
    else {
        out->symbol = strdup(s->name);
        out->offset = offset;
        r = symbolize_in(&e, s->shndx, s->value + offset, out, err);
    }
    dbg_free(&d);
    tl_elf_close(&e);
    return r;
}

int tlck_cubin_symbolize_pc(const unsigned char *cubin, size_t n, const char *name, uint64_t pc,
                          struct tlck_cubin_chain *out, tl_error *err)
{
    memset(out, 0, sizeof *out);
    tl_elf e;
    if (tl_elf_open_mem(&e, name, cubin, n, err) != 0) {
        tl_elf_close(&e);
        return -1;
    }
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    unsigned found = 0;
    uint64_t sec_off = 0;
    int any_addr = 0;
    for (int pass = 0; pass < 2 && !found; pass++)
        while ((scn = elf_nextscn(e.elf, scn)) != NULL) {
            if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
                continue;
            any_addr |= sh.sh_addr != 0;
            uint64_t base = pass == 0 ? sh.sh_addr : sh.sh_offset;
            if ((pass == 0 && !sh.sh_addr) || pc < base || pc - base >= sh.sh_size)
                continue;
            found = (unsigned)elf_ndxscn(scn);
            sec_off = pc - base;
            break;
        }
    int r;
    if (!found)
        r = tl_fail(err, "PC 0x%llx is in no code section (%s)", (unsigned long long)pc,
                    any_addr ? "section addresses" : "file offsets");
    else {
        struct cubin_dbg d;
        memset(&d, 0, sizeof d);
        load_symbols(&e, &d);
        const struct sym *s = enclosing(&d, found, sec_off);
        out->symbol = strdup(s ? s->name : "?");
        out->offset = s ? sec_off - s->value : sec_off;
        dbg_free(&d);
        r = symbolize_in(&e, found, sec_off, out, err);
    }
    tl_elf_close(&e);
    return r;
}

void tlck_cubin_chain_free(struct tlck_cubin_chain *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].file);
        free(c->v[i].function);
    }
    free(c->v);
    free(c->symbol);
    memset(c, 0, sizeof *c);
}
