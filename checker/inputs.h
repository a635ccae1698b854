/* Expands command-line paths into inputs: plain files, archive members ("lib.a(member.o)"), package members
 * ("pkg.whl!lib/x.so", see inputs_package.h) and the files
 * found under directories (recursively, each real directory visited once; a file is kept when a row of
 * input_formats.c recognises its first bytes). Containers (archives, packages) expand through their row. */
#ifndef TLCK_INPUTS_H
#define TLCK_INPUTS_H
#include <stddef.h>
#include "input_list.h"
#include "trueline/diag.h"
#include "trueline/limits.h"

/* Never fails as a whole: unreadable paths become inputs carrying an error. */
void tlck_inputs_expand(struct tlck_inputs *out, const char *const *paths, size_t npaths);
/* 1 when there is at least one path and each is a package that ships (a wheel, .whl, or a conda package, .conda
 * or .tar.bz2, that starts like one): what makes the release profile an audit's default (profile.h). */
int tlck_inputs_all_packages(const char *const *paths, size_t npaths);
void tlck_inputs_free(struct tlck_inputs *in);
/* Frees n links and the array (the results own them after the audit). */
void tlck_package_links_free(struct tlck_package_link *l, size_t n);

/* The bytes of one input, mapped read-only: the whole file, or an archive member's window of it; a package
 * member's are decompressed into a buffer of their own (owned), freed by tlck_input_unmap. */
struct tlck_input_bytes {
    const unsigned char *data;
    size_t size;
    void *map;
    size_t map_len;
    void *owned;
};
/* Fails (err names why) for inputs that carry an error, unmappable files and members past the archive's end. */
int tlck_input_map(const struct tlck_input *in, struct tlck_input_bytes *b, tl_budget *budget, tl_error *err);
void tlck_input_unmap(struct tlck_input_bytes *b);

#endif
