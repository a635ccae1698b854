/* .debug_info through libdwarf (the old 20210528 API): compile units and subprograms with code.
 *
 * libdwarf reads our in-memory sections (dwarf_object_init_b) instead of a file descriptor, because inputs may
 * be archive members, separate debug files, or zstd-compressed (which libdwarf 20210528 cannot inflate), and
 * relocatable objects were already relocated by debug_sections.c. The walk enters namespaces, classes,
 * functions and their lexical blocks (where the members of local classes and lambdas are defined), but never
 * the trees of inlined calls, which hold no definitions and are most of a large optimised file's DIEs. */
#include "read/host_internal.h"
#include "trueline/limits.h"

#include <dwarf.h>
#include <libdwarf.h>
#include <stdlib.h>
#include <string.h>

struct obj {
    const struct tl_debug_sections *ds;
    unsigned addr_size;
};

static int sec_info(void *o, Dwarf_Half i, Dwarf_Obj_Access_Section *s, int *e)
{
    const struct obj *ob = o;
    (void)e;
    memset(s, 0, sizeof *s);
    if (i == 0) {
        s->name = "";
        return DW_DLV_OK;
    }
    if (i > ob->ds->n)
        return DW_DLV_NO_ENTRY;
    s->name = ob->ds->v[i - 1].name;
    s->size = ob->ds->v[i - 1].bytes.n;
    s->type = SHT_PROGBITS;
    return DW_DLV_OK;
}
static Dwarf_Endianness byte_order(void *o) { (void)o; return DW_OBJECT_LSB; }
static Dwarf_Small length_size(void *o) { (void)o; return 4; }
static Dwarf_Small pointer_size(void *o) { return (Dwarf_Small)((struct obj *)o)->addr_size; }
static Dwarf_Unsigned sec_count(void *o) { return ((struct obj *)o)->ds->n + 1; }
static int load_sec(void *o, Dwarf_Half i, Dwarf_Small **data, int *e)
{
    const struct obj *ob = o;
    (void)e;
    if (i == 0 || i > ob->ds->n)
        return DW_DLV_NO_ENTRY;
    *data = (Dwarf_Small *)(uintptr_t)ob->ds->v[i - 1].bytes.p;
    return DW_DLV_OK;
}
static const Dwarf_Obj_Access_Methods methods = { sec_info, byte_order, length_size, pointer_size, sec_count,
                                                  load_sec, NULL };

struct walk {
    Dwarf_Debug dbg;
    struct tl_image *img;
    size_t sub_cap;
    int cu, is_rel;
    Dwarf_Addr cu_base;
    Dwarf_Half version;
    Dwarf_Off last_off; /* the DIE visited last: in a pre-order walk, the highest offset seen */
};

static const char *attr_string(Dwarf_Die die, Dwarf_Half at)
{
    Dwarf_Attribute a;
    Dwarf_Error err = 0;
    char *s = NULL;
    if (dwarf_attr(die, at, &a, &err) != DW_DLV_OK)
        return NULL;
    if (dwarf_formstring(a, &s, &err) != DW_DLV_OK)
        s = NULL;
    dwarf_dealloc_attribute(a);
    return s;
}

static int attr_ref(Dwarf_Die die, Dwarf_Half at, Dwarf_Off *off)
{
    Dwarf_Attribute a;
    Dwarf_Error err = 0;
    if (dwarf_attr(die, at, &a, &err) != DW_DLV_OK)
        return -1;
    int rc = dwarf_global_formref(a, off, &err) == DW_DLV_OK ? 0 : -1;
    dwarf_dealloc_attribute(a);
    return rc;
}

/* Linkage name and name, following DW_AT_specification / DW_AT_abstract_origin (declarations in classes). */
static void names_of(Dwarf_Debug dbg, Dwarf_Die die, const char **linkage, const char **name, int depth)
{
    if (!*linkage)
        *linkage = attr_string(die, DW_AT_linkage_name);
    if (!*linkage)
        *linkage = attr_string(die, DW_AT_MIPS_linkage_name);
    if (!*name)
        *name = attr_string(die, DW_AT_name);
    Dwarf_Off off;
    Dwarf_Die other;
    Dwarf_Error err = 0;
    if (depth < 4 && (!*linkage || !*name) &&
        (attr_ref(die, DW_AT_specification, &off) == 0 || attr_ref(die, DW_AT_abstract_origin, &off) == 0) &&
        dwarf_offdie_b(dbg, off, 1, &other, &err) == DW_DLV_OK) {
        names_of(dbg, other, linkage, name, depth + 1);
        dwarf_dealloc_die(other);
    }
}

static void add_sub(struct walk *w, const char *linkage, const char *name, Dwarf_Addr lo, Dwarf_Addr hi)
{
    struct tl_image *img = w->img;
    if (tl_grow((void **)&img->subprograms, &w->sub_cap, img->nsubprograms + 1, sizeof *img->subprograms) != 0)
        return;
    struct tl_subprogram *s = &img->subprograms[img->nsubprograms++];
    s->linkage_name = tl_strdup(linkage);
    s->name = tl_strdup(name);
    s->cu = w->cu;
    s->shndx = w->is_rel ? TL_ADDR_SHNDX(lo) : 0;
    s->low_pc = w->is_rel ? TL_ADDR_OFF(lo) : lo;
    s->high_pc = w->is_rel ? TL_ADDR_OFF(hi) : hi;
}

/* DW_AT_ranges: one tl_subprogram per range (hot/cold split functions: the cold part has its own symbol). */
static void add_ranges(struct walk *w, Dwarf_Die die, const char *linkage, const char *name)
{
    Dwarf_Attribute a;
    Dwarf_Error err = 0;
    Dwarf_Half form = 0;
    Dwarf_Unsigned off = 0;
    if (dwarf_attr(die, DW_AT_ranges, &a, &err) != DW_DLV_OK)
        return;
    dwarf_whatform(a, &form, &err);
    if (w->version >= 5) {
        Dwarf_Rnglists_Head head;
        Dwarf_Unsigned count = 0, global = 0;
        if (form != DW_FORM_rnglistx)
            dwarf_global_formref(a, &off, &err);
        else
            dwarf_formudata(a, &off, &err);
        if (dwarf_rnglists_get_rle_head(a, form, off, &head, &count, &global, &err) == DW_DLV_OK) {
            for (Dwarf_Unsigned i = 0; i < count; i++) {
                unsigned len = 0, code = 0;
                Dwarf_Unsigned r1, r2, c1, c2;
                Dwarf_Bool noaddr = 0;
                if (dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &r1, &r2, &noaddr, &c1, &c2, &err) ==
                        DW_DLV_OK && code != DW_RLE_end_of_list && code != DW_RLE_base_address &&
                        code != DW_RLE_base_addressx && !noaddr && c2 > c1)
                    add_sub(w, linkage, name, c1, c2);
            }
            dwarf_dealloc_rnglists_head(head);
        }
    } else if (dwarf_global_formref(a, &off, &err) == DW_DLV_OK) {
        Dwarf_Ranges *r;
        Dwarf_Signed n = 0;
        Dwarf_Unsigned bytes;
        if (dwarf_get_ranges_a(w->dbg, off, die, &r, &n, &bytes, &err) == DW_DLV_OK) {
            Dwarf_Addr base = w->cu_base;
            for (Dwarf_Signed i = 0; i < n; i++) {
                if (r[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
                    base = r[i].dwr_addr2;
                else if (r[i].dwr_type == DW_RANGES_ENTRY && r[i].dwr_addr2 > r[i].dwr_addr1)
                    add_sub(w, linkage, name, base + r[i].dwr_addr1, base + r[i].dwr_addr2);
            }
            dwarf_ranges_dealloc(w->dbg, r, n);
        }
    }
    dwarf_dealloc_attribute(a);
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
    names_of(w->dbg, die, &linkage, &name, 0);
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
    if (depth > 16 || dwarf_child(parent, &die, &err) != DW_DLV_OK)
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
        if (rc != DW_DLV_OK)
            break;
        /* libdwarf follows DW_AT_sibling as written: one pointing at its own DIE or backwards loops forever
         * (found by tests/lib/mutate.py's cycle-self-sibling), and one pointing forward into a subtree already
         * walked makes every nesting level walk it again (2^depth). A pre-order walk only ever moves past
         * everything visited so far. */
        if (dwarf_dieoffset(next, &there, &err) != DW_DLV_OK || there <= w->last_off || tl_deadline_expired()) {
            dwarf_dealloc_die(next);
            w->img->dwarf_read_error = 1;
            break;
        }
        die = next;
    }
}

static void read_cu(struct walk *w, Dwarf_Die cu_die, size_t *cu_cap)
{
    struct tl_image *img = w->img;
    Dwarf_Error err = 0;
    if (tl_grow((void **)&img->cus, cu_cap, img->ncus + 1, sizeof *img->cus) != 0)
        return;
    struct tl_cu *cu = &img->cus[img->ncus];
    w->cu = (int)img->ncus++;
    cu->name = tl_strdup(attr_string(cu_die, DW_AT_name));
    cu->comp_dir = tl_strdup(attr_string(cu_die, DW_AT_comp_dir));
    cu->producer = tl_strdup(attr_string(cu_die, DW_AT_producer));
    cu->dwarf_version = w->version;
    Dwarf_Unsigned lang = 0;
    if (dwarf_srclang(cu_die, &lang, &err) == DW_DLV_OK)
        cu->lang = (unsigned)lang;
    Dwarf_Off off;
    cu->line_offset = attr_ref(cu_die, DW_AT_stmt_list, &off) == 0 ? off : UINT64_MAX;
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
static const char *bad_list_section(const struct tl_debug_sections *ds)
{
    static const char *names[] = { ".debug_rnglists", ".debug_loclists" };
    for (size_t k = 0; k < 2; k++) {
        const struct tl_debug_section *s = tl_debug_section(ds, names[k]);
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

int tl_read_dwarf_info(struct tl_image *img, const struct tl_debug_sections *ds, const tl_elf *e, tl_error *err)
{
    struct obj ob = { ds, ds->addr_size };
    Dwarf_Obj_Access_Interface iface = { &ob, &methods };
    Dwarf_Debug dbg;
    Dwarf_Error derr = 0;
    if (!tl_debug_section(ds, ".debug_info"))
        return 0;
    img->has_debug_info = 1;
    const char *bad = bad_list_section(ds);
    if (bad)
        return tl_fail(err, "malformed %s: a unit runs past the section end", bad);
    int rc = dwarf_object_init_b(&iface, NULL, NULL, DW_GROUPNUMBER_ANY, &dbg, &derr);
    if (rc != DW_DLV_OK) {
        tl_fail(err, "libdwarf cannot read .debug_info: %s", rc == DW_DLV_ERROR ? dwarf_errmsg(derr) : "no DWARF");
        /* an error made before there is a Dwarf_Debug is nobody's to free but ours (LeakSanitizer, make asan) */
        if (rc == DW_DLV_ERROR)
            dwarf_dealloc_error(NULL, derr);
        return -1;
    }
    struct walk w = { .dbg = dbg, .img = img, .is_rel = e->ehdr.e_type == ET_REL };
    size_t cu_cap = 0;
    int status = 0;
    for (;;) {
        Dwarf_Unsigned hlen, abbrev, typeoff, next;
        Dwarf_Half version, asz, lsz, esz, cutype;
        Dwarf_Sig8 sig;
        rc = dwarf_next_cu_header_d(dbg, 1, &hlen, &version, &abbrev, &asz, &lsz, &esz, &sig, &typeoff, &next,
                                    &cutype, &derr);
        if (rc == DW_DLV_NO_ENTRY)
            break;
        if (rc != DW_DLV_OK) {
            status = tl_fail(err, "malformed .debug_info: %s", dwarf_errmsg(derr));
            break;
        }
        Dwarf_Die cu_die;
        w.version = version;
        if (dwarf_siblingof_b(dbg, NULL, 1, &cu_die, &derr) != DW_DLV_OK)
            continue;
        Dwarf_Half tag = 0;
        dwarf_tag(cu_die, &tag, &derr);
        /* a DWARF 5 skeleton (-gsplit-dwarf) names its unit and holds its line table; the rest is in the .dwo */
        if (tag == DW_TAG_compile_unit || tag == DW_TAG_partial_unit || tag == DW_TAG_skeleton_unit)
            read_cu(&w, cu_die, &cu_cap);
        dwarf_dealloc_die(cu_die);
    }
    dwarf_object_finish(dbg, &derr);
    return status;
}
