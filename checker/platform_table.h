/* The platform tags a wheel's files can satisfy, joined from two tables of conf/: manylinux.tsv (the highest
 * GLIBC_/GLIBCXX_/CXXABI_/GCC_ version each manylinux tag allows) and platform_libs.tsv (the system libraries
 * each manylinux and musllinux tag allows a file to need). Both are facts of auditwheel's policy data. */
#ifndef TLCK_PLATFORM_TABLE_H
#define TLCK_PLATFORM_TABLE_H
#include <stddef.h>
#include <stdio.h>
#include "trueline/diag.h"

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

/* conf/manylinux.tsv's rows: a tag and the highest version of each prefix it allows, as written ("2.17"). */
struct tlck_floor {
    char tag[64];
    char max[TLCK_NVER][16];
};
struct tlck_floors {
    struct tlck_floor *v;
    size_t n;
};

/* The rows of a manylinux.tsv (tlck_tsv_each's lines of five fields: tag, GLIBC_, GLIBCXX_, CXXABI_, GCC_ maxima;
 * shorter rows are left out). -1 when out of memory. */
int tlck_floors_read(struct tlck_floors *f, FILE *fp);
void tlck_floors_free(struct tlck_floors *f);

/* Loads conf/platform_libs.tsv (found by tlck_conf_open; its path into found) and joins each tag with its row of
 * floors (symbol-versions' manylinux.tsv: the [symbol-versions] table, or conf's). 1 when platform_libs.tsv is
 * not found (t empty); -1 with err naming the file when it cannot be read. */
int tlck_platforms_load(struct tlck_platforms *t, const struct tlck_floors *floors, char *found, size_t cap,
                        tl_error *err);
void tlck_platforms_free(struct tlck_platforms *t);
const struct tlck_platform *tlck_platform_find(const struct tlck_platforms *t, const char *tag);
/* Whether tag allows a file to need lib from the system (the dynamic loader always is). */
int tlck_platform_allows_lib(const struct tlck_platform *row, const char *lib);

/* Dotted versions compared numerically ("3.4.9" < "3.4.24"): -1, 0, 1; 2 when either is not a version. */
int tlck_version_cmp(const char *a, const char *b);
/* "3.4.24" into up to four numbers (missing ones 0); -1 when not a dotted number (GLIBC_PRIVATE). */
int tlck_version_parse(const char *s, unsigned v[4]);

#endif
