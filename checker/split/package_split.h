/* A wheel split member by member: every ELF member through tlck_split_elf, the package written again with the
 * same member order and compression, and its RECORD's sha256 and size lines for the members that changed. */
#ifndef TLCK_PACKAGE_SPLIT_H
#define TLCK_PACKAGE_SPLIT_H
#include <stddef.h>

#include "split/elf_split.h"

struct tlck_package_split_stats {
    size_t members, elf_members, split_members;
    size_t host_parts, device_parts;
};

/* (p, n): the wheel's bytes. Writes the new wheel to out_fd and returns 0; 1 when no member had line info to
 * split; -1 with err (naming the member) on a member that cannot be split. */
int tlck_split_package(const char *name, const unsigned char *p, size_t n, const struct tlck_split_opts *o,
                       int out_fd, struct tlck_package_split_stats *st, char *err, size_t errlen);

#endif
