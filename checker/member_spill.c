#include "member_spill.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this a member stays on the heap: a temporary file costs a few system calls and a file descriptor, and
 * most members (Python extension modules) are small. */
#define SPILL_DEFAULT_MB 64u

size_t tlck_spill_threshold(void)
{
    const char *v = getenv("TRUELINE_SPILL_MB");
    if (v && *v) {
        char *end;
        unsigned long long mb = strtoull(v, &end, 10);
        if (*end == '\0' && mb < (unsigned long long)(SIZE_MAX >> 20))
            return (size_t)mb << 20;
    }
    return (size_t)SPILL_DEFAULT_MB << 20;
}

int tlck_spill_open(tl_error *err)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    int fd = -1;
#ifdef O_TMPFILE
    /* Never linked at all: nothing is left behind by a crash. */
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
#endif
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/trueline-member-XXXXXX", dir) >= (int)sizeof path)
        return tl_fail(err, "the temporary directory name is too long: %s", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return tl_fail(err, "cannot create a temporary file in %s for a large member: %s", dir, strerror(errno));
    unlink(path);
    return fd;
}

int tlck_spill_write(int fd, const void *p, size_t n, tl_error *err)
{
    const char *c = p;
    while (n) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return tl_fail(err, "cannot write a large member to a temporary file: %s",
                           k < 0 ? strerror(errno) : "short write");
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

int tlck_spill_map(int fd, size_t len, struct tlck_input_bytes *b, tl_error *err)
{
    void *m = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    int e = errno;
    close(fd);
    if (m == MAP_FAILED)
        return tl_fail(err, "cannot map a large member's temporary file: %s", strerror(e));
    b->map = m;
    b->map_len = len;
    b->data = m ? m : (const unsigned char *)"";
    b->size = len;
    return 0;
}
