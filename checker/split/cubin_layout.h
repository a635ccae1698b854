/* Writes a cubin (ELF64 little-endian, EM_CUDA) again with some sections' contents replaced and, optionally, one
 * section appended: the one relayout both the line split and the store's build-id note need.
 *
 * Why not libelf's writer: libelf lays out sections but not program headers, and a cubin's PT_LOAD segments
 * point into the file. Here every section keeps its header index (so no symbol, relocation, `.nv.info` or
 * `.nv.callgraph` index changes), the sections inside a segment move together, and every moved section moves
 * by a multiple of the file's largest alignment, so each keeps its alignment. */
#ifndef TLCK_CUBIN_LAYOUT_H
#define TLCK_CUBIN_LAYOUT_H
#include <stddef.h>
#include "trueline/elf_file.h"

struct tlck_section_edit {
    int replaced;              /* 0: keep the section's bytes */
    const unsigned char *p;    /* replacement bytes (replaced = 1); n = 0 empties the section */
    size_t n;
};

struct tlck_section_new {
    const char *name;          /* appended to .shstrtab */
    unsigned type, align;
    unsigned long long flags;
    const unsigned char *p;
    size_t n;
};

/* e: the cubin, opened with tl_elf_open_mem; edits: e->shnum entries (NULL: none); add: NULL or a section to
 * append. *out is malloc'd. Returns 0, or -1 with err. */
int tlck_cubin_relayout(const tl_elf *e, const struct tlck_section_edit *edits, const struct tlck_section_new *add,
                        unsigned char **out, size_t *out_n, tl_error *err);

#endif
