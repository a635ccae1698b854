/* conf/'s data files (manylinux.tsv, platform_libs.tsv, platform_blacklist.tsv): one search for where they are,
 * one reader of their rows, shared by symbol-versions, the platform tables and the blacklist. */
#ifndef TLCK_CONF_FILE_H
#define TLCK_CONF_FILE_H
#include <stddef.h>
#include <stdio.h>

/* conf/NAME opened for reading: beside the installed binary (../share/trueline/), in the source tree above a build
 * directory (../../conf/), in the installed data directory, in this source tree; its path into found (when not
 * NULL). NULL when none is found. */
FILE *tlck_conf_open(const char *name, char *found, size_t cap);

/* The rows of a whitespace-separated table: row(field, n, ctx) for every line that is not blank, a #comment or
 * the "tag<TAB>..." header, with its first fields (at most 8) split at tabs and spaces. Stops at the first row
 * that returns nonzero and returns that; 0 when all were read (a read error of fp is the caller's ferror). */
int tlck_tsv_each(FILE *fp, int (*row)(char **field, size_t n, void *ctx), void *ctx);

#endif
