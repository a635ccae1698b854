/* DWARF line-program decoder (versions 2-5) with NVIDIA's extensions: one parser for host and device code.
 *
 * Why our own and not libdwarf: libdwarf's dwarf_srclines_b is ~40x slower than readelf on libnccl.so.2
 * (20 s vs 0.5 s, docs/field-notes) and does not know NVIDIA's extended opcodes DW_LNE_NVIDIA_inlined_call
 * (0x90) and DW_LNE_NVIDIA_set_function_name (0x91), which carry the inline chain of cubins.
 *
 * Addresses are reported as the program states them. In relocatable objects and in cubins each sequence starts
 * with DW_LNE_set_address whose operand is covered by a relocation; row.seq_reloc_offset gives the position of
 * that operand in the section so the caller can map the sequence to its code section. */
#ifndef TLCK_LINE_PROGRAM_H
#define TLCK_LINE_PROGRAM_H
#include <stddef.h>
#include <stdint.h>
#include "trueline/diag.h"
#include "trueline/limits.h"

struct tlck_line_sections {
    const unsigned char *line;     size_t line_n;      /* .debug_line (required) */
    const unsigned char *str;      size_t str_n;       /* .debug_str (DW_FORM_strp names; NVIDIA function names) */
    const unsigned char *line_str; size_t line_str_n;  /* .debug_line_str (DWARF 5) */
    unsigned addr_size;                                /* 8 (ELF64) or 4 */
    const tl_budget *budget;                           /* the input's deadline, polled per unit (NULL: none) */
};

struct tlck_line_unit {
    uint64_t offset;          /* of the unit in .debug_line */
    unsigned version;
    size_t nfiles;
    const char **files;       /* full names (directory joined); index as the program's file register uses it:
                               * DWARF 2-4 count from 1 (files[0] is NULL), DWARF 5 from 0. Entries whose name
                               * form cannot be resolved (DW_FORM_strx) are "?". Valid during the callback only. */
    uint32_t nv_str_base;     /* NVIDIA header extension u32 after the file table (0 when absent) */
};

struct tlck_line_row {
    uint64_t address;
    uint32_t file, line, column;
    unsigned is_stmt : 1, end_sequence : 1;
    uint32_t seq;             /* sequence number within the unit, from 0 */
    uint32_t index_in_seq;    /* 1-based index of this row within its sequence (NVIDIA contexts refer to it) */
    uint32_t context;         /* NVIDIA inlined_call: index_in_seq of the call-site row, 0 = not inlined */
    uint64_t function_name;   /* NVIDIA: .debug_str offset of the inlined callee's name; UINT64_MAX = none */
    uint64_t seq_reloc_offset;/* offset in .debug_line of this sequence's DW_LNE_set_address operand, or UINT64_MAX */
};

/* Called for every row, in program order; return non-zero to stop. */
typedef int (*tlck_line_row_fn)(const struct tlck_line_unit *u, const struct tlck_line_row *row, void *ctx);

/* Decodes every unit. Returns 0, or -1 with err naming the unit offset and what is malformed (rows already
 * delivered stay valid). Never reads outside the given sections. */
int tlck_line_program_decode(const struct tlck_line_sections *s, tlck_line_row_fn fn, void *ctx, tl_error *err);

/* Resolves an NVIDIA function-name offset: nv_str_base + off into .debug_str; NULL when out of range. */
const char *tlck_line_function_name(const struct tlck_line_sections *s, const struct tlck_line_unit *u, uint64_t off);

#endif
