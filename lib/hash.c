#include "trueline/hash.h"
#include "trueline/regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t's layout: the state lives inside tl_hasher */
#include <xxhash.h>

/* Small updates are gathered before they reach XXH3: a fingerprint is ~100 short strings, and XXH3's
 * streaming update costs ~100 instructions a call whatever its size. The hash is that of the concatenation
 * either way, so what fits the buffer is hashed in one call at the end and the streaming state is used only
 * when it does not: a warm wrapper run then never runs XXH3's streaming code (~50 of the ~500
 * instruction-cache lines it touches, callgrind). 2 KiB: what a warm run hashes fits (at most ~1.8 KB, an
 * nvcc fingerprint); the buffer comes first and only the bytes used are touched, so the rest of the block
 * and the state after it stay untouched memory (a bigger block pushed the next allocations onto a fresh
 * page: a fault). */
struct tl_hasher {
    size_t n;
    int streaming;
    unsigned char buf[2048];
    XXH3_state_t st; /* reset and used only once the gathered bytes overflow buf */
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
    /* only regular files: an extra_files entry naming /dev/zero or a FIFO would be read forever */
    int fd = tl_open_regular(path, 0, err);
    struct stat st;
    if (fd < 0)
        return -1;
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

/* By hand, not snprintf/strtoull: a warm wrapper run converts ~30 of these (the closure memo's
 * components), and printf-family formatting was ~7 % of its instructions (callgrind). */
static void put_hex64(char *o, unsigned long long v)
{
    for (int i = 15; i >= 0; i--, v >>= 4)
        o[i] = "0123456789abcdef"[v & 15];
}

void tl_hash_hex(tl_hash128 h, char out[TL_HASH_HEX_LEN + 1])
{
    put_hex64(out, (unsigned long long)h.hi);
    put_hex64(out + 16, (unsigned long long)h.lo);
    out[TL_HASH_HEX_LEN] = 0;
}

static int get_hex64(const char *s, unsigned long long *v)
{
    unsigned long long x = 0;
    for (int i = 0; i < 16; i++) {
        unsigned c = (unsigned char)s[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else
            return -1; /* lower-case only, as written: anything else is a damaged value */
        x = x << 4 | d;
    }
    *v = x;
    return 0;
}

int tl_hash_from_hexn(const char *hex, size_t len, tl_hash128 *out)
{
    unsigned long long hi, lo;
    if (!hex || len != TL_HASH_HEX_LEN || get_hex64(hex, &hi) != 0 || get_hex64(hex + 16, &lo) != 0)
        return -1;
    out->hi = hi;
    out->lo = lo;
    return 0;
}

int tl_hash_from_hex(const char *hex, tl_hash128 *out)
{
    tl_hash128 h; /* the digits stop at the first non-digit, so nothing past the end is read */
    if (!hex || tl_hash_from_hexn(hex, TL_HASH_HEX_LEN, &h) != 0 || hex[TL_HASH_HEX_LEN] != 0)
        return -1;
    *out = h;
    return 0;
}

int tl_hash_equal(tl_hash128 a, tl_hash128 b)
{
    return a.lo == b.lo && a.hi == b.hi;
}

/* One finished hasher is kept for the next: a warm wrapper run makes three in a row, and each fresh one
 * touched a new page of memory (~1.6 us a page on the hit path). Atomic: the cold path hashes in threads. */
static _Atomic(tl_hasher *) spare;

tl_hasher *tl_hasher_new(void)
{
    tl_hasher *h = atomic_exchange(&spare, NULL);
    if (!h && !(h = aligned_alloc(_Alignof(tl_hasher), sizeof *h))) /* XXH3_state_t is 64-byte aligned */
        return NULL;
    h->streaming = 0;
    h->n = 0;
    return h;
}

static void flush(tl_hasher *h)
{
    if (!h->streaming) {
        XXH3_128bits_reset(&h->st);
        h->streaming = 1;
    }
    if (h->n)
        XXH3_128bits_update(&h->st, h->buf, h->n);
    h->n = 0;
}

void tl_hasher_update(tl_hasher *h, const void *data, size_t len)
{
    if (h->n + len > sizeof h->buf)
        flush(h);
    if (len > sizeof h->buf) {
        XXH3_128bits_update(&h->st, data, len);
        return;
    }
    if (len)
        memcpy(h->buf + h->n, data, len);
    h->n += len;
}

void tl_hasher_update_str(tl_hasher *h, const char *s)
{
    uint64_t n = s ? strlen(s) : UINT64_MAX;
    tl_hasher_update(h, &n, sizeof n);
    if (s)
        tl_hasher_update(h, s, (size_t)n);
}

tl_hash128 tl_hasher_final(tl_hasher *h)
{
    XXH128_hash_t r;
    if (h->streaming) {
        flush(h);
        r = XXH3_128bits_digest(&h->st);
    } else {
        r = XXH3_128bits(h->buf, h->n);
    }
    tl_hasher *none = NULL;
    if (!atomic_compare_exchange_strong(&spare, &none, h))
        free(h);
    return (tl_hash128){ r.low64, r.high64 };
}
