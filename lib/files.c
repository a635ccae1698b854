#include "trueline/files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tl_mkdirs(const char *dir, mode_t mode)
{
    char *p = strdup(dir);
    if (!p)
        return -1;
    int rc = 0;
    for (char *s = p + 1; *s && rc == 0; s++)
        if (*s == '/') {
            *s = 0;
            rc = mkdir(p, mode) != 0 && errno != EEXIST ? -1 : 0;
            *s = '/';
        }
    if (rc == 0)
        rc = mkdir(p, mode) != 0 && errno != EEXIST ? -1 : 0;
    int saved = errno;
    free(p);
    errno = saved;
    return rc;
}

int tl_write_all(int fd, const void *p, size_t n)
{
    const unsigned char *s = p;
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}
