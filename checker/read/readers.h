/* Readers: turn bytes into the model. Each fills its part of a tlck_file and records errors in the file
 * (f->error for "unreadable", per-image dev.error for one bad device entry) instead of aborting. */
#ifndef TLCK_READERS_H
#define TLCK_READERS_H
#include "model.h"
#include "options.h"
#include "read/read_ctx.h"
#include "trueline/elf_file.h"

/* Every reader is handed the input's read context (read/read_ctx.h): options, budget, deadline. An ELF file a
 * reader opens counts in it through its tl_elf's budget. */

/* Host ELF: symbols, dynamic symbols and versions, DWARF CUs/subprograms/producers, line coverage, .comment,
 * separate debug files. */
int tlck_read_host(struct tlck_file *f, const tl_elf *e, const struct tlck_read_ctx *ctx);
/* Device code: fatbin containers in a host ELF (e != NULL), or a standalone .fatbin/.cubin (e == NULL,
 * data/size the whole file). Appends to f->devices. */
int tlck_read_device_images(struct tlck_file *f, const tl_elf *e, const unsigned char *data, size_t size,
                          struct tlck_read_ctx *ctx);
/* The same in two steps, so the host reader can run while device images decompress: start enumerates the
 * containers (using e, so call it before anything else uses e concurrently) and starts helper threads that
 * touch only the image bytes and their slots in f->devices; finish joins in and completes f->ndevices.
 * Nothing may read f->devices in between. */
struct tlck_device_read;
struct tlck_device_read *tlck_device_read_start(struct tlck_file *f, const tl_elf *e, const unsigned char *data,
                                            size_t size, struct tlck_read_ctx *ctx);
int tlck_device_read_finish(struct tlck_device_read *r);
/* Provenance notes (.note.trueline). */
int tlck_read_notes(struct tlck_file *f, const tl_elf *e);

#endif
