/* The platform tags a wheel's files can satisfy, joined from two tables of conf/: manylinux.tsv (the highest
 * GLIBC_/GLIBCXX_/CXXABI_/GCC_ version each manylinux tag allows) and platform_libs.tsv (the system libraries
 * each manylinux and musllinux tag allows a file to need). Both are facts of auditwheel's policy data. */
#ifndef TLCK_PLATFORM_TABLE_H
#define TLCK_PLATFORM_TABLE_H
#include <stddef.h>
#include <stdio.h>
#include "policy.h"

enum { TLCK_VER_GLIBC, TLCK_VER_GLIBCXX, TLCK_VER_CXXABI, TLCK_VER_GCC, TLCK_NVER };
extern const char *const tlck_version_prefixes[TLCK_NVER]; /* "GLIBC_", "GLIBCXX_", "CXXABI_", "GCC_" */

struct tlck_platform {
    char tag[64];                 /* "manylinux_2_17", "manylinux2014", "musllinux_1_2" */
    char *libs;                   /* ",libc.so.6,libm.so.6,": the allowed libraries, comma-delimited */
    char max[TLCK_NVER][16];      /* symbol-version maxima; "" when the tag has none (musllinux) */
};

/* In platform_libs.tsv's order: the most compatible tag of each family first. */
struct tlck_platforms {
    struct tlck_platform *v;
    size_t n;
};

/* conf/NAME opened for reading: beside the installed binary (../share/trueline/), in the source tree above a build
 * directory (../../conf/), in the installed data directory, in this source tree; its path into found (when not
 * NULL). NULL when none is found. */
FILE *tlck_conf_open(const char *name, char *found, size_t cap);

/* Loads both tables (each found as symbol-versions finds manylinux.tsv: [symbol-versions] table for that one,
 * beside the binary, the installed data directory, the source tree). -1 when platform_libs.tsv is not found. */
int tlck_platforms_load(struct tlck_platforms *t, const struct tlck_policy *p);
void tlck_platforms_free(struct tlck_platforms *t);
const struct tlck_platform *tlck_platform_find(const struct tlck_platforms *t, const char *tag);
/* Whether tag allows a file to need lib from the system (the dynamic loader always is). */
int tlck_platform_allows_lib(const struct tlck_platform *row, const char *lib);

/* Dotted versions compared numerically ("3.4.9" < "3.4.24"): -1, 0, 1; 2 when either is not a version. */
int tlck_version_cmp(const char *a, const char *b);
/* "3.4.24" into up to four numbers (missing ones 0); -1 when not a dotted number (GLIBC_PRIVATE). */
int tlck_version_parse(const char *s, unsigned v[4]);

#endif
