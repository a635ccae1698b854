/* What a file is, from its first bytes: the one place both front ends tell ELF files (either byte order, with
 * their type and machine), archives and fatbins apart. No libelf: the wrapper's cache-hit hook links it too. */
#ifndef TRUELINE_FILE_KIND_H
#define TRUELINE_FILE_KIND_H
#include <stddef.h>

/* e_machine of NVIDIA's device code: cubins and the GPU core files the CUDA driver writes. */
#define TL_EM_CUDA 190u
/* First word of a fatbin container (little-endian on every platform CUDA runs on). */
#define TL_FATBIN_MAGIC 0xBA55ED50u

enum tl_file_kind {
    TL_FILE_UNKNOWN = 0,
    TL_FILE_ELF,      /* "\177ELF" */
    TL_FILE_FATBIN,   /* a fatbin container (a .fatbin file, or the bytes of .nv_fatbin) */
    TL_FILE_AR,       /* "!<arch>\n": a static library */
    TL_FILE_THIN_AR,  /* "!<thin>\n": a GNU thin archive, members in files of their own */
};

/* The ELF header fields a front end decides by (the same offsets in ELF32 and ELF64), in host order. */
struct tl_elf_ident {
    unsigned char elf_class;  /* ELFCLASS32 or ELFCLASS64 (0 when fewer than 5 bytes were given) */
    unsigned char big_endian; /* EI_DATA is ELFDATA2MSB */
    unsigned type, machine;   /* e_type and e_machine; 0 when fewer than TL_SNIFF_BYTES bytes were given */
};

/* How many first bytes tl_sniff needs for every field: ELF's e_ident, e_type and e_machine. */
#define TL_SNIFF_BYTES 20

/* The kind of the n bytes at p (a prefix of a file will do: the magic decides); fills id, when not NULL, for ELF
 * (zeroed otherwise). */
enum tl_file_kind tl_sniff(const void *p, size_t n, struct tl_elf_ident *id);
/* Up to n first bytes of the file at path into buf, without blocking (a FIFO swapped in for a file is never
 * waited on): their count, or -1 with errno set when it cannot be opened or read. */
long tl_read_head(const char *path, void *buf, size_t n);
/* tl_sniff of the file at path: 0 with *kind set, or -1 with errno set when it cannot be opened or read. */
int tl_sniff_path(const char *path, enum tl_file_kind *kind, struct tl_elf_ident *id);

#endif
