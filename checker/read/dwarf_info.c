/* .debug_info through libdwarf (20210528, 0.x or 2.x: read/dwarf_compat.h): compile units and subprograms with code.
 *
 * libdwarf reads our in-memory sections (dwarf_object_init_b) instead of a file descriptor, because inputs may
 * be archive members, separate debug files, or zstd-compressed (which libdwarf 20210528 cannot inflate), and
 * relocatable objects were already relocated by debug_sections.c. The walk enters namespaces, classes,
 * functions and their lexical blocks (where the members of local classes and lambdas are defined), but never
 * the trees of inlined calls, which hold no definitions and are most of a large optimised file's DIEs. */
#include "read/host_internal.h"
#include "trueline/cpus.h"
#include "trueline/limits.h"

#include "read/dwarf_compat.h"
#include "read/dwarf_ranges.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sections libdwarf is shown: only those the walk reads, each name once. A relocatable object may hold
 * several sections of one name, one per COMDAT group (gcc -g3: a .debug_macro per group of macros;
 * -fdebug-types-section: a .debug_types, in DWARF 5 a .debug_info, per type unit), and libdwarf then refuses
 * the whole file (DW_DLE_SECTION_DUPLICATION). The walk reads compile units, which are never in a group: of
 * several copies, the one outside any group is shown. Type units, macros, line programs (read by
 * line_program.c), location lists and frames are never shown. */
static const char *const shown_sections[] = { ".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
                                              ".debug_str_offsets", ".debug_addr", ".debug_ranges",
                                              ".debug_rnglists", NULL };
#define MAX_SHOWN (sizeof shown_sections / sizeof *shown_sections)

struct obj {
    const struct tlck_debug_section *v[MAX_SHOWN];
    size_t n;
    unsigned addr_size;
};

static void obj_init(struct obj *ob, const struct tlck_debug_sections *ds)
{
    memset(ob, 0, sizeof *ob);
    ob->addr_size = ds->addr_size;
    for (size_t k = 0; shown_sections[k]; k++) {
        const struct tlck_debug_section *pick = NULL;
        for (size_t i = 0; i < ds->n; i++)
            if (strcmp(ds->v[i].name, shown_sections[k]) == 0 && (!pick || (pick->in_group && !ds->v[i].in_group)))
                pick = &ds->v[i];
        if (pick)
            ob->v[ob->n++] = pick;
    }
}

static const struct tlck_debug_section *obj_section(const struct obj *ob, const char *name)
{
    for (size_t i = 0; i < ob->n; i++)
        if (strcmp(ob->v[i]->name, name) == 0)
            return ob->v[i];
    return NULL;
}

static int sec_info(void *o, tlck_dw_index i, tlck_dw_section *s, int *e)
{
    const struct obj *ob = o;
    (void)e;
    memset(s, 0, sizeof *s);
    if (i == 0) {
        TLCK_DW_SEC_NAME(s) = "";
        return DW_DLV_OK;
    }
    if (i > ob->n)
        return DW_DLV_NO_ENTRY;
    TLCK_DW_SEC_NAME(s) = ob->v[i - 1]->name;
    TLCK_DW_SEC_SIZE(s) = ob->v[i - 1]->bytes.n;
    TLCK_DW_SEC_TYPE(s) = SHT_PROGBITS;
    return DW_DLV_OK;
}
static tlck_dw_byte_order byte_order(void *o) { (void)o; return TLCK_DW_LITTLE; }
static Dwarf_Small length_size(void *o) { (void)o; return 4; }
static Dwarf_Small pointer_size(void *o) { return (Dwarf_Small)((struct obj *)o)->addr_size; }
static Dwarf_Unsigned sec_count(void *o) { return ((struct obj *)o)->n + 1; }
static int load_sec(void *o, tlck_dw_index i, Dwarf_Small **data, int *e)
{
    const struct obj *ob = o;
    (void)e;
    if (i == 0 || i > ob->n)
        return DW_DLV_NO_ENTRY;
    *data = (Dwarf_Small *)(uintptr_t)ob->v[i - 1]->bytes.p;
    return DW_DLV_OK;
}
#ifdef TLCK_DW_OBJ_A
/* 0.x/2.x also ask the file's size (only to bound offsets: the sections' total does) */
static Dwarf_Unsigned file_size(void *o)
{
    const struct obj *ob = o;
    Dwarf_Unsigned n = 0;
    for (size_t i = 0; i < ob->n; i++)
        n += ob->v[i]->bytes.n;
    return n;
}
static const tlck_dw_methods methods = { .om_get_section_info = sec_info, .om_get_byte_order = byte_order,
                                       .om_get_length_size = length_size, .om_get_pointer_size = pointer_size,
                                       .om_get_filesize = file_size, .om_get_section_count = sec_count,
                                       .om_load_section = load_sec };
#else
static const tlck_dw_methods methods = { sec_info, byte_order, length_size, pointer_size, sec_count, load_sec, NULL };
#endif

/* libdwarf over an object's sections; returns DW_DLV_OK or the libdwarf code, *msg saying why. */
static int obj_open(struct obj *ob, tlck_dw_iface *iface, Dwarf_Debug *dbg, char *msg, size_t msgn)
{
    Dwarf_Error derr = 0;
    TLCK_DW_IFACE_SET(iface, ob, &methods);
    int rc = dwarf_object_init_b(iface, NULL, NULL, DW_GROUPNUMBER_ANY, dbg, &derr);
    if (rc != DW_DLV_OK) {
        snprintf(msg, msgn, "%s", rc == DW_DLV_ERROR ? dwarf_errmsg(derr) : "no DWARF");
        /* an error made before there is a Dwarf_Debug is nobody's to free but ours (LeakSanitizer, make asan) */
        if (rc == DW_DLV_ERROR)
            dwarf_dealloc_error(NULL, derr);
    }
    return rc;
}

/* The supplementary file (dwz -m, DWARF 5 .debug_sup): its DIEs through libdwarf, its strings read here (libdwarf
 * 20210528 resolves DW_FORM_GNU_strp_alt only through a "tied" file, which is meant for split DWARF, and gives
 * "<DW_FORM_GNU_strp_alt-no-tied-file>" otherwise; DW_FORM_GNU_ref_alt offsets come back from
 * dwarf_global_formref as if they were the file's own). */
struct alt_view {
    Dwarf_Debug dbg;                    /* NULL when there is none */
    const struct tlck_debug_section *str; /* its .debug_str */
};

struct walk {
    struct alt_view alt;
    const struct tlck_debug_section *info; /* the file's .debug_info: DW_FORM_ref_sup4/8 values are read from it */
    int unresolved;                      /* the names being read lie in a supplementary file that is not there */
    size_t dropped;                      /* subprograms left out for that */
    Dwarf_Debug dbg;
    struct tlck_image *img;
    size_t sub_cap;
    int cu, is_rel;
    Dwarf_Addr cu_base;
    Dwarf_Half version;
    Dwarf_Off last_off; /* the DIE visited last: in a pre-order walk, the highest offset seen */
    const tl_budget *budget; /* the input's deadline */
    const char *damage;      /* why the entries of a unit stopped being readable (the input is then malformed) */
    Dwarf_Off damage_at;     /* the entry it was found at */
};

static const char *section_string(const struct tlck_debug_section *s, Dwarf_Off off)
{
    if (!s || off >= s->bytes.n || !memchr(s->bytes.p + off, 0, s->bytes.n - off))
        return NULL;
    return (const char *)s->bytes.p + off;
}

/* A string attribute; one kept in the supplementary file is read from its .debug_str, or marks the walk's
 * names unresolved when that file is missing. */
static const char *attr_string(struct walk *w, Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Attribute a;
    Dwarf_Error err = 0;
    Dwarf_Half form = 0;
    Dwarf_Off off = 0;
    char *s = NULL;
    if (dwarf_attr(die, at, &a, &err) != DW_DLV_OK)
        return NULL;
    dwarf_whatform(a, &form, &err);
    if (form == DW_FORM_GNU_strp_alt || form == DW_FORM_strp_sup) {
        if (w->alt.str && dwarf_global_formref(a, &off, &err) == DW_DLV_OK)
            s = (char *)section_string(w->alt.str, off);
        if (!s)
            w->unresolved = 1;
    } else if (dwarf_formstring(a, &s, &err) != DW_DLV_OK) {
        s = NULL;
    }
    dwarf_dealloc_attribute(a);
    return s;
}

/* A reference: *in_alt is set when it points into the supplementary file's .debug_info. */
static int attr_ref(struct walk *w, Dwarf_Die die, Dwarf_Half at, Dwarf_Off *off, int *in_alt)
{
    Dwarf_Attribute a;
    Dwarf_Error err = 0;
    Dwarf_Half form = 0;
    if (dwarf_attr(die, at, &a, &err) != DW_DLV_OK)
        return -1;
    dwarf_whatform(a, &form, &err);
    *in_alt = form == DW_FORM_GNU_ref_alt || form == DW_FORM_ref_sup4 || form == DW_FORM_ref_sup8;
    int rc = -1;
    if (form == DW_FORM_ref_sup4 || form == DW_FORM_ref_sup8) {
        /* libdwarf 20210528 refuses these forms (DW_DLE_BAD_REF_FORM): the value is read where it lies */
        unsigned n = form == DW_FORM_ref_sup4 ? 4 : 8;
        Dwarf_Off at_off = 0;
        if (w->info && dwarf_attr_offset(die, a, &at_off, &err) == DW_DLV_OK && at_off <= w->info->bytes.n &&
            w->info->bytes.n - at_off >= n) {
            *off = 0;
            for (unsigned i = 0; i < n; i++)
                *off |= (Dwarf_Off)w->info->bytes.p[at_off + i] << (8 * i);
            rc = 0;
        }
    } else {
        rc = dwarf_global_formref(a, off, &err) == DW_DLV_OK ? 0 : -1;
    }
    dwarf_dealloc_attribute(a);
    return rc;
}

/* Linkage name and name, following DW_AT_specification / DW_AT_abstract_origin (declarations in classes). */
/* dbg: the one die belongs to (the file's, or the supplementary file's after a DW_FORM_GNU_ref_alt). */
static void names_of(struct walk *w, Dwarf_Debug dbg, Dwarf_Die die, const char **linkage, const char **name,
                     int depth)
{
    if (!*linkage)
        *linkage = attr_string(w, die, DW_AT_linkage_name);
    if (!*linkage)
        *linkage = attr_string(w, die, DW_AT_MIPS_linkage_name);
    if (!*name)
        *name = attr_string(w, die, DW_AT_name);
    Dwarf_Off off;
    Dwarf_Die other;
    Dwarf_Error err = 0;
    int in_alt = 0;
    if (depth >= 4 || (*linkage && *name) ||
        (attr_ref(w, die, DW_AT_specification, &off, &in_alt) != 0 &&
         attr_ref(w, die, DW_AT_abstract_origin, &off, &in_alt) != 0))
        return;
    Dwarf_Debug there = in_alt ? w->alt.dbg : dbg;
    if (!there) {
        w->unresolved = 1;
        return;
    }
    if (dwarf_offdie_b(there, off, 1, &other, &err) == DW_DLV_OK) {
        names_of(w, there, other, linkage, name, depth + 1);
        dwarf_dealloc_die(other);
    }
}

static void add_sub(struct walk *w, const char *linkage, const char *name, Dwarf_Addr lo, Dwarf_Addr hi)
{
    struct tlck_image *img = w->img;
    if (tlck_grow((void **)&img->subprograms, &w->sub_cap, img->nsubprograms + 1, sizeof *img->subprograms) != 0)
        return;
    struct tlck_subprogram *s = &img->subprograms[img->nsubprograms++];
    s->linkage_name = tlck_strdup(linkage);
    s->name = tlck_strdup(name);
    s->cu = w->cu;
    s->shndx = w->is_rel ? TLCK_ADDR_SHNDX(lo) : 0;
    s->low_pc = w->is_rel ? TLCK_ADDR_OFF(lo) : lo;
    s->high_pc = w->is_rel ? TLCK_ADDR_OFF(hi) : hi;
}

/* DW_AT_ranges: one tlck_subprogram per range (hot/cold split functions: the cold part has its own symbol). */
struct sub_ranges {
    struct walk *w;
    const char *linkage, *name;
};

static void add_sub_range(void *ctx, Dwarf_Addr lo, Dwarf_Addr hi)
{
    struct sub_ranges *s = ctx;
    add_sub(s->w, s->linkage, s->name, lo, hi);
}

static void add_ranges(struct walk *w, Dwarf_Die die, const char *linkage, const char *name)
{
    struct sub_ranges s = { w, linkage, name };
    tlck_dw_die_ranges(w->dbg, die, w->version, w->cu_base, add_sub_range, &s);
}

static void subprogram(struct walk *w, Dwarf_Die die)
{
    Dwarf_Addr lo = 0, hi = 0;
    Dwarf_Half form = 0;
    enum Dwarf_Form_Class cls = DW_FORM_CLASS_UNKNOWN;
    Dwarf_Error err = 0;
    const char *linkage = NULL, *name = NULL;
    int has_lo = dwarf_lowpc(die, &lo, &err) == DW_DLV_OK;
    Dwarf_Bool has_ranges = 0;
    if (!has_lo && (dwarf_hasattr(die, DW_AT_ranges, &has_ranges, &err) != DW_DLV_OK || !has_ranges))
        return; /* a declaration or an inline-only abstract instance: no code */
    w->unresolved = 0;
    names_of(w, w->dbg, die, &linkage, &name, 0);
    if (w->unresolved && !linkage) { /* its names are in a supplementary file that is not there */
        w->dropped++;
        return;
    }
    if (!has_lo) {
        add_ranges(w, die, linkage, name);
        return;
    }
    if (dwarf_highpc_b(die, &hi, &form, &cls, &err) == DW_DLV_OK)
        hi = cls == DW_FORM_CLASS_CONSTANT ? lo + hi : hi;
    else
        hi = lo;
    add_sub(w, linkage, name, lo, hi);
}

static void walk_children(struct walk *w, Dwarf_Die parent, int depth)
{
    Dwarf_Die die, next;
    Dwarf_Error err = 0;
    if (depth > 16)
        return;
    int rc0 = dwarf_child(parent, &die, &err);
    if (rc0 == DW_DLV_ERROR) { /* an abbreviation code the table lacks, an entry running off the unit */
        if (!w->damage)
            w->damage = "its first child cannot be read", w->damage_at = w->last_off;
        dwarf_dealloc_error(w->dbg, err);
        w->img->dwarf_read_error = 1;
        return;
    }
    if (rc0 != DW_DLV_OK)
        return;
    for (;;) {
        Dwarf_Half tag = 0;
        Dwarf_Off here = 0;
        if (dwarf_dieoffset(die, &here, &err) == DW_DLV_OK && here > w->last_off)
            w->last_off = here;
        dwarf_tag(die, &tag, &err);
        if (tag == DW_TAG_subprogram)
            subprogram(w, die);
        /* Functions hold the out-of-line members of their local classes and lambdas (operator(), GCC's _FUN,
         * std::call_once's callables) and GCC's nested functions, also inside lexical blocks. Inlined
         * subroutines are not entered: their trees are concrete copies of abstract ones, with no code of their
         * own to declare. */
        if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
            tag == DW_TAG_class_type || tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
            tag == DW_TAG_module)
            walk_children(w, die, depth + 1);
        Dwarf_Off there = 0;
        int rc = dwarf_siblingof_b(w->dbg, die, 1, &next, &err);
        dwarf_dealloc_die(die);
        if (rc == DW_DLV_ERROR) {
            /* libdwarf 0.x/2.x refuse a DW_AT_sibling that does not move forward themselves (20210528 follows
             * it, caught below): either way the unit is damaged, never a plain end of the children */
            dwarf_dealloc_error(w->dbg, err);
            w->img->dwarf_read_error = 1;
            if (!w->damage)
                w->damage = "the entry after it cannot be read", w->damage_at = w->last_off;
            break;
        }
        if (rc != DW_DLV_OK)
            break;
        /* libdwarf follows DW_AT_sibling as written: one pointing at its own DIE or backwards loops forever
         * (found by tests/lib/mutate.py's cycle-self-sibling), and one pointing forward into a subtree already
         * walked makes every nesting level walk it again (2^depth). A pre-order walk only ever moves past
         * everything visited so far. */
        if (dwarf_dieoffset(next, &there, &err) != DW_DLV_OK || there <= w->last_off || tl_budget_expired(w->budget)) {
            dwarf_dealloc_die(next);
            w->img->dwarf_read_error = 1;
            if (!w->damage && !tl_budget_expired(w->budget)) /* the deadline is said as such, elsewhere */
                w->damage = "its sibling does not follow it (DW_AT_sibling points back or into a subtree already "
                            "read)", w->damage_at = w->last_off;
            break;
        }
        die = next;
    }
}

static void read_cu(struct walk *w, Dwarf_Die cu_die, size_t *cu_cap)
{
    struct tlck_image *img = w->img;
    Dwarf_Error err = 0;
    if (tlck_grow((void **)&img->cus, cu_cap, img->ncus + 1, sizeof *img->cus) != 0)
        return;
    struct tlck_cu *cu = &img->cus[img->ncus];
    w->cu = (int)img->ncus++;
    cu->name = tlck_strdup(attr_string(w, cu_die, DW_AT_name));
    cu->comp_dir = tlck_strdup(attr_string(w, cu_die, DW_AT_comp_dir));
    cu->producer = tlck_strdup(attr_string(w, cu_die, DW_AT_producer));
    cu->dwarf_version = w->version;
    Dwarf_Unsigned lang = 0;
    if (dwarf_srclang(cu_die, &lang, &err) == DW_DLV_OK)
        cu->lang = (unsigned)lang;
    Dwarf_Off off;
    int in_alt = 0;
    cu->line_offset = attr_ref(w, cu_die, DW_AT_stmt_list, &off, &in_alt) == 0 && !in_alt ? off : UINT64_MAX;
    if (cu->line_offset == UINT64_MAX) {
        Dwarf_Attribute a;
        Dwarf_Unsigned u;
        if (dwarf_attr(cu_die, DW_AT_stmt_list, &a, &err) == DW_DLV_OK) {
            if (dwarf_formudata(a, &u, &err) == DW_DLV_OK)
                cu->line_offset = u;
            dwarf_dealloc_attribute(a);
        }
    }
    w->cu_base = 0;
    dwarf_lowpc(cu_die, &w->cu_base, &err);
    walk_children(w, cu_die, 0);
}

/* libdwarf 20210528 (Debian 12) frees twice in dwarf_load_rnglists when a DWARF 5 .debug_rnglists (or, by the
 * same code, .debug_loclists) unit header is bad, and it loads them eagerly with .debug_info (found by
 * fuzz/targets/load.c: a unit_length one byte too long; then an address_size of 0). Their unit headers are checked
 * here first; a table libdwarf would choke on makes the file's DWARF unreadable instead of crashing. */
static const char *bad_list_section(const struct tlck_debug_sections *ds)
{
    static const char *names[] = { ".debug_rnglists", ".debug_loclists" };
    for (size_t k = 0; k < 2; k++) {
        const struct tlck_debug_section *s = tlck_debug_section(ds, names[k]);
        if (!s)
            continue;
        const unsigned char *p = s->bytes.p;
        size_t n = s->bytes.n, off = 0;
        while (off < n) {
            if (n - off < 12)
                return names[k];
            uint32_t len32;
            memcpy(&len32, p + off, 4);
            uint64_t len = len32, hdr = 4;
            if (len32 == 0xffffffffu) {
                if (n - off < 20)
                    return names[k];
                memcpy(&len, p + off + 4, 8);
                hdr = 12;
            }
            if (len < 8 || len > n - off - hdr)
                return names[k];
            /* and the rest of the header: any value libdwarf rejects takes it down the same freeing path
             * (a second fuzz input: address_size 0) */
            const unsigned char *h = p + off + hdr;
            uint16_t version;
            uint32_t count;
            memcpy(&version, h, 2);
            memcpy(&count, h + 4, 4);
            uint64_t osz = hdr == 12 ? 8 : 4;
            if (version != 5 || (h[2] != 4 && h[2] != 8) || h[3] != 0 || count > (len - 8) / osz)
                return names[k];
            off += hdr + len;
        }
    }
    return NULL;
}

/* The supplementary file's libdwarf view; a file that cannot be read is said, and then counts as missing. */
static void alt_open(struct walk *w, const struct tlck_dwarf_alt *alt, struct obj *ob, tlck_dw_iface *iface,
                     tl_error *warn)
{
    char why[256];
    if (!alt || !alt->ds)
        return;
    obj_init(ob, alt->ds);
    if (obj_open(ob, iface, &w->alt.dbg, why, sizeof why) != DW_DLV_OK) {
        w->alt.dbg = NULL;
        tl_fail(warn, "which libdwarf cannot read (%s: %s)", alt->path, why);
        return;
    }
    w->alt.str = obj_section(ob, ".debug_str");
}

/* One walk over the units whose headers start in [from, to) of .debug_info, on a libdwarf handle of its own (a
 * Dwarf_Debug is not shared between threads). Its units and subprograms go into part; the caller puts the parts
 * together in unit order. */
struct units {
    const struct tlck_debug_sections *ds;
    const struct tlck_dwarf_alt *alt;
    const tl_elf *e;
    Dwarf_Off from, to;
    struct tlck_image part;
    size_t dropped, unread;
    int status;
    int malformed; /* status says .debug_info itself is damaged (not a missing dwz file) */
    tl_error err, alt_err;
};

static void walk_units(struct units *u)
{
    struct obj ob, alt_ob;
    tlck_dw_iface iface, alt_iface;
    Dwarf_Debug dbg;
    Dwarf_Error derr = 0;
    char why[256];
    obj_init(&ob, u->ds);
    if (obj_open(&ob, &iface, &dbg, why, sizeof why) != DW_DLV_OK) {
        u->status = tl_fail(&u->err, "libdwarf cannot read .debug_info: %s", why);
        u->malformed = 1;
        return;
    }
    struct walk w = { .dbg = dbg, .img = &u->part, .is_rel = u->e->ehdr.e_type == ET_REL, .budget = u->e->budget,
                      .info = obj_section(&ob, ".debug_info") };
    alt_open(&w, u->alt, &alt_ob, &alt_iface, &u->alt_err);
    size_t cu_cap = 0;
    /* every header is read (next_cu_header is how libdwarf moves on), only this walk's units are entered */
    for (Dwarf_Unsigned at = 0;;) {
        Dwarf_Unsigned hlen, abbrev, typeoff, next;
        Dwarf_Half version, asz, lsz, esz, cutype;
        Dwarf_Sig8 sig;
        int rc = dwarf_next_cu_header_d(dbg, 1, &hlen, &version, &abbrev, &asz, &lsz, &esz, &sig, &typeoff, &next,
                                        &cutype, &derr);
        if (rc == DW_DLV_NO_ENTRY) {
            /* libdwarf stops quietly at a unit_length of 0 (a zero-filled section reads as no units at all):
             * units that end before the section does leave bytes nobody read, which readelf calls corrupt */
            size_t info_n = tlck_debug_section(u->ds, ".debug_info")->bytes.n;
            if (at < info_n && u->status == 0) {
                u->status = tl_fail(&u->err, "malformed .debug_info: its units end at offset %llu of %zu bytes",
                                    (unsigned long long)at, info_n);
                u->malformed = 1;
            }
            break;
        }
        if (rc != DW_DLV_OK) {
            u->status = tl_fail(&u->err, "malformed .debug_info: %s", dwarf_errmsg(derr));
            u->malformed = 1;
            break;
        }
        Dwarf_Unsigned here = at;
        at = next;
        if (here < u->from)
            continue;
        if (here >= u->to)
            break;
        Dwarf_Die cu_die;
        w.version = version;
        if (dwarf_siblingof_b(dbg, NULL, 1, &cu_die, &derr) != DW_DLV_OK) {
            u->unread++;
            continue;
        }
        Dwarf_Half tag = 0;
        dwarf_tag(cu_die, &tag, &derr);
        /* a DWARF 5 skeleton (-gsplit-dwarf) names its unit and holds its line table; the rest is in the .dwo */
        if (tag == DW_TAG_compile_unit || tag == DW_TAG_partial_unit || tag == DW_TAG_skeleton_unit)
            read_cu(&w, cu_die, &cu_cap);
        dwarf_dealloc_die(cu_die);
    }
    u->dropped = w.dropped;
    /* damage inside a unit's entries is damage of the input, as a bad unit header is (readelf calls both
     * corrupt): a walk that stopped there leaves every later subprogram unread */
    if (w.damage && u->status == 0) {
        u->status = tl_fail(&u->err, "malformed .debug_info: at the entry at offset %#llx, %s",
                            (unsigned long long)w.damage_at, w.damage);
        u->malformed = 1;
    }
    if (w.alt.dbg)
        tlck_dw_object_finish(w.alt.dbg);
    tlck_dw_object_finish(dbg);
}

static void *walk_units_thread(void *arg)
{
    walk_units(arg);
    return NULL;
}

/* Moves part's units and subprograms to the end of img's (its subprograms' unit indexes follow). */
static int append_part(struct tlck_image *img, struct tlck_image *part)
{
    struct tlck_cu *cus = realloc(img->cus, (img->ncus + part->ncus + 1) * sizeof *cus);
    if (cus)
        img->cus = cus;
    struct tlck_subprogram *subs = realloc(img->subprograms,
                                           (img->nsubprograms + part->nsubprograms + 1) * sizeof *subs);
    if (subs)
        img->subprograms = subs;
    if (!cus || !subs)
        return -1;
    for (size_t i = 0; i < part->nsubprograms; i++) {
        subs[img->nsubprograms + i] = part->subprograms[i];
        subs[img->nsubprograms + i].cu += part->subprograms[i].cu >= 0 ? (int)img->ncus : 0;
    }
    if (part->ncus)
        memcpy(cus + img->ncus, part->cus, part->ncus * sizeof *cus);
    img->ncus += part->ncus;
    img->nsubprograms += part->nsubprograms;
    img->dwarf_read_error |= part->dwarf_read_error;
    free(part->cus);
    free(part->subprograms);
    memset(part, 0, sizeof *part);
    return 0;
}

/* From this much .debug_info on, its units are walked in two halves side by side: libdwarf's DIE walk is nearly
 * all of a host audit of a large library (libnccl.so.2: 12.5 MB of .debug_info, 89% of the CPU on one thread
 * while the .debug_line thread had long finished). */
#define SPLIT_INFO_BYTES ((size_t)4 << 20)

/* The split threshold; TRUELINE_TEST_DWARF_SPLIT_BYTES=N moves it, so that tests/suites/host_dwarf_split.sh can run
 * the host suites, whose fixtures are small, with every file's units walked in two halves. */
static size_t split_bytes(void)
{
    const char *v = getenv("TRUELINE_TEST_DWARF_SPLIT_BYTES");
    char *end;
    unsigned long long n = v && *v ? strtoull(v, &end, 10) : 0;
    return v && *v && !*end && n ? (size_t)n : SPLIT_INFO_BYTES;
}

int tlck_read_dwarf_info(struct tlck_image *img, const struct tlck_debug_sections *ds, const struct tlck_dwarf_alt *alt,
                       const tl_elf *e, tl_error *err, int *malformed)
{
    *malformed = 0;
    const struct tlck_debug_section *info = tlck_debug_section(ds, ".debug_info");
    if (!info)
        return 0;
    img->has_debug_info = 1;
    const char *bad = bad_list_section(ds);
    if (bad) {
        *malformed = 1;
        return tl_fail(err, "malformed %s: a unit runs past the section end", bad);
    }
    struct units u[2] = { { .ds = ds, .alt = alt, .e = e, .from = 0, .to = (Dwarf_Off)-1 },
                          { .ds = ds, .alt = alt, .e = e, .to = (Dwarf_Off)-1 } };
    pthread_t t;
    int split = info->bytes.n >= split_bytes() && tl_cpu_count() > 1;
    if (split) {
        u[0].to = u[1].from = info->bytes.n / 2;
        split = pthread_create(&t, NULL, walk_units_thread, &u[1]) == 0;
        if (!split)
            u[0].to = (Dwarf_Off)-1;
    }
    walk_units(&u[0]);
    if (split)
        pthread_join(t, NULL);
    int status = 0;
    size_t unread = 0, dropped = 0;
    const char *alt_msg = NULL;
    for (int k = 0; k < 1 + split; k++) {
        if (append_part(img, &u[k].part) != 0 && status == 0)
            status = tl_fail(err, "out of memory for the units of .debug_info");
        tlck_image_free(&u[k].part); /* what append_part could not move */
        if (status == 0 && u[k].status != 0) {
            status = tl_fail(err, "%s", u[k].err.msg); /* the first half's, when both failed alike */
            *malformed = u[k].malformed;
        }
        unread += u[k].unread;
        dropped += u[k].dropped;
        if (!alt_msg && u[k].alt_err.msg[0])
            alt_msg = u[k].alt_err.msg;
    }
    if (status == 0 && unread) {
        status = tl_fail(err, "libdwarf cannot read the first entry of %zu units of .debug_info", unread);
        *malformed = 1;
    }
    if (status == 0 && dropped && !(alt && alt->name))
        status = tl_fail(err, "%zu subprograms are named in a supplementary DWARF file (dwz) that the file does not "
                         "name (no .gnu_debugaltlink or .debug_sup): they are not compared", dropped);
    else if (status == 0 && dropped)
        status = tl_fail(err, "%zu subprograms are named in the supplementary DWARF file %s (dwz), %s: they are not "
                         "compared", dropped, alt->name, alt_msg ? alt_msg : "which was not found "
                         "(looked for as named, beside the file, under the debug directories and by build-id)");
    else if (status == 0 && alt_msg)
        status = tl_fail(err, "the supplementary DWARF file %s (dwz), %s", alt->name, alt_msg);
    return status;
}
