/* ELF symbol tables (libelf): functions for line-tables/dwarf-symbols, the dynamic symbols with their
 * versions for stl-leak/symbol-versions, .comment strings for mixed-toolchain, DT_SONAME. */
#include "read/host_internal.h"
#include "trueline/elf_dynamic.h"

#include <stdlib.h>
#include <string.h>

static Elf_Scn *section_of_type(const tl_elf *e, unsigned type, GElf_Shdr *sh)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL)
        if (gelf_getshdr(scn, sh) && sh->sh_type == type)
            return scn;
    return NULL;
}

static int executable_section(const tl_elf *e, unsigned shndx)
{
    GElf_Shdr sh;
    Elf_Scn *scn = elf_getscn(e->elf, shndx);
    return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
}

int tlck_read_functions(struct tlck_image *img, const tl_elf *e, tl_error *err)
{
    GElf_Shdr sh;
    Elf_Scn *scn = section_of_type(e, SHT_SYMTAB, &sh);
    if (!scn)
        scn = section_of_type(e, SHT_DYNSYM, &sh);
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    if (!d || !sh.sh_entsize)
        return 0;
    size_t n = sh.sh_size / sh.sh_entsize, cap = 0;
    for (size_t i = 1; i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            break;
        unsigned type = GELF_ST_TYPE(s.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s.st_size == 0 || s.st_shndx == SHN_UNDEF ||
            s.st_shndx >= SHN_LORESERVE || !executable_section(e, s.st_shndx))
            continue;
        const char *name = elf_strptr(e->elf, sh.sh_link, s.st_name);
        if (tlck_grow((void **)&img->funcs, &cap, img->nfuncs + 1, sizeof *img->funcs) != 0)
            return tl_fail(err, "out of memory");
        struct tlck_function *fn = &img->funcs[img->nfuncs++];
        fn->name = strdup(name ? name : "");
        fn->addr = s.st_value;
        fn->size = s.st_size;
        fn->shndx = s.st_shndx;
        fn->bind = (unsigned char)GELF_ST_BIND(s.st_info);
        fn->visibility = (unsigned char)GELF_ST_VISIBILITY(s.st_other);
    }
    return 0;
}

/* Where the dynamic symbols, their versions and the dynamic entries are read from: the sections that describe
 * them, or, when the section headers were removed, the loader's view (the same bytes, found through the dynamic
 * segment: lib/elf_dynamic.c bounded every range). One reader below serves both. */
struct strtab {
    const tl_elf *e;
    size_t shndx;                /* a section's (libelf checks it) */
    const tl_elf_dynview *dv;    /* or DT_STRTAB's */
};

static const char *str_at(const struct strtab *t, uint64_t off)
{
    return t->dv ? tl_elf_dynview_str(t->e, t->dv, off) : elf_strptr(t->e->elf, t->shndx, off);
}

struct dyn_tables {
    Elf_Data *sym, *versym, *verneed, *verdef, *dyn;
    size_t nsym, nverneed, nverdef, ndyn;
    struct strtab symstr, needstr, defstr, dynstr;
};

static Elf_Data *section_data(const tl_elf *e, unsigned type, GElf_Shdr *sh, struct strtab *str)
{
    Elf_Scn *scn = section_of_type(e, type, sh);
    if (!scn)
        return NULL;
    *str = (struct strtab){ .e = e, .shndx = sh->sh_link };
    return elf_getdata(scn, NULL);
}

static void tables_from_sections(const tl_elf *e, int rel, struct dyn_tables *t)
{
    GElf_Shdr sh;
    t->sym = section_data(e, rel ? SHT_SYMTAB : SHT_DYNSYM, &sh, &t->symstr);
    t->nsym = t->sym && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    if (rel)
        return;
    struct strtab none;
    t->versym = section_data(e, SHT_GNU_versym, &sh, &none);
    if ((t->verneed = section_data(e, SHT_GNU_verneed, &sh, &t->needstr)) != NULL)
        t->nverneed = sh.sh_info;
    if ((t->verdef = section_data(e, SHT_GNU_verdef, &sh, &t->defstr)) != NULL)
        t->nverdef = sh.sh_info;
    if ((t->dyn = section_data(e, SHT_DYNAMIC, &sh, &t->dynstr)) != NULL)
        t->ndyn = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
}

/* libelf translates the file's bytes at a range (byte order, alignment) as it does a section's. */
static Elf_Data *chunk(const tl_elf *e, tl_elf_range r, Elf_Type type)
{
    return r.size ? elf_getdata_rawchunk(e->elf, (int64_t)r.off, (size_t)r.size, type) : NULL;
}

static void tables_from_loader(const tl_elf *e, const tl_elf_dynview *dv, struct dyn_tables *t)
{
    struct strtab str = { .e = e, .dv = dv };
    t->symstr = t->needstr = t->defstr = t->dynstr = str;
    t->sym = chunk(e, dv->symtab, ELF_T_SYM);
    t->nsym = t->sym ? dv->nsyms : 0;
    t->versym = chunk(e, dv->versym, ELF_T_HALF);
    /* gelf_getverneed/getverdef want these types; the range runs to the segment's end (the table's own size is
     * not recorded), and the records' links are followed inside it, bounds-checked by libelf */
    t->verneed = chunk(e, dv->verneed, ELF_T_VNEED);
    t->nverneed = dv->nverneed;
    t->verdef = chunk(e, dv->verdef, ELF_T_VDEF);
    t->nverdef = dv->nverdef;
    t->dyn = chunk(e, dv->dynamic, ELF_T_DYN);
    t->ndyn = dv->ndyn;
}

/* Version index -> (name, file) from the version needs and definitions. */
struct vername {
    const char *name, *file;
};

static void read_verneed(const struct dyn_tables *t, struct vername *v, size_t nv)
{
    Elf_Data *d = t->verneed;
    size_t off = 0;
    for (size_t k = 0; d && k < t->nverneed; k++) {
        GElf_Verneed vn;
        if (!gelf_getverneed(d, (int)off, &vn))
            return;
        const char *file = str_at(&t->needstr, vn.vn_file);
        size_t aoff = off + vn.vn_aux;
        for (unsigned a = 0; a < vn.vn_cnt; a++) {
            GElf_Vernaux va;
            if (!gelf_getvernaux(d, (int)aoff, &va))
                break;
            unsigned idx = va.vna_other & 0x7fff;
            if (idx < nv) {
                v[idx].name = str_at(&t->needstr, va.vna_name);
                v[idx].file = file;
            }
            if (!va.vna_next)
                break;
            aoff += va.vna_next;
        }
        if (!vn.vn_next)
            return;
        off += vn.vn_next;
    }
}

static void read_verdef(const struct dyn_tables *t, struct vername *v, size_t nv)
{
    Elf_Data *d = t->verdef;
    size_t off = 0;
    for (size_t k = 0; d && k < t->nverdef; k++) {
        GElf_Verdef vd;
        GElf_Verdaux va;
        if (!gelf_getverdef(d, (int)off, &vd))
            return;
        unsigned idx = vd.vd_ndx & 0x7fff;
        if (!(vd.vd_flags & VER_FLG_BASE) && idx < nv && gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
            v[idx].name = str_at(&t->defstr, va.vda_name);
        if (!vd.vd_next)
            return;
        off += vd.vd_next;
    }
}

/* DT_SONAME, and DT_NEEDED for the package verdict's external-library rule. */
static void read_soname(struct tlck_file *f, const struct dyn_tables *t)
{
    size_t cap = 0;
    for (size_t i = 0; t->dyn && i < t->ndyn; i++) {
        GElf_Dyn dyn;
        if (!gelf_getdyn(t->dyn, (int)i, &dyn) || dyn.d_tag == DT_NULL)
            break;
        if (dyn.d_tag == DT_SONAME) {
            const char *s = str_at(&t->dynstr, dyn.d_un.d_val);
            free(f->soname);
            f->soname = tlck_strdup(s);
        } else if (dyn.d_tag == DT_NEEDED) {
            const char *s = str_at(&t->dynstr, dyn.d_un.d_val);
            char *copy = tlck_strdup(s);
            if (copy && tlck_grow((void **)&f->needed, &cap, f->nneeded + 1, sizeof *f->needed) == 0)
                f->needed[f->nneeded++] = copy;
            else
                free(copy);
        }
    }
}

/* ET_REL: the link-visible symbols are .symtab's globals; linked files: .dynsym with versions, or what the
 * dynamic segment names when the section headers are gone (no SHT_DYNAMIC section, a PT_DYNAMIC segment) or
 * hide one of its tables (what the loader uses is what is audited). */
int tlck_read_dynamic(struct tlck_file *f, const tl_elf *e, tl_error *err)
{
    int rel = e->ehdr.e_type == ET_REL;
    struct dyn_tables t = { 0 };
    tl_elf_dynview dv;
    GElf_Shdr sh;
    char hide[160];
    if (!rel && ((!section_of_type(e, SHT_DYNAMIC, &sh) && tl_elf_sections_missing(e)) ||
                 tl_elf_sections_hide(e, hide, sizeof hide))) {
        if (tl_elf_dynview_read(e, &dv, err) != 0)
            return -1;
        tables_from_loader(e, &dv, &t);
    } else
        tables_from_sections(e, rel, &t);
    read_soname(f, &t);
    if (!t.sym)
        return 0;
    size_t cap = 0;
    struct vername names[1024] = { { 0 } };
    read_verneed(&t, names, 1024);
    read_verdef(&t, names, 1024);
    for (size_t i = 1; i < t.nsym; i++) {
        GElf_Sym s;
        if (!gelf_getsym(t.sym, (int)i, &s))
            break;
        unsigned bind = GELF_ST_BIND(s.st_info);
        if (rel && bind == STB_LOCAL)
            continue;
        if (tlck_grow((void **)&f->dynsyms, &cap, f->ndynsyms + 1, sizeof *f->dynsyms) != 0)
            return tl_fail(err, "out of memory");
        struct tlck_symbol *y = &f->dynsyms[f->ndynsyms++];
        const char *name = str_at(&t.symstr, s.st_name);
        y->name = strdup(name ? name : "");
        y->value = s.st_value;
        y->size = s.st_size;
        y->type = (unsigned char)GELF_ST_TYPE(s.st_info);
        y->bind = (unsigned char)bind;
        y->visibility = (unsigned char)GELF_ST_VISIBILITY(s.st_other);
        y->defined = s.st_shndx != SHN_UNDEF;
        y->shndx = s.st_shndx;
        GElf_Versym vs;
        if (t.versym && gelf_getversym(t.versym, (int)i, &vs)) {
            unsigned idx = vs & 0x7fff;
            if (idx > 1 && idx < 1024 && names[idx].name) {
                y->version = strdup(names[idx].name);
                /* a version needed from a library (vernaux) names that library, on a definition too: an
                 * executable's copy-relocated object (std::cout) is defined in .bss with the library's version */
                y->version_file = tlck_strdup(names[idx].file);
            }
        }
    }
    return 0;
}

void tlck_read_comments(struct tlck_file *f, const tl_elf *e)
{
    GElf_Shdr sh;
    Elf_Scn *scn = tl_elf_section(e, ".comment", &sh);
    tl_bytes b;
    tl_error err;
    if (!scn || tl_elf_section_bytes(e, scn, &b, &err) != 0)
        return;
    size_t cap = 0;
    for (size_t i = 0; i < b.n;) {
        const unsigned char *z = memchr(b.p + i, 0, b.n - i);
        size_t len = z ? (size_t)(z - (b.p + i)) : b.n - i;
        if (len) {
            int dup = 0;
            for (size_t k = 0; k < f->ncomments && !dup; k++)
                dup = strlen(f->comments[k]) == len && memcmp(f->comments[k], b.p + i, len) == 0;
            if (!dup && tlck_grow((void **)&f->comments, &cap, f->ncomments + 1, sizeof *f->comments) == 0)
                f->comments[f->ncomments++] = strndup((const char *)b.p + i, len);
        }
        i += len + 1;
    }
    tl_bytes_free(&b);
}
