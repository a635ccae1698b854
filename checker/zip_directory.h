/* A zip read the way its installer reads it. pip (python's zipfile) installs what the central directory names;
 * a reader that streams the local headers front to back (libarchive falls back to one when the end record looks
 * odd) may see other members. A zip is read by its central directory only when both views are one: every entry
 * of the directory has its local header, with the same name, method, sizes and CRC, the members tile the bytes
 * before the directory with no gap and no overlap, the end record is the only one, of a one-disk zip, and the
 * directory holds exactly the entries it counts. */
#ifndef TLCK_ZIP_DIRECTORY_H
#define TLCK_ZIP_DIRECTORY_H
#include <stddef.h>
#include "trueline/limits.h"

enum tlck_zip_view {
    TLCK_ZIP_AGREES,        /* the central directory and the local headers name the same members, byte for byte */
    TLCK_ZIP_EMPTY,         /* it agrees, and names no member (libarchive's central-directory reader refuses it) */
    TLCK_ZIP_NO_END_RECORD, /* no end record in the last 64 KiB + 22 bytes: pip cannot install it at all */
    TLCK_ZIP_DISAGREES,     /* *why says the first disagreement, naming the member */
    TLCK_ZIP_UNCOMPARED,    /* *why says why the views could not be compared (the deadline, no memory, I/O) */
};

/* Compares the central directory of the zip at path with its local headers. For TLCK_ZIP_DISAGREES and
 * TLCK_ZIP_UNCOMPARED *why says what, malloc'd for the caller to free; NULL when no memory was left to say it.
 * Bounded work: one read of the directory (at most 256 MiB) and one of each local header, within the budget's
 * deadline (budget may be NULL: none). */
enum tlck_zip_view tlck_zip_directory_check(const char *path, const tl_budget *budget, char **why);

/* The same for a zip held in memory (a zip inside a package, decompressed whole). */
enum tlck_zip_view tlck_zip_memory_check(const unsigned char *p, size_t n, const tl_budget *budget, char **why);

#endif
