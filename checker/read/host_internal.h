/* Host reader internals: the pieces of tl_read_host (host.c), each in its own file. */
#ifndef TL_HOST_INTERNAL_H
#define TL_HOST_INTERNAL_H
#include "model.h"
#include "options.h"
#include "read/line_program.h"
#include "trueline/elf_file.h"

/* DWARF sections of one ELF (the file itself or its separate debug file), decompressed and, for ET_REL,
 * relocated (TL_ADDR_KEY encoding for address-sized relocations, see model.h). */
struct tl_debug_section {
    const char *name;     /* ".debug_info" ... (points into libelf's string table, or to owned_name) */
    char *owned_name;     /* ".debug_info" for a GNU-compressed ".zdebug_info" */
    tl_bytes bytes;
};
struct tl_debug_sections {
    struct tl_debug_section *v;
    size_t n;
    unsigned addr_size;
};
int tl_debug_sections_load(struct tl_debug_sections *ds, const tl_elf *e, tl_error *err);
/* "aarch64", "x86-64", ... for messages ("unknown machine" otherwise; callers print e_machine beside it). */
const char *tl_machine_name(unsigned machine);
/* Nonzero when e is ET_REL and has relocations against .debug_* sections that tl_debug_sections_load cannot
 * apply: an SHT_REL section (x86-64/aarch64 use RELA only) or any relocation of a machine other than those two. */
int tl_debug_relocs_unsupported(const tl_elf *e);
const struct tl_debug_section *tl_debug_section(const struct tl_debug_sections *ds, const char *name);
void tl_debug_sections_free(struct tl_debug_sections *ds);

/* Symbols: functions (symtab, else dynsym) into img->funcs; dynamic symbols with versions into f->dynsyms;
 * .comment strings; DT_SONAME. `sym` is the ELF whose .symtab is used (the debug file when the input is
 * stripped); `e` is the input itself. */
int tl_read_functions(struct tl_image *img, const tl_elf *sym, tl_error *err);
int tl_read_dynamic(struct tl_file *f, const tl_elf *e, tl_error *err);
void tl_read_comments(struct tl_file *f, const tl_elf *e);

/* Separate debug info: build-id under the debug dirs (--debug-dir, /usr/lib/debug) with the candidate's own
 * build-id verified, then .gnu_debuglink with its CRC verified. Returns the opened debug ELF in *out (caller
 * closes) or 0 when none is usable; a build-id or CRC mismatch sets f->warning. */
int tl_find_debug_file(struct tl_file *f, const tl_elf *e, const struct tl_options *o, tl_elf *out);

/* libdwarf: CUs (name, producer, language, version, stmt_list) and subprograms with code. */
int tl_read_dwarf_info(struct tl_image *img, const struct tl_debug_sections *ds, const tl_elf *e, tl_error *err);

/* Own line decoder: rows -> covered address ranges (decode: touches nothing but its result, so it can run
 * beside tl_read_dwarf_info), then per-function coverage and per-CU rows (apply: needs the CUs; frees lc).
 * func_cu[i] (nfuncs entries, the caller's) gets the CU index whose rows cover function i, or -1. */
struct tl_line_cover;
struct tl_line_cover *tl_line_cover_decode(const struct tl_debug_sections *ds, int is_rel);
int tl_line_cover_apply(struct tl_file *f, struct tl_image *img, struct tl_line_cover *lc, int *func_cu, tl_error *err);

#endif
