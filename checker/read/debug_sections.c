/* DWARF section bytes for libdwarf and the line decoder: decompressed (lib/elf_file.c) and, in relocatable
 * objects, relocated here.
 *
 * Why we relocate ourselves: libdwarf only relocates what dwarf_init_b opened from a file descriptor, but our
 * sections come from memory (archive members, zstd sections that libdwarf 20210528 cannot inflate). In ET_REL
 * the debug sections hold zeros where RELA entries point: names (strp) and addresses are in the addends. */
#include "read/host_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef R_AARCH64_ABS64
#define R_AARCH64_ABS64 257
#define R_AARCH64_ABS32 258
#endif

static int reloc_width(unsigned machine, unsigned type)
{
    if (machine == EM_X86_64)
        return type == R_X86_64_64 ? 8 : (type == R_X86_64_32 || type == R_X86_64_32S) ? 4 : 0;
    if (machine == EM_AARCH64)
        return type == R_AARCH64_ABS64 ? 8 : type == R_AARCH64_ABS32 ? 4 : 0;
    return 0;
}

const char *tlck_machine_name(unsigned machine)
{
    switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "aarch64";
    case EM_386: return "i386";
    case EM_ARM: return "arm";
    case EM_PPC: return "powerpc";
    case EM_PPC64: return "powerpc64";
    case EM_S390: return "s390";
    case EM_MIPS: return "mips";
    case EM_SPARCV9: return "sparcv9";
    case 243 /* EM_RISCV, absent from older elf.h */: return "riscv";
    case 258 /* EM_LOONGARCH */: return "loongarch";
    default: return "unknown machine";
    }
}

int tlck_debug_relocs_unsupported(const tl_elf *e)
{
    if (e->ehdr.e_type != ET_REL)
        return 0;
    int known = e->ehdr.e_machine == EM_X86_64 || e->ehdr.e_machine == EM_AARCH64;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh, tsh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) || !sh.sh_size)
            continue;
        Elf_Scn *t = elf_getscn(e->elf, sh.sh_info);
        if (!t || !gelf_getshdr(t, &tsh) || strncmp(tl_elf_section_name(e, &tsh), ".debug_", 7) != 0)
            continue;
        if (!known || sh.sh_type == SHT_REL)
            return 1;
    }
    return 0;
}

static Elf_Data *symtab_data(const tl_elf *e, size_t *nsyms)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL)
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB && sh.sh_entsize) {
            *nsyms = sh.sh_size / sh.sh_entsize;
            return elf_getdata(scn, NULL);
        }
    return NULL;
}

/* Applies the RELA section `rscn` to the (owned, writable) bytes b. Address-sized relocations against symbols
 * in a section get TLCK_ADDR_KEY(section, value) so that functions of different sections stay apart. */
static void apply_rela(const tl_elf *e, Elf_Scn *rscn, unsigned char *b, size_t n, Elf_Data *syms, size_t nsyms)
{
    Elf_Data *rd = elf_getdata(rscn, NULL);
    GElf_Shdr rsh;
    if (!rd || !gelf_getshdr(rscn, &rsh) || !rsh.sh_entsize)
        return;
    size_t count = rsh.sh_size / rsh.sh_entsize;
    for (size_t i = 0; i < count; i++) {
        GElf_Rela r;
        GElf_Sym s;
        if (!gelf_getrela(rd, (int)i, &r))
            break;
        int w = reloc_width(e->ehdr.e_machine, (unsigned)GELF_R_TYPE(r.r_info));
        size_t si = GELF_R_SYM(r.r_info);
        if (!w || r.r_offset > n || n - r.r_offset < (size_t)w || si >= nsyms || !gelf_getsym(syms, (int)si, &s))
            continue;
        uint64_t v = s.st_value + (uint64_t)r.r_addend;
        if (w == 8 && s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE)
            v = TLCK_ADDR_KEY(s.st_shndx, TLCK_ADDR_OFF(v));
        for (int k = 0; k < w; k++)
            b[r.r_offset + (size_t)k] = (unsigned char)(v >> (8 * k));
    }
}

static int relocate(const tl_elf *e, size_t target, tl_bytes *bytes, Elf_Data *syms, size_t nsyms)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_info != target)
            continue;
        if (!bytes->owned) {
            void *copy = malloc(bytes->n ? bytes->n : 1);
            if (!copy)
                return -1;
            memcpy(copy, bytes->p, bytes->n);
            bytes->owned = copy;
            bytes->p = copy;
        }
        apply_rela(e, scn, bytes->owned, bytes->n, syms, nsyms);
    }
    return 0;
}

int tlck_debug_sections_load(struct tlck_debug_sections *ds, const tl_elf *e, tl_error *err)
{
    memset(ds, 0, sizeof *ds);
    ds->addr_size = e->ehdr.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
    ds->budget = e->budget;
    size_t cap = 0, nsyms = 0;
    Elf_Data *syms = e->ehdr.e_type == ET_REL ? symtab_data(e, &nsyms) : NULL;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(e->elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL)
            continue;
        const char *name = tl_elf_section_name(e, &sh);
        int gnu = strncmp(name, ".zdebug_", 8) == 0; /* gcc -gz=zlib-gnu: read as the .debug_ section it holds */
        if (strncmp(name, ".debug_", 7) != 0 && !gnu)
            continue;
        if (tlck_grow((void **)&ds->v, &cap, ds->n + 1, sizeof *ds->v) != 0)
            return tl_fail(err, "out of memory");
        struct tlck_debug_section *d = &ds->v[ds->n];
        tl_error why;
        if (tl_elf_section_bytes(e, scn, &d->bytes, &why) != 0)
            return tl_fail(err, "%s: %s", name, why.msg);
        d->owned_name = gnu ? malloc(strlen(name)) : NULL;
        if (d->owned_name)
            sprintf(d->owned_name, ".%s", name + 2);
        d->name = d->owned_name ? d->owned_name : name;
        d->in_group = (sh.sh_flags & SHF_GROUP) != 0;
        ds->n++;
        if (syms && relocate(e, elf_ndxscn(scn), &d->bytes, syms, nsyms) != 0)
            return tl_fail(err, "out of memory");
    }
    return 0;
}

const struct tlck_debug_section *tlck_debug_section(const struct tlck_debug_sections *ds, const char *name)
{
    for (size_t i = 0; i < ds->n; i++)
        if (strcmp(ds->v[i].name, name) == 0)
            return &ds->v[i];
    return NULL;
}

void tlck_debug_sections_free(struct tlck_debug_sections *ds)
{
    for (size_t i = 0; i < ds->n; i++) {
        tl_bytes_free(&ds->v[i].bytes);
        free(ds->v[i].owned_name);
    }
    free(ds->v);
    memset(ds, 0, sizeof *ds);
}
