/* Helpers shared by the fuzz targets. Readers that take a path (archives, config files, the whole load path) get
 * the input through an anonymous memfd: no disk I/O, nothing left behind, and /proc/self/fd/N opens it afresh
 * (own offset), as a regular file, exactly like a file on disk. */
#ifndef TL_FUZZ_UTIL_H
#define TL_FUZZ_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Reads land here so the compiler cannot drop them; a wrong length then shows up as an ASan report. */
static volatile unsigned char fuzz_sink;
static inline void fuzz_touch(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i += 64)
        fuzz_sink ^= p[i];
    if (n)
        fuzz_sink ^= p[n - 1];
}

struct fuzz_file {
    int fd;
    char path[64];
};

static inline int fuzz_file_open(struct fuzz_file *f, const uint8_t *data, size_t size)
{
    f->fd = memfd_create("tl-fuzz", MFD_CLOEXEC);
    if (f->fd < 0)
        abort(); /* the harness itself is broken: report loudly */
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(f->fd, data + off, size - off);
        if (w <= 0)
            abort();
        off += (size_t)w;
    }
    snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
    return 0;
}

static inline void fuzz_file_close(struct fuzz_file *f)
{
    close(f->fd);
    f->fd = -1;
}

/* Splits the input into up to n parts at the separator "\xff\xfe\xfd\xfc" (seed scripts write it), so one input
 * can carry several sections (e.g. .debug_line and .debug_str) and the fuzzer can mutate each. */
static inline size_t fuzz_split(const uint8_t *data, size_t size, const uint8_t **part, size_t *len, size_t n)
{
    static const uint8_t sep[4] = { 0xff, 0xfe, 0xfd, 0xfc };
    size_t k = 0, start = 0;
    for (size_t i = 0; k + 1 < n && i + 4 <= size; i++) {
        if (memcmp(data + i, sep, 4) == 0) {
            part[k] = data + start;
            len[k++] = i - start;
            start = i + 4;
            i += 3;
        }
    }
    part[k] = data + start;
    len[k++] = size - start;
    for (size_t j = k; j < n; j++) {
        part[j] = data + size;
        len[j] = 0;
    }
    return k;
}

/* Owned, NUL-terminated copy (for APIs that take C strings). */
static inline char *fuzz_strndup(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        abort();
    memcpy(s, data, size);
    s[size] = 0;
    return s;
}

#endif
