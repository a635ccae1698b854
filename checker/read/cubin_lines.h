/* Line information of one cubin (EM_CUDA ELF): which SASS bytes of each .text section have source rows, and
 * the source position with its full inline chain for one SASS offset (what `nvdisasm -gi` prints).
 *
 * Cubin line programs address code as byte offsets inside the .text section that each sequence's
 * DW_LNE_set_address relocation (.rela.debug_line, R_CUDA_64) points at (docs/cuda-formats.md §5.1); inline
 * chains come from NVIDIA's DW_LNE_NVIDIA_inlined_call contexts (§5.2). Decoding is read/line_program.c.
 *
 * Also used by the coredump reader on the relocated images found in GPU core files. */
#ifndef TLCK_CUBIN_LINES_H
#define TLCK_CUBIN_LINES_H
#include <stddef.h>
#include <stdint.h>
#include "trueline/diag.h"
#include "trueline/elf_file.h"

struct tlck_cubin_frame {
    char *file;           /* full path as the line table names it; "?" when the file index is out of range */
    unsigned line, column;
    char *function;       /* mangled: the inlined callee, or the function owning the .text section */
};

/* Innermost frame first; v[n-1] is the kernel / device function the code belongs to. */
struct tlck_cubin_chain {
    struct tlck_cubin_frame *v;
    size_t n;
    char *symbol;         /* function symbol the offset was resolved in */
    uint64_t offset;      /* offset from that symbol */
    uint64_t row_address; /* section offset of the line row used (<= the asked offset) */
};

/* Location by function symbol (kernel, or any STT_FUNC such as "$kernel$func") plus byte offset. Returns 0 with
 * the chain, 1 when the cubin has no line row for that offset (out->symbol still set), -1 with err otherwise. */
int tlck_cubin_symbolize(const unsigned char *cubin, size_t n, const char *name, const char *function,
                       uint64_t offset, struct tlck_cubin_chain *out, tl_error *err);
/* Location by address: a .text section whose sh_addr range holds pc (relocated images, e.g. from a GPU core
 * dump); when no section has an address (files from nvcc have sh_addr 0) pc is taken as a file offset. */
int tlck_cubin_symbolize_pc(const unsigned char *cubin, size_t n, const char *name, uint64_t pc,
                          struct tlck_cubin_chain *out, tl_error *err);
void tlck_cubin_chain_free(struct tlck_cubin_chain *c);

/* Covered byte ranges of each .text section, for line-table coverage. */
struct tlck_cubin_coverage {
    struct tlck_cubin_range { unsigned shndx; uint64_t lo, hi; } *v;
    size_t n, cap;
    uint64_t rows;        /* line rows with a source line, over all units */
    unsigned units;       /* line-program units */
    char *first_file;     /* first file of the first unit with files (the CU name), NULL when none */
};
/* Decodes .debug_line of an open cubin; a cubin without it gives an empty coverage and 0. */
int tlck_cubin_coverage(const tl_elf *e, struct tlck_cubin_coverage *cov, tl_error *err);
/* Bytes of [lo, hi) in section shndx covered by rows. */
uint64_t tlck_cubin_covered(const struct tlck_cubin_coverage *cov, unsigned shndx, uint64_t lo, uint64_t hi);
void tlck_cubin_coverage_free(struct tlck_cubin_coverage *cov);

#endif
