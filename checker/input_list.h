/* The list of inputs an audit reads: what each expander (directories, archives, packages) appends to. */
#ifndef TLCK_INPUT_LIST_H
#define TLCK_INPUT_LIST_H
#include <stddef.h>

struct tlck_package_cursor;

struct tlck_input {
    char *display;      /* "path" or "lib.a(member.o)" */
    char *path;         /* file on disk */
    size_t offset, size;/* member bytes within path (size 0 and offset 0 for a whole file) */
    int is_member;
    /* A member of a package (wheel, conda): no bytes of its own on disk, decompressed from path when loaded.
     * pkg_depth 1: entry pkg_index[0] of the package; 2: entry pkg_index[1] of the package that is entry
     * pkg_index[0] (0 for anything else). */
    int pkg_depth;
    size_t pkg_index[2];
    struct tlck_package_cursor *cursor; /* the package's reader, shared by its members (owned by tlck_inputs) */
    char *error;        /* could not be opened/walked: reported as a bad input */
};

struct tlck_inputs {
    struct tlck_input *v;
    size_t n, cap;
    size_t skipped_probes; /* files under CMake's compiler-probe directories, left out of a directory scan */
    size_t skipped_links;  /* links to directories a scan did not enter (set follow_symlinks to enter them) */
    int follow_symlinks;   /* set before tlck_inputs_expand */
    struct tlck_package_cursor **cursors; /* one per package (and nested package) with members here */
    size_t ncursors, ccap;
};

/* Appends an input (zeroed but for display and path) for the expanders of other formats; NULL without memory. */
struct tlck_input *tlck_inputs_add(struct tlck_inputs *out, const char *display, const char *path);
/* Appends an input that could not be opened or walked (display and path both `path`), its error formatted. */
void tlck_inputs_add_error(struct tlck_inputs *out, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
