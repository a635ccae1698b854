/* TEMPORARY (branch split-host only): weak stand-ins so that the host split links before the device split
 * (fatbin_split.c) lands on main; the real definitions override these. Remove at merge. */
#include "split/fatbin_split.h"

#include <stdio.h>

__attribute__((weak)) int tlck_fatbin_split(const unsigned char *data, size_t n, enum tlck_fatbin_layout layout,
                                            tlck_line_part_fn part, void *arg, unsigned char **out, size_t *out_n,
                                            struct tlck_fatbin_split_stats *stats, char *err, size_t errlen)
{
    (void)data, (void)n, (void)layout, (void)part, (void)arg, (void)stats;
    *out = NULL, *out_n = 0;
    snprintf(err, errlen, "the device split is not built in");
    return -1;
}

__attribute__((weak)) int tlck_cubin_add_build_id(const unsigned char *p, size_t n, const unsigned char *id,
                                                  size_t idlen, unsigned char **out, size_t *out_n, char *err,
                                                  size_t errlen)
{
    (void)p, (void)n, (void)id, (void)idlen;
    *out = NULL, *out_n = 0;
    snprintf(err, errlen, "the device split is not built in");
    return -1;
}
