/* One cubin (EM_CUDA ELF) → the facts the model keeps about a device image (docs/cuda-formats.md §4). */
#ifndef TLCK_CUBIN_H
#define TLCK_CUBIN_H
#include <stddef.h>
#include "model.h"
#include "trueline/limits.h"

/* Fills img->dev (sm, arch_suffix unless already set, is_relocatable, is_debug, has_lineinfo, producer,
 * toolkit_version, ptxas_options, nkernels) and img->funcs (kernels and device functions with line coverage)
 * and img->cus (one per line-program unit). name is for messages; budget: the input's (NULL: none). Returns 0,
 * or -1 with img->dev.error set. */
int tlck_cubin_summarize(const unsigned char *p, size_t n, const char *name, tl_budget *budget, struct tlck_image *img);

#endif
