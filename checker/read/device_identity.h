/* The identity of a device image's code: what a debug store keys the image's line info by.
 *
 * It must be the same for the cubin as built (with line info), the cubin as shipped (line sections split out)
 * and the relocated copy the driver writes into a GPU coredump (`.cudbg.relfimg`, docs/cuda-formats.md and
 * shared/docs/cuda-coredump.md §4.1): there the code sections carry device virtual addresses in sh_addr and the
 * driver has patched the instructions that relocations name, but the `.rel(a).text.*` sections are kept and the
 * instruction bytes are otherwise the ones ptxas wrote (checked on the hang core: .text bytes equal). So the
 * identity hashes, for each SHF_EXECINSTR section in header order, its name, its size and its bytes with every
 * 16-byte block that a relocation of that section touches zeroed, after the ELF header's e_flags (the SM).
 * Line sections, addresses and symbol values take no part. */
#ifndef TLCK_DEVICE_IDENTITY_H
#define TLCK_DEVICE_IDENTITY_H
#include <stddef.h>

#define TLCK_DEVICE_ID_LEN 16 /* XXH3-128: a build-id of 32 hex digits */

/* 0; 1 when the image has no code section (a translation unit without kernels still gets a cubin: there is
 * nothing in it to look up); -1 when p is no EM_CUDA ELF (err says why, when non-NULL). */
int tlck_device_identity(const unsigned char *p, size_t n, unsigned char id[TLCK_DEVICE_ID_LEN], char *err,
                         size_t errlen);

#endif
