/* The one ELF access layer (libelf): open from a path or from memory (archive members, device images),
 * find sections, and read section bytes with SHF_COMPRESSED (zlib, zstd) undone. Bounds are checked here so
 * that readers above never index past a section. */
#ifndef TRUELINE_ELF_FILE_H
#define TRUELINE_ELF_FILE_H
#include <gelf.h>
#include <stddef.h>
#include <stdint.h>
#include "trueline/diag.h"
#include "trueline/limits.h"

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2 /* glibc 2.36's elf.h predates it */
#endif

/* Bytes that may or may not be owned: `owned` is freed by tl_bytes_free. */
typedef struct tl_bytes {
    const unsigned char *p;
    size_t n;
    void *owned;
} tl_bytes;
void tl_bytes_free(tl_bytes *b);

typedef struct tl_elf {
    char *name;               /* for messages: path or "lib.a(member.o)" */
    const unsigned char *data; /* the whole image */
    size_t size;
    void *map;                /* non-NULL when we mmap'ed the file */
    size_t map_len;
    Elf *elf;
    GElf_Ehdr ehdr;
    size_t shnum, shstrndx;
    /* What decompressing this file's sections may cost, counted in the budget of the input being read (set by
     * the reader after opening; NULL: each section bounded by TL_BUDGET_DEFAULT alone). */
    tl_budget *budget;
} tl_elf;

/* Upper bound for one decompressed section, whatever the budget: larger declared sizes are treated as corrupt.
 * The same figure as a budget's default (lib/limits.h): one source. */
#define TL_SECTION_MAX TL_BUDGET_DEFAULT

/* Maps a whole file read-only (no ELF parsing); for inputs of any kind. */
int tl_map_file(const char *path, const unsigned char **data, size_t *size, void **map, size_t *map_len,
                tl_error *err);
void tl_unmap_file(void *map, size_t map_len);
/* 1 when the file behind a tl_map_file mapping shrank while it was read: the pages past its new end read as
 * zeros instead of killing the process with SIGBUS (lib/map_guard.h), so nothing read from it is to be
 * trusted. Ask before tl_unmap_file. */
int tl_map_changed(const void *map);

int tl_elf_open_path(tl_elf *e, const char *path, tl_error *err);
/* data must outlive e; name is copied. */
int tl_elf_open_mem(tl_elf *e, const char *name, const void *data, size_t size, tl_error *err);
void tl_elf_close(tl_elf *e);

int tl_is_elf(const void *data, size_t size);

/* Section by name (first match), NULL when absent; fills shdr when non-NULL. */
Elf_Scn *tl_elf_section(const tl_elf *e, const char *name, GElf_Shdr *shdr);
const char *tl_elf_section_name(const tl_elf *e, const GElf_Shdr *shdr);
/* Raw file bytes of a section (bounds-checked; SHT_NOBITS gives n = 0). */
int tl_elf_section_raw(const tl_elf *e, Elf_Scn *scn, tl_bytes *out, tl_error *err);
/* Section bytes with SHF_COMPRESSED undone (zlib via zlib, zstd via libzstd), and GNU's .zdebug_* form. */
int tl_elf_section_bytes(const tl_elf *e, Elf_Scn *scn, tl_bytes *out, tl_error *err);

#endif
