/* Host addresses -> inline chains, from a linked ELF's DWARF through libdwarf (read once per file):
 *   - scopes: each DW_TAG_subprogram with code and, nested in it (also through lexical blocks), each
 *     DW_TAG_inlined_subroutine, one entry per address range, with its depth, its name (linkage name where
 *     there is one, following DW_AT_abstract_origin / DW_AT_specification) and its call site;
 *   - rows: the line table as address ranges [row, next row) of each sequence, sorted.
 * At an address: the scopes holding it, deepest first; the innermost frame's position is the line row, each
 * outer frame's is the call site of the frame inside it — what `addr2line -f -i` prints. */
#include "tools/symbolize_host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "trueline/elf_file.h"
#include "read/dwarf_compat.h"
#include "read/dwarf_ranges.h"

/* libdwarf 20210528 takes an access mode and dwarf_finish an error pointer; 0.x and 2.x neither */
#ifdef DW_LIBDWARF_VERSION_MAJOR
#define host_dwarf_init(fd, dbg, err) dwarf_init_b(fd, DW_GROUPNUMBER_ANY, NULL, NULL, dbg, err)
#define host_dwarf_finish(dbg) dwarf_finish(dbg)
#else
#define host_dwarf_init(fd, dbg, err) dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, dbg, err)
#define host_dwarf_finish(dbg) dwarf_finish(dbg, NULL)
#endif

#define MAX_DEPTH 64

struct scope {
    uint64_t lo, hi;
    unsigned depth;       /* 0: the subprogram */
    const char *name;     /* interned */
    int linkage;          /* name is a linkage (mangled) name */
    const char *call_file;/* inlined: where the call is (interned) */
    unsigned call_line;
};

/* The scopes of one subprogram range: scopes[first .. first+n) (the subprogram's own first). */
struct top {
    uint64_t lo, hi;
    size_t first, n;
};

struct row {
    uint64_t lo, hi;
    const char *file;
    unsigned line;
};

/* A function symbol of .symtab (else .dynsym), or an untyped one in code (an assembly routine's label). */
struct fsym {
    uint64_t lo, hi;
    uint64_t sec_hi;  /* the end of its section: a symbol names no address past it */
    const char *name; /* interned */
    int global;
    int untyped;      /* STT_NOTYPE: names an address only as the nearest symbol before it, as binutils does */
};

struct tlck_host_lines {
    struct fsym *syms;    size_t nsyms, fcap;
    struct scope *scopes; size_t nscopes, scap;
    struct top *tops;     size_t ntops, tcap;
    struct row *rows;     size_t nrows, rcap;
    char **strs;          size_t nstrs, strcap; /* owned strings (names, paths) */
};

/* The walk of one unit. */
struct unit {
    struct tlck_host_lines *h;
    Dwarf_Debug dbg;
    Dwarf_Half version;
    int mangles;          /* a language whose names are mangled (C++, D, Rust): a plain DW_AT_name is no
                           * linkage name there; in C it is the symbol's name */
    Dwarf_Addr base;
    char **files;         /* dwarf_srcfiles of the unit */
    Dwarf_Signed nfiles;
};

static const char *keep(struct tlck_host_lines *h, const char *s)
{
    if (!s)
        return NULL;
    char *c = tlck_strdup(s);
    if (!c || tlck_grow((void **)&h->strs, &h->strcap, h->nstrs + 1, sizeof *h->strs) != 0) {
        free(c);
        return NULL;
    }
    h->strs[h->nstrs++] = c;
    return c;
}

static const char *str_attr(Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Attribute a;
    Dwarf_Error err = 0;
    char *s = NULL;
    if (dwarf_attr(die, at, &a, &err) != DW_DLV_OK)
        return NULL;
    if (dwarf_formstring(a, &s, &err) != DW_DLV_OK)
        s = NULL;
    dwarf_dealloc_attribute(a);
    return s; /* points into .debug_str or the DIE: lives as long as dbg */
}

static int udata_attr(Dwarf_Die die, Dwarf_Half at, Dwarf_Unsigned *v)
{
    Dwarf_Attribute a;
    Dwarf_Error err = 0;
    Dwarf_Signed sv = 0;
    if (dwarf_attr(die, at, &a, &err) != DW_DLV_OK)
        return -1;
    int rc = dwarf_formudata(a, v, &err) == DW_DLV_OK ? 0 : -1;
    /* DW_FORM_implicit_const (GCC's DWARF 5 call_file): libdwarf 20210528 gives it as signed only (errors are
     * the Dwarf_Debug's, freed by dwarf_finish) */
    if (rc != 0 && dwarf_formsdata(a, &sv, &err) == DW_DLV_OK && sv >= 0)
        *v = (Dwarf_Unsigned)sv, rc = 0;
    dwarf_dealloc_attribute(a);
    return rc;
}

static int ref_attr(Dwarf_Die die, Dwarf_Half at, Dwarf_Off *off)
{
    Dwarf_Attribute a;
    Dwarf_Error err = 0;
    if (dwarf_attr(die, at, &a, &err) != DW_DLV_OK)
        return -1;
    int rc = dwarf_global_formref(a, off, &err) == DW_DLV_OK ? 0 : -1;
    dwarf_dealloc_attribute(a);
    return rc;
}

/* The linkage name where there is one, else the name (as binutils' addr2line prefers them), following
 * DW_AT_abstract_origin and DW_AT_specification. */
/* *linkage: 1 a linkage name, 2 a plain name found through another DIE, 0 the DIE's own plain name. */
static const char *die_name(Dwarf_Debug dbg, Dwarf_Die die, int depth, int *linkage)
{
    const char *s = str_attr(die, DW_AT_linkage_name);
    if (!s)
        s = str_attr(die, DW_AT_MIPS_linkage_name);
    if (s) {
        *linkage = 1;
        return s;
    }
    const char *name = str_attr(die, DW_AT_name);
    Dwarf_Off off;
    Dwarf_Die other;
    Dwarf_Error err = 0;
    if (depth < 4 && (ref_attr(die, DW_AT_abstract_origin, &off) == 0 || ref_attr(die, DW_AT_specification, &off) == 0) &&
        dwarf_offdie_b(dbg, off, 1, &other, &err) == DW_DLV_OK) {
        int l = 0;
        const char *o = die_name(dbg, other, depth + 1, &l);
        dwarf_dealloc_die(other);
        if (o && (l || !name)) {
            *linkage = l == 1 ? 1 : 2;
            return o;
        }
    }
    *linkage = 0;
    return name;
}

static void add_scope(struct unit *u, uint64_t lo, uint64_t hi, unsigned depth, const char *name, int linkage,
                      const char *call_file, unsigned call_line)
{
    struct tlck_host_lines *h = u->h;
    /* lo 0: code the linker dropped (a discarded COMDAT copy, --gc-sections), tombstoned there */
    if (hi <= lo || lo == 0 || tlck_grow((void **)&h->scopes, &h->scap, h->nscopes + 1, sizeof *h->scopes) != 0)
        return;
    h->scopes[h->nscopes++] = (struct scope){ lo, hi, depth, name, linkage == 1 || !u->mangles, call_file, call_line };
}

struct scope_ranges {
    struct unit *u;
    unsigned depth;
    const char *name;
    int linkage;
    const char *call_file;
    unsigned call_line;
};

static void add_scope_range(void *ctx, Dwarf_Addr lo, Dwarf_Addr hi)
{
    struct scope_ranges *s = ctx;
    add_scope(s->u, lo, hi, s->depth, s->name, s->linkage, s->call_file, s->call_line);
}

/* The address ranges of a DIE (low/high pc, or DW_AT_ranges in DWARF 2-4 and 5) as scopes. */
static void die_ranges(struct unit *u, Dwarf_Die die, unsigned depth, const char *name, int linkage,
                       const char *call_file, unsigned call_line)
{
    Dwarf_Addr lo = 0, hi = 0;
    Dwarf_Half form = 0;
    enum Dwarf_Form_Class cls = DW_FORM_CLASS_UNKNOWN;
    Dwarf_Error err = 0;
    if (dwarf_lowpc(die, &lo, &err) == DW_DLV_OK) {
        if (dwarf_highpc_b(die, &hi, &form, &cls, &err) == DW_DLV_OK) {
            if (cls == DW_FORM_CLASS_CONSTANT)
                hi += lo;
            add_scope(u, lo, hi, depth, name, linkage, call_file, call_line);
        }
        return;
    }
    struct scope_ranges s = { u, depth, name, linkage, call_file, call_line };
    tlck_dw_die_ranges(u->dbg, die, u->version, u->base, add_scope_range, &s);
}

/* DW_AT_call_file's name: file numbers count from 1 in DWARF 2-4, from 0 in DWARF 5. */
static const char *call_file(struct unit *u, Dwarf_Die die)
{
    Dwarf_Unsigned f;
    if (udata_attr(die, DW_AT_call_file, &f) != 0)
        return NULL;
    Dwarf_Signed i = u->version >= 5 ? (Dwarf_Signed)f : (Dwarf_Signed)f - 1;
    return i >= 0 && i < u->nfiles ? keep(u->h, u->files[i]) : NULL;
}

/* Inlined subroutines under die (also inside lexical blocks), at depth. */
static void inlined_under(struct unit *u, Dwarf_Die parent, unsigned depth)
{
    Dwarf_Die die, next;
    Dwarf_Error err = 0;
    if (depth > MAX_DEPTH || dwarf_child(parent, &die, &err) != DW_DLV_OK)
        return;
    for (;;) {
        Dwarf_Half tag = 0;
        dwarf_tag(die, &tag, &err);
        if (tag == DW_TAG_inlined_subroutine) {
            Dwarf_Unsigned line = 0;
            int linkage = 0;
            udata_attr(die, DW_AT_call_line, &line);
            const char *name = keep(u->h, die_name(u->dbg, die, 0, &linkage));
            die_ranges(u, die, depth, name, linkage, call_file(u, die), (unsigned)line);
            inlined_under(u, die, depth + 1);
        } else if (tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block) {
            inlined_under(u, die, depth);
        }
        int rc = dwarf_siblingof_b(u->dbg, die, 1, &next, &err);
        dwarf_dealloc_die(die);
        if (rc != DW_DLV_OK)
            return;
        die = next;
    }
}

/* Subprograms with code anywhere under die (namespaces, classes, nested functions). */
static void subprograms_under(struct unit *u, Dwarf_Die parent, int level)
{
    Dwarf_Die die, next;
    Dwarf_Error err = 0;
    if (level > MAX_DEPTH || dwarf_child(parent, &die, &err) != DW_DLV_OK)
        return;
    for (;;) {
        Dwarf_Half tag = 0;
        dwarf_tag(die, &tag, &err);
        if (tag == DW_TAG_subprogram) {
            size_t first = u->h->nscopes;
            int linkage = 0;
            const char *name = keep(u->h, die_name(u->dbg, die, 0, &linkage));
            die_ranges(u, die, 0, name, linkage, NULL, 0);
            if (u->h->nscopes > first) { /* it has code: its ranges, then its inlined scopes */
                size_t own = u->h->nscopes;
                inlined_under(u, die, 1);
                for (size_t k = first; k < own; k++) {
                    struct tlck_host_lines *h = u->h;
                    if (tlck_grow((void **)&h->tops, &h->tcap, h->ntops + 1, sizeof *h->tops) != 0)
                        break;
                    h->tops[h->ntops++] = (struct top){ h->scopes[k].lo, h->scopes[k].hi, first, h->nscopes - first };
                }
            }
        } else if (tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
                   tag == DW_TAG_union_type || tag == DW_TAG_module) {
            subprograms_under(u, die, level + 1);
        }
        int rc = dwarf_siblingof_b(u->dbg, die, 1, &next, &err);
        dwarf_dealloc_die(die);
        if (rc != DW_DLV_OK)
            return;
        die = next;
    }
}

/* The unit's line table as [row, next row) ranges. */
static void unit_rows(struct unit *u, Dwarf_Die cu)
{
    Dwarf_Unsigned version = 0;
    Dwarf_Small count = 0;
    Dwarf_Line_Context ctx;
    Dwarf_Line *lines;
    Dwarf_Signed n = 0;
    Dwarf_Error err = 0;
    if (dwarf_srclines_b(cu, &version, &count, &ctx, &err) != DW_DLV_OK)
        return;
    if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &err) == DW_DLV_OK) {
        const char *prev_file = NULL;
        char *prev_raw = NULL;
        for (Dwarf_Signed i = 0; i + 1 < n; i++) {
            Dwarf_Addr a = 0, b = 0;
            Dwarf_Unsigned line = 0;
            Dwarf_Bool end = 0;
            char *file = NULL;
            dwarf_lineendsequence(lines[i], &end, &err);
            if (end || dwarf_lineaddr(lines[i], &a, &err) != DW_DLV_OK ||
                dwarf_lineaddr(lines[i + 1], &b, &err) != DW_DLV_OK || b <= a)
                continue;
            dwarf_lineno(lines[i], &line, &err);
            if (dwarf_linesrc(lines[i], &file, &err) != DW_DLV_OK)
                file = NULL;
            const char *f = prev_raw && file && strcmp(prev_raw, file) == 0 ? prev_file : keep(u->h, file);
            if (prev_raw)
                dwarf_dealloc(u->dbg, prev_raw, DW_DLA_STRING);
            prev_raw = file, prev_file = f;
            struct tlck_host_lines *h = u->h;
            if (tlck_grow((void **)&h->rows, &h->rcap, h->nrows + 1, sizeof *h->rows) == 0)
                h->rows[h->nrows++] = (struct row){ a, b, f, (unsigned)line };
        }
        if (prev_raw)
            dwarf_dealloc(u->dbg, prev_raw, DW_DLA_STRING);
    }
    dwarf_srclines_dealloc_b(ctx);
}

static int by_lo_top(const void *a, const void *b)
{
    const struct top *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Rows by address; of rows that start at one address the later in the table wins (stable by index). */
static int by_lo_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo ? 1 : x < y ? -1 : x > y;
}

static void read_unit(struct tlck_host_lines *h, Dwarf_Debug dbg, Dwarf_Die cu, Dwarf_Half version)
{
    struct unit u = { .h = h, .dbg = dbg, .version = version };
    Dwarf_Error err = 0;
    Dwarf_Unsigned lang = 0;
    if (dwarf_srclang(cu, &lang, &err) == DW_DLV_OK)
        u.mangles = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 || lang == DW_LANG_C_plus_plus_11 ||
                    lang == DW_LANG_C_plus_plus_14 || lang == DW_LANG_ObjC_plus_plus || lang == DW_LANG_D ||
                    lang == DW_LANG_Rust;
    dwarf_lowpc(cu, &u.base, &err);
    if (dwarf_srcfiles(cu, &u.files, &u.nfiles, &err) != DW_DLV_OK)
        u.files = NULL, u.nfiles = 0;
    subprograms_under(&u, cu, 0);
    unit_rows(&u, cu);
    for (Dwarf_Signed i = 0; i < u.nfiles; i++)
        dwarf_dealloc(dbg, u.files[i], DW_DLA_STRING);
    if (u.files)
        dwarf_dealloc(dbg, u.files, DW_DLA_LIST);
}

static int by_lo_sym(const void *a, const void *b)
{
    const struct fsym *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->untyped != y->untyped)
        return x->untyped - y->untyped;
    return y->global - x->global;
}

/* binutils (elf_maybe_function_sym) takes an untyped symbol for a function, except the local hidden unsized
 * ones the annobin plugin leaves; here only those in code, where an assembly routine's entry label lives
 * (without .type it is STT_NOTYPE), not _end or __bss_start. */
static int untyped_code_symbol(const GElf_Sym *sym, Elf_Scn *ss)
{
    GElf_Shdr sh;
    if (GELF_ST_TYPE(sym->st_info) != STT_NOTYPE || !ss || !gelf_getshdr(ss, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
        return 0;
    return !(sym->st_size == 0 && GELF_ST_BIND(sym->st_info) == STB_LOCAL &&
             GELF_ST_VISIBILITY(sym->st_other) == STV_HIDDEN);
}

/* Sized function symbols of .symtab, else .dynsym: what addr2line names the innermost frame by when the DWARF
 * gives it no linkage name (the function an inlined template landed in, a clone's "[clone .constprop.0]").
 * (binutils then also renames that DWARF function after the symbol for the rest of its run, when the symbol
 * starts where the function does: its answers depend on what was asked before. Here each answer stands alone:
 * what addr2line answers when asked that one address.) Untyped symbols in code are kept for addresses no
 * function's DWARF holds: binutils names those after the nearest symbol before them, typed or not. */
static void read_symbols(struct tlck_host_lines *h, const char *path)
{
    tl_elf e;
    tl_error err;
    if (tl_elf_open_path(&e, path, &err) != 0)
        return;
    for (int want = SHT_SYMTAB; want && h->nsyms == 0; want = want == SHT_SYMTAB ? SHT_DYNSYM : 0) {
        Elf_Scn *scn = NULL;
        GElf_Shdr sh;
        while ((scn = elf_nextscn(e.elf, scn)) != NULL) {
            if (!gelf_getshdr(scn, &sh) || sh.sh_type != (GElf_Word)want || sh.sh_entsize == 0)
                continue;
            Elf_Data *d = elf_getdata(scn, NULL);
            size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
            for (size_t i = 0; i < n; i++) {
                GElf_Sym sym;
                /* unsized ones too (_init, _start of some crt files): only the nearest-before lookup uses them */
                if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
                    continue;
                Elf_Scn *ss = sym.st_shndx < SHN_LORESERVE ? elf_getscn(e.elf, sym.st_shndx) : NULL;
                int untyped = untyped_code_symbol(&sym, ss);
                if (GELF_ST_TYPE(sym.st_info) != STT_FUNC && !untyped)
                    continue;
                const char *name = elf_strptr(e.elf, sh.sh_link, sym.st_name);
                if (!name || (untyped && !*name) || tlck_grow((void **)&h->syms, &h->fcap, h->nsyms + 1, sizeof *h->syms) != 0)
                    continue;
                GElf_Shdr ssh;
                uint64_t sec_hi = ss && gelf_getshdr(ss, &ssh) ? ssh.sh_addr + ssh.sh_size : sym.st_value + sym.st_size;
                h->syms[h->nsyms++] = (struct fsym){ sym.st_value, sym.st_value + sym.st_size, sec_hi, keep(h, name),
                                                     GELF_ST_BIND(sym.st_info) != STB_LOCAL, untyped };
            }
        }
    }
    tl_elf_close(&e);
    qsort(h->syms, h->nsyms, sizeof *h->syms, by_lo_sym);
}

/* The function symbol holding pc; with `nearest`, else the nearest one before it (padding after a function,
 * as binutils names it: of the symbols starting nearest before pc, typed or not, one that holds it, else the
 * largest). Without `nearest` only typed function symbols count: an untyped label inside a function does not
 * hide the function. */
static const struct fsym *symbol_at(const struct tlck_host_lines *h, uint64_t pc, int nearest)
{
    size_t lo = 0, hi = h->nsyms;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (h->syms[m].lo <= pc)
            lo = m + 1;
        else
            hi = m;
    }
    if (!nearest)
        while (lo > 0 && h->syms[lo - 1].untyped)
            lo--;
    if (lo == 0)
        return NULL;
    size_t first = lo - 1;
    while (first > 0 && h->syms[first - 1].lo == h->syms[lo - 1].lo)
        first--;
    const struct fsym *largest = NULL;
    for (size_t i = first; i < lo; i++) { /* of symbols at one address: a function (sorted first), a global one */
        if (!nearest && h->syms[i].untyped)
            continue;
        if (pc < h->syms[i].hi)
            return &h->syms[i];
        if (!largest || h->syms[i].hi > largest->hi)
            largest = &h->syms[i];
    }
    return nearest && largest && pc < largest->sec_hi ? largest : NULL;
}

struct tlck_host_lines *tlck_host_lines_open(const char *path, tl_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        tl_fail(err, "cannot open: %s", strerror(errno));
        return NULL;
    }
    Dwarf_Debug dbg = 0;
    Dwarf_Error derr = 0;
    int rc = host_dwarf_init(fd, &dbg, &derr);
    if (rc != DW_DLV_OK) {
        tl_fail(err, "no host DWARF to symbolize with%s%s", rc == DW_DLV_ERROR ? ": " : "",
                rc == DW_DLV_ERROR ? dwarf_errmsg(derr) : "");
        if (rc == DW_DLV_ERROR)
            dwarf_dealloc_error(NULL, derr);
        close(fd);
        return NULL;
    }
    struct tlck_host_lines *h = calloc(1, sizeof *h);
    for (; h;) {
        Dwarf_Unsigned hlen, abbrev, typeoff, next;
        Dwarf_Half version, asz, lsz, esz, cutype;
        Dwarf_Sig8 sig;
        rc = dwarf_next_cu_header_d(dbg, 1, &hlen, &version, &abbrev, &asz, &lsz, &esz, &sig, &typeoff, &next,
                                    &cutype, &derr);
        if (rc != DW_DLV_OK)
            break;
        Dwarf_Die cu;
        if (dwarf_siblingof_b(dbg, NULL, 1, &cu, &derr) != DW_DLV_OK)
            continue;
        read_unit(h, dbg, cu, version);
        dwarf_dealloc_die(cu);
    }
    host_dwarf_finish(dbg);
    close(fd);
    if (!h) {
        tl_fail(err, "out of memory");
        return NULL;
    }
    if (h->ntops == 0) {
        tl_fail(err, "no host DWARF subprograms to symbolize with (built without -g?)");
        tlck_host_lines_close(h);
        return NULL;
    }
    read_symbols(h, path);
    qsort(h->tops, h->ntops, sizeof *h->tops, by_lo_top);
    qsort(h->rows, h->nrows, sizeof *h->rows, by_lo_row);
    return h;
}

void tlck_host_lines_close(struct tlck_host_lines *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->nstrs; i++)
        free(h->strs[i]);
    free(h->strs);
    free(h->syms);
    free(h->scopes);
    free(h->tops);
    free(h->rows);
    free(h);
}

/* The row holding pc: rows of a linked file do not overlap, so it is the last one starting at or before pc
 * (of rows starting at one address, the later in the table). */
static const struct row *row_at(const struct tlck_host_lines *h, uint64_t pc)
{
    size_t lo = 0, hi = h->nrows;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (h->rows[m].lo <= pc)
            lo = m + 1;
        else
            hi = m;
    }
    const struct row *found = NULL;
    for (size_t i = lo; i-- > 0 && h->rows[i].lo == h->rows[lo - 1].lo;)
        if (pc < h->rows[i].hi && (!found || &h->rows[i] > found))
            found = &h->rows[i];
    return found;
}

size_t tlck_host_lines_at(const struct tlck_host_lines *h, uint64_t pc, struct tlck_host_frame *v, size_t max,
                          uint64_t *sub_lo)
{
    /* the subprogram range holding pc: the last top starting at or before it */
    size_t lo = 0, hi = h->ntops;
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (h->tops[m].lo <= pc)
            lo = m + 1;
        else
            hi = m;
    }
    const struct top *t = NULL;
    for (size_t i = lo; i-- > 0 && !t;)
        if (h->tops[i].lo <= pc && pc < h->tops[i].hi)
            t = &h->tops[i];
    if (max == 0)
        return 0;
    if (!t) { /* no function's DWARF holds pc: a line row may (padding between functions), a symbol before it
               * names it (code built without -g, the C runtime's): as binutils answers, the file and line
               * unknown where no row holds pc */
        const struct row *r = row_at(h, pc);
        const struct fsym *f = symbol_at(h, pc, 1);
        if (!f)
            return 0;
        v[0] = (struct tlck_host_frame){ f->name, r ? r->file : NULL, r ? r->line : 0 };
        *sub_lo = f->lo;
        return 1;
    }
    /* the deepest scope at each depth that holds pc (DIE order: a deeper one follows its parent) */
    const struct scope *chain[MAX_DEPTH + 2] = { 0 };
    unsigned deepest = 0;
    for (size_t k = t->first; k < t->first + t->n; k++) {
        const struct scope *s = &h->scopes[k];
        if (s->lo <= pc && pc < s->hi && s->depth <= MAX_DEPTH + 1 && (s->depth == 0 || chain[s->depth - 1])) {
            chain[s->depth] = s;
            if (s->depth >= deepest)
                deepest = s->depth;
            for (unsigned d = s->depth + 1; d <= MAX_DEPTH + 1; d++)
                chain[d] = NULL; /* a sibling scope replaces the deeper ones of an earlier sibling */
        }
    }
    while (deepest > 0 && !chain[deepest])
        deepest--;
    *sub_lo = t->lo;
    const struct row *r = row_at(h, pc);
    size_t n = 0;
    for (unsigned d = deepest + 1; d-- > 0 && n < max;) {
        const struct scope *s = chain[d];
        v[n].function = s->name;
        if (d == deepest && !s->linkage) {
            const struct fsym *f = symbol_at(h, pc, 0);
            if (f)
                v[n].function = f->name;
        }
        if (d == deepest) {
            v[n].file = r ? r->file : NULL;
            v[n].line = r ? r->line : 0;
        } else {
            v[n].file = chain[d + 1]->call_file;
            v[n].line = chain[d + 1]->call_line;
        }
        n++;
    }
    return n;
}
