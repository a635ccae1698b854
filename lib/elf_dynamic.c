/* The loader's view (see trueline/elf_dynamic.h): PT_LOAD maps addresses to file bytes, PT_DYNAMIC names the
 * tables. Read as ld.so reads it, with each range bounded by its segment and the file. */
#include "trueline/elf_dynamic.h"

#include <stdio.h>
#include <string.h>

int tl_elf_sections_missing(const tl_elf *e)
{
    size_t phnum = 0;
    if ((e->ehdr.e_type != ET_EXEC && e->ehdr.e_type != ET_DYN) || elf_getphdrnum(e->elf, &phnum) != 0 || !phnum)
        return 0;
    if (!e->ehdr.e_shoff || !e->shnum)
        return 1;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NULL)
            return 0;
    return 1;
}

/* Words of the file's byte order, at a file offset the caller has bounded. */
static uint64_t rd(const tl_elf *e, uint64_t off, unsigned n)
{
    uint64_t v = 0;
    const unsigned char *p = e->data + off;
    int msb = e->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[msb ? i : n - 1 - i] << (8 * (n - 1 - i));
    return v;
}

/* The file bytes behind address addr: their offset and how many of the segment's file bytes follow (bounded by
 * the file's end). -1 when no PT_LOAD holds addr in its file part. */
static int map_addr(const tl_elf *e, uint64_t addr, uint64_t *off, uint64_t *avail)
{
    size_t phnum = 0;
    if (elf_getphdrnum(e->elf, &phnum) != 0)
        return -1;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
            addr - ph.p_vaddr >= ph.p_filesz || ph.p_offset >= e->size)
            continue;
        uint64_t delta = addr - ph.p_vaddr, end = ph.p_filesz > e->size - ph.p_offset ? e->size : ph.p_offset + ph.p_filesz;
        if (delta >= end - ph.p_offset)
            continue;
        *off = ph.p_offset + delta;
        *avail = end - *off;
        return 0;
    }
    return -1;
}

static const char *tag_name(int64_t tag)
{
    switch (tag) {
    case DT_SYMTAB: return "DT_SYMTAB";
    case DT_STRTAB: return "DT_STRTAB";
    case DT_HASH: return "DT_HASH";
    case DT_GNU_HASH: return "DT_GNU_HASH";
    case DT_VERSYM: return "DT_VERSYM";
    case DT_VERNEED: return "DT_VERNEED";
    case DT_VERDEF: return "DT_VERDEF";
    case DT_RELA: return "DT_RELA";
    case DT_REL: return "DT_REL";
    case DT_JMPREL: return "DT_JMPREL";
    default: return "a dynamic tag";
    }
}

/* The range of `size` bytes at addr, which must lie in one segment's file bytes. */
static int range_at(const tl_elf *e, int64_t tag, uint64_t addr, uint64_t size, tl_elf_range *r, uint64_t *avail,
                    tl_error *err)
{
    uint64_t off, left;
    if (map_addr(e, addr, &off, &left) != 0)
        return tl_fail(err, "no section headers, and %s (address 0x%llx) lies in no loadable segment's file bytes",
                       tag_name(tag), (unsigned long long)addr);
    if (size > left)
        return tl_fail(err, "no section headers, and %s (address 0x%llx, %llu bytes at offset %llu) reaches past the "
                       "end of its segment or of the file (%zu bytes)", tag_name(tag), (unsigned long long)addr,
                       (unsigned long long)size, (unsigned long long)off, e->size);
    r->off = off;
    r->size = size;
    if (avail)
        *avail = left;
    return 0;
}

/* The number of dynamic symbols, as the dynamic linker can know it: DT_GNU_HASH's last chain ends at the last
 * symbol; DT_HASH's nchain is the count. Every word read is bounded by the table's segment. */
static int gnu_hash_count(const tl_elf *e, uint64_t addr, size_t *n, tl_error *err)
{
    tl_elf_range r;
    uint64_t avail;
    if (range_at(e, DT_GNU_HASH, addr, 16, &r, &avail, err) != 0)
        return -1;
    uint64_t nbuckets = rd(e, r.off, 4), symoffset = rd(e, r.off + 4, 4), nbloom = rd(e, r.off + 8, 4);
    uint64_t word = e->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
    uint64_t buckets = 16 + nbloom * word; /* relative to the table; at most 16 + 2^32 * 8: no overflow */
    if (buckets > avail || nbuckets > (avail - buckets) / 4)
        return tl_fail(err, "no section headers, and DT_GNU_HASH (%llu buckets, %llu bloom words at offset %llu) "
                       "reaches past the end of its segment or of the file (%zu bytes)", (unsigned long long)nbuckets,
                       (unsigned long long)nbloom, (unsigned long long)r.off, e->size);
    uint64_t max = 0, chains = buckets + nbuckets * 4;
    for (uint64_t b = 0; b < nbuckets; b++) {
        uint64_t s = rd(e, r.off + buckets + b * 4, 4);
        max = s > max ? s : max;
    }
    if (max == 0) {
        *n = (size_t)symoffset;
        return 0;
    }
    if (max < symoffset)
        return tl_fail(err, "no section headers, and DT_GNU_HASH is damaged: a bucket names symbol %llu, below the "
                       "first hashed symbol %llu", (unsigned long long)max, (unsigned long long)symoffset);
    /* the last bucket's chain: its entries follow until one has the low bit set */
    for (uint64_t i = max;; i++) {
        uint64_t at = chains + (i - symoffset) * 4;
        if (at > avail || avail - at < 4)
            return tl_fail(err, "no section headers, and DT_GNU_HASH is damaged: the chain of symbol %llu runs past "
                           "the end of its segment or of the file (%zu bytes)", (unsigned long long)max, e->size);
        if (rd(e, r.off + at, 4) & 1) {
            *n = (size_t)(i + 1);
            return 0;
        }
    }
}

static int sysv_hash_count(const tl_elf *e, uint64_t addr, size_t *n, tl_error *err)
{
    tl_elf_range r;
    uint64_t avail;
    if (range_at(e, DT_HASH, addr, 8, &r, &avail, err) != 0)
        return -1;
    uint64_t nbucket = rd(e, r.off, 4), nchain = rd(e, r.off + 4, 4);
    if ((nbucket + nchain) > (avail - 8) / 4)
        return tl_fail(err, "no section headers, and DT_HASH (%llu buckets, %llu chains at offset %llu) reaches past "
                       "the end of its segment or of the file (%zu bytes)", (unsigned long long)nbucket,
                       (unsigned long long)nchain, (unsigned long long)r.off, e->size);
    *n = (size_t)nchain;
    return 0;
}

struct tags {
    uint64_t symtab, strtab, strsz, syment, hash, gnu_hash, versym, verneed, verneednum, verdef, verdefnum;
    uint64_t rela, relasz, rel, relsz, jmprel, pltrelsz, pltrel;
    unsigned have; /* bits: 1 symtab, 2 strtab, 4 hash, 8 gnu_hash, 16 versym, 32 verneed, 64 verdef, 128 syment,
                    * 256 rela, 512 rel, 1024 jmprel */
};

/* One past the highest symbol a relocation table names (0 when it names none): the symbols the loader binds. A
 * GNU hash table counts only the symbols it hashes (those a file defines); the imports below its first hashed
 * symbol are known to the loader through the relocations that name them (an executable that defines nothing has
 * a GNU hash table of one symbol, its null entry). */
static int reloc_count(const tl_elf *e, int64_t tag, uint64_t addr, uint64_t size, int rela, uint64_t *n,
                       tl_error *err)
{
    tl_elf_range r;
    int is64 = e->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
    unsigned w = is64 ? 8 : 4, ent = (rela ? 3 : 2) * w;
    if (size == 0) /* an empty table may sit at a segment's very end: nothing to map */
        return 0;
    if (range_at(e, tag, addr, size, &r, NULL, err) != 0)
        return -1;
    for (uint64_t at = 0; at + ent <= r.size; at += ent) {
        uint64_t info = rd(e, r.off + at + w, w), sym = is64 ? info >> 32 : info >> 8;
        if (sym + 1 > *n)
            *n = sym + 1;
    }
    return 0;
}

static int find_dynamic(const tl_elf *e, tl_elf_dynview *v, tl_error *err)
{
    size_t phnum = 0;
    if (elf_getphdrnum(e->elf, &phnum) != 0)
        return tl_fail(err, "bad program header table: %s", elf_errmsg(-1));
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e->elf, (int)i, &ph))
            return tl_fail(err, "bad program header %zu: %s", i, elf_errmsg(-1));
        if (ph.p_type != PT_DYNAMIC)
            continue;
        if (ph.p_offset > e->size || ph.p_filesz > e->size - ph.p_offset)
            return tl_fail(err, "no section headers, and PT_DYNAMIC (offset %llu, %llu bytes) reaches past the end "
                           "of the file (%zu bytes)", (unsigned long long)ph.p_offset,
                           (unsigned long long)ph.p_filesz, e->size);
        v->has_dynamic = 1;
        v->dynamic = (tl_elf_range){ ph.p_offset, ph.p_filesz };
        v->dynamic_addr = ph.p_vaddr;
        return 0;
    }
    return 0;
}

static void read_tags(const tl_elf *e, tl_elf_dynview *v, struct tags *t)
{
    unsigned w = e->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 8 : 4;
    for (uint64_t at = 0; at + 2 * w <= v->dynamic.size; at += 2 * w) {
        uint64_t tag = rd(e, v->dynamic.off + at, w), val = rd(e, v->dynamic.off + at + w, w);
        if (tag == DT_NULL)
            break;
        v->ndyn++;
        switch (tag) {
        case DT_SYMTAB: t->symtab = val, t->have |= 1; break;
        case DT_STRTAB: t->strtab = val, t->have |= 2; break;
        case DT_STRSZ: t->strsz = val; break;
        case DT_SYMENT: t->syment = val, t->have |= 128; break;
        case DT_HASH: t->hash = val, t->have |= 4; break;
        case DT_GNU_HASH: t->gnu_hash = val, t->have |= 8; break;
        case DT_VERSYM: t->versym = val, t->have |= 16; break;
        case DT_VERNEED: t->verneed = val, t->have |= 32; break;
        case DT_VERNEEDNUM: t->verneednum = val; break;
        case DT_VERDEF: t->verdef = val, t->have |= 64; break;
        case DT_VERDEFNUM: t->verdefnum = val; break;
        case DT_RELA: t->rela = val, t->have |= 256; break;
        case DT_RELASZ: t->relasz = val; break;
        case DT_REL: t->rel = val, t->have |= 512; break;
        case DT_RELSZ: t->relsz = val; break;
        case DT_JMPREL: t->jmprel = val, t->have |= 1024; break;
        case DT_PLTRELSZ: t->pltrelsz = val; break;
        case DT_PLTREL: t->pltrel = val; break;
        default: break;
        }
    }
    v->dynamic.size = (v->ndyn + 1) * 2 * w < v->dynamic.size ? (v->ndyn + 1) * 2 * w : v->dynamic.size;
}

/* A section of that type (or SHT_NOBITS: a debug file keeps the headers of what it left out) at addr. */
static int section_at(const tl_elf *e, uint64_t addr, unsigned type)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) && sh.sh_addr == addr && (sh.sh_type == type || sh.sh_type == SHT_NOBITS))
            return 1;
    return 0;
}

const char *tl_elf_sections_hide(const tl_elf *e, char *buf, size_t n)
{
    tl_elf_dynview v;
    struct tags t = { 0 };
    tl_error err;
    memset(&v, 0, sizeof v);
    if ((e->ehdr.e_type != ET_EXEC && e->ehdr.e_type != ET_DYN) || tl_elf_sections_missing(e) ||
        find_dynamic(e, &v, &err) != 0 || !v.has_dynamic || !v.dynamic.size)
        return NULL;
    if (!section_at(e, v.dynamic_addr, SHT_DYNAMIC)) {
        snprintf(buf, n, "no SHT_DYNAMIC section at PT_DYNAMIC's address 0x%llx", (unsigned long long)v.dynamic_addr);
        return buf;
    }
    read_tags(e, &v, &t);
    /* what the dynamic symbols, their versions and names are read from */
    const struct {
        unsigned bit;
        uint64_t addr;
        unsigned type;
        const char *tag, *type_name;
    } tables[] = {
        { 1, t.symtab, SHT_DYNSYM, "DT_SYMTAB", "SHT_DYNSYM" },
        { 2, t.strtab, SHT_STRTAB, "DT_STRTAB", "SHT_STRTAB" },
        { 16, t.versym, SHT_GNU_versym, "DT_VERSYM", "SHT_GNU_versym" },
        { 32, t.verneed, SHT_GNU_verneed, "DT_VERNEED", "SHT_GNU_verneed" },
        { 64, t.verdef, SHT_GNU_verdef, "DT_VERDEF", "SHT_GNU_verdef" },
    };
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        if ((t.have & tables[i].bit) && !section_at(e, tables[i].addr, tables[i].type)) {
            snprintf(buf, n, "no %s section at %s's address 0x%llx", tables[i].type_name, tables[i].tag,
                     (unsigned long long)tables[i].addr);
            return buf;
        }
    return NULL;
}

/* Version tables: their sizes are not recorded, only their entry counts, each entry at least `least` bytes. */
static int version_table(const tl_elf *e, int64_t tag, uint64_t addr, uint64_t count, uint64_t least,
                         tl_elf_range *r, size_t *n, tl_error *err)
{
    uint64_t avail;
    if (count == 0)
        return 0;
    if (range_at(e, tag, addr, 0, r, &avail, err) != 0)
        return -1;
    if (count > avail / least)
        return tl_fail(err, "no section headers, and %s claims %llu entries, more than the %llu bytes after it (offset "
                       "%llu) can hold", tag_name(tag), (unsigned long long)count, (unsigned long long)avail,
                       (unsigned long long)r->off);
    r->size = avail;
    *n = (size_t)count;
    return 0;
}

int tl_elf_dynview_read(const tl_elf *e, tl_elf_dynview *v, tl_error *err)
{
    memset(v, 0, sizeof *v);
    if (find_dynamic(e, v, err) != 0)
        return -1;
    if (!v->has_dynamic)
        return 0;
    struct tags t = { 0 };
    read_tags(e, v, &t);
    size_t sym_size = e->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
    if (t.have & 2 && t.strsz && range_at(e, DT_STRTAB, t.strtab, t.strsz, &v->strtab, NULL, err) != 0)
        return -1;
    if (!(t.have & 1))
        return 0; /* no dynamic symbols: the needed libraries and the soname are all there is */
    if ((t.have & 128) && t.syment != sym_size)
        return tl_fail(err, "no section headers, and DT_SYMENT is %llu, not the %zu bytes of a symbol",
                       (unsigned long long)t.syment, sym_size);
    v->syment = sym_size;
    if (t.have & 8) {
        if (gnu_hash_count(e, t.gnu_hash, &v->nsyms, err) != 0)
            return -1;
        v->nsyms_from = "DT_GNU_HASH";
    } else if (t.have & 4) {
        if (sysv_hash_count(e, t.hash, &v->nsyms, err) != 0)
            return -1;
        v->nsyms_from = "DT_HASH";
    } else {
        /* no hash table (nothing can be looked up in it): the table runs to DT_STRTAB, as the link lays it out */
        v->nsyms = (t.have & 2) && t.strtab > t.symtab ? (size_t)((t.strtab - t.symtab) / sym_size) : 0;
        v->nsyms_from = "DT_STRTAB";
    }
    uint64_t bound = 0;
    if ((t.have & 256 && reloc_count(e, DT_RELA, t.rela, t.relasz, 1, &bound, err) != 0) ||
        (t.have & 512 && reloc_count(e, DT_REL, t.rel, t.relsz, 0, &bound, err) != 0) ||
        (t.have & 1024 && reloc_count(e, DT_JMPREL, t.jmprel, t.pltrelsz,
                                      t.pltrel ? t.pltrel == DT_RELA : !(t.have & 512), &bound, err) != 0))
        return -1;
    if (bound > v->nsyms) {
        if (bound > e->size / sym_size) /* checked against the table's segment below; here so size_t holds it */
            bound = e->size / sym_size + 1;
        v->nsyms = (size_t)bound;
        v->nsyms_from = "a relocation";
    }
    if (v->nsyms == 0)
        return 0; /* nothing the loader can look up or bind: no table to map, no versions to read */
    uint64_t left;
    if (range_at(e, DT_SYMTAB, t.symtab, 0, &v->symtab, &left, err) != 0)
        return -1;
    if (v->nsyms > left / sym_size)
        return tl_fail(err, "no section headers, and %s implies %zu dynamic symbols: DT_SYMTAB (offset %llu) would "
                       "end past the end of its segment or of the file (%zu bytes)", v->nsyms_from, v->nsyms,
                       (unsigned long long)v->symtab.off, e->size);
    v->symtab.size = (uint64_t)v->nsyms * sym_size;
    if (t.have & 16 && range_at(e, DT_VERSYM, t.versym, (uint64_t)v->nsyms * 2, &v->versym, NULL, err) != 0)
        return -1;
    if (t.have & 32 && version_table(e, DT_VERNEED, t.verneed, t.verneednum, 16, &v->verneed, &v->nverneed, err) != 0)
        return -1;
    if (t.have & 64 && version_table(e, DT_VERDEF, t.verdef, t.verdefnum, 20, &v->verdef, &v->nverdef, err) != 0)
        return -1;
    return 0;
}

const char *tl_elf_dynview_str(const tl_elf *e, const tl_elf_dynview *v, uint64_t off)
{
    if (off >= v->strtab.size)
        return NULL;
    const char *s = (const char *)e->data + v->strtab.off + off;
    return memchr(s, 0, v->strtab.size - off) ? s : NULL;
}
