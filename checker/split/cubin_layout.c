#include "split/cubin_layout.h"

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One stretch of the file that has bytes: the ELF header, the program header table, a section with contents. */
struct region {
    uint64_t old_off, old_size;
    uint64_t new_off, new_size;
    const unsigned char *src; /* new contents (new_size bytes) */
    size_t sec;               /* section index, or SIZE_MAX for the two tables */
    int changed;
    uint64_t align;           /* the section's own alignment (8 for the tables) */
    long seg;                 /* the first segment whose file range holds it, or -1 */
};

#define NO_SECTION SIZE_MAX
#define MAX_ALIGN ((uint64_t)1 << 16)

static int by_old_off(const void *a, const void *b)
{
    const struct region *x = a, *y = b;
    return x->old_off < y->old_off ? -1 : x->old_off > y->old_off;
}

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/* The smallest offset >= at that is congruent to old modulo a (a power of two). */
static uint64_t congruent_at_or_after(uint64_t at, uint64_t old, uint64_t a)
{
    uint64_t v = (at & ~(a - 1)) | (old & (a - 1));
    return v < at ? v + a : v;
}

/* Where an old file offset x lands: inside (or at the end of) a region it moves with that region; in a gap it
 * keeps its distance to the next region, but never before the previous region's new end. */
static uint64_t map_offset(const struct region *r, size_t nr, uint64_t x, uint64_t end_new)
{
    uint64_t prev_end = 0;
    for (size_t i = 0; i < nr; i++) {
        if (x >= r[i].old_off && x < r[i].old_off + r[i].old_size)
            return r[i].new_off + (x - r[i].old_off < r[i].new_size ? x - r[i].old_off : r[i].new_size);
        if (x < r[i].old_off) {
            uint64_t back = r[i].old_off - x;
            uint64_t v = r[i].new_off >= back ? r[i].new_off - back : 0;
            return v < prev_end ? prev_end : v;
        }
        prev_end = r[i].new_off + r[i].new_size;
    }
    return end_new;
}

static int pow2(uint64_t a) { return a && !(a & (a - 1)); }

/* SHT_NOBITS, and the CUDA section types that reserve device memory without file bytes: their sh_offset
 * repeats the next section's and sh_size is what they reserve (seen in nvcc 13.0 cubins: `.nv.global` 0x70000007,
 * `.nv.local.*` 0x70000009, `.nv.shared.*` 0x7000000A, `.nv.shared.reserved.*` 0x70000015, the last two
 * overlapping `.nv.constant0.*` in -rdc images). */
static int has_file_bytes(const GElf_Shdr *s)
{
    switch (s->sh_type) {
    case SHT_NOBITS: case 0x70000007u: case 0x70000009u: case 0x7000000Au: case 0x70000015u:
        return 0;
    default:
        return s->sh_size != 0;
    }
}

int tlck_cubin_relayout(const tl_elf *e, const struct tlck_section_edit *edits, const struct tlck_section_new *add,
                        unsigned char **out, size_t *out_n, tl_error *err)
{
    *out = NULL;
    *out_n = 0;
    const unsigned char *id = e->data;
    if (e->size < sizeof(Elf64_Ehdr) || id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB)
        return tl_fail(err, "not a 64-bit little-endian ELF file");
    const GElf_Ehdr *eh = &e->ehdr;
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || e->shnum == 0 || e->shnum >= SHN_LORESERVE ||
        e->shstrndx >= e->shnum)
        return tl_fail(err, "unusual section header table (entry size %u, %zu sections)", eh->e_shentsize, e->shnum);
    size_t phnum = 0;
    if (elf_getphdrnum(e->elf, &phnum) != 0)
        return tl_fail(err, "bad program header table: %s", elf_errmsg(-1));
    if (phnum && eh->e_phentsize != sizeof(Elf64_Phdr))
        return tl_fail(err, "unusual program header entry size %u", eh->e_phentsize);

    size_t nsec = e->shnum;
    GElf_Shdr *sh = calloc(nsec, sizeof *sh);
    GElf_Phdr *ph = calloc(phnum ? phnum : 1, sizeof *ph);
    struct region *r = calloc(nsec + 4, sizeof *r);
    char *names = NULL;
    int rc = -1;
    if (!sh || !ph || !r) {
        tl_fail(err, "out of memory");
        goto done;
    }
    uint64_t A = 8;
    for (size_t i = 0; i < nsec; i++) {
        Elf_Scn *scn = elf_getscn(e->elf, i);
        if (!scn || !gelf_getshdr(scn, &sh[i])) {
            tl_fail(err, "section %zu: %s", i, elf_errmsg(-1));
            goto done;
        }
        if (sh[i].sh_addralign > A)
            A = sh[i].sh_addralign;
        if (has_file_bytes(&sh[i]) &&
            (sh[i].sh_offset > e->size || sh[i].sh_size > e->size - sh[i].sh_offset)) {
            tl_fail(err, "section %zu runs past the end of the file", i);
            goto done;
        }
    }
    for (size_t i = 0; i < phnum; i++) {
        if (!gelf_getphdr(e->elf, (int)i, &ph[i])) {
            tl_fail(err, "program header %zu: %s", i, elf_errmsg(-1));
            goto done;
        }
        if (ph[i].p_type == PT_LOAD && ph[i].p_align > A)
            A = ph[i].p_align;
    }
    if (!pow2(A) || A > MAX_ALIGN) {
        tl_fail(err, "alignment %llu is not a power of two up to %llu", (unsigned long long)A,
                (unsigned long long)MAX_ALIGN);
        goto done;
    }

    /* The appended section's name goes at the end of a copy of .shstrtab. */
    size_t shstr_n = 0;
    if (add) {
        const GElf_Shdr *ss = &sh[e->shstrndx];
        if (ss->sh_type != SHT_STRTAB || (edits && edits[e->shstrndx].replaced)) {
            tl_fail(err, "no usable section name table");
            goto done;
        }
        size_t nl = strlen(add->name) + 1;
        shstr_n = ss->sh_size + nl;
        if (!(names = malloc(shstr_n))) {
            tl_fail(err, "out of memory");
            goto done;
        }
        if (ss->sh_size) /* an empty table's offset is unchecked */
            memcpy(names, e->data + ss->sh_offset, ss->sh_size);
        memcpy(names + ss->sh_size, add->name, nl);
    }

    size_t nr = 0;
    r[nr++] = (struct region){ 0, sizeof(Elf64_Ehdr), 0, sizeof(Elf64_Ehdr), NULL, NO_SECTION, 0, 8, -1 };
    if (phnum) {
        uint64_t len = phnum * sizeof(Elf64_Phdr);
        if (eh->e_phoff > e->size || len > e->size - eh->e_phoff) {
            tl_fail(err, "program header table runs past the end of the file");
            goto done;
        }
        r[nr++] = (struct region){ eh->e_phoff, len, 0, len, e->data + eh->e_phoff, NO_SECTION, 0, 8, -1 };
    }
    /* The old section header table: its bytes go (the new one is written at the end). */
    if (eh->e_shoff && eh->e_shoff <= e->size && nsec * sizeof(Elf64_Shdr) <= e->size - eh->e_shoff)
        r[nr++] = (struct region){ eh->e_shoff, nsec * sizeof(Elf64_Shdr), 0, 0, NULL, NO_SECTION, 1, 8, -1 };
    for (size_t i = 1; i < nsec; i++) {
        const GElf_Shdr *s = &sh[i];
        int has_bytes = has_file_bytes(s);
        struct region g = { s->sh_offset, has_bytes ? s->sh_size : 0, 0, 0, NULL, i, 0,
                             s->sh_addralign > 1 ? s->sh_addralign : 1, -1 };
        g.new_size = g.old_size;
        g.src = has_bytes ? e->data + s->sh_offset : e->data; /* a NOBITS or empty section's offset is unchecked */
        if (edits && edits[i].replaced) {
            g.changed = 1;
            g.src = edits[i].p;
            g.new_size = edits[i].n;
        } else if (add && i == e->shstrndx) {
            g.changed = 1;
            g.src = (const unsigned char *)names;
            g.new_size = shstr_n;
        }
        if (g.old_size == 0 && g.new_size == 0)
            continue; /* placed by map_offset */
        r[nr++] = g;
    }
    qsort(r, nr, sizeof *r, by_old_off);
    /* Sections that alias one another's bytes (sm_100's `.nv.merc.debug_str` is `.debug_str`) are one region;
     * map_offset places the others. They must be changed alike. */
    size_t kept = 0;
    for (size_t k = 0; k < nr; k++) {
        if (kept && r[k].old_size && r[k].old_off == r[kept - 1].old_off && r[k].old_size == r[kept - 1].old_size) {
            if (r[k].changed != r[kept - 1].changed || r[k].new_size != r[kept - 1].new_size) {
                tl_fail(err, "sections %zu and %zu share their bytes but are not changed alike", r[kept - 1].sec,
                        r[k].sec);
                goto done;
            }
            continue;
        }
        r[kept++] = r[k];
    }
    nr = kept;

    /* What each segment maps moves as one block; a changed section inside one would break it. */
    for (size_t k = 0; k < nr; k++) {
        for (size_t j = 0; j < phnum && r[k].seg < 0; j++)
            if (ph[j].p_filesz && r[k].old_off < ph[j].p_offset + ph[j].p_filesz &&
                ph[j].p_offset < r[k].old_off + (r[k].old_size ? r[k].old_size : 1))
                r[k].seg = (long)j;
        if (r[k].changed && r[k].seg >= 0) {
            tl_fail(err, "section %zu lies inside segment %ld", r[k].sec, r[k].seg);
            goto done;
        }
        if (!pow2(r[k].align) || r[k].align > MAX_ALIGN) {
            tl_fail(err, "section %zu: alignment %llu is not a power of two up to %llu", r[k].sec,
                    (unsigned long long)r[k].align, (unsigned long long)MAX_ALIGN);
            goto done;
        }
    }

    /* Inside a segment, a region keeps its distance to the one before; a segment's first region moves by a
     * multiple of the largest alignment, so every section in it stays aligned; anything else is packed at
     * its own alignment. */
    uint64_t cursor = 0;
    for (size_t k = 0; k < nr; k++) {
        if (k && r[k].old_off < r[k - 1].old_off + r[k - 1].old_size) {
            tl_fail(err, "overlapping sections at offset 0x%llx", (unsigned long long)r[k].old_off);
            goto done;
        }
        uint64_t nw;
        if (k == 0)
            nw = 0;
        else if (r[k].seg >= 0 && r[k - 1].seg == r[k].seg)
            nw = r[k - 1].new_off + (r[k].old_off - r[k - 1].old_off);
        else if (r[k].seg >= 0)
            nw = congruent_at_or_after(cursor, r[k].old_off, A);
        else
            nw = align_up(cursor, r[k].align);
        r[k].new_off = nw;
        cursor = nw + r[k].new_size;
    }
    uint64_t add_off = 0, add_align = add && add->align > 1 ? add->align : 1;
    if (add) {
        if (!pow2(add_align)) {
            tl_fail(err, "appended section alignment is not a power of two");
            goto done;
        }
        add_off = align_up(cursor, add_align);
        cursor = add_off + add->n;
    }
    uint64_t shoff = align_up(cursor, 8);
    size_t nsec_out = nsec + (add ? 1 : 0);
    uint64_t total = shoff + nsec_out * sizeof(Elf64_Shdr);
    unsigned char *o = calloc(1, total);
    if (!o) {
        tl_fail(err, "out of memory for %llu bytes", (unsigned long long)total);
        goto done;
    }
    for (size_t k = 1; k < nr; k++)
        if (r[k].new_size)
            memcpy(o + r[k].new_off, r[k].src, r[k].new_size);
    if (add && add->n)
        memcpy(o + add_off, add->p, add->n);

    Elf64_Ehdr oh;
    memcpy(&oh, e->data, sizeof oh);
    oh.e_shoff = shoff;
    if (add)
        oh.e_shnum = (Elf64_Half)nsec_out;
    if (phnum)
        oh.e_phoff = map_offset(r, nr, eh->e_phoff, cursor);
    memcpy(o, &oh, sizeof oh);

    for (size_t j = 0; j < phnum; j++) {
        Elf64_Phdr p = { ph[j].p_type, ph[j].p_flags, ph[j].p_offset, ph[j].p_vaddr, ph[j].p_paddr,
                         ph[j].p_filesz, ph[j].p_memsz, ph[j].p_align };
        p.p_offset = map_offset(r, nr, ph[j].p_offset, cursor);
        memcpy(o + oh.e_phoff + j * sizeof p, &p, sizeof p);
    }
    for (size_t i = 0; i < nsec; i++) {
        const GElf_Shdr *s = &sh[i];
        Elf64_Shdr q = { s->sh_name, s->sh_type, s->sh_flags, s->sh_addr, s->sh_offset, s->sh_size,
                         s->sh_link, s->sh_info, s->sh_addralign, s->sh_entsize };
        if (i) {
            q.sh_offset = map_offset(r, nr, s->sh_offset, cursor);
            if (edits && edits[i].replaced)
                q.sh_size = edits[i].n;
            else if (add && i == e->shstrndx)
                q.sh_size = shstr_n;
        }
        memcpy(o + shoff + i * sizeof q, &q, sizeof q);
    }
    if (add) {
        Elf64_Shdr q = { (Elf64_Word)sh[e->shstrndx].sh_size, add->type, add->flags, 0, add_off, add->n,
                         0, 0, add_align, 0 };
        memcpy(o + shoff + nsec * sizeof q, &q, sizeof q);
    }
    *out = o;
    *out_n = (size_t)total;
    rc = 0;
done:
    free(sh);
    free(ph);
    free(r);
    free(names);
    return rc;
}
