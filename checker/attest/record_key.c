/* Reading the record key (record_key.h). */
#include "attest/record_key.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { KEY_MIN = 16, KEY_MAX = 4096 }; /* trueline-cc's bounds (wrapper/provenance/provenance_mac.c) */

int tlck_record_key_load(const char *path, struct tlck_record_key *k, tl_error *err)
{
    memset(k, 0, sizeof *k);
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        int e = errno;
        if (f)
            fclose(f);
        return tl_fail(err, "--record-key %s: cannot read the key: %s", path, strerror(e));
    }
    unsigned char *b = S_ISREG(st.st_mode) && st.st_size >= KEY_MIN && st.st_size <= KEY_MAX ? malloc((size_t)st.st_size) : NULL;
    size_t got = b ? fread(b, 1, (size_t)st.st_size, f) : 0;
    fclose(f);
    if (!b || got != (size_t)st.st_size) {
        free(b);
        return tl_fail(err, "--record-key %s: expected a regular file of %d to %d bytes (it has %lld)", path, KEY_MIN,
                       KEY_MAX, (long long)st.st_size);
    }
    k->bytes = b;
    k->len = got;
    return 0;
}

void tlck_record_key_free(struct tlck_record_key *k)
{
    if (k->bytes) {
        memset(k->bytes, 0, k->len);
        free(k->bytes);
    }
    memset(k, 0, sizeof *k);
}
