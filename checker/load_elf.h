/* An ELF input: a host file (the host reader, its device images on helper threads meanwhile, the provenance
 * notes) or a standalone cubin (the device reader). The ELF row of input_formats.c. */
#ifndef TLCK_LOAD_ELF_H
#define TLCK_LOAD_ELF_H
#include <stddef.h>
#include "model.h"
#include "read/read_ctx.h"

int tlck_load_elf(struct tlck_file *f, const unsigned char *data, size_t size, struct tlck_read_ctx *ctx);

#endif
