/* GNU thin archives: their member table (the members are files of their own). */
#ifndef TLCK_CHECKER_THIN_ARCHIVE_H
#define TLCK_CHECKER_THIN_ARCHIVE_H
#include <stddef.h>

#include "trueline/diag.h"

struct tlck_thin_member {
    char *name; /* as the archive names it */
    char *path; /* where it is: relative names are found beside the archive */
};
struct tlck_thin_members {
    struct tlck_thin_member *v;
    size_t n;
};

/* The members of the thin archive at path (data: its size bytes, starting "!<thin>\n"). 0, or -1 with err when
 * a header is damaged (out then holds the members before it). */
int tlck_thin_archive_read(const char *path, const unsigned char *data, size_t size, struct tlck_thin_members *out,
                         tl_error *err);
void tlck_thin_members_free(struct tlck_thin_members *m);

#endif
