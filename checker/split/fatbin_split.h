/* Device line info out of fatbins: each ELF image rewritten without its line sections, each PTX image without
 * its .loc/.file directives and .debug_str block, re-packed with the codec it had (stored, LZ4, zstd). The
 * SASS of every image is byte-identical (the code sections are copied, never decoded). */
#ifndef TLCK_FATBIN_SPLIT_H
#define TLCK_FATBIN_SPLIT_H
#include <stddef.h>
#include "read/device_identity.h"

/* Called once per ELF image that had line info, with its identity and the whole cubin as built (decompressed),
 * to be written to the debug store. Returns 0, or -1 to stop the split (err filled by the callee). */
typedef int (*tlck_line_part_fn)(void *arg, const unsigned char id[TLCK_DEVICE_ID_LEN], const unsigned char *cubin,
                                 size_t n, char *err, size_t errlen);

enum tlck_fatbin_layout {
    TLCK_FATBIN_SHRINK,   /* the section may get shorter (a relocatable object, a standalone .fatbin) */
    TLCK_FATBIN_IN_PLACE, /* same length, every container at its offset with its size: a linked file, whose
                           * wrappers point at the containers; what is freed becomes zeros inside the last
                           * entry's padding, so it compresses away in a package */
};

struct tlck_fatbin_split_stats {
    size_t images, images_split, ptx_split;
    size_t bytes_in, bytes_out; /* of the section; IN_PLACE: bytes_out counts what is left before the padding */
    size_t containers_kept;     /* IN_PLACE: containers left as they were, their re-encoding being no smaller */
};

/* Rewrites the fatbin containers of one section (data, n). *out is malloc'd (the caller frees it), *out_n its
 * length. Returns 0; 1 when nothing had line info (*out is NULL); -1 with err filled when an entry cannot be
 * decoded or re-encoded, the codec is unknown, or part() failed: nothing is written then. */
int tlck_fatbin_split(const unsigned char *data, size_t n, enum tlck_fatbin_layout layout, tlck_line_part_fn part,
                      void *arg, unsigned char **out, size_t *out_n, struct tlck_fatbin_split_stats *stats, char *err,
                      size_t errlen);

/* One cubin (uncompressed) without its line sections: the sections stay, emptied (so no section, symbol or
 * relocation index changes; an emptied `.debug_line` is how a reader tells "split out" from "never built with
 * line info"). Returns 0 with *out malloc'd; 1 when it has no line sections; -1 with err. */
int tlck_cubin_strip_lines(const unsigned char *p, size_t n, unsigned char **out, size_t *out_n, char *err,
                           size_t errlen);

/* The cubin with a `.note.gnu.build-id` section carrying id appended: the device part of the debug store. */
int tlck_cubin_add_build_id(const unsigned char *p, size_t n, const unsigned char *id, size_t idlen,
                            unsigned char **out, size_t *out_n, char *err, size_t errlen);

/* PTX text without .loc / .file lines and `.section .debug_str { ... }` blocks. Returns 0 with *out malloc'd,
 * 1 when there were none. */
int tlck_ptx_strip_lines(const char *p, size_t n, char **out, size_t *out_n);

#endif
