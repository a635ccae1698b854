/* Expands command-line paths into inputs: plain files, archive members ("lib.a(member.o)"), package members
 * ("pkg.whl!lib/x.so", see inputs_package.h) and the files
 * found under directories (recursively, ELF/fatbin found by magic, each real directory visited once). */
#ifndef TL_INPUTS_H
#define TL_INPUTS_H
#include <stddef.h>
#include "trueline/diag.h"

struct tl_package_cursor;

struct tl_input {
    char *display;      /* "path" or "lib.a(member.o)" */
    char *path;         /* file on disk */
    size_t offset, size;/* member bytes within path (size 0 and offset 0 for a whole file) */
    int is_member;
    /* A member of a package (wheel, conda): no bytes of its own on disk, decompressed from path when loaded.
     * pkg_depth 1: entry pkg_index[0] of the package; 2: entry pkg_index[1] of the package that is entry
     * pkg_index[0] (0 for anything else). */
    int pkg_depth;
    size_t pkg_index[2];
    struct tl_package_cursor *cursor; /* the package's reader, shared by its members (owned by tl_inputs) */
    char *error;        /* could not be opened/walked: reported as a bad input */
};

struct tl_inputs {
    struct tl_input *v;
    size_t n, cap;
    size_t skipped_probes; /* files under CMake's compiler-probe directories, left out of a directory scan */
    size_t skipped_links;  /* links to directories a scan did not enter (set follow_symlinks to enter them) */
    int follow_symlinks;   /* set before tl_inputs_expand */
    struct tl_package_cursor **cursors; /* one per package (and nested package) with members here */
    size_t ncursors, ccap;
};

/* Never fails as a whole: unreadable paths become inputs carrying an error. */
void tl_inputs_expand(struct tl_inputs *out, const char *const *paths, size_t npaths);
void tl_inputs_free(struct tl_inputs *in);
/* Appends an input (zeroed but for display and path) for the expanders of other formats; NULL without memory. */
struct tl_input *tl_inputs_add(struct tl_inputs *out, const char *display, const char *path);

/* The bytes of one input, mapped read-only: the whole file, or an archive member's window of it; a package
 * member's are decompressed into a buffer of their own (owned), freed by tl_input_unmap. */
struct tl_input_bytes {
    const unsigned char *data;
    size_t size;
    void *map;
    size_t map_len;
    void *owned;
};
/* Fails (err names why) for inputs that carry an error, unmappable files and members past the archive's end. */
int tl_input_map(const struct tl_input *in, struct tl_input_bytes *b, tl_error *err);
void tl_input_unmap(struct tl_input_bytes *b);

#endif
