/* The library versions a front end was built with, for --version (as `curl -V` names its libraries). */
#ifndef TRUELINE_LIB_VERSIONS_H
#define TRUELINE_LIB_VERSIONS_H

#include <stddef.h>
#include <stdio.h>

/* One library: its name and its version as the library (or its header) states it; NULL when it has none. */
struct tl_lib_version {
    const char *name;
    const char *(*version)(char *buf, size_t n);
};

/* Prints "built with: NAME VERSION, ..." on one line: the C library and the libraries lib/ links (libelf,
 * zstd, xxHash, zlib, inih, libiberty), then the front end's own (extra, may be NULL). */
void tl_print_lib_versions(FILE *out, const struct tl_lib_version *extra, size_t nextra);

#endif
