/* Host reader internals: the pieces of tlck_read_host (host.c), each in its own file. */
#ifndef TLCK_HOST_INTERNAL_H
#define TLCK_HOST_INTERNAL_H
#include "model.h"
#include "options.h"
#include "read/line_program.h"
#include "trueline/elf_file.h"

/* DWARF sections of one ELF (the file itself or its separate debug file), decompressed and, for ET_REL,
 * relocated (TLCK_ADDR_KEY encoding for address-sized relocations, see model.h). */
struct tlck_debug_section {
    const char *name;     /* ".debug_info" ... (points into libelf's string table, or to owned_name) */
    char *owned_name;     /* ".debug_info" for a GNU-compressed ".zdebug_info" */
    tl_bytes bytes;
    unsigned in_group : 1;/* SHF_GROUP: one of a COMDAT group's copies (-g3 .debug_macro, type units) */
};
struct tlck_debug_sections {
    struct tlck_debug_section *v;
    size_t n;
    unsigned addr_size;
    tl_budget *budget; /* the input's (the ELF file's), for the readers of these sections */
};
int tlck_debug_sections_load(struct tlck_debug_sections *ds, const tl_elf *e, tl_error *err);
/* "aarch64", "x86-64", ... for messages ("unknown machine" otherwise; callers print e_machine beside it). */
const char *tlck_machine_name(unsigned machine);
/* Nonzero when e is ET_REL and has relocations against .debug_* sections that tlck_debug_sections_load cannot
 * apply: an SHT_REL section (x86-64/aarch64 use RELA only) or any relocation of a machine other than those two. */
int tlck_debug_relocs_unsupported(const tl_elf *e);
const struct tlck_debug_section *tlck_debug_section(const struct tlck_debug_sections *ds, const char *name);
void tlck_debug_sections_free(struct tlck_debug_sections *ds);

/* Symbols: functions (symtab, else dynsym) into img->funcs; dynamic symbols with versions into f->dynsyms;
 * .comment strings; DT_SONAME. `sym` is the ELF whose .symtab is used (the debug file when the input is
 * stripped); `e` is the input itself. */
int tlck_read_functions(struct tlck_image *img, const tl_elf *sym, tl_error *err);
int tlck_read_dynamic(struct tlck_file *f, const tl_elf *e, tl_error *err);
void tlck_read_comments(struct tlck_file *f, const tl_elf *e);

/* Separate debug info: build-id under the debug dirs (--debug-dir, /usr/lib/debug) with the candidate's own
 * build-id verified, then .gnu_debuglink with its CRC verified. Returns the opened debug ELF in *out (caller
 * closes) or 0 when none is usable; a build-id or CRC mismatch sets f->warning. */
int tlck_find_debug_file(struct tlck_file *f, const tl_elf *e, const struct tlck_options *o, tl_elf *out);
/* The directories separate debug files are looked for under: --debug-dir in order, then /usr/lib/debug. */
size_t tlck_debug_dirs(const struct tlck_options *o, const char **dirs, size_t max);

/* A supplementary DWARF file: dwz -m moves what several files share into one common file, named in each by
 * .gnu_debugaltlink (DWARF 5: .debug_sup); names and declarations are then read from it (DW_FORM_GNU_strp_alt,
 * DW_FORM_GNU_ref_alt, DW_FORM_strp_sup, DW_FORM_ref_sup4/8). */
struct tlck_dwarf_alt {
    const char *name;                   /* as the file names it; NULL when it names none */
    const char *path;                   /* where it was found; NULL when not found */
    const struct tlck_debug_sections *ds; /* its sections; NULL when not found */
};
/* Finds the file that e's .gnu_debugaltlink or .debug_sup names: as named (absolute, or relative to the
 * directory of `path`, e's file), under each debug dir, beside `path`, by build-id under the debug dirs. A
 * candidate whose build-id (.debug_sup: checksum) differs is another build's: not used, said in f's warning.
 * Returns 1 with *out opened (caller closes), 0 when e names none, -1 when none usable; *name (caller frees)
 * gets the name as written whenever there is one. */
int tlck_find_dwarf_alt(struct tlck_file *f, const tl_elf *e, const char *path, const struct tlck_options *o, tl_elf *out,
                      char **name, char **found);
/* The hex build-id of e (NT_GNU_BUILD_ID); -1 when it has none. */
int tlck_elf_build_id(const tl_elf *e, char *hex, size_t hexn);

/* libdwarf: CUs (name, producer, language, version, stmt_list) and subprograms with code. alt may be NULL.
 * Subprograms whose names lie in a supplementary file that is missing are left out, and said in err (-1).
 * *malformed: the -1 is for .debug_info itself being damaged (a bad unit header, units that stop before the
 * section ends, a zero-filled section), which makes the input unreadable rather than partly checked. */
int tlck_read_dwarf_info(struct tlck_image *img, const struct tlck_debug_sections *ds, const struct tlck_dwarf_alt *alt,
                       const tl_elf *e, tl_error *err, int *malformed);

/* Own line decoder: rows -> covered address ranges (decode: touches nothing but its result, so it can run
 * beside tlck_read_dwarf_info), then per-function coverage and per-CU rows (apply: needs the CUs; frees lc).
 * func_cu[i] (nfuncs entries, the caller's) gets the CU index whose rows cover function i, or -1. */
struct tlck_line_cover;
struct tlck_line_cover *tlck_line_cover_decode(const struct tlck_debug_sections *ds, int is_rel);
int tlck_line_cover_apply(struct tlck_file *f, struct tlck_image *img, struct tlck_line_cover *lc, int *func_cu, tl_error *err);

#endif
