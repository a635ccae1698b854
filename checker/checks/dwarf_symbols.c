/* dwarf-symbols: the DWARF describes the code that is really there. Both directions, matched by address
 * (section + offset in relocatable objects) and by name (checks/dwarf_names.c), sizes compared. A stale object,
 * a poisoned cache or a debug file of another build shows up as a subprogram named for another function than
 * the symbol at its address, or as a subprogram at an address where no function starts. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/dwarf_names.h"
#include "checks/host_util.h"

#define MISSING_NAMED 256 /* bytes of the summary's list of names */

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

static const char *sub_name(const struct tlck_subprogram *s)
{
    return s->linkage_name ? s->linkage_name : s->name ? s->name : "(unnamed)";
}

struct ctx {
    const struct tlck_file *f;
    enum tlck_severity sev;
    struct tlck_findings *out;
    size_t reported;
    char missing[MISSING_NAMED];
    const unsigned char *bare; /* per unit of image.cus: it has line tables but no subprogram at all */
    size_t skipped;     /* functions of units without subprograms */
    size_t undescribed; /* functions with line rows of a unit with subprograms, but none of their own */
    const struct tlck_function **undescribed_fn; /* each of them (NULL when out of memory: the count stands) */
    size_t undescribed_cap;
    size_t no_debug;    /* functions with neither */
    const char *no_debug_example;
};

/* Units with no subprogram: clang's -gline-tables-only (what trueline-cc forces for clang by default) and
 * the skeleton units of -gsplit-dwarf, whose subprograms are in the .dwo. Their functions have nothing to
 * be compared with; line-tables still checks their rows. NULL when out of memory (all are compared). */
static unsigned char *units_without_subprograms(const struct tlck_image *h)
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

static int in_bare_unit(const struct ctx *c, const struct tlck_function *fn)
{
    return c->bare && fn->cu_unit && fn->cu_unit <= c->f->host.ncus && c->bare[fn->cu_unit - 1];
}

#define STALE_HINT                                                                                             \
    "rebuild the file from clean sources (a stale object, a cache entry from another build or a debug file of " \
    "another build gives DWARF that does not describe this code)"

static void problem(struct ctx *c, const char *mangled, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void problem(struct ctx *c, const char *mangled, const char *hint, const char *fmt, ...)
{
    c->reported++; /* every one is a finding: the text report shortens long lists, JSON and SARIF do not */
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tlck_emit_symbol(c->out, "dwarf-symbols", c->sev, c->f->display, mangled, hint, "%s", msg);
    size_t used = strlen(c->missing);
    if (used + strlen(mangled) + 3 < sizeof c->missing)
        snprintf(c->missing + used, sizeof c->missing - used, "%s%s", used ? ", " : "", mangled);
}

static uint64_t func_key(const struct tlck_file *f, const struct tlck_function *fn)
{
    return f->elf_type == 1 /* ET_REL */ ? TLCK_ADDR_KEY(fn->shndx, fn->addr) : fn->addr;
}

static uint64_t sub_key(const struct tlck_file *f, const struct tlck_subprogram *s)
{
    return f->elf_type == 1 ? TLCK_ADDR_KEY(s->shndx, s->low_pc) : s->low_pc;
}

static int in_fortran_unit(const struct tlck_image *h, const struct tlck_subprogram *s)
{
    return s->cu >= 0 && (size_t)s->cu < h->ncus && tlck_lang_is_fortran(h->cus[s->cu].lang);
}

/* The subprogram at one address that any symbol there names. Aliases (C1/C2 constructors, ICF) share an address
 * and any of them may carry the DWARF name. ICF folds thousands of functions onto one address: the group is
 * matched once, each name demangled at most once, and only after no name matched as written (per symbol and
 * pair it was cubic: 12,000 aliases took 20 s). */
static const struct tlck_subprogram *group_match(const struct tlck_image *h, const struct key *fg, size_t nfg,
                                               const struct key *sg, size_t nsg)
{
    struct tlck_sym_names *sym = calloc(nfg ? nfg : 1, sizeof *sym);
    struct tlck_sub_names *sub = calloc(nsg ? nsg : 1, sizeof *sub);
    const struct tlck_subprogram *match = NULL;
    if (sym && sub) {
        for (size_t a = 0; a < nfg; a++)
            tlck_sym_names_init(&sym[a], h->funcs[fg[a].i].name);
        for (size_t j = 0; j < nsg; j++)
            tlck_sub_names_init(&sub[j], &h->subprograms[sg[j].i], in_fortran_unit(h, &h->subprograms[sg[j].i]));
        for (size_t j = 0; j < nsg && !match; j++)
            for (size_t a = 0; a < nfg && !match; a++)
                if (tlck_names_equal(&sym[a], sub[j].s))
                    match = sub[j].s;
        for (size_t j = 0; j < nsg && !match; j++)
            for (size_t a = 0; a < nfg && !match; a++)
                if (tlck_names_match(&sym[a], &sub[j]))
                    match = sub[j].s;
        for (size_t a = 0; a < nfg; a++)
            tlck_sym_names_free(&sym[a]);
        for (size_t j = 0; j < nsg; j++)
            tlck_sub_names_free(&sub[j]);
    }
    free(sym);
    free(sub);
    return match;
}

/* A function symbol with no subprogram at its address is code the DWARF does not describe, not code it
 * describes wrongly: stale DWARF shows as subprograms at addresses without their symbols and names that
 * disagree. Such symbols are counted, by why:
 * - entry points the compiler never describes (thunks, transaction clones, .cold parts), and the C runtime's;
 * - units with line tables only (clang -gline-tables-only, -gsplit-dwarf skeletons);
 * - functions whose rows name a unit with subprograms: GCC emits some optimised functions without a
 *   subprogram of their own (jsoncpp's Json::OurReader::skipSpaces at -O3);
 * - functions without line rows: objects built without -g, vendor libraries, libgcc's helpers. line-tables
 *   reports those, as errors where they are the user's. */
static void no_subprogram(struct ctx *c, const struct tlck_function *fn)
{
    if (tlck_made_without_subprogram(fn->name) || tlck_is_crt_function(fn->name))
        return;
    if (in_bare_unit(c, fn))
        c->skipped++;
    else if (fn->cu_unit) {
        if (c->undescribed == c->undescribed_cap) {
            size_t cap = c->undescribed_cap ? 2 * c->undescribed_cap : 16;
            const struct tlck_function **v = realloc(c->undescribed_fn, cap * sizeof *v);
            if (v)
                c->undescribed_fn = v, c->undescribed_cap = cap;
        }
        if (c->undescribed < c->undescribed_cap)
            c->undescribed_fn[c->undescribed] = fn;
        c->undescribed++;
    }
    else if (c->no_debug++ == 0)
        c->no_debug_example = fn->name;
}

/* symbols -> subprograms, one address at a time */
static void symbols_to_dwarf(struct ctx *c, const struct key *subs, size_t ns, const struct key *funcs, size_t nf)
{
    const struct tlck_image *h = &c->f->host;
    for (size_t i = 0, ie; i < nf; i = ie) {
        uint64_t key = funcs[i].k;
        size_t k = lower(subs, ns, key), ke = k;
        for (ie = i; ie < nf && funcs[ie].k == key; ie++)
            ;
        while (ke < ns && subs[ke].k == key)
            ke++;
        const struct tlck_subprogram *any = k < ke ? &h->subprograms[subs[k].i] : NULL;
        const struct tlck_subprogram *match = any ? group_match(h, funcs + i, ie - i, subs + k, ke - k) : NULL;
        for (size_t a = i; a < ie; a++) {
            const struct tlck_function *fn = &h->funcs[funcs[a].i];
            if (!any)
                no_subprogram(c, fn);
            else if (!match)
                problem(c, fn->name, STALE_HINT, "the DWARF subprogram at 0x%llx is named %s, not this symbol",
                        (unsigned long long)fn->addr, sub_name(any));
            else if (match->high_pc > match->low_pc && match->high_pc - match->low_pc != fn->size &&
                     !strchr(fn->name, '.'))
                problem(c, fn->name, STALE_HINT, "size differs: symbol %llu bytes, DWARF subprogram %llu bytes",
                        (unsigned long long)fn->size, (unsigned long long)(match->high_pc - match->low_pc));
        }
    }
}

/* subprograms -> symbols */
static void dwarf_to_symbols(struct ctx *c, const struct key *subs, size_t ns, const struct key *funcs, size_t nf)
{
    const struct tlck_image *h = &c->f->host;
    for (size_t j = 0; j < ns; j++) {
        const struct tlck_subprogram *s = &h->subprograms[subs[j].i];
        size_t k = lower(funcs, nf, subs[j].k);
        if (k == nf || funcs[k].k != subs[j].k)
            problem(c, sub_name(s), STALE_HINT, "DWARF subprogram at 0x%llx has no function symbol there",
                    (unsigned long long)s->low_pc);
    }
}

static void run(const struct tlck_file *f, const struct tlck_policy *p, const void *state, enum tlck_severity sev,
                struct tlck_findings *out)
{
    (void)p;
    const struct tlck_image *h = &f->host;
    if (!h->has_debug_info)
        return;
    /* A walk stopped early (a sibling chain pointing backwards, the time limit) leaves the subprograms after
     * the stop unread: their symbols would be reported as lacking DWARF when the DWARF is only unreadable. */
    if (h->dwarf_read_error)
        tlck_emit(out, "dwarf-symbols", TLCK_SEV_WARNING, f->display, NULL, NULL,
                "the DWARF (.debug_info) could not be read to its end%s%s%s: %zu subprograms read; symbols without "
                "a subprogram are not reported",
                f->warning ? " (" : "", f->warning ? f->warning : "", f->warning ? ")" : "", h->nsubprograms);
    if (h->nsubprograms == 0)
        return;
    struct key *subs = calloc(h->nsubprograms, sizeof *subs), *funcs = calloc(h->nfuncs ? h->nfuncs : 1, sizeof *funcs);
    size_t ns = 0, nf = 0;
    for (size_t i = 0; subs && i < h->nsubprograms; i++) {
        const struct tlck_subprogram *s = &h->subprograms[i];
        /* linked files: subprograms of discarded sections (COMDAT duplicates, --gc-sections) are tombstoned at
         * 0 (or -1/-2 by newer linkers); ET_REL: no section means no code */
        if (f->elf_type == 1 ? s->shndx == 0 : (s->low_pc == 0 || s->low_pc >= (uint64_t)-2))
            continue;
        subs[ns++] = (struct key){ sub_key(f, s), i };
    }
    /* the C runtime's functions are looked up too: where its start files carry DWARF (__libc_csu_init of
     * older glibc), their subprograms have symbols; they are not counted as the file's own */
    size_t ncrt = 0;
    for (size_t i = 0; funcs && i < h->nfuncs; i++) {
        funcs[nf++] = (struct key){ func_key(f, &h->funcs[i]), i };
        ncrt += tlck_is_crt_function(h->funcs[i].name) != 0;
    }
    if (subs && funcs) {
        qsort(subs, ns, sizeof *subs, by_key);
        qsort(funcs, nf, sizeof *funcs, by_key);
        struct ctx c = { .f = f, .sev = sev, .out = out };
        c.bare = units_without_subprograms(h);
        if (!h->dwarf_read_error)
            symbols_to_dwarf(&c, subs, ns, funcs, nf);
        dwarf_to_symbols(&c, subs, ns, funcs, nf);
        if (c.undescribed)
            tlck_emit(out, "dwarf-symbols", TLCK_SEV_INFO, f->display, NULL, NULL,
                    "%zu function%s line rows but no DWARF subprogram of %s own (GCC emits none for some "
                    "functions it optimises)", c.undescribed, c.undescribed == 1 ? " has" : "s have",
                    c.undescribed == 1 ? "its" : "their");
        /* each of them, as details of that count: listed with --verbose, always in JSON and SARIF */
        for (size_t i = 0; i < c.undescribed && i < c.undescribed_cap; i++) {
            const struct tlck_function *fn = c.undescribed_fn[i];
            struct tlck_finding *x = tlck_emit_symbol(out, "dwarf-symbols", TLCK_SEV_INFO, f->display, fn->name, NULL,
                                                      "has line rows%s%s but no DWARF subprogram of its own",
                                                      fn->cu ? " of unit " : "", fn->cu ? fn->cu : "");
            if (x)
                x->detail = 1;
        }
        free(c.undescribed_fn);
        if (c.no_debug) {
            char *ex = tlck_demangle(c.no_debug_example);
            tlck_emit(out, "dwarf-symbols", TLCK_SEV_INFO, f->display, NULL, NULL,
                    "%zu function%s neither a DWARF subprogram nor line rows, not compared: code built without "
                    "-g (line-tables reports it) (e.g. %s)", c.no_debug, c.no_debug == 1 ? " has" : "s have", ex);
            free(ex);
        }
        if (c.skipped)
            tlck_emit(out, "dwarf-symbols", TLCK_SEV_INFO, f->display, NULL, NULL,
                    "%zu functions not compared: their units have line tables but no subprograms (clang "
                    "-gline-tables-only, or the skeletons of -gsplit-dwarf)", c.skipped);
        free((void *)c.bare);
        /* a count only: each disagreement is a finding of its own, so suppressing those is enough */
        if (c.reported)
            tlck_emit(out, "dwarf-symbols", TLCK_SEV_INFO, f->display, NULL, NULL,
                    "%zu symbols, %zu subprograms, %zu disagreements%s%s%s", nf - ncrt, ns, c.reported,
                    c.missing[0] ? " (" : "", c.missing, c.missing[0] ? ")" : "");
    }
    free(subs);
    free(funcs);
}

const struct tlck_check tlck_check_dwarf_symbols = {
    .id = "dwarf-symbols",
    .default_severity = TLCK_SEV_ERROR,
    .summary = "DWARF vs symbols",
    .help_uri = "docs/checks/dwarf-symbols.md",
    .run = run,
};
