#include "trueline/regular_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tl_open_regular(const char *path, size_t max_bytes, tl_error *err)
{
    /* O_NONBLOCK: open(2) of a FIFO without a writer would wait forever before fstat could refuse it */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return tl_fail(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    const char *why = NULL;
    if (fstat(fd, &st) != 0)
        why = strerror(errno);
    else if (S_ISDIR(st.st_mode))
        why = "is a directory, not a file";
    else if (!S_ISREG(st.st_mode))
        why = "is not a regular file (a device, FIFO or socket is never read)";
    if (why) {
        close(fd);
        return tl_fail(err, "%s: %s", path, why);
    }
    if (max_bytes && (unsigned long long)st.st_size > max_bytes) {
        close(fd);
        return tl_fail(err, "%s: is larger than %zu bytes", path, max_bytes);
    }
    /* O_NONBLOCK stays: it changes nothing for a regular file, and clearing it would cost two system calls on
     * every compile that has a configuration file */
    return fd;
}
