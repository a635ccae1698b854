/* One summary per package (wheel, conda) among the inputs, for the text and JSON reports: its members, and the
 * oldest manylinux tag their symbol versions allow against the tag the wheel's file name claims. */
#ifndef TLCK_PACKAGE_SUMMARY_H
#define TLCK_PACKAGE_SUMMARY_H
#include <stddef.h>
#include "report/report.h"

struct tlck_package_summary {
    const char *path;        /* the package file */
    size_t first, n;         /* its members: r->files[first .. first + n) */
    size_t unreadable;       /* of them, the members not read (f->error) */
    const char *runs_on;     /* oldest manylinux tag by symbol versions; NULL when none, no table, members that
                              * are not x86_64, or a musllinux wheel */
    char claimed[64];        /* the wheel's own tag ("" for conda packages and non-x86_64 wheels) */
};

/* The packages of r, in input order (their members are consecutive); *n = 0 when none. Free with free(). */
struct tlck_package_summary *tlck_package_summaries(const struct tlck_results *r, size_t *n);

/* Whether r->files[i] is a member of a package: its display name is "PACKAGE!member". */
int tlck_is_package_member(const struct tlck_file *f);

/* The path the user gave for the package at path when it was a link of another name (judged as the file it points
 * to, by that file's name); NULL when it was given as itself. */
const char *tlck_package_link_of(const struct tlck_results *r, const char *path);

#endif
