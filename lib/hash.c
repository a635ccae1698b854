#include "trueline/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

struct tl_hasher {
    XXH3_state_t *st;
};

tl_hash128 tl_hash_bytes(const void *data, size_t len)
{
    XXH128_hash_t h = XXH3_128bits(data, len);
    return (tl_hash128){ h.low64, h.high64 };
}

static int hash_by_read(int fd, tl_hash128 *out)
{
    XXH3_state_t *st = XXH3_createState();
    char buf[65536];
    ssize_t n;
    if (!st)
        return -1;
    XXH3_128bits_reset(st);
    while ((n = read(fd, buf, sizeof buf)) > 0)
        XXH3_128bits_update(st, buf, (size_t)n);
    XXH128_hash_t h = XXH3_128bits_digest(st);
    XXH3_freeState(st);
    *out = (tl_hash128){ h.low64, h.high64 };
    return n < 0 ? -1 : 0;
}

int tl_hash_file(const char *path, tl_hash128 *out, tl_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return tl_fail(err, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0) {
        close(fd);
        return tl_fail(err, "%s: cannot stat: %s", path, strerror(errno));
    }
    int rc = 0;
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            *out = tl_hash_bytes(p, (size_t)st.st_size);
            munmap(p, (size_t)st.st_size);
        } else {
            rc = hash_by_read(fd, out);
        }
    } else {
        rc = hash_by_read(fd, out);
    }
    close(fd);
    if (rc != 0)
        return tl_fail(err, "%s: read error: %s", path, strerror(errno));
    return 0;
}

void tl_hash_hex(tl_hash128 h, char out[TL_HASH_HEX_LEN + 1])
{
    snprintf(out, TL_HASH_HEX_LEN + 1, "%016llx%016llx", (unsigned long long)h.hi,
             (unsigned long long)h.lo);
}

int tl_hash_from_hex(const char *hex, tl_hash128 *out)
{
    char hi[17], lo[17];
    if (!hex || strlen(hex) != TL_HASH_HEX_LEN || strspn(hex, "0123456789abcdef") != TL_HASH_HEX_LEN)
        return -1;
    memcpy(hi, hex, 16);
    hi[16] = 0;
    memcpy(lo, hex + 16, 16);
    lo[16] = 0;
    out->hi = strtoull(hi, NULL, 16);
    out->lo = strtoull(lo, NULL, 16);
    return 0;
}

int tl_hash_equal(tl_hash128 a, tl_hash128 b)
{
    return a.lo == b.lo && a.hi == b.hi;
}

tl_hasher *tl_hasher_new(void)
{
    tl_hasher *h = malloc(sizeof *h);
    if (!h)
        return NULL;
    h->st = XXH3_createState();
    if (!h->st) {
        free(h);
        return NULL;
    }
    XXH3_128bits_reset(h->st);
    return h;
}

void tl_hasher_update(tl_hasher *h, const void *data, size_t len)
{
    XXH3_128bits_update(h->st, data, len);
}

void tl_hasher_update_str(tl_hasher *h, const char *s)
{
    uint64_t n = s ? strlen(s) : UINT64_MAX;
    XXH3_128bits_update(h->st, &n, sizeof n);
    if (s)
        XXH3_128bits_update(h->st, s, (size_t)n);
}

tl_hash128 tl_hasher_final(tl_hasher *h)
{
    XXH128_hash_t r = XXH3_128bits_digest(h->st);
    XXH3_freeState(h->st);
    free(h);
    return (tl_hash128){ r.low64, r.high64 };
}
