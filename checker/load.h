/* Builds the model of one input: makes its read context (read/read_ctx.h), maps its bytes, and reads them with the
 * row of input_formats.c that recognises them. */
#ifndef TLCK_LOAD_H
#define TLCK_LOAD_H
#include "inputs.h"
#include "model.h"
#include "options.h"
#include "trueline/limits.h"

/* Always fills f (display, path); on an unreadable input sets f->error and returns -1. With o->device_only
 * only the device images are read (--list), from whatever the input is. */
int tlck_load_file(const struct tlck_input *in, const struct tlck_options *o, struct tlck_file *f);
/* The same, its decompressed bytes also counted in the run's pool (NULL: none). TLCK_LOAD_DEFERRED: the input
 * gave way to inputs read at the same time (f->error says why); free f and load it again once they are done. */
#define TLCK_LOAD_DEFERRED (-2)
int tlck_load_file_in(const struct tlck_input *in, const struct tlck_options *o, tl_pool *pool, struct tlck_file *f);

#endif
