/* The input formats, one row each, told apart by their first bytes: the directory scan (inputs.c) keeps the files
 * some row recognises, a container row expands a file into inputs of its own (members), and the loader (load.c)
 * reads an input with the row that recognises its bytes. A new format is its reader file plus one row. */
#ifndef TLCK_INPUT_FORMATS_H
#define TLCK_INPUT_FORMATS_H
#include <stddef.h>
#include "input_list.h"
#include "model.h"
#include "read/read_ctx.h"

/* How many first bytes the rows look at (at most). */
#define TLCK_FORMAT_HEAD 20

struct tlck_input_format {
    const char *name;
    /* 1 when the first n bytes (n may be short) start a file of this format */
    int (*magic)(const unsigned char *m, size_t n);
    /* A container: adds its members (or inputs carrying an error) to out, shown under c->display; a file on disk
     * or a package member's bytes (struct tlck_container). */
    void (*expand)(struct tlck_inputs *out, const struct tlck_container *c);
    /* A file read as one input: builds f from its bytes. Inputs shorter than min_size are not of this format. */
    int (*load)(struct tlck_file *f, const unsigned char *data, size_t size, struct tlck_read_ctx *ctx);
    size_t min_size;
};

extern const struct tlck_input_format tlck_input_formats[];
extern const size_t tlck_ninput_formats;

/* The row whose magic matches the first n bytes, NULL for none. */
const struct tlck_input_format *tlck_input_format_of(const unsigned char *m, size_t n);

#endif
