/* The loader's view of a linked ELF file: what ld.so reads (program headers, the dynamic segment), for a file
 * whose section header table was removed or zeroed, which still loads and runs. Addresses in the dynamic
 * segment are mapped to file offsets through PT_LOAD; every range is checked against its segment and the file
 * before it is handed out, so a size or a count that reaches past the end (DT_STRSZ, a lying hash table) is an
 * error naming the tag, never a read out of bounds. */
#ifndef TRUELINE_ELF_DYNAMIC_H
#define TRUELINE_ELF_DYNAMIC_H
#include <stddef.h>
#include <stdint.h>
#include "trueline/diag.h"
#include "trueline/elf_file.h"

/* File bytes [off, off + size); size 0: absent. */
typedef struct tl_elf_range {
    uint64_t off, size;
} tl_elf_range;

typedef struct tl_elf_dynview {
    int has_dynamic;         /* a PT_DYNAMIC segment: nothing below is filled without one */
    tl_elf_range dynamic;    /* PT_DYNAMIC's entries, up to and including DT_NULL */
    uint64_t dynamic_addr;   /* PT_DYNAMIC's address */
    size_t ndyn;             /* entries in it, DT_NULL excluded */
    tl_elf_range symtab;     /* DT_SYMTAB: nsyms entries of syment bytes */
    size_t nsyms, syment;
    const char *nsyms_from;  /* what gave the count: "DT_GNU_HASH", "DT_HASH", "a relocation" (one that names a
                              * symbol past the hash table's: imports), "DT_STRTAB" (no hash table: the table's end) */
    tl_elf_range strtab;     /* DT_STRTAB, DT_STRSZ bytes */
    tl_elf_range versym;     /* DT_VERSYM: nsyms half-words; size 0 when absent */
    tl_elf_range verneed;    /* DT_VERNEED to the end of its segment's file bytes (its size is not recorded) */
    size_t nverneed;         /* DT_VERNEEDNUM */
    tl_elf_range verdef;     /* DT_VERDEF, as verneed */
    size_t nverdef;          /* DT_VERDEFNUM */
} tl_elf_dynview;

/* 1 when a linked file (ET_EXEC, ET_DYN) has program headers but no usable section header table: e_shoff or
 * e_shnum 0, or every entry of the table SHT_NULL (overwritten with zeros). */
int tl_elf_sections_missing(const tl_elf *e);

/* NULL when a linked file's section headers describe what its dynamic segment names; else what they hide: a
 * sentence naming the tag and its address ("no SHT_GNU_verneed section at DT_VERNEED's address 0x540"), into
 * buf. A section header whose type was changed hides that table from a reader that goes by sections, while the
 * loader still uses it. A debug file (objcopy --only-keep-debug: SHT_NOBITS sections, PT_DYNAMIC without file
 * bytes) hides nothing. */
const char *tl_elf_sections_hide(const tl_elf *e, char *buf, size_t n);

/* Reads the dynamic segment. 0 with has_dynamic = 0 when the file has none; -1 with err naming the tag and the
 * bound when a range lies outside its segment or the file, or a count cannot be believed. */
int tl_elf_dynview_read(const tl_elf *e, tl_elf_dynview *v, tl_error *err);

/* The NUL-terminated string at off in DT_STRTAB; NULL when off or its terminator lies outside DT_STRSZ. */
const char *tl_elf_dynview_str(const tl_elf *e, const tl_elf_dynview *v, uint64_t off);

#endif
