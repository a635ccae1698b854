/* Builds the model of one input: maps its bytes, then runs the readers that apply. */
#ifndef TL_LOAD_H
#define TL_LOAD_H
#include "inputs.h"
#include "model.h"
#include "options.h"

/* Always fills f (display, path); on an unreadable input sets f->error and returns -1. With o->device_only
 * only the device images are read (--list), from whatever the input is. */
int tl_load_file(const struct tl_input *in, const struct tl_options *o, struct tl_file *f);

#define TL_EM_CUDA 190
#define TL_FATBIN_MAGIC 0xBA55ED50u

#endif
