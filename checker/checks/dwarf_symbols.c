/* dwarf-symbols: the DWARF describes the code that is really there. Both directions, matched by address
 * (section + offset in relocatable objects) and by name (linkage name; DW_AT_name for C), sizes compared.
 * A stale object or a poisoned cache shows up as subprograms without symbols and symbols without subprograms. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/host_util.h"

#define MAX_LISTED 50

struct key {
    uint64_t k;
    size_t i;
};

static int by_key(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    return x->k < y->k ? -1 : x->k > y->k ? 1 : x->i < y->i ? -1 : x->i > y->i;
}

/* First index with k >= key. */
static size_t lower(const struct key *v, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (v[m].k < key)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

/* A symbol's names, worked out once: as written, without a clone suffix (.isra.0, .cold), and unqualified
 * (demangled) where some subprogram at its address has only a DW_AT_name. */
struct sym_names {
    const char *sym;
    char *base, *plain;
};

static int names_match(const struct sym_names *n, const struct tl_subprogram *s)
{
    const char *base = n->base ? n->base : n->sym;
    const char *names[2] = { s->linkage_name, s->name };
    for (int i = 0; i < 2; i++)
        if (names[i] && (strcmp(n->sym, names[i]) == 0 || strcmp(base, names[i]) == 0))
            return 1;
    /* gcc -g1 (what trueline-cc forces by default) gives C++ subprograms a DW_AT_name but no linkage name */
    return !s->linkage_name && s->name && n->plain && strcmp(n->plain, s->name) == 0;
}

static const char *sub_name(const struct tl_subprogram *s)
{
    return s->linkage_name ? s->linkage_name : s->name ? s->name : "(unnamed)";
}

struct ctx {
    const struct tl_file *f;
    enum tl_severity sev;
    struct tl_findings *out;
    size_t reported;
    char missing[256];
    const unsigned char *bare; /* per unit of image.cus: it has line tables but no subprogram at all */
    size_t skipped;
};

/* Units with no subprogram: clang's -gline-tables-only (what trueline-cc forces for clang by default) and
 * the skeleton units of -gsplit-dwarf, whose subprograms are in the .dwo. Their functions have nothing to
 * be compared with; line-tables still checks their rows. NULL when out of memory (all are compared). */
static unsigned char *units_without_subprograms(const struct tl_image *h)
{
    unsigned char *bare = malloc(h->ncus ? h->ncus : 1);
    if (!bare)
        return NULL;
    memset(bare, 1, h->ncus);
    for (size_t i = 0; i < h->nsubprograms; i++)
        if (h->subprograms[i].cu >= 0 && (size_t)h->subprograms[i].cu < h->ncus)
            bare[h->subprograms[i].cu] = 0;
    return bare;
}

static int in_bare_unit(const struct ctx *c, const struct tl_function *fn)
{
    return c->bare && fn->cu_unit && fn->cu_unit <= c->f->host.ncus && c->bare[fn->cu_unit - 1];
}

static void problem(struct ctx *c, const char *mangled, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void problem(struct ctx *c, const char *mangled, const char *fmt, ...)
{
    if (c->reported++ >= MAX_LISTED)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *d = tl_demangle(mangled);
    tl_emit(c->out, "dwarf-symbols", c->sev, c->f->display, d,
            "rebuild the file from clean sources (a stale object, a cache entry from another build or a debug file "
            "of another build gives DWARF that does not describe this code)", "%s", msg);
    free(d);
    size_t used = strlen(c->missing);
    if (used + strlen(mangled) + 3 < sizeof c->missing)
        snprintf(c->missing + used, sizeof c->missing - used, "%s%s", used ? ", " : "", mangled);
}

static uint64_t func_key(const struct tl_file *f, const struct tl_function *fn)
{
    return f->elf_type == 1 /* ET_REL */ ? TL_ADDR_KEY(fn->shndx, fn->addr) : fn->addr;
}

static uint64_t sub_key(const struct tl_file *f, const struct tl_subprogram *s)
{
    return f->elf_type == 1 ? TL_ADDR_KEY(s->shndx, s->low_pc) : s->low_pc;
}

/* The subprogram at one address that any symbol there names. Aliases (C1/C2 constructors, ICF) share an address
 * and any of them may carry the DWARF name. ICF folds thousands of functions onto one address: the group is
 * matched once, each symbol demangled once (per symbol and pair it was cubic: 12,000 aliases took 20 s). */
static const struct tl_subprogram *group_match(const struct tl_image *h, const struct key *fg, size_t nfg,
                                               const struct key *sg, size_t nsg)
{
    struct sym_names *nm = calloc(nfg ? nfg : 1, sizeof *nm);
    if (!nm)
        return NULL;
    int need_plain = 0;
    for (size_t j = 0; j < nsg; j++)
        need_plain |= !h->subprograms[sg[j].i].linkage_name && h->subprograms[sg[j].i].name;
    for (size_t a = 0; a < nfg; a++) {
        char buf[512];
        nm[a].sym = h->funcs[fg[a].i].name;
        const char *base = tl_clone_base(nm[a].sym, buf, sizeof buf);
        nm[a].base = base != nm[a].sym ? strdup(base) : NULL;
        nm[a].plain = need_plain ? tl_unqualified_name(base) : NULL;
    }
    const struct tl_subprogram *match = NULL;
    for (size_t j = 0; j < nsg && !match; j++)
        for (size_t a = 0; a < nfg && !match; a++)
            if (names_match(&nm[a], &h->subprograms[sg[j].i]))
                match = &h->subprograms[sg[j].i];
    for (size_t a = 0; a < nfg; a++) {
        free(nm[a].base);
        free(nm[a].plain);
    }
    free(nm);
    return match;
}

/* symbols -> subprograms, one address at a time */
static void symbols_to_dwarf(struct ctx *c, const struct key *subs, size_t ns, const struct key *funcs, size_t nf)
{
    const struct tl_image *h = &c->f->host;
    for (size_t i = 0, ie; i < nf; i = ie) {
        uint64_t key = funcs[i].k;
        size_t k = lower(subs, ns, key), ke = k;
        for (ie = i; ie < nf && funcs[ie].k == key; ie++)
            ;
        while (ke < ns && subs[ke].k == key)
            ke++;
        const struct tl_subprogram *any = k < ke ? &h->subprograms[subs[k].i] : NULL;
        const struct tl_subprogram *match = any ? group_match(h, funcs + i, ie - i, subs + k, ke - k) : NULL;
        for (size_t a = i; a < ie; a++) {
            const struct tl_function *fn = &h->funcs[funcs[a].i];
            if (!any && strstr(fn->name, ".cold"))
                continue; /* GCC's split-off unlikely part of a function: DWARF 4 from GCC 8 lists it in the
                           * parent's DW_AT_ranges or not at all (libnccl.so.2: 87 such symbols, none with a
                           * subprogram) */
            if (!any && in_bare_unit(c, fn)) {
                c->skipped++;
                continue;
            }
            if (!any)
                problem(c, fn->name, "function symbol at 0x%llx has no DWARF subprogram", (unsigned long long)fn->addr);
            else if (!match)
                problem(c, fn->name, "the DWARF subprogram at 0x%llx is named %s, not this symbol",
                        (unsigned long long)fn->addr, sub_name(any));
            else if (match->high_pc > match->low_pc && match->high_pc - match->low_pc != fn->size &&
                     !strchr(fn->name, '.'))
                problem(c, fn->name, "size differs: symbol %llu bytes, DWARF subprogram %llu bytes",
                        (unsigned long long)fn->size, (unsigned long long)(match->high_pc - match->low_pc));
        }
    }
}

/* subprograms -> symbols */
static void dwarf_to_symbols(struct ctx *c, const struct key *subs, size_t ns, const struct key *funcs, size_t nf)
{
    const struct tl_image *h = &c->f->host;
    for (size_t j = 0; j < ns; j++) {
        const struct tl_subprogram *s = &h->subprograms[subs[j].i];
        size_t k = lower(funcs, nf, subs[j].k);
        if (k == nf || funcs[k].k != subs[j].k)
            problem(c, sub_name(s), "DWARF subprogram at 0x%llx has no function symbol there",
                    (unsigned long long)s->low_pc);
    }
}

static void run(const struct tl_file *f, const struct tl_policy *p, enum tl_severity sev, struct tl_findings *out)
{
    (void)p;
    const struct tl_image *h = &f->host;
    if (!h->has_debug_info)
        return;
    /* A walk stopped early (a sibling chain pointing backwards, the time limit) leaves the subprograms after
     * the stop unread: their symbols would be reported as lacking DWARF when the DWARF is only unreadable. */
    if (h->dwarf_read_error)
        tl_emit(out, "dwarf-symbols", TL_SEV_WARNING, f->display, NULL, NULL,
                "the DWARF (.debug_info) could not be read to its end%s%s%s: %zu subprograms read; symbols without "
                "a subprogram are not reported",
                f->warning ? " (" : "", f->warning ? f->warning : "", f->warning ? ")" : "", h->nsubprograms);
    if (h->nsubprograms == 0)
        return;
    struct key *subs = calloc(h->nsubprograms, sizeof *subs), *funcs = calloc(h->nfuncs ? h->nfuncs : 1, sizeof *funcs);
    size_t ns = 0, nf = 0;
    for (size_t i = 0; subs && i < h->nsubprograms; i++) {
        const struct tl_subprogram *s = &h->subprograms[i];
        /* linked files: subprograms of discarded sections (COMDAT duplicates, --gc-sections) are tombstoned at
         * 0 (or -1/-2 by newer linkers); ET_REL: no section means no code */
        if (f->elf_type == 1 ? s->shndx == 0 : (s->low_pc == 0 || s->low_pc >= (uint64_t)-2))
            continue;
        subs[ns++] = (struct key){ sub_key(f, s), i };
    }
    for (size_t i = 0; funcs && i < h->nfuncs; i++)
        if (!tl_is_crt_function(h->funcs[i].name))
            funcs[nf++] = (struct key){ func_key(f, &h->funcs[i]), i };
    if (subs && funcs) {
        qsort(subs, ns, sizeof *subs, by_key);
        qsort(funcs, nf, sizeof *funcs, by_key);
        struct ctx c = { .f = f, .sev = sev, .out = out };
        c.bare = units_without_subprograms(h);
        if (!h->dwarf_read_error)
            symbols_to_dwarf(&c, subs, ns, funcs, nf);
        dwarf_to_symbols(&c, subs, ns, funcs, nf);
        if (c.skipped)
            tl_emit(out, "dwarf-symbols", TL_SEV_INFO, f->display, NULL, NULL,
                    "%zu functions not compared: their units have line tables but no subprograms (clang "
                    "-gline-tables-only, or the skeletons of -gsplit-dwarf)", c.skipped);
        free((void *)c.bare);
        /* the summary fails the run only for problems beyond those listed one by one (so that suppressing the
         * listed ones is enough) */
        if (c.reported)
            tl_emit(out, "dwarf-symbols", c.reported > MAX_LISTED ? sev : TL_SEV_INFO, f->display, NULL, NULL,
                    "%zu symbols, %zu subprograms, %zu disagreements%s%s%s", nf, ns, c.reported,
                    c.missing[0] ? " (" : "", c.missing, c.missing[0] ? ")" : "");
    }
    free(subs);
    free(funcs);
}

const struct tl_check tl_check_dwarf_symbols = {
    .id = "dwarf-symbols",
    .default_severity = TL_SEV_ERROR,
    .summary = "DWARF vs symbols",
    .help_uri = "docs/checks/dwarf-symbols.md",
    .run = run,
};
