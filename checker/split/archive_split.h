/* A static library (GNU/System V ar) split member by member: each ELF object through tlck_split_elf (device
 * line info out; the host DWARF stays, a link still needs it), the archive written again with the same members
 * in the same order, headers as they were but the sizes, and the symbol index's member offsets moved. */
#ifndef TLCK_ARCHIVE_SPLIT_H
#define TLCK_ARCHIVE_SPLIT_H
#include <stddef.h>

#include "split/elf_split.h"

struct tlck_archive_split_stats {
    size_t members, split_members, device_parts;
};

/* (p, n): the archive's bytes. Writes the new archive to out_fd and returns 0; 1 when no member had line info
 * to split; -1 with err (naming the member) otherwise. */
int tlck_split_archive(const char *name, unsigned char *p, size_t n, const struct tlck_split_opts *o, int out_fd,
                       struct tlck_archive_split_stats *st, char *err, size_t errlen);

#endif
