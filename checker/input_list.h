/* The list of inputs an audit reads: what each expander (directories, archives, packages) appends to. */
#ifndef TLCK_INPUT_LIST_H
#define TLCK_INPUT_LIST_H
#include <stddef.h>

struct tlck_package_cursor;
struct tlck_options;
struct tlck_input_format;

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
    /* A package member that is a container (a static archive): is_member, offset and size then place this input
     * in the member's decompressed bytes, which the cursor keeps while pkg_windows inputs still need them. */
    size_t pkg_windows;
    char *error;        /* could not be opened/walked: reported as a bad input */
};

/* A package named on the command line through a link of another name: it is judged as the file it points to. */
struct tlck_package_link {
    char *link;    /* the path given */
    char *package; /* the package it points to (the report's package path) */
};

struct tlck_inputs {
    struct tlck_input *v;
    size_t n, cap;
    size_t skipped_probes; /* files under CMake's compiler-probe directories, left out of a directory scan */
    size_t skipped_links;  /* links to directories a scan did not enter (set follow_symlinks to enter them) */
    size_t skipped_file_links; /* links to files a scan did not follow (their targets are checked where found) */
    size_t skipped_sdists;     /* source distributions (.tar.gz, .zip of sources) a scan left out */
    struct tlck_package_link *links; size_t nlinks; /* packages given through a link of another name */
    int follow_symlinks;   /* set before tlck_inputs_expand */
    const struct tlck_options *o; /* set before tlck_inputs_expand: --max-input-mb and --timeout bound what
                                   * listing a package decompresses; NULL: the defaults */
    struct tlck_package_cursor **cursors; /* one per package (and nested package) with members here */
    size_t ncursors, ccap;
};

/* A container to expand into inputs (a row of input_formats.c with an expander): a file on disk, or a member of a
 * package whose bytes the package reader decompressed, handed to the same row as a file named on the command line. */
struct tlck_container {
    const char *path;           /* the file on disk: the container itself, or the package holding it */
    const char *display;        /* its name, which its members' names extend: path, or "pkg.conda!lib/libfoo.a" */
    int top;                    /* named on the command line */
    const unsigned char *data;  /* a package member: its bytes (NULL: the expander reads path) */
    size_t size;
    const struct tlck_input *origin; /* a package member: the input that finds its bytes again, which each member
                                      * input copies (NULL for a file on disk) */
    size_t max_members;         /* most inputs the expander may add (0: no bound): what the package has left */
    /* The rows a container's members are told apart by, the caller's dispatch (input_formats.c's
     * tlck_input_format_of), handed down so that a container's reader does not link the table that lists it. */
    const struct tlck_input_format *(*format_of)(const unsigned char *m, size_t n);
};

/* Appends an input (zeroed but for display and path) for the expanders of other formats; NULL without memory. */
struct tlck_input *tlck_inputs_add(struct tlck_inputs *out, const char *display, const char *path);
/* Appends an input that could not be opened or walked (display and path both `path`), its error formatted. */
void tlck_inputs_add_error(struct tlck_inputs *out, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
