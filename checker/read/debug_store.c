/* The debug store's layout (debug_store.h): where a build-id's debug file lives. */
#include "read/debug_store.h"

#include <stdio.h>

int tlck_store_path(const char *dir, const unsigned char *id, size_t idlen, char *out, size_t outlen)
{
    if (idlen < 2)
        return -1;
    int n = snprintf(out, outlen, "%s/.build-id/%02x/", dir, id[0]);
    if (n < 0 || (size_t)n >= outlen)
        return -1;
    size_t at = (size_t)n;
    for (size_t i = 1; i < idlen; i++, at += 2)
        if (at + 3 > outlen)
            return -1;
        else
            snprintf(out + at, 3, "%02x", id[i]);
    if (at + sizeof ".debug" > outlen)
        return -1;
    snprintf(out + at, outlen - at, ".debug");
    return 0;
}
