/* One PTX text (a fatbin kind-1 entry or a .ptx file) → device-image facts (docs/cuda-formats.md §6). */
#ifndef TLCK_PTX_H
#define TLCK_PTX_H
#include <stddef.h>
#include "model.h"
#include "trueline/limits.h"

/* Fills img->dev (sm and suffix from .target, is_debug for ", debug", has_lineinfo for .loc + .file, nkernels =
 * .entry count, toolkit_version from .version is not set: PTX ISA versions are not toolkit versions) and one
 * tlck_function per .entry, each counted in budget (the input's; NULL: none). Returns 0, or -1 with
 * img->dev.error when the text is not PTX or its functions would pass the budget. */
int tlck_ptx_summarize(const char *text, size_t n, tl_budget *budget, struct tlck_image *img);

#endif
