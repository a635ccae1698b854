/* The callers a dump does not hold, implied by the image's call instructions.
 *
 * The unwound stack can end before a kernel: a trap such as a device assert leaves stale call-return state for
 * some lanes (the stack then ends with `stack ends:`), and a dump may have no backtrace rows at all. The image
 * still says who can have called the function where the shown stack ends: its CALL instructions
 * (read/sass_calls.h; the image's .nv.callgraph leaves out the callees of per-kernel clones). The chain is
 * walked up to a kernel, caller by caller, and every frame of it is marked inferred:
 * - one caller function: its call site's line chain (every call site, as candidates, when it has several),
 *   then on to that caller;
 * - callers already on the chain are recursion: shown once, repeated an unknown number of times; the walk
 *   goes on through the one caller that is not, when there is exactly one;
 * - several caller functions: every candidate is listed and the walk stops there (nothing picks one);
 * - no direct call at all: the function is reached through a pointer (a function-pointer table, a virtual
 *   call). The calls through a register that can reach it are its candidates, marked indirect: those in its
 *   own code section when it is a per-kernel clone (`$kernel$function`: only its kernel's code can call it),
 *   else every one in the image. One such caller function and the walk goes on through it. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "read/sass_calls.h"
#include "tools/coredump/coredump_report.h"

#define STO_CUDA_ENTRY 0x10 /* st_other of kernels */

struct cd_fn {
    const char *name;        /* in the image's string table (the image outlives the graph) */
    size_t shndx;
    uint64_t addr, start, size; /* st_value (an address in a relocated image); start: offset in the section */
    int kernel;
};

#define NO_CALLEE SIZE_MAX

struct cd_site {
    size_t caller, callee;   /* cd_fn indexes; callee NO_CALLEE: a call through a register (indirect) */
    uint64_t addr;           /* the CALL instruction's address (section address + offset) */
};

struct cd_callgraph {
    struct cd_fn *fn;        /* sorted by addr */
    size_t *by_sec;          /* fn indexes sorted by (shndx, start) */
    size_t nfn;
    struct cd_site *site;
    size_t nsite;
    size_t unknown;          /* calls whose callee the code does not give (through a register, no relocation) */
    char *why;               /* nothing decoded: why */
};

static int by_addr(const void *a, const void *b)
{
    const struct cd_fn *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The function holding address a, or -1. A kernel's symbol can span the per-kernel clones placed after its
 * own code (ptxas sizes it to the whole section): the innermost, latest-starting function holding a wins. */
static long fn_at(const struct cd_callgraph *g, uint64_t a)
{
    size_t lo = 0, hi = g->nfn;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->fn[mid].addr <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0;)
        if (a - g->fn[i].addr < g->fn[i].size)
            return (long)i;
    return -1;
}

static int by_section(const void *a, const void *b, void *graph)
{
    const struct cd_callgraph *g = graph;
    const struct cd_fn *x = &g->fn[*(const size_t *)a], *y = &g->fn[*(const size_t *)b];
    if (x->shndx != y->shndx)
        return x->shndx < y->shndx ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The function that starts at (shndx, off), or (must_start 0) the innermost one holding it; -1 when none. */
static long fn_in_section(const struct cd_callgraph *g, size_t shndx, uint64_t off, int must_start)
{
    size_t lo = 0, hi = g->nfn;
    while (lo < hi) { /* first entry past (shndx, off) */
        size_t mid = lo + (hi - lo) / 2;
        const struct cd_fn *f = &g->fn[g->by_sec[mid]];
        if (f->shndx < shndx || (f->shndx == shndx && f->start <= off))
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Back from the latest start: the nearest few, then the section's first function (a kernel's symbol spans
     * the clones after its code), so that a hostile image of many tiny functions costs no quadratic time. */
    for (size_t i = lo, steps = 0; i-- > 0; steps++) {
        const struct cd_fn *f = &g->fn[g->by_sec[i]];
        if (f->shndx != shndx || (must_start && f->start != off))
            return -1;
        if (off - f->start < f->size)
            return (long)g->by_sec[i];
        if (steps == 32) {
            size_t a = 0, b = i; /* first entry of the section */
            while (a < b) {
                size_t mid = a + (b - a) / 2;
                if (g->fn[g->by_sec[mid]].shndx < shndx)
                    a = mid + 1;
                else
                    b = mid;
            }
            f = &g->fn[g->by_sec[a]];
            return f->shndx == shndx && off - f->start < f->size ? (long)g->by_sec[a] : -1;
        }
    }
    return -1;
}

static int read_functions(const tl_elf *e, struct cd_callgraph *g)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t n = d ? d->d_size / sh.sh_entsize : 0;
        struct cd_fn *v = n ? realloc(g->fn, (g->nfn + n) * sizeof *v) : g->fn;
        if (n && !v)
            return -1;
        g->fn = v;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym s;
            GElf_Shdr tsh;
            Elf_Scn *t;
            if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size ||
                s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE || !(t = elf_getscn(e->elf, s.st_shndx)) ||
                !gelf_getshdr(t, &tsh) || s.st_value < tsh.sh_addr)
                continue;
            const char *name = elf_strptr(e->elf, sh.sh_link, s.st_name);
            if (!name || !*name)
                continue;
            g->fn[g->nfn++] = (struct cd_fn){ .name = name, .shndx = s.st_shndx, .addr = s.st_value,
                                              .start = s.st_value - tsh.sh_addr, .size = s.st_size,
                                              .kernel = (s.st_other & STO_CUDA_ENTRY) != 0 };
        }
    }
    if (!g->nfn)
        return 0;
    qsort(g->fn, g->nfn, sizeof *g->fn, by_addr);
    g->by_sec = malloc(g->nfn * sizeof *g->by_sec);
    if (!g->by_sec)
        return -1;
    for (size_t i = 0; i < g->nfn; i++)
        g->by_sec[i] = i;
    qsort_r(g->by_sec, g->nfn, sizeof *g->by_sec, by_section, g);
    return 0;
}

static void callgraph_free(struct cd_callgraph *g);

static struct cd_callgraph *callgraph_build(const tl_elf *e)
{
    struct cd_callgraph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    struct tlck_sass_calls calls = { 0 };
    tl_error err;
    int rc = read_functions(e, g);
    if (rc == 0)
        rc = tlck_sass_calls_read(e, tlck_sass_sm(&e->ehdr), &calls, &err);
    if (rc != 0) {
        g->why = strdup(rc > 0 ? err.msg : "out of memory while decoding the image's calls");
        return g;
    }
    g->site = calls.n ? calloc(calls.n, sizeof *g->site) : NULL;
    for (size_t i = 0; g->site && i < calls.n; i++) {
        const struct tlck_sass_call *c = &calls.v[i];
        long caller = fn_in_section(g, c->shndx, c->offset, 0);
        long callee = c->resolved ? fn_in_section(g, c->target_shndx, c->target_offset, 1) : -1;
        if (caller < 0 || callee < 0)
            g->unknown++;
        if (caller < 0 || (callee < 0 && !c->indirect))
            continue;
        const struct cd_fn *f = &g->fn[caller];
        g->site[g->nsite++] = (struct cd_site){ (size_t)caller, callee < 0 ? NO_CALLEE : (size_t)callee,
                                                f->addr - f->start + c->offset };
    }
    if (calls.n && !g->site)
        g->why = strdup("out of memory while decoding the image's calls");
    tlck_sass_calls_free(&calls);
    return g;
}

static void callgraph_free(struct cd_callgraph *g)
{
    if (!g)
        return;
    free(g->fn);
    free(g->by_sec);
    free(g->site);
    free(g->why);
    free(g);
}

struct cd_graphs {
    struct graph_of { const struct tlck_cd_module *m; struct cd_callgraph *g; } *v;
    size_t n, cap;
};

struct cd_graphs *cd_graphs_new(void)
{
    return calloc(1, sizeof(struct cd_graphs));
}

void cd_graphs_free(struct cd_graphs *gs)
{
    if (!gs)
        return;
    for (size_t i = 0; i < gs->n; i++)
        callgraph_free(gs->v[i].g);
    free(gs->v);
    free(gs);
}

/* The graph of module m's image, built on first use; NULL when the image is unreadable or memory ran out. */
static const struct cd_callgraph *graph_of(struct cd_images *im, struct cd_graphs *gs, const struct tlck_cd_module *m)
{
    for (size_t i = 0; i < gs->n; i++)
        if (gs->v[i].m == m)
            return gs->v[i].g;
    const tl_elf *e = cd_image_elf(im, m);
    if (!e)
        return NULL;
    if (gs->n == gs->cap) {
        size_t nc = gs->cap ? gs->cap * 2 : 4;
        struct graph_of *v = realloc(gs->v, nc * sizeof *v);
        if (!v)
            return NULL;
        gs->v = v;
        gs->cap = nc;
    }
    struct cd_callgraph *g = callgraph_build(e);
    if (g)
        gs->v[gs->n++] = (struct graph_of){ m, g };
    return g;
}

/* One walk: the chain so far (functions already shown or inferred) and the frames appended. */
struct walk {
    struct cd_images *im;
    const struct tlck_core *c;
    struct cd_stop *s;
    const struct cd_callgraph *g;
    size_t *chain, nchain;
    size_t cap;                  /* of s->inferred */
};

static int on_chain(const struct walk *w, size_t f)
{
    for (size_t i = 0; i < w->nchain; i++)
        if (w->chain[i] == f)
            return 1;
    return 0;
}

static int add_frame(struct walk *w, const struct cd_site *site, unsigned depth, unsigned cand, unsigned ncand,
                     int recursion, int indirect)
{
    struct cd_stop *s = w->s;
    if (s->ninferred == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 4;
        struct cd_inferred *v = realloc(s->inferred, nc * sizeof *v);
        if (!v)
            return -1;
        s->inferred = v;
        w->cap = nc;
    }
    struct cd_inferred *f = &s->inferred[s->ninferred++];
    *f = (struct cd_inferred){ .depth = depth, .candidate = cand, .ncandidates = ncand, .recursion = recursion,
                               .indirect = indirect };
    cd_resolve_where(w->im, w->c, s, site->addr, &f->where); /* the CALL itself: its own line, no bias */
    return 0;
}

static void set_note(struct cd_stop *s, char *note)
{
    free(s->inferred_note);
    s->inferred_note = note;
}

/* An indirect call site that can reach function f: one in f's own section when f is a per-kernel clone (its
 * name starts with '$': only its kernel calls it), any otherwise. */
static int can_reach(const struct cd_callgraph *g, const struct cd_site *site, size_t f)
{
    if (site->callee != NO_CALLEE)
        return 0;
    return g->fn[f].name[0] != '$' || g->fn[site->caller].shndx == g->fn[f].shndx;
}

/* From function cur up: one level per iteration. */
static void walk_up(struct walk *w, size_t cur)
{
    const struct cd_callgraph *g = w->g;
    for (unsigned depth = 1; !g->fn[cur].kernel; depth++) {
        /* the sites calling cur (bounded: each becomes a frame); none: the calls through a register that can */
        size_t idx[CD_MAX_INFERRED], nsites = 0, room = CD_MAX_INFERRED - w->s->ninferred;
        int indirect = 0;
        for (int through_ptr = 0; through_ptr < 2 && !nsites; through_ptr++)
            for (size_t i = 0; i < g->nsite; i++)
                if (through_ptr ? can_reach(g, &g->site[i], cur) : g->site[i].callee == cur) {
                    if (nsites == room) {
                        set_note(w->s, tlck_asprintf("more than %d inferred frames: the rest are not shown",
                                                     CD_MAX_INFERRED));
                        return;
                    }
                    idx[nsites++] = i;
                    indirect = through_ptr;
                }
        char *name = cd_demangle(g->fn[cur].name);
        if (!nsites) {
            set_note(w->s, g->unknown
                     ? tlck_asprintf("no call to %s found in the image's code (%zu call%s there go through a "
                                     "register or to a target the image does not name)", name ? name : "?",
                                     g->unknown, g->unknown == 1 ? "" : "s")
                     : tlck_asprintf("no call to %s found in the image's code", name ? name : "?"));
            free(name);
            return;
        }
        /* sites from callers not on the chain (fresh), and how many distinct functions those are */
        size_t fresh = 0, fresh_callers = 0;
        long next = -1;
        for (size_t a = 0; a < nsites; a++) {
            size_t caller = g->site[idx[a]].caller, b = 0;
            if (on_chain(w, caller))
                continue;
            fresh++;
            while (b < a && g->site[idx[b]].caller != caller)
                b++;
            fresh_callers += b == a;
            next = (long)caller;
        }
        /* Recursive calls first (they happen below the way out), then the candidates from outside the chain. */
        unsigned cand = 0;
        for (int pass = 0; pass < 2; pass++) {
            for (size_t a = 0; a < nsites; a++) {
                const struct cd_site *site = &g->site[idx[a]];
                if (on_chain(w, site->caller) != !pass)
                    continue;
                if (add_frame(w, site, depth, pass ? ++cand : 0, pass ? (unsigned)fresh : 0, !pass, indirect) != 0) {
                    free(name);
                    return;
                }
            }
            if (pass == 0 && nsites > fresh)
                depth++;
        }
        if (fresh_callers != 1) {
            set_note(w->s, fresh_callers
                     ? tlck_asprintf("%zu functions call %s: every candidate is listed, the walk stops there",
                                     fresh_callers, name ? name : "?")
                     : tlck_asprintf("%s is called only from functions already on the chain (recursion)",
                                     name ? name : "?"));
            free(name);
            return;
        }
        free(name);
        cur = (size_t)next;
        w->chain[w->nchain++] = cur;
    }
}

void cd_infer_callers(struct cd_images *im, struct cd_graphs *gs, const struct tlck_core *c, struct cd_stop *s)
{
    const struct cd_where *top = s->ntrusted ? &s->caller_where[s->ntrusted - 1] : &s->where;
    if (!top->found || s->ncallers_dump > s->ncallers)
        return; /* nowhere to start from, or the shown stack was cut here on purpose */
    const struct cd_callgraph *g = gs ? graph_of(im, gs, top->module) : NULL;
    if (!g)
        return;
    long cur = fn_at(g, top->pc - (top->pc >= top->line_bias ? top->line_bias : 0));
    if (cur < 0 || g->fn[cur].kernel)
        return;
    if (g->why) {
        set_note(s, strdup(g->why));
        return;
    }
    /* The chain: every function shown, then the inferred ones (CD_MAX_INFERRED bounds those). */
    struct walk w = { .im = im, .c = c, .s = s, .g = g };
    w.chain = malloc((s->ntrusted + 2 + CD_MAX_INFERRED) * sizeof *w.chain);
    if (!w.chain)
        return;
    long f = fn_at(g, s->where.pc);
    if (f >= 0)
        w.chain[w.nchain++] = (size_t)f;
    for (size_t k = 0; k < s->ntrusted; k++)
        if ((f = fn_at(g, s->caller_where[k].pc - 1)) >= 0)
            w.chain[w.nchain++] = (size_t)f;
    if (!on_chain(&w, (size_t)cur))
        w.chain[w.nchain++] = (size_t)cur;
    walk_up(&w, (size_t)cur);
    free(w.chain);
}
