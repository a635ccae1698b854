/* ELF symbol tables (libelf): functions for line-tables/dwarf-symbols, the dynamic symbols with their
 * versions for stl-leak/symbol-versions, .comment strings for mixed-toolchain, DT_SONAME. */
#include "read/host_internal.h"

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

/* Version index -> (name, file) from SHT_GNU_verneed and SHT_GNU_verdef. */
struct vername {
    const char *name, *file;
};

static void read_verneed(const tl_elf *e, struct vername *v, size_t nv)
{
    GElf_Shdr sh;
    Elf_Scn *scn = section_of_type(e, SHT_GNU_verneed, &sh);
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    size_t off = 0;
    for (size_t k = 0; d && k < sh.sh_info; k++) {
        GElf_Verneed vn;
        if (!gelf_getverneed(d, (int)off, &vn))
            return;
        const char *file = elf_strptr(e->elf, sh.sh_link, vn.vn_file);
        size_t aoff = off + vn.vn_aux;
        for (unsigned a = 0; a < vn.vn_cnt; a++) {
            GElf_Vernaux va;
            if (!gelf_getvernaux(d, (int)aoff, &va))
                break;
            unsigned idx = va.vna_other & 0x7fff;
            if (idx < nv) {
                v[idx].name = elf_strptr(e->elf, sh.sh_link, va.vna_name);
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

static void read_verdef(const tl_elf *e, struct vername *v, size_t nv)
{
    GElf_Shdr sh;
    Elf_Scn *scn = section_of_type(e, SHT_GNU_verdef, &sh);
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    size_t off = 0;
    for (size_t k = 0; d && k < sh.sh_info; k++) {
        GElf_Verdef vd;
        GElf_Verdaux va;
        if (!gelf_getverdef(d, (int)off, &vd))
            return;
        unsigned idx = vd.vd_ndx & 0x7fff;
        if (!(vd.vd_flags & VER_FLG_BASE) && idx < nv && gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
            v[idx].name = elf_strptr(e->elf, sh.sh_link, va.vda_name);
        if (!vd.vd_next)
            return;
        off += vd.vd_next;
    }
}

/* DT_SONAME, and DT_NEEDED for the package verdict's external-library rule. */
static void read_soname(struct tlck_file *f, const tl_elf *e)
{
    GElf_Shdr sh;
    size_t cap = 0;
    Elf_Scn *scn = section_of_type(e, SHT_DYNAMIC, &sh);
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
        GElf_Dyn dyn;
        if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
            break;
        if (dyn.d_tag == DT_SONAME) {
            const char *s = elf_strptr(e->elf, sh.sh_link, dyn.d_un.d_val);
            f->soname = tlck_strdup(s);
        } else if (dyn.d_tag == DT_NEEDED) {
            const char *s = elf_strptr(e->elf, sh.sh_link, dyn.d_un.d_val);
            char *copy = tlck_strdup(s);
            if (copy && tlck_grow((void **)&f->needed, &cap, f->nneeded + 1, sizeof *f->needed) == 0)
                f->needed[f->nneeded++] = copy;
            else
                free(copy);
        }
    }
}

/* ET_REL: the link-visible symbols are .symtab's globals; linked files: .dynsym with versions. */
int tlck_read_dynamic(struct tlck_file *f, const tl_elf *e, tl_error *err)
{
    int rel = e->ehdr.e_type == ET_REL;
    GElf_Shdr sh, vsh;
    Elf_Scn *scn = section_of_type(e, rel ? SHT_SYMTAB : SHT_DYNSYM, &sh);
    Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
    read_soname(f, e);
    if (!d || !sh.sh_entsize)
        return 0;
    size_t n = sh.sh_size / sh.sh_entsize, cap = 0;
    Elf_Scn *vscn = rel ? NULL : section_of_type(e, SHT_GNU_versym, &vsh);
    Elf_Data *vd = vscn ? elf_getdata(vscn, NULL) : NULL;
    struct vername names[1024] = { { 0 } };
    read_verneed(e, names, 1024);
    read_verdef(e, names, 1024);
    for (size_t i = 1; i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            break;
        unsigned bind = GELF_ST_BIND(s.st_info);
        if (rel && bind == STB_LOCAL)
            continue;
        if (tlck_grow((void **)&f->dynsyms, &cap, f->ndynsyms + 1, sizeof *f->dynsyms) != 0)
            return tl_fail(err, "out of memory");
        struct tlck_symbol *y = &f->dynsyms[f->ndynsyms++];
        const char *name = elf_strptr(e->elf, sh.sh_link, s.st_name);
        y->name = strdup(name ? name : "");
        y->value = s.st_value;
        y->size = s.st_size;
        y->type = (unsigned char)GELF_ST_TYPE(s.st_info);
        y->bind = (unsigned char)bind;
        y->visibility = (unsigned char)GELF_ST_VISIBILITY(s.st_other);
        y->defined = s.st_shndx != SHN_UNDEF;
        y->shndx = s.st_shndx;
        GElf_Versym vs;
        if (vd && gelf_getversym(vd, (int)i, &vs)) {
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
