/* The split of one ELF file (a linked executable or shared library, or a relocatable object): what ships
 * without line info, what the debug store gets. Packages and archives call it once per ELF member. */
#ifndef TLCK_ELF_SPLIT_H
#define TLCK_ELF_SPLIT_H
#include <stddef.h>

struct tlck_split_opts {
    const char *store; /* the debug store directory */
    int device_only;   /* only device line info goes; host DWARF stays (the default for relocatable objects) */
};

struct tlck_split_stats {
    int host_part;             /* a host debug file was written (its path in host_debug) */
    char host_debug[4096];
    size_t device_parts;       /* device images whose line info went to the store */
    size_t fatbins;            /* fatbin sections rewritten */
};

/* Splits the ELF file (p, n) named name (for messages and the .gnu_debuglink name). p must stay writable
 * memory the caller owns. Writes the shipped copy to out_fd and returns 0; returns 1 when there is nothing
 * to split (nothing written); -1 with err on bad input or a store that cannot be written: out_fd may then hold
 * a partial copy, which the caller discards. */
int tlck_split_elf(const char *name, unsigned char *p, size_t n, const struct tlck_split_opts *o, int out_fd,
                   struct tlck_split_stats *st, char *err, size_t errlen);

#endif
