#ifndef TRUELINE_REGULAR_FILE_H
#define TRUELINE_REGULAR_FILE_H
/* Opening a file that trueline reads whole because a user named it (configuration, extra fingerprint
 * files): only a regular file is read. A FIFO, /dev/zero or a directory named there (a stray symlink
 * `.trueline.ini -> /dev/zero` in a checkout) would otherwise block or read forever. */
#include "trueline/diag.h"

#include <stddef.h>

/* A read-only descriptor of path, or -1 with err naming the path and the problem ("is a directory",
 * "is not a regular file", "is larger than N bytes"). max_bytes 0: no size bound. Never blocks on a
 * FIFO (opened non-blocking, then refused). */
int tl_open_regular(const char *path, size_t max_bytes, tl_error *err);

#endif
