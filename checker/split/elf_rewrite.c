/* The section-by-section ELF copy behind every output of the split (elf_rewrite.h). */
#include "split/elf_rewrite.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static size_t align_up(size_t v, size_t a)
{
    return a > 1 ? (v + a - 1) / a * a : v;
}

/* The .shstrtab of the copy: every kept section's name, then the added one. */
struct names {
    char *buf;
    size_t n, cap;
};

static size_t names_add(struct names *s, const char *name)
{
    size_t len = strlen(name) + 1;
    if (s->n + len > s->cap) {
        size_t cap = (s->n + len) * 2 + 64;
        char *p = realloc(s->buf, cap);
        if (!p)
            return (size_t)-1;
        s->buf = p, s->cap = cap;
    }
    memcpy(s->buf + s->n, name, len);
    s->n += len;
    return s->n - len;
}

/* .symtab with its section indices closed up; symbols of dropped sections go (the copy's sh_info, the first
 * global, follows). Returns the new data's count, -1 on error. */
static int copy_symtab(Elf_Scn *in_scn, Elf_Data *out_d, const size_t *newidx, size_t shnum, size_t *first_global,
                       size_t old_first_global, char *err, size_t errlen)
{
    Elf_Data *d = elf_getdata(in_scn, NULL);
    GElf_Shdr sh;
    if (!d || !gelf_getshdr(in_scn, &sh) || sh.sh_entsize == 0)
        return fail(err, errlen, ".symtab cannot be read: %s", elf_errmsg(-1));
    size_t count = sh.sh_size / sh.sh_entsize, kept = 0;
    size_t entsz = d->d_size / (count ? count : 1);
    out_d->d_buf = calloc(count ? count : 1, entsz ? entsz : 1);
    if (!out_d->d_buf)
        return fail(err, errlen, "out of memory");
    out_d->d_type = ELF_T_SYM;
    out_d->d_size = count * entsz;
    *first_global = 0;
    for (size_t i = 0; i < count; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s))
            return fail(err, errlen, ".symtab symbol %zu cannot be read", i);
        if (s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE) {
            if (s.st_shndx >= shnum || newidx[s.st_shndx] == 0) {
                if (i == 0)
                    return fail(err, errlen, ".symtab symbol 0 names a section");
                continue; /* a symbol of a removed debug section (a section symbol) */
            }
            s.st_shndx = (Elf64_Section)newidx[s.st_shndx];
        }
        if (i < old_first_global)
            *first_global = kept + 1;
        if (!gelf_update_sym(out_d, (int)kept, &s))
            return fail(err, errlen, ".symtab symbol %zu cannot be written: %s", i, elf_errmsg(-1));
        kept++;
    }
    out_d->d_size = kept * entsz;
    return (int)kept;
}

int tlck_elf_rewrite(const struct tlck_elf_rewrite *r, int fd, char *err, size_t errlen)
{
    GElf_Ehdr eh;
    size_t shstrndx, phnum;
    if (!gelf_getehdr(r->in, &eh) || elf_getshdrstrndx(r->in, &shstrndx) != 0 || elf_getphdrnum(r->in, &phnum) != 0)
        return fail(err, errlen, "ELF header cannot be read: %s", elf_errmsg(-1));
    if (r->shnum >= SHN_LORESERVE)
        return fail(err, errlen, "%zu sections (extended section numbering) are not supported", r->shnum);
    size_t *newidx = calloc(r->shnum + 1, sizeof *newidx);
    void **owned = calloc(r->shnum + 1, sizeof *owned);
    struct names names = { 0 };
    Elf *out = NULL;
    int rc = -1, dropped = 0;
    if (!newidx || !owned) {
        fail(err, errlen, "out of memory");
        goto done;
    }
    size_t next = 1;
    for (size_t i = 1; i < r->shnum; i++) {
        if (r->scn[i].act == TLCK_SCN_DROP) {
            dropped = 1;
            if (i == shstrndx) {
                fail(err, errlen, "the section name table cannot be removed");
                goto done;
            }
        } else {
            newidx[i] = next++;
        }
    }
    /* a removed section before an allocated one would renumber what .dynsym names: refused, never seen in a
     * linker's output (debug sections come after every allocated one) */
    for (size_t i = 1, seen_drop = 0; i < r->shnum; i++) {
        GElf_Shdr sh;
        Elf_Scn *scn = elf_getscn(r->in, i);
        if (!scn || !gelf_getshdr(scn, &sh)) {
            fail(err, errlen, "section %zu cannot be read: %s", i, elf_errmsg(-1));
            goto done;
        }
        if (r->scn[i].act == TLCK_SCN_DROP)
            seen_drop = 1;
        else if (seen_drop && (sh.sh_flags & SHF_ALLOC) && eh.e_type != ET_REL) {
            fail(err, errlen, "a removed section comes before the allocated section %zu", i);
            goto done;
        }
        if (dropped && sh.sh_type == SHT_SYMTAB_SHNDX) {
            fail(err, errlen, "SHT_SYMTAB_SHNDX is not supported");
            goto done;
        }
    }
    if (dropped) { /* a kept relocation section that names .symtab pins its symbol indices */
        for (size_t i = 1; i < r->shnum; i++) {
            GElf_Shdr sh, lk;
            Elf_Scn *scn = elf_getscn(r->in, i);
            if (r->scn[i].act == TLCK_SCN_DROP || !gelf_getshdr(scn, &sh) ||
                (sh.sh_type != SHT_REL && sh.sh_type != SHT_RELA) || sh.sh_link == 0 || sh.sh_link >= r->shnum)
                continue;
            if (gelf_getshdr(elf_getscn(r->in, sh.sh_link), &lk) && lk.sh_type == SHT_SYMTAB) {
                fail(err, errlen, "relocation section %zu names .symtab (linked with --emit-relocs?): not supported",
                     i);
                goto done;
            }
        }
    }

    out = elf_begin(fd, ELF_C_WRITE, NULL);
    if (!out || !gelf_newehdr(out, gelf_getclass(r->in))) {
        fail(err, errlen, "cannot start the output: %s", elf_errmsg(-1));
        goto done;
    }
    if (phnum) {
        if (!gelf_newphdr(out, phnum)) {
            fail(err, errlen, "cannot make program headers: %s", elf_errmsg(-1));
            goto done;
        }
        for (size_t i = 0; i < phnum; i++) {
            GElf_Phdr ph;
            if (!gelf_getphdr(r->in, (int)i, &ph) || !gelf_update_phdr(out, (int)i, &ph)) {
                fail(err, errlen, "program header %zu: %s", i, elf_errmsg(-1));
                goto done;
            }
        }
    }
    GElf_Ehdr oh; /* read after gelf_newphdr, which sets e_phnum */
    if (!gelf_getehdr(out, &oh)) {
        fail(err, errlen, "cannot start the output: %s", elf_errmsg(-1));
        goto done;
    }
    memcpy(oh.e_ident, eh.e_ident, EI_NIDENT);
    oh.e_type = eh.e_type, oh.e_machine = eh.e_machine, oh.e_version = eh.e_version, oh.e_entry = eh.e_entry;
    oh.e_flags = eh.e_flags;
    oh.e_shstrndx = (Elf64_Half)newidx[shstrndx];
    if (names_add(&names, "") == (size_t)-1)
        goto oom;

    size_t layout_end = 0, ehsize = gelf_fsize(r->in, ELF_T_EHDR, 1, EV_CURRENT);
    if (r->keep_alloc_offsets) {
        layout_end = ehsize;
        if (phnum && eh.e_phoff + phnum * eh.e_phentsize > layout_end)
            layout_end = eh.e_phoff + phnum * eh.e_phentsize;
        for (size_t i = 0; i < phnum; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(r->in, (int)i, &ph) && ph.p_offset + ph.p_filesz > layout_end)
                layout_end = ph.p_offset + ph.p_filesz;
        }
        for (size_t i = 1; i < r->shnum; i++) {
            GElf_Shdr sh;
            if (gelf_getshdr(elf_getscn(r->in, i), &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS &&
                sh.sh_offset + sh.sh_size > layout_end)
                layout_end = sh.sh_offset + sh.sh_size;
        }
    }

    Elf_Scn *shstr_out = NULL;
    for (size_t i = 1; i < r->shnum; i++) {
        const struct tlck_scn_plan *pl = &r->scn[i];
        if (pl->act == TLCK_SCN_DROP)
            continue;
        Elf_Scn *in_scn = elf_getscn(r->in, i), *o_scn = elf_newscn(out);
        GElf_Shdr sh;
        Elf_Data *od = o_scn ? elf_newdata(o_scn) : NULL;
        if (!gelf_getshdr(in_scn, &sh) || !od) {
            fail(err, errlen, "section %zu: %s", i, elf_errmsg(-1));
            goto done;
        }
        const char *nm = elf_strptr(r->in, shstrndx, sh.sh_name);
        size_t name_off = names_add(&names, nm ? nm : "");
        if (name_off == (size_t)-1)
            goto oom;
        sh.sh_name = (Elf64_Word)name_off;
        if (sh.sh_link && sh.sh_link < r->shnum)
            sh.sh_link = (Elf64_Word)newidx[sh.sh_link];
        if ((sh.sh_type == SHT_REL || sh.sh_type == SHT_RELA || (sh.sh_flags & SHF_INFO_LINK)) && sh.sh_info &&
            sh.sh_info < r->shnum)
            sh.sh_info = (Elf64_Word)newidx[sh.sh_info];
        od->d_align = sh.sh_addralign ? sh.sh_addralign : 1;
        od->d_version = EV_CURRENT;
        od->d_off = 0;
        if (pl->act == TLCK_SCN_NOBITS || sh.sh_type == SHT_NOBITS) {
            sh.sh_type = SHT_NOBITS;
            od->d_buf = NULL, od->d_size = sh.sh_size, od->d_type = ELF_T_BYTE;
        } else if (pl->act == TLCK_SCN_REPLACE) {
            od->d_buf = (void *)pl->data, od->d_size = pl->n, od->d_type = ELF_T_BYTE;
            sh.sh_size = pl->n;
        } else if (i == shstrndx) {
            shstr_out = o_scn; /* filled once every name is in */
            od->d_type = ELF_T_BYTE;
        } else if (sh.sh_type == SHT_SYMTAB && dropped) {
            size_t fg = 0;
            int kept = copy_symtab(in_scn, od, newidx, r->shnum, &fg, sh.sh_info, err, errlen);
            owned[i] = od->d_buf;
            if (kept < 0)
                goto done;
            sh.sh_info = (Elf64_Word)fg;
            sh.sh_size = (size_t)kept * sh.sh_entsize;
        } else {
            Elf_Data *id = elf_rawdata(in_scn, NULL);
            if (!id && sh.sh_size) {
                fail(err, errlen, "section %zu cannot be read: %s", i, elf_errmsg(-1));
                goto done;
            }
            od->d_buf = id ? id->d_buf : NULL, od->d_size = id ? id->d_size : 0, od->d_type = ELF_T_BYTE;
        }
        if (r->keep_alloc_offsets && !(sh.sh_flags & SHF_ALLOC)) {
            sh.sh_offset = align_up(layout_end, sh.sh_addralign);
            if (sh.sh_type != SHT_NOBITS && i != shstrndx)
                layout_end = sh.sh_offset + od->d_size;
        }
        if (!gelf_update_shdr(o_scn, &sh)) {
            fail(err, errlen, "section %zu: %s", i, elf_errmsg(-1));
            goto done;
        }
        /* .shstrtab's size is known only at the end: in a laid-out copy it moves to the end */
    }
    Elf_Scn *added = NULL;
    if (r->add_name) {
        added = elf_newscn(out);
        Elf_Data *od = added ? elf_newdata(added) : NULL;
        size_t name_off = names_add(&names, r->add_name);
        if (!od || name_off == (size_t)-1)
            goto oom;
        od->d_buf = (void *)r->add_data, od->d_size = r->add_n, od->d_type = ELF_T_BYTE, od->d_align = 4;
        od->d_version = EV_CURRENT;
        GElf_Shdr sh = { .sh_name = (Elf64_Word)name_off, .sh_type = SHT_PROGBITS, .sh_addralign = 4,
                         .sh_size = r->add_n };
        if (r->keep_alloc_offsets) {
            sh.sh_offset = align_up(layout_end, 4);
            layout_end = sh.sh_offset + r->add_n;
        }
        if (!gelf_update_shdr(added, &sh))
            goto oom;
    }
    if (shstr_out) {
        Elf_Data *od = elf_getdata(shstr_out, NULL);
        GElf_Shdr sh;
        if (!od || !gelf_getshdr(shstr_out, &sh))
            goto oom;
        od->d_buf = names.buf, od->d_size = names.n;
        sh.sh_size = names.n;
        if (r->keep_alloc_offsets) {
            sh.sh_offset = layout_end;
            layout_end += names.n;
        }
        gelf_update_shdr(shstr_out, &sh);
    }
    if (r->keep_alloc_offsets) {
        oh.e_phoff = eh.e_phoff;
        oh.e_shoff = align_up(layout_end, gelf_getclass(r->in) == ELFCLASS64 ? 8 : 4);
        elf_flagelf(out, ELF_C_SET, ELF_F_LAYOUT);
    }
    if (!gelf_update_ehdr(out, &oh) || elf_update(out, ELF_C_WRITE) < 0) {
        fail(err, errlen, "cannot write the output: %s", elf_errmsg(-1));
        goto done;
    }
    rc = 0;
    goto done;
oom:
    fail(err, errlen, "cannot build the output: %s", elf_errmsg(-1));
done:
    if (out)
        elf_end(out);
    if (owned)
        for (size_t i = 0; i < r->shnum; i++)
            free(owned[i]);
    free(owned);
    free(newidx);
    free(names.buf);
    return rc;
}
