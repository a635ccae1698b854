/* One ELF file copied into another with a plan per section: kept, dropped, made NOBITS or given new bytes,
 * and optionally one non-allocated section added at the end. The split's three outputs (the shipped host file,
 * its debug file, a relocatable object with a rewritten fatbin) are all such copies. */
#ifndef TLCK_ELF_REWRITE_H
#define TLCK_ELF_REWRITE_H
#include <gelf.h>
#include <stddef.h>

enum tlck_scn_action { TLCK_SCN_KEEP, TLCK_SCN_DROP, TLCK_SCN_NOBITS, TLCK_SCN_REPLACE };

struct tlck_scn_plan {
    enum tlck_scn_action act;
    const unsigned char *data; /* TLCK_SCN_REPLACE: the new bytes */
    size_t n;
};

struct tlck_elf_rewrite {
    Elf *in;
    struct tlck_scn_plan *scn; /* one per input section index (index 0 unused) */
    size_t shnum;
    /* 1: every allocated section keeps its file offset and the program headers are copied unchanged (a linked
     * file: what the loader maps must not move); non-allocated sections are laid out after the last byte a
     * segment or an allocated section covers. 0: libelf lays out everything (a relocatable object, a debug
     * file whose program headers only describe addresses). */
    int keep_alloc_offsets;
    const char *add_name; /* a non-allocated SHT_PROGBITS section appended, or NULL */
    const unsigned char *add_data;
    size_t add_n;
};

/* Writes the copy to fd (at offset 0). Dropped sections' indices are closed up: sh_link, sh_info and .symtab's
 * section indices follow; a .symtab symbol of a dropped section is dropped (refused when a kept relocation
 * section names that .symtab). Returns 0, or -1 with err. */
int tlck_elf_rewrite(const struct tlck_elf_rewrite *r, int fd, char *err, size_t errlen);

#endif
