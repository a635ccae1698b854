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

/* Where non-allocated bytes may go in a laid-out copy: file ranges no segment and no allocated section covers.
 * Every loaded segment but the last in the file counts up to its page end (at most 64 KiB), so that nothing is
 * put into the padding the loader maps with a segment; after the last one they follow its bytes, as a linker
 * places them. A hole inside the file (patchelf moves allocated sections to the end; the debug sections that
 * were before them go) is used first-fit, largest section first, else the end. */
struct ranges {
    struct { size_t a, b; } *v;
    size_t n, cap;
};

static int ranges_add(struct ranges *r, size_t a, size_t b)
{
    if (b <= a)
        return 0;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        void *p = realloc(r->v, cap * sizeof *r->v);
        if (!p)
            return -1;
        r->v = p, r->cap = cap;
    }
    r->v[r->n].a = a, r->v[r->n].b = b;
    r->n++;
    return 0;
}

static int ranges_hit(const struct ranges *r, size_t a, size_t b)
{
    for (size_t i = 0; i < r->n; i++)
        if (a < r->v[i].b && r->v[i].a < b)
            return 1;
    return 0;
}

/* The lowest aligned offset where n bytes overlap nothing taken, then taken. (size_t)-1 on no memory. */
static size_t ranges_place(struct ranges *r, size_t n, size_t align)
{
    size_t best = (size_t)-1;
    for (size_t i = 0; i <= r->n; i++) {
        size_t at = align_up(i < r->n ? r->v[i].b : 0, align);
        if (at < best && !ranges_hit(r, at, at + (n ? n : 1)))
            best = at;
    }
    if (best == (size_t)-1 || ranges_add(r, best, best + n) != 0)
        return (size_t)-1;
    return best;
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

/* .symtab (or .dynsym) with its section indices closed up; symbols of dropped sections go when may_drop (the
 * copy's sh_info, the first global, follows), else are an error. Returns the kept count, -1 on error. */
static int copy_symtab(Elf_Scn *in_scn, Elf_Data *out_d, const size_t *newidx, size_t shnum, size_t *first_global,
                       size_t old_first_global, int may_drop, char *err, size_t errlen)
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
                if (i == 0 || !may_drop)
                    return fail(err, errlen, "symbol %zu names a removed section and cannot go (a relocation "
                                             "section names its table: linked with --emit-relocs?)", i);
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

struct place_item {
    size_t idx, n, align;
};

static int by_size_desc(const void *a, const void *b)
{
    const struct place_item *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Offsets for the non-allocated sections of a laid-out copy (off[i]), the added section (off[shnum]) and the
 * section header table (off[shnum + 1]): largest first, so that a hole is filled before the end grows. Sizes
 * are upper bounds (.symtab may lose symbols, .shstrtab is written without shared suffixes). */
static int place_non_alloc(const struct tlck_elf_rewrite *r, size_t shstrndx, size_t shentsize, size_t nkept,
                           struct ranges *taken, size_t *off)
{
    struct place_item *it = calloc(r->shnum + 2, sizeof *it);
    size_t n = 0, names = 1 + (r->add_name ? strlen(r->add_name) + 1 : 0);
    if (!it)
        return -1;
    for (size_t i = 1; i < r->shnum; i++) {
        GElf_Shdr sh;
        if (!gelf_getshdr(elf_getscn(r->in, i), &sh))
            continue;
        const char *nm = elf_strptr(r->in, shstrndx, sh.sh_name);
        names += (nm ? strlen(nm) : 0) + 1;
        if (r->scn[i].act == TLCK_SCN_DROP || r->scn[i].act == TLCK_SCN_NOBITS || (sh.sh_flags & SHF_ALLOC) ||
            sh.sh_type == SHT_NOBITS || i == shstrndx)
            continue;
        it[n++] = (struct place_item){ i, r->scn[i].act == TLCK_SCN_REPLACE ? r->scn[i].n : sh.sh_size,
                                       sh.sh_addralign ? sh.sh_addralign : 1 };
    }
    it[n++] = (struct place_item){ shstrndx, names, 1 };
    if (r->add_name)
        it[n++] = (struct place_item){ r->shnum, r->add_n, 4 };
    it[n++] = (struct place_item){ r->shnum + 1, shentsize * (nkept + (r->add_name ? 1 : 0)), 8 };
    qsort(it, n, sizeof *it, by_size_desc);
    for (size_t k = 0; k < n; k++)
        if ((off[it[k].idx] = ranges_place(taken, it[k].n, it[k].align)) == (size_t)-1) {
            free(it);
            return -1;
        }
    free(it);
    return 0;
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
    size_t *off = calloc(r->shnum + 2, sizeof *off); /* laid-out copy: where each non-allocated part goes */
    struct names names = { 0 };
    Elf *out = NULL;
    int rc = -1, dropped = 0, symtab_pinned = 0;
    struct ranges taken = { 0 };
    if (!newidx || !owned || !off) {
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
    /* a removed section before an allocated one renumbers what .dynsym names (seen after patchelf, which
     * appends allocated sections at the end): .dynsym's section indices follow, its size and place do not
     * change, and the loader reads only whether an index is SHN_UNDEF */
    for (size_t i = 1; i < r->shnum; i++) {
        GElf_Shdr sh;
        Elf_Scn *scn = elf_getscn(r->in, i);
        if (!scn || !gelf_getshdr(scn, &sh)) {
            fail(err, errlen, "section %zu cannot be read: %s", i, elf_errmsg(-1));
            goto done;
        }
        if (dropped && sh.sh_type == SHT_SYMTAB_SHNDX) {
            fail(err, errlen, "SHT_SYMTAB_SHNDX is not supported");
            goto done;
        }
    }
    /* a kept relocation section that names .symtab pins its symbol indices (a static executable's .rela.plt,
     * --emit-relocs): its symbols may then be renumbered by nothing, checked in copy_symtab */
    for (size_t i = 1; dropped && i < r->shnum; i++) {
        GElf_Shdr sh, lk;
        Elf_Scn *scn = elf_getscn(r->in, i);
        if (r->scn[i].act == TLCK_SCN_DROP || !gelf_getshdr(scn, &sh) ||
            (sh.sh_type != SHT_REL && sh.sh_type != SHT_RELA) || sh.sh_link == 0 || sh.sh_link >= r->shnum)
            continue;
        if (gelf_getshdr(elf_getscn(r->in, sh.sh_link), &lk) && lk.sh_type == SHT_SYMTAB)
            symtab_pinned = 1;
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

    size_t ehsize = gelf_fsize(r->in, ELF_T_EHDR, 1, EV_CURRENT);
    /* what is kept at its offset must lie inside the input: a damaged header would otherwise make the copy as
     * large as the offset it names */
    for (size_t i = 0; r->keep_alloc_offsets && i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(r->in, (int)i, &ph) || ph.p_offset > r->in_size || ph.p_filesz > r->in_size - ph.p_offset) {
            fail(err, errlen, "program header %zu lies beyond the end of the file", i);
            goto done;
        }
    }
    for (size_t i = 1; i < r->shnum; i++) { /* libelf pads to each alignment: a damaged one would be the file */
        GElf_Shdr sh;
        if (r->scn[i].act != TLCK_SCN_DROP && gelf_getshdr(elf_getscn(r->in, i), &sh) &&
            (sh.sh_addralign > ((Elf64_Xword)1 << 24) || (sh.sh_addralign & (sh.sh_addralign - 1)))) {
            fail(err, errlen, "section %zu: alignment %llu is over 16 MiB or not a power of two", i,
                 (unsigned long long)sh.sh_addralign);
            goto done;
        }
    }
    for (size_t i = 1; r->keep_alloc_offsets && i < r->shnum; i++) {
        GElf_Shdr sh;
        if (gelf_getshdr(elf_getscn(r->in, i), &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS &&
            (sh.sh_offset > r->in_size || sh.sh_size > r->in_size - sh.sh_offset)) {
            fail(err, errlen, "section %zu lies beyond the end of the file", i);
            goto done;
        }
    }
    if (r->keep_alloc_offsets) {
        int bad = ranges_add(&taken, 0, ehsize) != 0 ||
                  (phnum && ranges_add(&taken, eh.e_phoff, eh.e_phoff + phnum * eh.e_phentsize) != 0);
        size_t last_load = 0; /* the file offset of the last PT_LOAD: its end is left exact */
        for (size_t i = 0; i < phnum; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(r->in, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_offset > last_load)
                last_load = ph.p_offset;
        }
        for (size_t i = 0; i < phnum && !bad; i++) {
            GElf_Phdr ph;
            if (!gelf_getphdr(r->in, (int)i, &ph) || !ph.p_filesz)
                continue;
            size_t page = ph.p_type == PT_LOAD && ph.p_offset != last_load ? (ph.p_align < 65536 ? ph.p_align : 65536) : 1;
            bad = ranges_add(&taken, ph.p_offset, align_up(ph.p_offset + ph.p_filesz, page)) != 0;
        }
        for (size_t i = 1; i < r->shnum && !bad; i++) {
            GElf_Shdr sh;
            if (gelf_getshdr(elf_getscn(r->in, i), &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_type != SHT_NOBITS)
                bad = ranges_add(&taken, sh.sh_offset, sh.sh_offset + sh.sh_size) != 0;
        }
        if (bad)
            goto oom;
        if (place_non_alloc(r, shstrndx, eh.e_shentsize, next, &taken, off) != 0)
            goto oom;
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
        } else if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) && dropped) {
            size_t fg = 0;
            int kept = copy_symtab(in_scn, od, newidx, r->shnum, &fg, sh.sh_info,
                                   sh.sh_type == SHT_SYMTAB && !symtab_pinned, err, errlen);
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
        if (r->keep_alloc_offsets && !(sh.sh_flags & SHF_ALLOC) && i != shstrndx) {
            sh.sh_offset = sh.sh_type == SHT_NOBITS ? 0 : off[i];
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
        if (r->keep_alloc_offsets)
            sh.sh_offset = off[r->shnum];
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
        if (r->keep_alloc_offsets)
            sh.sh_offset = off[shstrndx];
        gelf_update_shdr(shstr_out, &sh);
    }
    if (r->keep_alloc_offsets) {
        oh.e_phoff = eh.e_phoff;
        oh.e_shoff = off[r->shnum + 1];
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
    free(taken.v);
    free(off);
    return rc;
}
