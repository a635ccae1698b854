/* Readers: turn bytes into the model. Each fills its part of a tlck_file and records errors in the file
 * (f->error for "unreadable", per-image dev.error for one bad device entry) instead of aborting. */
#ifndef TLCK_READERS_H
#define TLCK_READERS_H
#include "model.h"
#include "options.h"
#include "trueline/elf_file.h"

/* Host ELF: symbols, dynamic symbols and versions, DWARF CUs/subprograms/producers, line coverage, .comment,
 * separate debug files. */
int tlck_read_host(struct tlck_file *f, const tl_elf *e, const struct tlck_options *o);
/* Device code: fatbin containers in a host ELF (e != NULL), or a standalone .fatbin/.cubin (e == NULL,
 * data/size the whole file). Appends to f->devices. */
int tlck_read_device_images(struct tlck_file *f, const tl_elf *e, const unsigned char *data, size_t size,
                          const struct tlck_options *o);
/* The same in two steps, so the host reader can run while device images decompress: start enumerates the
 * containers (using e, so call it before anything else uses e concurrently) and starts helper threads that
 * touch only the image bytes and their slots in f->devices; finish joins in and completes f->ndevices.
 * Nothing may read f->devices in between. */
struct tlck_device_read;
struct tlck_device_read *tlck_device_read_start(struct tlck_file *f, const tl_elf *e, const unsigned char *data,
                                            size_t size, const struct tlck_options *o);
int tlck_device_read_finish(struct tlck_device_read *r);
/* Provenance notes (.note.trueline). */
int tlck_read_notes(struct tlck_file *f, const tl_elf *e);

#endif
