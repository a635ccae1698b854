/* CUDA GPU coredump tables → struct tlck_core (layouts and evidence: docs/coredump.md). */
#include "read/coredump.h"
#include "trueline/file_kind.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* One section as the tree walk sees it. `obj` points at the parsed rows (objsize bytes each) so children can
 * find their parent row by sh_link + sh_info. */
struct cd_sec {
    GElf_Shdr sh;
    int type;                  /* enum tlck_cd_sec, 0 for ordinary sections */
    const unsigned char *p;
    size_t n, rows;
    void *obj;
    size_t objsize;
};

struct cd_ctx {
    struct tlck_core *c;
    struct cd_sec *s;
    size_t ns;
    const unsigned char *strtab; size_t strtab_n;
    tl_error *err;
};

/* Smallest row each table may have: the fields every driver since the format's start writes. Newer fields
 * appended after these read as 0 when sh_entsize does not cover them (cudacoredump.h asks readers to check
 * the element size; LLDB zero-fills the same way). */
static size_t min_entsize(int type)
{
    switch (type) {
    case TLCK_CD_DEVTBL: return 72;
    case TLCK_CD_CTXTBL: return 40;
    case TLCK_CD_MODTBL: return 8;
    case TLCK_CD_GRIDTBL: return 104;
    case TLCK_CD_SMTBL: return 8;
    case TLCK_CD_CTATBL: return 24;
    case TLCK_CD_WPTBL: return 32;
    case TLCK_CD_LNTBL: return 48;
    case TLCK_CD_BT: return 24;
    case TLCK_CD_CBANKS: return 16;
    default: return 0;
    }
}

struct arena_block {
    struct arena_block *next;
    _Alignas(max_align_t) unsigned char data[];
};

static void *cd_alloc(struct tlck_core *c, size_t n, size_t size)
{
    if (n && size > (SIZE_MAX - sizeof(struct arena_block)) / n)
        return NULL;
    struct arena_block *b = calloc(1, sizeof *b + n * size);
    if (!b)
        return NULL;
    b->next = c->arena;
    c->arena = b;
    return b->data;
}

static uint64_t rd(const unsigned char *row, size_t es, size_t off, size_t len)
{
    uint64_t v = 0;
    if (off + len > es)
        return 0;
    for (size_t i = 0; i < len; i++)
        v |= (uint64_t)row[off + i] << (8 * i);
    return v;
}
#define U32(row, es, off) ((uint32_t)rd(row, es, off, 4))
#define U64(row, es, off) rd(row, es, off, 8)

static const char *cd_str(const struct cd_ctx *x, uint64_t off)
{
    if (!x->strtab || off >= x->strtab_n || !memchr(x->strtab + off, 0, x->strtab_n - off))
        return "";
    return (const char *)x->strtab + off;
}

static const char *sec_type_name(int type)
{
    static const char *const names[TLCK_CD_NTYPES] = {
        "", "global(managed)", "global", "local", "shared", "regs", "elfimg", "relfimg", "bt", "devtbl",
        "ctxtbl", "smtbl", "gridtbl", "ctatbl", "wptbl", "lntbl", "modtbl", "pred", "param", "uregs", "upred",
        "cbankstbl", "meta", "cbu_bar",
    };
    return type > 0 && type < TLCK_CD_NTYPES ? names[type] : "?";
}

/* Reads every section header and the bytes of the .cudbg sections, checking what the tables need. */
static int load_sections(struct cd_ctx *x)
{
    const tl_elf *e = &x->c->elf;
    x->ns = e->shnum;
    x->s = calloc(x->ns ? x->ns : 1, sizeof *x->s);
    if (!x->s)
        return tl_fail(x->err, "out of memory for %zu section headers", x->ns);
    for (size_t i = 1; i < x->ns; i++) {
        struct cd_sec *s = &x->s[i];
        Elf_Scn *scn = elf_getscn(e->elf, i);
        if (!scn || !gelf_getshdr(scn, &s->sh))
            return tl_fail(x->err, "section header %zu is unreadable: %s", i, elf_errmsg(-1));
        if (s->sh.sh_type <= SHT_LOUSER || s->sh.sh_type >= SHT_LOUSER + TLCK_CD_NTYPES)
            continue;
        s->type = (int)(s->sh.sh_type - SHT_LOUSER);
        tl_bytes b;
        if (tl_elf_section_raw(e, scn, &b, x->err) != 0)
            return -1;
        s->p = b.p;
        s->n = b.n;
        size_t min = min_entsize(s->type);
        if (!min)
            continue;
        if (s->sh.sh_entsize < min)
            return tl_fail(x->err, "section [%zu] %s: %s rows are %llu bytes, at least %zu expected (corrupt core)",
                           i, tl_elf_section_name(e, &s->sh), sec_type_name(s->type),
                           (unsigned long long)s->sh.sh_entsize, min);
        if (s->n % s->sh.sh_entsize)
            return tl_fail(x->err, "section [%zu] %s: size %zu is not a multiple of its row size %llu (truncated or "
                           "corrupt core)", i, tl_elf_section_name(e, &s->sh), s->n,
                           (unsigned long long)s->sh.sh_entsize);
        s->rows = s->n / s->sh.sh_entsize;
    }
    return 0;
}

/* The parent row a child table hangs under, checked: sh_link must name a parsed table of the expected type
 * and sh_info must be one of its rows. */
static void *parent_row(struct cd_ctx *x, size_t i, int parent_type)
{
    const struct cd_sec *s = &x->s[i];
    size_t link = s->sh.sh_link, info = s->sh.sh_info;
    const char *name = tl_elf_section_name(&x->c->elf, &s->sh);
    if (link == 0 || link >= x->ns || x->s[link].type != parent_type || !x->s[link].obj) {
        tl_fail(x->err, "section [%zu] %s: sh_link %zu is not a %s table (corrupt core)", i, name, link,
                sec_type_name(parent_type));
        return NULL;
    }
    if (info >= x->s[link].rows) {
        tl_fail(x->err, "section [%zu] %s: sh_info %zu is past the %zu rows of its %s table (corrupt core)", i,
                name, info, x->s[link].rows, sec_type_name(parent_type));
        return NULL;
    }
    return (char *)x->s[link].obj + info * x->s[link].objsize;
}

static int dup_child(struct cd_ctx *x, size_t i)
{
    return tl_fail(x->err, "section [%zu] %s: a second %s table for the same parent row (corrupt core)", i,
                   tl_elf_section_name(&x->c->elf, &x->s[i].sh), sec_type_name(x->s[i].type));
}

/* Allocates the parsed rows of table section i; returns NULL (err set) on exhaustion. */
static void *rows_of(struct cd_ctx *x, size_t i, size_t objsize)
{
    struct cd_sec *s = &x->s[i];
    s->objsize = objsize;
    s->obj = cd_alloc(x->c, s->rows ? s->rows : 1, objsize);
    if (!s->obj)
        tl_fail(x->err, "out of memory for %zu rows of section [%zu]", s->rows, i);
    return s->obj;
}

static int parse_devices(struct cd_ctx *x)
{
    size_t at = 0;
    for (size_t i = 1; i < x->ns; i++)
        if (x->s[i].type == TLCK_CD_DEVTBL) {
            if (at)
                return tl_fail(x->err, "two device tables ([%zu] and [%zu]) (corrupt core)", at, i);
            at = i;
        }
    if (!at)
        return tl_fail(x->err, "no .cudbg.devtbl section: not a CUDA GPU coredump, or a truncated one");
    struct cd_sec *s = &x->s[at];
    struct tlck_cd_device *d = rows_of(x, at, sizeof *d);
    if (!d)
        return -1;
    size_t es = s->sh.sh_entsize;
    for (size_t r = 0; r < s->rows; r++) {
        const unsigned char *row = s->p + r * es;
        d[r] = (struct tlck_cd_device){
            .name = cd_str(x, U64(row, es, 0)), .type = cd_str(x, U64(row, es, 8)),
            .sm_type = cd_str(x, U64(row, es, 16)), .dev_id = U32(row, es, 24), .num_sms = U32(row, es, 36),
            .num_warps = U32(row, es, 40), .num_lanes = U32(row, es, 44), .sm_major = U32(row, es, 56),
            .sm_minor = U32(row, es, 60), .insn_size = U32(row, es, 64),
        };
    }
    x->c->devices = d;
    x->c->ndevices = s->rows;
    return 0;
}

static int parse_contexts(struct cd_ctx *x, size_t i)
{
    struct tlck_cd_device *d = parent_row(x, i, TLCK_CD_DEVTBL);
    struct tlck_cd_context *t = d ? rows_of(x, i, sizeof *t) : NULL;
    if (!t)
        return -1;
    if (d->contexts)
        return dup_child(x, i);
    size_t es = x->s[i].sh.sh_entsize;
    for (size_t r = 0; r < x->s[i].rows; r++) {
        const unsigned char *row = x->s[i].p + r * es;
        t[r] = (struct tlck_cd_context){ .context_id = U64(row, es, 0), .tid = U32(row, es, 36) };
    }
    d->contexts = t;
    d->ncontexts = x->s[i].rows;
    return 0;
}

static int parse_modules(struct cd_ctx *x, size_t i)
{
    struct tlck_cd_context *ctx = parent_row(x, i, TLCK_CD_CTXTBL);
    struct tlck_cd_module *m = ctx ? rows_of(x, i, sizeof *m) : NULL;
    if (!m)
        return -1;
    if (ctx->modules)
        return dup_child(x, i);
    size_t es = x->s[i].sh.sh_entsize;
    for (size_t r = 0; r < x->s[i].rows; r++)
        m[r] = (struct tlck_cd_module){ .handle = U64(x->s[i].p + r * es, es, 0) };
    ctx->modules = m;
    ctx->nmodules = x->s[i].rows;
    return 0;
}

/* A relocated image wins over an unrelocated one of the same module: its addresses are the PCs'. */
static int attach_image(struct cd_ctx *x, size_t i)
{
    struct tlck_cd_module *m = parent_row(x, i, TLCK_CD_MODTBL);
    if (!m)
        return -1;
    int relocated = x->s[i].type == TLCK_CD_RELFIMG;
    if (m->shndx && (m->relocated || !relocated)) {
        if (m->relocated == relocated)
            return dup_child(x, i);
        return 0;
    }
    m->shndx = i;
    m->image = x->s[i].p;
    m->image_n = x->s[i].n;
    m->relocated = relocated;
    return 0;
}

static int parse_grids(struct cd_ctx *x, size_t i)
{
    struct tlck_cd_device *d = parent_row(x, i, TLCK_CD_DEVTBL);
    struct tlck_cd_grid *g = d ? rows_of(x, i, sizeof *g) : NULL;
    if (!g)
        return -1;
    if (d->grids)
        return dup_child(x, i);
    size_t es = x->s[i].sh.sh_entsize;
    for (size_t r = 0; r < x->s[i].rows; r++) {
        const unsigned char *row = x->s[i].p + r * es;
        g[r] = (struct tlck_cd_grid){
            .grid_id = U64(row, es, 0), .context_id = U64(row, es, 8), .function = U64(row, es, 16),
            .function_entry = U64(row, es, 24), .module_handle = U64(row, es, 32), .kernel_type = U32(row, es, 56),
            .origin = U32(row, es, 60), .status = U32(row, es, 64), .num_regs = U32(row, es, 68),
        };
        for (int k = 0; k < 3; k++) {
            g[r].grid_dim[k] = U32(row, es, 72 + 4 * (size_t)k);
            g[r].block_dim[k] = U32(row, es, 84 + 4 * (size_t)k);
        }
    }
    d->grids = g;
    d->ngrids = x->s[i].rows;
    return 0;
}

static int parse_sms(struct cd_ctx *x, size_t i)
{
    struct tlck_cd_device *d = parent_row(x, i, TLCK_CD_DEVTBL);
    struct tlck_cd_sm *sm = d ? rows_of(x, i, sizeof *sm) : NULL;
    if (!sm)
        return -1;
    if (d->sms)
        return dup_child(x, i);
    size_t es = x->s[i].sh.sh_entsize;
    for (size_t r = 0; r < x->s[i].rows; r++) {
        const unsigned char *row = x->s[i].p + r * es;
        sm[r] = (struct tlck_cd_sm){ .sm_id = U32(row, es, 0), .exception = U32(row, es, 8),
                                   .error_pc_valid = U32(row, es, 12), .error_pc = U64(row, es, 16) };
    }
    d->sms = sm;
    d->nsms = x->s[i].rows;
    return 0;
}

static int parse_ctas(struct cd_ctx *x, size_t i)
{
    struct tlck_cd_sm *sm = parent_row(x, i, TLCK_CD_SMTBL);
    struct tlck_cd_cta *t = sm ? rows_of(x, i, sizeof *t) : NULL;
    if (!t)
        return -1;
    if (sm->ctas)
        return dup_child(x, i);
    size_t es = x->s[i].sh.sh_entsize;
    for (size_t r = 0; r < x->s[i].rows; r++) {
        const unsigned char *row = x->s[i].p + r * es;
        t[r] = (struct tlck_cd_cta){ .grid_id = U64(row, es, 0), .row = (uint32_t)r };
        for (int k = 0; k < 3; k++)
            t[r].block[k] = U32(row, es, 8 + 4 * (size_t)k);
    }
    sm->ctas = t;
    sm->nctas = x->s[i].rows;
    return 0;
}

static int parse_warps(struct cd_ctx *x, size_t i)
{
    struct tlck_cd_cta *cta = parent_row(x, i, TLCK_CD_CTATBL);
    struct tlck_cd_warp *w = cta ? rows_of(x, i, sizeof *w) : NULL;
    if (!w)
        return -1;
    if (cta->warps)
        return dup_child(x, i);
    size_t es = x->s[i].sh.sh_entsize;
    for (size_t r = 0; r < x->s[i].rows; r++) {
        const unsigned char *row = x->s[i].p + r * es;
        w[r] = (struct tlck_cd_warp){
            .error_pc = U64(row, es, 0), .warp_id = U32(row, es, 8), .valid_mask = U32(row, es, 12),
            .active_mask = U32(row, es, 16), .broken = U32(row, es, 20), .error_pc_valid = U32(row, es, 24),
            .num_regs = U32(row, es, 32),
        };
    }
    cta->warps = w;
    cta->nwarps = x->s[i].rows;
    return 0;
}

static int parse_lanes(struct cd_ctx *x, size_t i)
{
    struct tlck_cd_warp *w = parent_row(x, i, TLCK_CD_WPTBL);
    struct tlck_cd_lane *l = w ? rows_of(x, i, sizeof *l) : NULL;
    if (!l)
        return -1;
    if (w->lanes)
        return dup_child(x, i);
    size_t es = x->s[i].sh.sh_entsize;
    for (size_t r = 0; r < x->s[i].rows; r++) {
        const unsigned char *row = x->s[i].p + r * es;
        l[r] = (struct tlck_cd_lane){
            .virtual_pc = U64(row, es, 0), .phys_pc = U64(row, es, 8), .ln = U32(row, es, 16),
            .thread = { U32(row, es, 20), U32(row, es, 24), U32(row, es, 28) }, .exception = U32(row, es, 32),
            .call_depth = U32(row, es, 36), .cbu_state = U32(row, es, 48),
        };
    }
    w->lanes = l;
    w->nlanes = x->s[i].rows;
    return 0;
}

static int cmp_level(const void *a, const void *b)
{
    const struct tlck_cd_bt *x = a, *y = b;
    return x->level < y->level ? -1 : x->level > y->level;
}

static int parse_backtrace(struct cd_ctx *x, size_t i)
{
    struct tlck_cd_lane *l = parent_row(x, i, TLCK_CD_LNTBL);
    struct tlck_cd_bt *b = l ? rows_of(x, i, sizeof *b) : NULL;
    if (!b)
        return -1;
    if (l->bt)
        return dup_child(x, i);
    size_t es = x->s[i].sh.sh_entsize, n = x->s[i].rows;
    for (size_t r = 0; r < n; r++) {
        const unsigned char *row = x->s[i].p + r * es;
        b[r] = (struct tlck_cd_bt){ .return_offset = U64(row, es, 0), .return_va = U64(row, es, 8),
                                  .level = U32(row, es, 16) };
    }
    qsort(b, n, sizeof *b, cmp_level);
    l->bt = b;
    l->nbt = n;
    return 0;
}

static void parse_meta(struct cd_ctx *x)
{
    for (size_t i = 1; i < x->ns; i++) {
        const struct cd_sec *s = &x->s[i];
        if (s->type != TLCK_CD_META)
            continue;
        /* One struct with sh_entsize 0: its size is the section's. */
        size_t n = s->n;
        x->c->meta = (struct tlck_cd_meta){
            .present = 1, .generator = cd_str(x, U64(s->p, n, 0)), .driver_major = U32(s->p, n, 8),
            .driver_minor = U32(s->p, n, 12), .cuda_major = U32(s->p, n, 16), .cuda_minor = U32(s->p, n, 20),
            .flags = U32(s->p, n, 24), .timestamp = U32(s->p, n, 28),
        };
        return;
    }
}

/* Parents before children: each pass handles one section type wherever it sits in the file. */
static int build_tree(struct cd_ctx *x)
{
    static const int order[] = { TLCK_CD_CTXTBL, TLCK_CD_MODTBL, TLCK_CD_RELFIMG, TLCK_CD_ELFIMG, TLCK_CD_GRIDTBL,
                                 TLCK_CD_SMTBL, TLCK_CD_CTATBL, TLCK_CD_WPTBL, TLCK_CD_LNTBL, TLCK_CD_BT };
    if (parse_devices(x) != 0)
        return -1;
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
        for (size_t i = 1; i < x->ns; i++) {
            if (x->s[i].type != order[k])
                continue;
            int rc;
            switch (order[k]) {
            case TLCK_CD_CTXTBL: rc = parse_contexts(x, i); break;
            case TLCK_CD_MODTBL: rc = parse_modules(x, i); break;
            case TLCK_CD_GRIDTBL: rc = parse_grids(x, i); break;
            case TLCK_CD_SMTBL: rc = parse_sms(x, i); break;
            case TLCK_CD_CTATBL: rc = parse_ctas(x, i); break;
            case TLCK_CD_WPTBL: rc = parse_warps(x, i); break;
            case TLCK_CD_LNTBL: rc = parse_lanes(x, i); break;
            case TLCK_CD_BT: rc = parse_backtrace(x, i); break;
            default: rc = attach_image(x, i); break;
            }
            if (rc != 0)
                return -1;
        }
    parse_meta(x);
    return 0;
}

int tlck_core_open(struct tlck_core *c, const char *path, tl_error *err)
{
    memset(c, 0, sizeof *c);
    if (tl_elf_open_path(&c->elf, path, err) != 0)
        return -1;
    const GElf_Ehdr *h = &c->elf.ehdr;
    if (h->e_type != ET_CORE || h->e_machine != TL_EM_CUDA)
        return tl_fail(err, "not a CUDA GPU coredump (ELF type %u, machine %u; want ET_CORE and EM_CUDA 190)",
                       (unsigned)h->e_type, (unsigned)h->e_machine);
    /* Cores are written front to back with the section header table last, so a cut-off core loses it first;
     * libelf then just reports fewer (or no) sections, which would read as an empty dump. */
    uint64_t nsh = h->e_shnum ? h->e_shnum : 1;
    if (h->e_shoff > c->elf.size || nsh * h->e_shentsize > c->elf.size - h->e_shoff)
        return tl_fail(err, "truncated core: its section header table (offset %llu, %llu entries) ends past the "
                       "end of the file (%zu bytes)", (unsigned long long)h->e_shoff, (unsigned long long)nsh,
                       c->elf.size);
    struct cd_ctx x = { .c = c, .err = err };
    GElf_Shdr sh;
    Elf_Scn *st = tl_elf_section(&c->elf, ".strtab", &sh);
    tl_bytes b;
    if (st && tl_elf_section_raw(&c->elf, st, &b, err) == 0) {
        x.strtab = b.p;
        x.strtab_n = b.n;
    }
    int rc = load_sections(&x);
    if (rc == 0)
        rc = build_tree(&x);
    free(x.s);
    return rc;
}

void tlck_core_close(struct tlck_core *c)
{
    struct arena_block *b = c->arena;
    while (b) {
        struct arena_block *n = b->next;
        free(b);
        b = n;
    }
    tl_elf_close(&c->elf);
    memset(c, 0, sizeof *c);
}

const struct tlck_cd_grid *tlck_core_grid(const struct tlck_cd_device *d, uint64_t grid_id)
{
    for (size_t i = 0; i < d->ngrids; i++)
        if (d->grids[i].grid_id == grid_id)
            return &d->grids[i];
    return NULL;
}

/* libcudacore's getElfImage route: grid → its context → the module row with the grid's handle. */
const struct tlck_cd_module *tlck_core_grid_module(const struct tlck_cd_device *d, const struct tlck_cd_grid *g)
{
    for (size_t i = 0; i < d->ncontexts; i++) {
        const struct tlck_cd_context *ctx = &d->contexts[i];
        if (ctx->context_id != g->context_id && d->ncontexts > 1)
            continue;
        for (size_t m = 0; m < ctx->nmodules; m++)
            if (ctx->modules[m].handle == g->module_handle)
                return &ctx->modules[m];
    }
    return NULL;
}

/* cuda-gdb's texts (gdb/cuda/cuda-exceptions.c, signals.def) for 1..19; LLDB's nvgpu plugin for 20..35. */
const char *tlck_cd_exception_name(uint32_t code)
{
    static const char *const names[] = {
        "none", "Lane Illegal Address", "Lane User Stack Overflow", "Device Hardware Stack Overflow",
        "Warp Illegal Instruction", "Warp Out-of-range Address", "Warp Misaligned Address",
        "Warp Invalid Address Space", "Warp Invalid PC", "Warp Hardware Stack Overflow", "Device Illegal Address",
        "Lane Misaligned Address", "Warp Assert", "Lane Syscall Error", "Warp Illegal Address",
        "Non-migratable System-scoped Atomic Access", "Device Unknown Exception", "Cluster out of range address",
        "Cluster target block not present", "Warp Stack Canary", "Warp Tensor Memory Access Check",
        "Warp Tensor Memory Leak", "Warp Call Requires Newer Driver", "Warp Misaligned PC", "Warp PC Overflow",
        "Warp Misaligned Register", "Warp Illegal Instruction Encoding", "Warp Illegal Instruction Parameter",
        "Warp Out-of-range Register", "Warp Invalid Constant Address", "Warp MMU Fault",
        "Warp Barrier Arrival Mismatch", "Cluster Shared Memory Issue", "Warp API Stack Error",
        "Warp Block Not Present", "Warp User Stack Overflow",
    };
    if (code < sizeof names / sizeof names[0])
        return names[code];
    return "Device Unknown Exception";
}
